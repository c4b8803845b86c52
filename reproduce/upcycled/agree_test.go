package upcycled

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/report"
)

func TestAgreeCriterion(t *testing.T) {
	cases := []struct {
		name          string
		ours          report.Stats
		ref, refStd   float64
		refN          int
		mark          string
		unstable      bool
		agrees, noise bool
	}{
		// The example: 19.8 points off with a huge spread is not ✓.
		{"far but noisy", report.Stats{Mean: 55.1, Std: 14.3, N: 4}, 74.91, 2.67, 4, "✗", true, false, false},
		{"close and within noise", report.Stats{Mean: 97.9, Std: 0.3, N: 4}, 98.06, 0.07, 4, "✓", false, true, true},
		// 0.6 off with both spreads tiny: within the bound, beyond the noise.
		{"close but distinguishable", report.Stats{Mean: 97.46, Std: 0.05, N: 8}, 98.06, 0.07, 4, "≈", false, true, false},
		{"within noise, beyond bound", report.Stats{Mean: 80, Std: 4, N: 4}, 81.5, 1, 4, "✗", true, false, true},
		// Unknown reference spread: only our own noise enters SE.
		{"unknown ref std", report.Stats{Mean: 85.0, Std: 0.2, N: 16}, 85.52, math.NaN(), 0, "≈", false, true, false},
		{"exactly the bound", report.Stats{Mean: 81, Std: 1, N: 4}, 80, 1, 4, "✓", false, true, true},
		{"NaN ours", report.Stats{Mean: math.NaN(), Std: math.NaN(), N: 4}, 80, 1, 4, "✗", false, false, false},
	}
	for _, c := range cases {
		a := Agree(c.ours, c.ref, c.refStd, c.refN)
		if a.Mark != c.mark || a.Unstable != c.unstable || a.Agrees() != c.agrees || a.WithinNoise() != c.noise {
			t.Errorf("%s: got %s (unstable %v, agrees %v, within noise %v, Δ %.2f, SE %.3f); want %s %v %v %v",
				c.name, a.Mark, a.Unstable, a.Agrees(), a.WithinNoise(), a.Delta, a.SE, c.mark, c.unstable, c.agrees, c.noise)
		}
	}
}

// The released code's numbers must load, name known cells, and every
// behaviour must say where upstream does it and where we reproduce it.
func TestUpstreamFile(t *testing.T) {
	u, err := LoadUpstream()
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, m := range paperMethods {
		methods[m] = true
	}
	n := 0
	for _, r := range u.Runs {
		if r.By == "" || r.How == "" {
			t.Errorf("run %s: provenance missing", r.ID)
		}
		for _, c := range r.Cells {
			n++
			if !knownDatasets[c.Dataset] || !methods[c.Method] || (c.Table != "1" && c.Table != "3") {
				t.Errorf("run %s: unknown cell %+v", r.ID, c)
			}
			if !(c.Mean > 0 && c.Mean <= 100) {
				t.Errorf("run %s: %s/%s/%s: accuracy %g is not a percentage", r.ID, c.Dataset, c.Method, c.Variant, c.Mean)
			}
			if len(c.Values) > 0 {
				var s float64
				for _, v := range c.Values {
					s += v
				}
				if !(math.Abs(s/float64(len(c.Values))-c.Mean) <= 0.006) {
					t.Errorf("run %s: %s/%s/%s: mean %g, values average %g", r.ID, c.Dataset, c.Method, c.Variant, c.Mean, s/float64(len(c.Values)))
				}
			}
		}
	}
	if n == 0 {
		t.Error("no measurements")
	}
	for _, b := range u.Behaviours {
		if b.What == "" || b.Where == "" || b.Here == "" {
			t.Errorf("behaviour %s incomplete", b.ID)
		}
	}
	if got := u.Lookup("1", "syn_iid", "feddyn", "baseline"); len(got) == 0 {
		t.Error("the issue's FedDyn Syn(iid) measurement is missing")
	}
}
