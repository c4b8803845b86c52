package accountant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFracMemoReturnsTheComputation checks the process-wide fractional-RDP
// memo: every value poissonGaussianRDP returns — on a miss, on a repeat, and
// after the other fractional series was asked the same (q, σ, α) — has the
// bits of a fresh computation, so memoising cannot move any number. Points
// include the quadrature path (tiny q, large σ).
func TestFracMemoReturnsTheComputation(t *testing.T) {
	fracMemo.reset()
	t.Cleanup(fracMemo.reset)
	rng := rand.New(rand.NewPCG(20, 27))
	type pt struct{ q, sigma, alpha float64 }
	var pts []pt
	for i := 0; i < 60; i++ {
		pts = append(pts, pt{
			q:     math.Pow(10, -5+5*rng.Float64()),
			sigma: math.Pow(10, -0.5+3*rng.Float64()),
			alpha: 1.25 + 60*rng.Float64(),
		})
	}
	pts = append(pts, pt{1e-5, 1e3, 1.5}, pt{0.01, 1.1, 2.5}, pt{0.5, 0.3, 10.5})
	for pass := 0; pass < 2; pass++ { // first misses, then hits
		for _, p := range pts {
			for _, s := range []FractionalSeries{Signed, Absolute} {
				got := poissonGaussianRDP(p.q, p.sigma, p.alpha, s)
				want := fracPoissonGaussianRDP(p.q, p.sigma, p.alpha, s)
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("pass %d, q=%v σ=%v α=%v %s: memo gave %v, computation %v", pass, p.q, p.sigma, p.alpha, s, got, want)
				}
			}
		}
	}
}

// TestFracMemoBounded checks that the memo never holds more than its cap.
func TestFracMemoBounded(t *testing.T) {
	m := rdpValueMemo[int]{cap: 8}
	for i := 0; i < 100; i++ {
		m.put(i, float64(i))
		if n := len(m.m); n > 8 {
			t.Fatalf("memo holds %d entries, cap 8", n)
		}
		if v, ok := m.get(i); !ok || v != float64(i) {
			t.Fatalf("entry %d just stored: %v, %v", i, v, ok)
		}
	}
}
