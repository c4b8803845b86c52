package attack

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestRowJSONRoundTrip(t *testing.T) {
	in := Row{Paper: "p", ID: "a", Claimed: 8, Accountant: math.Inf(1), AccountantTrial: 3, EpsLB: 2.5, Mu: math.NaN(),
		MuLo: math.NaN(), MuHi: math.NaN(), EpsGDPLo: math.Inf(-1), Trials: 10, Note: "n"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Row
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	if !same(out.Accountant, in.Accountant) || !same(out.Mu, in.Mu) || !same(out.EpsGDPLo, in.EpsGDPLo) ||
		out.EpsLB != in.EpsLB || out.Trials != in.Trials || out.ID != in.ID || out.Note != in.Note {
		t.Fatalf("round trip changed the row:\n in  %+v\n out %+v", in, out)
	}
	if err := json.Unmarshal([]byte(`{"id":"a","eps_lbb":1}`), &out); err == nil || !strings.Contains(err.Error(), `unknown key "eps_lbb"`) {
		t.Fatalf("an unknown key must be refused, got %v", err)
	}
}

// Every recording in golden/attack parses, names its paper and scale, and
// keeps the soundness invariant the smoke tests gate: no ε_lb above the
// accountant's bound for what a trial observes.
func TestRecordingsReadable(t *testing.T) {
	for _, paper := range []string{"haar", "normec", "upcycled"} {
		rec, ok, err := Recorded(paper, Default)
		if err != nil || !ok {
			t.Fatalf("%s: recorded=%v err=%v", paper, ok, err)
		}
		if len(rec.Rows) == 0 {
			t.Fatalf("%s: no rows", paper)
		}
		for _, r := range rec.Rows {
			if r.Skipped != "" {
				continue
			}
			if !(r.EpsLB <= r.AccountantTrial) {
				t.Errorf("%s %s: ε_lb %g above the accountant's %g for one trial", paper, r.ID, r.EpsLB, r.AccountantTrial)
			}
			if r.Refutes != (r.EpsLB > r.Claimed) {
				t.Errorf("%s %s: refutes=%v but ε_lb %g vs claimed %g", paper, r.ID, r.Refutes, r.EpsLB, r.Claimed)
			}
		}
	}
	if _, ok, err := Recorded("fedddpm", Default); ok || err != nil {
		t.Fatalf("fedddpm has no recording: ok=%v err=%v", ok, err)
	}
}
