package linalg

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestAddScaledProductMatchesGonum checks AddScaledProduct against what it
// replaces, floats.ScaleTo then floats.AddScaled, bit for bit, on every
// length up to 40 (the 16-, 4- and 1-wide parts of the AVX2 kernel), with
// zeros of both signs and non-finite entries.
func TestAddScaledProductMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 4))
	for n := 0; n <= 40; n++ {
		for rep := 0; rep < 5; rep++ {
			a := fill(r, 1, n+1, n+1, rep == 4, 0.33).Data[:n]
			dst := fill(r, 1, n+1, n+1, false, 0.33).Data[:n]
			d, f := r.NormFloat64(), r.Float64()
			want := append([]float64(nil), dst...)
			g := make([]float64, n)
			floats.ScaleTo(g, d, a)
			floats.AddScaled(want, f, g)
			got := append([]float64(nil), dst...)
			AddScaledProduct(got, a, d, f)
			compare(t, "AddScaledProduct", got, want)
		}
	}
}
