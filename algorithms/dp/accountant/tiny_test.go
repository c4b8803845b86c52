package accountant

import (
	"math"
	"testing"
)

// TestCalibrateFlatFloor: a target below every positive ε (1e-300) is met
// only where the accountant's ε reaches its floor 0, where ε(σ) is flat.
// The search must still return the smallest such σ to 1e-5 and must do
// so by bisection, not by regula falsi creeping 1% of the bracket per
// evaluation: it is held to the evaluations a bracket from σ = 1 plus
// bisection to 1e-5 need (the creeping search took 86 under RDP).
func TestCalibrateFlatFloor(t *testing.T) {
	for _, c := range []struct {
		name     string
		cfg      Config
		maxEvals int
	}{
		{"rdp", Config{Kind: KindRDP}, 45},
		{"exact", Config{Kind: KindExact}, 45},
	} {
		evals := 0
		build := func(s float64) Event {
			evals++
			return SelfComposed{Event: Gaussian{Sigma: s}, Count: 24}
		}
		s, err := Calibrate(build, 1e-300, 1e-5, c.cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := evals
		if e, _, err := c.cfg.Epsilon(build(s), 1e-5); err != nil || e > 1e-300 {
			t.Errorf("%s: σ = %g gives ε = %g (%v), want ≤ 1e-300", c.name, s, e, err)
		}
		if e, _, err := c.cfg.Epsilon(build(s*(1-1e-4)), 1e-5); err != nil || !(e > 1e-300) {
			t.Errorf("%s: σ·(1 − 1e-4) = %g already gives ε = %g (%v): not the smallest σ", c.name, s*(1-1e-4), e, err)
		}
		t.Logf("%s: σ = %g after %d evaluations", c.name, s, n)
		if n > c.maxEvals {
			t.Errorf("%s: %d evaluations of the event, want ≤ %d (the search creeps on the flat floor)", c.name, n, c.maxEvals)
		}
	}
}

// TestLaplaceTinyScale: below the scale where the quadrature keeps its
// precision within laplaceMaxPanels panels, the RDP of the sampled
// Laplace is the amplified pure ε (a valid bound: RDP ≤ ε for ε-DP), not
// +Inf and not a quadrature past its precision; just above that scale
// the quadrature's value lies below the pure bound, so the switch only
// ever loosens towards a valid bound.
func TestLaplaceTinyScale(t *testing.T) {
	for _, c := range []struct{ q, b float64 }{{0.5, 1e-5}, {0.01, 1e-300}, {1e-4, 1e-3}} {
		pure := poissonLaplacePure(c.q, 1/c.b)
		for _, a := range DefaultOrders() {
			if laplaceQuadPanels(a, c.b) <= laplaceMaxPanels {
				continue
			}
			if v := poissonLaplaceRDP(c.q, c.b, a); v != pure {
				t.Errorf("q=%v b=%v α=%v: %v, want the pure bound %v", c.q, c.b, a, v, pure)
			}
		}
	}
	for _, a := range []float64{1.5, 10, 63} {
		// The smallest scale the quadrature still handles at this order.
		b := (2*a + 1) / (5 * (laplaceMaxPanels - 2))
		for _, q := range []float64{0.01, 0.5} {
			v, pure := poissonLaplaceRDP(q, b, a), poissonLaplacePure(q, 1/b)
			if !(v >= 0 && v <= pure*(1+1e-12)) {
				t.Errorf("q=%v b=%.4g α=%v: quadrature %v outside [0, pure %v]", q, b, a, v, pure)
			}
		}
	}
	e := SelfComposed{Event: PoissonSampled{Q: 0.5, Event: Laplace{Scale: 1e-5}}, Count: 24}
	eps, _, err := Config{Kind: KindRDP}.Epsilon(e, 1e-5)
	want := 24 * poissonLaplacePure(0.5, 1e5)
	if err != nil || !(math.Abs(eps/want-1) < 1e-6) {
		t.Errorf("24 steps at b = 1e-5: ε = %v (%v), want finite, the composed pure %v plus the conversion's slack", eps, err, want)
	}
}
