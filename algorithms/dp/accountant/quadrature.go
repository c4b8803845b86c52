package accountant

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// Fixed-order Gauss–Legendre quadrature in log space, used where a
// closed form or series loses precision (subsampled RDP far from the
// usual regime, subsampled Laplace at fractional orders). The integrands
// are analytic on each panel, so 20 nodes per panel reach double
// precision long before the panel width matters.

const glOrder = 20

// glX, glW are the Gauss–Legendre nodes and weights on [−1, 1].
var glX, glW = func() ([]float64, []float64) {
	x, w := make([]float64, glOrder), make([]float64, glOrder)
	quad.Legendre{}.FixedLocations(x, w, -1, 1)
	return x, w
}()

// logIntegral returns log ∫_a^b e^{lf(x)} dx on `panels` equal panels.
// lf is the log of a non-negative integrand (−Inf where it vanishes);
// the sum is scaled by the largest value at the nodes, so integrands far
// beyond the double range are fine. It returns −Inf for a zero integral.
func logIntegral(lf func(float64) float64, a, b float64, panels int) float64 {
	if panels < 1 {
		panels = 1
	}
	n := panels * glOrder
	vals := make([]float64, n)
	h := (b - a) / float64(panels)
	m := math.Inf(-1)
	for p := 0; p < panels; p++ {
		c := a + (float64(p)+0.5)*h
		for i, x := range glX {
			v := lf(c + 0.5*h*x)
			vals[p*glOrder+i] = v
			if v > m {
				m = v
			}
		}
	}
	if math.IsInf(m, -1) || math.IsNaN(m) {
		return m
	}
	s := 0.0
	for p := 0; p < panels; p++ {
		for i, w := range glW {
			s += w * math.Exp(vals[p*glOrder+i]-m)
		}
	}
	return m + math.Log(0.5*h*s)
}
