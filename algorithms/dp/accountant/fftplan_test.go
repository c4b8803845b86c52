package accountant

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// TestFFTPlanReuseSameBits checks what sharing plans relies on: a plan
// from getFFT that has transformed other sequences before gives the bits
// of a freshly built plan, forwards and backwards, at the sizes fftSize
// picks (2^k and 3·2^k).
func TestFFTPlanReuseSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 29))
	for _, n := range []int{1, 2, 3, 12, 64, 96, 1 << 12, 3 << 11} {
		seq := func() []float64 {
			s := make([]float64, n)
			for i := range s {
				s[i] = rng.ExpFloat64()
			}
			return s
		}
		for round := 0; round < 3; round++ {
			x := seq()
			f := getFFT(n)
			f.Coefficients(nil, seq()) // dirty the scratch
			f.Sequence(nil, f.Coefficients(nil, seq()))
			got := f.Coefficients(nil, x)
			back := f.Sequence(nil, got)
			putFFT(f)
			g := fourier.NewFFT(n)
			want := g.Coefficients(nil, x)
			wantBack := g.Sequence(nil, want)
			for i := range want {
				if math.Float64bits(real(got[i])) != math.Float64bits(real(want[i])) || math.Float64bits(imag(got[i])) != math.Float64bits(imag(want[i])) {
					t.Fatalf("n=%d round %d: coefficient %d is %v, fresh plan %v", n, round, i, got[i], want[i])
				}
			}
			for i := range wantBack {
				if math.Float64bits(back[i]) != math.Float64bits(wantBack[i]) {
					t.Fatalf("n=%d round %d: sequence %d is %v, fresh plan %v", n, round, i, back[i], wantBack[i])
				}
			}
		}
	}
}
