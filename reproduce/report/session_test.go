package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/proofs"
)

// TestSessionCache: within a session with a cache folder, a claim or an
// audit computed once is read back (the check is not called again); a
// claim that reads a dataset is always recomputed; an audit is recomputed
// when its data directory changes (a dataset arriving must not be hidden
// by a table cached from the stand-in).
func TestSessionCache(t *testing.T) {
	if codeID() == "" {
		t.Skip("the test executable cannot be read, so nothing is cached")
	}
	end := Begin(nil, t.TempDir(), nil)
	defer end()

	calls := map[string]int{}
	claim := func(id string, needs ...string) proofs.Claim {
		return proofs.Claim{ID: "cachetest/" + id, Paper: "cachetest", Needs: needs,
			Check: func(proofs.Config) proofs.Result {
				calls[id]++
				return proofs.Result{Verdict: proofs.Holds, Evidence: "e"}
			}}
	}
	for range 3 {
		runClaim(claim("pure"), 1)
		runClaim(claim("reads-data", "upcycled-synthetic"), 1)
	}
	runClaim(claim("pure"), 2) // another seed is another key
	if calls["pure"] != 2 || calls["reads-data"] != 3 {
		t.Errorf("claim checks called %v, want pure 2 (seeds 1 and 2), reads-data 3 (never cached)", calls)
	}

	// Audits: audit.Run memoises within a process, so the disk cache is
	// checked through cached with runAudit's key parts, and dirState by the
	// events that must change it.
	data := filepath.Join(t.TempDir(), "data")
	var states []string
	state := func(what string) {
		t.Helper()
		s := dirState(data)
		for i, old := range states {
			if old == s {
				t.Fatalf("%s: data state equals the one after step %d", what, i)
			}
		}
		if dirState(data) != s {
			t.Fatalf("%s: dirState not stable", what)
		}
		states = append(states, s)
	}
	state("absent")
	if err := os.MkdirAll(filepath.Join(data, "synthetic_iid"), 0o755); err != nil {
		t.Fatal(err)
	}
	state("directory appeared")
	if err := os.WriteFile(filepath.Join(data, "synthetic_iid", "train.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	state("a data file appeared")
	if err := os.WriteFile(filepath.Join(data, "synthetic_iid", "train.json"), []byte("{\"x\": 1}"), 0o644); err != nil {
		t.Fatal(err)
	}
	state("a data file replaced")
	for _, s := range append(states, states...) {
		if _, err := cached("audits", func() (audit.Table, error) {
			calls["audit"]++
			return audit.Table{ID: "a"}, nil
		}, "cachetest", "a", audit.Options{Seed: 1, DataDir: data}, s); err != nil {
			t.Fatal(err)
		}
	}
	if calls["audit"] != len(states) {
		t.Errorf("audit computed %d times for %d data states (each twice), want once per state", calls["audit"], len(states))
	}
}
