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

// logIntegralSkip is logIntegral for a log-integrand that changes by at
// most maxChange across any one of the `panels` equal panels (a
// Lipschitz bound the caller knows, usually far above the actual change).
// It first evaluates lf at the panel ends, then
//   - skips the panels whose ends are both more than maxChange + 50 below
//     the largest end: every node of such a panel is more than 50 below
//     the integrand's maximum, so together they hold less than
//     panels·e^{−50} (< 1e-18 at 4,000 panels) of the integral, below
//     double precision;
//   - merges runs of consecutive kept panels whose ends all lie within
//     mergeRange of each other (at most 64 panels a run) into one panel:
//     there the log-integrand is nearly flat, the 20-point rule on the
//     merged panel is as exact as on the pieces (TestLogIntegralSkip
//     compares the two over random Laplace orders and scales).
//
// Where the bound is loose or the integrand sharply peaked, as the
// subsampled Laplace's is at small scales, this evaluates a few hundred
// nodes instead of tens of thousands.
func logIntegralSkip(lf func(float64) float64, a, b float64, panels int, maxChange float64) float64 {
	if panels <= 8 {
		return logIntegral(lf, a, b, panels)
	}
	h := (b - a) / float64(panels)
	ends := make([]float64, panels+1)
	top := math.Inf(-1)
	for i := range ends {
		ends[i] = lf(a + float64(i)*h)
		if math.IsNaN(ends[i]) {
			return logIntegral(lf, a, b, panels)
		}
		top = math.Max(top, ends[i])
	}
	if math.IsInf(top, -1) {
		return logIntegral(lf, a, b, panels)
	}
	cut := top - maxChange - 50
	var vals, ws []float64
	m := math.Inf(-1)
	for p := 0; p < panels; {
		if math.Max(ends[p], ends[p+1]) < cut {
			p++
			continue
		}
		// Extend the run [p, r) while every end stays within mergeRange.
		lo, hi := math.Min(ends[p], ends[p+1]), math.Max(ends[p], ends[p+1])
		r := p + 1
		for r < panels && r-p < 64 {
			nlo, nhi := math.Min(lo, ends[r+1]), math.Max(hi, ends[r+1])
			if nhi-nlo > mergeRange || math.IsInf(nlo, -1) {
				break
			}
			lo, hi, r = nlo, nhi, r+1
		}
		if hi-lo > mergeRange {
			r = p + 1 // a single panel is never merged, whatever its ends
		}
		x0, w := a+float64(p)*h, float64(r-p)*h
		for i, x := range glX {
			v := lf(x0 + 0.5*w*(x+1))
			vals = append(vals, v)
			ws = append(ws, 0.5*w*glW[i])
			m = math.Max(m, v)
		}
		p = r
	}
	if math.IsInf(m, -1) || math.IsNaN(m) {
		return m
	}
	s := 0.0
	for k, v := range vals {
		s += ws[k] * math.Exp(v-m)
	}
	return m + math.Log(s)
}

// mergeRange is how far apart (in log) the panel ends of a run merged by
// logIntegralSkip may be.
const mergeRange = 2.0

// Gauss–Kronrod 7–15 rule on [−1, 1] (the nodes of the 7-point Gauss rule
// are the odd-indexed Kronrod nodes), for adaptive integration.
var (
	gkX = [8]float64{
		0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
		0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
		0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
		0.207784955007898467600689403773245, 0,
	}
	gkW = [8]float64{
		0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
		0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
		0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
		0.204432940075298892414161999234649, 0.209482141084727828012999174891714,
	}
	gW = [4]float64{
		0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
		0.381830050505118944950369775488975, 0.417959183673469387755102040816327,
	}
)

// gk15 returns the Kronrod estimate of ∫_a^b f and its difference from the
// embedded 7-point Gauss estimate.
func gk15(f func(float64) float64, a, b float64) (k, errEst float64) {
	c, h := 0.5*(a+b), 0.5*(b-a)
	fc := f(c)
	k = gkW[7] * fc
	g := gW[3] * fc
	for i := 0; i < 7; i++ {
		s := f(c-h*gkX[i]) + f(c+h*gkX[i])
		k += gkW[i] * s
		if i%2 == 1 {
			g += gW[i/2] * s
		}
	}
	return h * k, math.Abs(h * (k - g))
}

// adaptiveIntegral returns ∫_a^b f by adaptive Gauss–Kronrod 7–15 on an
// initial partition of `panels` equal panels (each also split at the
// given cut points inside (a, b)), bisecting any panel whose error
// estimate exceeds tol·width/(b−a), to at most 20000 panels.
func adaptiveIntegral(f func(float64) float64, a, b float64, panels int, cuts []float64, tol float64) float64 {
	if !(b > a) {
		return 0
	}
	type seg struct{ a, b float64 }
	var stack []seg
	pts := []float64{a}
	for _, c := range cuts {
		if c > a && c < b {
			pts = append(pts, c)
		}
	}
	pts = append(pts, b)
	for k := 0; k+1 < len(pts); k++ {
		w := (pts[k+1] - pts[k]) / float64(panels)
		for p := 0; p < panels; p++ {
			stack = append(stack, seg{pts[k] + float64(p)*w, pts[k] + float64(p+1)*w})
		}
	}
	total, width := 0.0, b-a
	for n := 0; len(stack) > 0; n++ {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v, e := gk15(f, s.a, s.b)
		if e > tol*(s.b-s.a)/width && n < 20000 && s.b-s.a > 1e-12*width {
			m := 0.5 * (s.a + s.b)
			stack = append(stack, seg{m, s.b}, seg{s.a, m})
			continue
		}
		total += v
	}
	return total
}
