package accountant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gridEpsilonReference is gridEpsilon as first written, with one
// exponential per grid point: the reference for its bits.
func gridEpsilonReference(p []float64, inf, target, h float64, loss, lowerLoss func(i int) float64) float64 {
	if inf >= target {
		return math.Inf(1)
	}
	var P, E float64
	shrink := math.Exp(-h)
	for i := len(p) - 1; i >= 0; i-- {
		l := loss(i)
		if l <= 0 {
			break
		}
		P += p[i]
		E += p[i]
		lower := 0.0
		if i > 0 {
			lower = math.Max(0, lowerLoss(i))
		}
		if inf+P-math.Exp(lower-l)*E >= target {
			e := l + math.Log((inf+P-target)/E)
			return math.Min(l, math.Max(lower, e))
		}
		E *= shrink
	}
	return 0
}

// TestGridEpsilonSameBits checks that gridEpsilon, which reuses e^{lower−l}
// while its argument's bits repeat, returns the reference's bits on the
// grids of both callers: PLD's (lo+i)·Δ and PRV's t0 + j·h, over random
// grids, offsets, masses and targets (roots near 0, mid-grid and at the
// top, and none).
func TestGridEpsilonSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 37))
	for k := 0; k < 400; k++ {
		n := 1 + rng.IntN(3000)
		p := make([]float64, n)
		for i := range p {
			p[i] = rng.ExpFloat64() * math.Pow(10, -12*rng.Float64())
		}
		h := math.Pow(10, -4+3*rng.Float64())
		inf := 0.0
		if rng.IntN(3) == 0 {
			inf = math.Pow(10, -12*rng.Float64())
		}
		lo := rng.IntN(2*n) - n
		t0 := (rng.Float64() - 0.5) * float64(n) * h
		grids := []struct{ loss, lower func(int) float64 }{
			{func(i int) float64 { return float64(lo+i) * h }, func(i int) float64 { return float64(lo+i-1) * h }},
			{func(j int) float64 { return t0 + float64(j)*h }, func(j int) float64 { return t0 + float64(j)*h - h }},
		}
		for _, g := range grids {
			for _, target := range []float64{1e-12, 1e-8, 1e-5, 1e-3, 0.5, inf / 2, inf * 2} {
				got := gridEpsilon(p, inf, target, h, g.loss, g.lower)
				want := gridEpsilonReference(p, inf, target, h, g.loss, g.lower)
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n=%d h=%v inf=%v target=%v: %v, reference %v", n, h, inf, target, got, want)
				}
			}
		}
	}
}
