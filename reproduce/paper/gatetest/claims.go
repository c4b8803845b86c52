package gatetest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
)

// Claims is the claim gate: it checks every registered claim of the named
// paper, each as a subtest, against golden/<paper>/claims.yaml — the
// verdict of every claim and, in full mode (without -short), every named
// value behind it (Result.Values), exactly: bit for bit on the platform the
// file was recorded on, within the gate's foreign-platform tolerance
// elsewhere. Quick mode (-short) checks verdicts only.
//
// A refuted claim is a finding, not a failure: the test fails only when a
// verdict or a value differs from the recorded one, when a claim has no
// record, or when the file names a claim that no longer exists. With
// -update (make golden) it re-records the file and logs what changed.
func Claims(t *testing.T, paper string) {
	t.Helper()
	claims := proofs.Claims(paper)
	if len(claims) == 0 {
		t.Fatalf("no claims registered for paper %q", paper)
	}
	root := Root(t)
	path := gate.ClaimsPath(filepath.Join(root, "golden"), paper)
	want, err := gate.ReadClaims(path)
	if err != nil && !*update {
		t.Fatalf("%v (run `go test ./reproduce/%s -run TestClaims -update` to record verdicts)", err, paper)
	}
	got := map[string]gate.Expected{}
	cfg := proofs.Config{Seed: proofs.DefaultSeed, Quick: testing.Short()}
	tol, note := 0.0, ""
	if want != nil {
		tol, note = gate.TolFor(want.Platform)
	}
	missing := missingData(root)
	for _, c := range claims {
		c := c
		t.Run(c.ID, func(t *testing.T) {
			for _, d := range c.Needs {
				if why, ok := missing[d]; ok {
					if want != nil {
						got[c.ID] = want.Claims[c.ID] // keep the record on -update
					}
					msg := fmt.Sprintf("%s reads %s, which this machine lacks: %s", c.ID, d, why)
					if os.Getenv("CI") == "true" {
						t.Fatal(msg)
					}
					t.Skip(msg)
				}
			}
			res := proofs.RunShared(c, cfg)
			out := gate.Outcome(res)
			got[c.ID] = out
			if *update {
				return
			}
			t.Logf("%s: %s — %s", c.ID, res.Verdict, res.Evidence)
			w, ok := want.Claims[c.ID]
			switch {
			case !ok:
				t.Errorf("claim %s has no record in %s (computed %s)", c.ID, path, res.Verdict)
				return
			case w.Verdict != res.Verdict:
				t.Errorf("claim %s: verdict changed from %s to %s\nevidence: %s\nreplay: seed %d, quick=%v", c.ID, w.Verdict, res.Verdict, res.Evidence, cfg.Seed, cfg.Quick)
			}
			if cfg.Quick {
				return // the recorded values are those of a full run
			}
			if d := gate.CompareNamed(w.Named(), out.Named(), tol); len(d) > 0 {
				t.Errorf("claim %s: %d named values differ from %s (%s):\n%s", c.ID, len(d), path, note, gate.NamedTable(d, 30))
			}
		})
	}
	if *update {
		if cfg.Quick {
			t.Fatal("record claims from a full run: drop -short")
		}
		if err := gate.WriteClaims(path, paper, got); err != nil {
			t.Fatal(err)
		}
		if want != nil {
			logClaimChanges(t, want.Claims, got)
		}
		return
	}
	for id := range want.Claims {
		if _, ok := got[id]; !ok {
			t.Errorf("%s records claim %s, which is no longer registered", path, id)
		}
	}
}

// missingData maps each dataset claims may read that is not available here
// to the one line that names it and the fix (reproduce/datasets), looking
// where the repository keeps them: <root>/../shared and <root>/.cache.
func missingData(root string) map[string]string {
	out := map[string]string{}
	for _, e := range []datasets.Entry{
		datasets.Upcycled(filepath.Join(root, "..", "shared"), filepath.Join(root, ".cache")),
		datasets.FashionMNIST(""),
	} {
		if e.Status != datasets.OK {
			out[e.Name] = e.Line()
		}
	}
	return out
}

// logClaimChanges reports, for the reviewer of `make golden`, which claims
// changed verdict or values.
func logClaimChanges(t *testing.T, old, now map[string]gate.Expected) {
	var ids []string
	for id := range now {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	changed := 0
	for _, id := range ids {
		o, ok := old[id]
		switch {
		case !ok:
			t.Logf("new claim %s: %s", id, now[id].Verdict)
			changed++
		case o.Verdict != now[id].Verdict:
			t.Logf("claim %s: verdict %s → %s", id, o.Verdict, now[id].Verdict)
			changed++
		default:
			if d := gate.CompareNamed(o.Named(), now[id].Named(), 0); len(d) > 0 {
				t.Logf("claim %s: %d values changed:\n%s", id, len(d), gate.NamedTable(d, 20))
				changed++
			}
		}
	}
	t.Logf("%d of %d claims changed", changed, len(ids))
}
