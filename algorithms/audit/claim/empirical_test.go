package claim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMixerSameBitsAsLogMix checks that the games' inner-loop form of
// logMix returns logMix's bits: over random γ and operands on the scales
// the Gaussian and Laplace games produce, and at the edges (γ at 0, 1 and
// next to them, ±0, ±∞, NaN, equal exponents).
func TestMixerSameBitsAsLogMix(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 31))
	gammas := []float64{0, 1, 0.5, 1e-300, math.Nextafter(1, 0), 5e-324}
	for i := 0; i < 200; i++ {
		gammas = append(gammas, math.Pow(10, -8*rng.Float64()))
	}
	edge := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 745, -745, 1e300, -1e300}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	n := 0
	for _, g := range gammas {
		m := newMixer(g)
		ops := append([]float64(nil), edge...)
		for k := 0; k < 50; k++ {
			ops = append(ops, rng.NormFloat64()*math.Pow(10, 4*rng.Float64()-2))
		}
		ops = append(ops, m.l1-m.lg) // x = y when a = 0
		for _, a := range ops {
			for _, b := range ops {
				n++
				if got, want := m.mix(a, b), logMix(g, a, b); !same(got, want) {
					t.Fatalf("γ=%v a=%v b=%v: mixer %v (%x), logMix %v (%x)", g, a, b, got, math.Float64bits(got), want, math.Float64bits(want))
				}
			}
		}
	}
	t.Logf("%d triples", n)
}
