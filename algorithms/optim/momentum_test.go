package optim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// SGD's plain-momentum step through momentumAVX2 must equal the Go loop bit
// for bit: every length mod 4 (the tail stays in Go), several steps (the
// first copies the gradient into the buffer, later ones use it), gradients
// with ±0, subnormals, huge values, ±Inf and NaN, for each mode that takes
// the fast path. Skipped where the kernel is not built or the CPU lacks AVX2.
func TestMomentumAVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel in this build or on this CPU")
	}
	defer setAVX2(true)
	special := []float64{0, math.Copysign(0, -1), 5e-324, -1e308, 1e308, math.Inf(1), math.Inf(-1), math.NaN()}
	r := rand.New(rand.NewPCG(1, 2))
	for _, mode := range []Mode{ModeGradient, ModeUpstreamBuffer, ModeDecoupled} {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 122, 1001} {
			t.Run(fmt.Sprintf("%v/n%d", mode, n), func(t *testing.T) {
				p0 := make([]float64, n)
				for j := range p0 {
					p0[j] = r.NormFloat64()
				}
				grads := make([][]float64, 4)
				for s := range grads {
					grads[s] = make([]float64, n)
					for j := range grads[s] {
						grads[s][j] = r.NormFloat64() * math.Pow(10, float64(r.IntN(9)-4))
						if r.IntN(10) == 0 {
							grads[s][j] = special[r.IntN(len(special))]
						}
					}
				}
				run := func(avx bool) ([]float64, []float64) {
					setAVX2(avx)
					o := &SGD{LR: 0.05, Momentum: 0.9, Mode: mode}
					p := append([]float64(nil), p0...)
					for _, g := range grads {
						o.Step(p, g)
					}
					return p, append([]float64(nil), o.Buffer()...)
				}
				wantP, wantB := run(false)
				gotP, gotB := run(true)
				for j := range wantP {
					if math.Float64bits(gotP[j]) != math.Float64bits(wantP[j]) || math.Float64bits(gotB[j]) != math.Float64bits(wantB[j]) {
						t.Fatalf("element %d: AVX2 p %v buf %v, Go p %v buf %v", j, gotP[j], gotB[j], wantP[j], wantB[j])
					}
				}
			})
		}
	}
}

// BenchmarkMomentumStep times SGD's plain-momentum step at Upcycled-FL's
// size (122 parameters: two-class logistic regression on 60 features) and
// at 160k, with the AVX2 kernel and with the Go loop.
func BenchmarkMomentumStep(b *testing.B) {
	for _, n := range []int{122, 160_000} {
		for _, kernel := range []string{"go", "avx2"} {
			if kernel == "avx2" && !useAVX2 {
				continue
			}
			b.Run(fmt.Sprintf("n%d-%s", n, kernel), func(b *testing.B) {
				defer setAVX2(true)
				setAVX2(kernel == "avx2")
				o := &SGD{LR: 0.05, Momentum: 0.5}
				p, g := make([]float64, n), make([]float64, n)
				for j := range g {
					g[j] = 1e-3 * float64(j%11)
				}
				o.Step(p, g)
				for b.Loop() {
					o.Step(p, g)
				}
			})
		}
	}
}
