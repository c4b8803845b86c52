package claim

import (
	"math"
	"strings"
	"testing"
)

// TestWorkCap: Options.WorkPoints reaches the PLD and PRV accountants. A
// small cap makes them coarsen their grids or raise their ε error (each
// row says so) or fall back to the RDP bound (shown in the row, marked,
// and kept out of the tightest and loosest bounds; a value the cap
// loosened is never the loosest bound either); the capped bounds are
// never tighter than the uncapped ones, since a cap only loosens a valid
// bound; and the default cap is the CLI's.
func TestWorkCap(t *testing.T) {
	if DefaultWorkPoints != 1<<20 {
		t.Errorf("DefaultWorkPoints = %d, want the CLI's 2^20", DefaultWorkPoints)
	}
	body := "unit: example\nneighbouring: add-remove\ndelta: 1e-5\nclaimed_epsilon: 1\nmechanism: gaussian\nnoise: {multiplier: 1}\nsampling: {kind: poisson, q: 0.01}\nsteps: 1000\n"
	o := Options{NoEmpirical: true, NoCalibration: true}
	free := auditOf(t, body, Options{NoEmpirical: true, NoCalibration: true, WorkPoints: -1}).Cases[0].Readings[0]
	for _, wp := range []int{1 << 10, 1 << 12} {
		o.WorkPoints = wp
		r := auditOf(t, body, o).Cases[0].Readings[0]
		capped := 0
		for _, m := range []string{MPLD, MPRV} {
			e, f := r.Method(m), free.Method(m)
			if e == nil || e.Epsilon == nil || f == nil || f.Epsilon == nil {
				t.Fatalf("cap %d: %s: no value (%+v, uncapped %+v)", wp, m, e, f)
			}
			if strings.Contains(e.Note, "work cap") {
				capped++
			}
			if *e.Epsilon < *f.Epsilon*(1-1e-12) {
				t.Errorf("cap %d: %s %.6g below the uncapped %.6g", wp, m, *e.Epsilon, *f.Epsilon)
			}
			if strings.Contains(e.Note, "not used for the tightest") && (r.Upper.Method == m || r.Loosest.Method == m) {
				t.Errorf("cap %d: %s's fallback value is the headline bound: %+v %+v", wp, m, r.Upper, r.Loosest)
			}
		}
		if l := r.Method(r.Loosest.Method); l != nil && strings.Contains(l.Note, "work cap") {
			t.Errorf("cap %d: the loosest bound (the conservative yardstick) is a cap-loosened value: %s %q", wp, r.Loosest.Method, l.Note)
		}
		if capped == 0 {
			t.Errorf("cap %d: neither PLD nor PRV says the work cap changed it: %q / %q", wp, r.Method(MPLD).Note, r.Method(MPRV).Note)
		}
		if r.Upper.Epsilon < free.Upper.Epsilon*(1-1e-12) || math.IsNaN(r.Upper.Epsilon) {
			t.Errorf("cap %d: tightest bound %.6g below the uncapped %.6g", wp, r.Upper.Epsilon, free.Upper.Epsilon)
		}
	}
	for _, m := range []string{MPLD, MPRV} {
		if n := free.Method(m).Note; strings.Contains(n, "work cap") {
			t.Errorf("uncapped %s: %q", m, n)
		}
	}
}
