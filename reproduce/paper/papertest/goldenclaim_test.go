package papertest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/proofs/prooftest"
	"github.com/fedrepro/fedrepro/reproduce/gate"
)

// TestGoldenClaimRoundTrip: every claim golden read back by
// GoldenClaimReport flattens to exactly the values stored — no key lost,
// none added, every number and label bit for bit — so an equivalence test
// reading a report from here sees what claims' TestGolden pinned.
func TestGoldenClaimRoundTrip(t *testing.T) {
	root, err := prooftest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "golden", "claims", "*.json"))
	if len(files) < 10 {
		t.Fatalf("%d claim goldens found, want the library's (≥ 10)", len(files))
	}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(id, func(t *testing.T) {
			g, err := gate.ReadAudits(f)
			if err != nil {
				t.Fatal(err)
			}
			rep, tol := GoldenClaimReport(t, id)
			if tol != 0 && g.Platform == gate.Platform() {
				t.Errorf("tolerance %g on the recording platform", tol)
			}
			if diffs := gate.CompareNamed(g.Values, gate.Flatten("", rep), 0); len(diffs) > 0 {
				t.Errorf("%d values differ after the round trip:\n%s", len(diffs), gate.NamedTable(diffs, 20))
			}
		})
	}
}

// TestUnflattenRefuses: a path the report type cannot hold, or a label
// where a flag was written, is an error, not a silently dropped value.
func TestUnflattenRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    gate.Named
	}{
		{"unknown field", gate.Named{Strings: map[string]string{"cases/0/no_such_field": "x"}}},
		{"index that is not a number", gate.Named{Strings: map[string]string{"cases/first/case": "x"}}},
		{"label where a flag belongs", gate.Named{Strings: map[string]string{"cases/0/readings/0/relation_differs": "yes"}}},
		{"object where a number belongs", gate.Named{Numbers: map[string]float64{"cases/0/claimed_epsilon/x": 1}}},
	} {
		var rep claim.Report
		if err := Unflatten(tc.n, &rep); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
