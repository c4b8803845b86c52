// Package dp holds the differential-privacy primitives the paper packages
// share: L2 clipping of one vector and of every row of a per-example gradient
// matrix, Gaussian and Laplace noise, and the objective-perturbation noise of
// Chaudhuri et al. (density ∝ exp(−α‖n‖₂)) used by Upcycled-FL Thm 6.3.
//
// Every function that draws randomness takes the *rand.Rand to draw from, so
// callers decide which named stream (algorithms/rng) the bits come from; the
// package keeps no random state of its own. Accounting (how much privacy the
// noise buys) lives in the subpackage accountant.
package dp

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Norm2 returns the Euclidean norm of v without overflow or underflow for
// extreme entries (it rescales by the largest magnitude, as BLAS nrm2 does).
func Norm2(v []float64) float64 {
	var scale, ssq float64 = 0, 1
	for _, x := range v {
		if x == 0 {
			continue
		}
		a := math.Abs(x)
		if math.IsInf(a, 0) {
			return math.Inf(1)
		}
		if scale < a {
			ssq = 1 + ssq*(scale/a)*(scale/a)
			scale = a
		} else {
			ssq += (a / scale) * (a / scale)
		}
	}
	if math.IsNaN(ssq) {
		return math.NaN()
	}
	return scale * math.Sqrt(ssq)
}

// ClipL2 rescales v in place so that ‖v‖₂ ≤ c and returns the factor it
// multiplied by: min(1, c/‖v‖₂). A vector already inside the ball is left
// unchanged (factor 1); c = +Inf disables clipping. Clipping bounds one
// record's contribution, which is what the accountants call the sensitivity.
// It panics if c is negative or NaN, because that is a caller bug that would
// silently void the privacy guarantee.
func ClipL2(v []float64, c float64) float64 {
	if !(c >= 0) {
		panic(fmt.Sprintf("dp: clip norm %v must be ≥ 0", c))
	}
	n := Norm2(v)
	if n <= c {
		return 1
	}
	s := c / n
	for i := range v {
		v[i] *= s
	}
	return s
}

// ClipRows clips every row of the row-major n×d matrix g (len(g) = n·d) to
// L2 norm at most c, in place and without allocating: the per-example
// clipping of DP-SGD. If scales is non-nil it must have length n and
// receives each row's factor (see ClipL2). It returns how many rows were
// actually scaled down, a cheap diagnostic for "is the clip norm binding?".
func ClipRows(g []float64, d int, c float64, scales []float64) int {
	if d <= 0 || len(g)%d != 0 {
		panic(fmt.Sprintf("dp: matrix of length %d is not a whole number of rows of width %d", len(g), d))
	}
	n := len(g) / d
	if scales != nil && len(scales) != n {
		panic(fmt.Sprintf("dp: scales has length %d, want %d rows", len(scales), n))
	}
	clipped := 0
	for i := 0; i < n; i++ {
		s := ClipL2(g[i*d:(i+1)*d], c)
		if s < 1 {
			clipped++
		}
		if scales != nil {
			scales[i] = s
		}
	}
	return clipped
}

// AddGaussian adds independent N(0, std²) noise to every entry of v, drawn
// from r. For the Gaussian mechanism with clip norm C and noise multiplier
// σ (the accountant's Gaussian.Sigma) use std = σ·C.
func AddGaussian(r *rand.Rand, v []float64, std float64) {
	if !(std >= 0) {
		panic(fmt.Sprintf("dp: noise std %v must be ≥ 0", std))
	}
	for i := range v {
		v[i] += std * r.NormFloat64()
	}
}

// AddLaplace adds independent Laplace(0, scale) noise (density
// exp(−|x|/scale)/(2·scale)) to every entry of v, drawn from r.
func AddLaplace(r *rand.Rand, v []float64, scale float64) {
	if !(scale >= 0) {
		panic(fmt.Sprintf("dp: Laplace scale %v must be ≥ 0", scale))
	}
	for i := range v {
		v[i] += Laplace(r, scale)
	}
}

// Laplace returns one Laplace(0, scale) draw from r, by inversion of a
// uniform on (−½, ½).
func Laplace(r *rand.Rand, scale float64) float64 {
	// u in (-0.5, 0.5), excluding -0.5 so the log is finite.
	u := r.Float64() - 0.5
	for u == -0.5 {
		u = r.Float64() - 0.5
	}
	if u < 0 {
		return scale * math.Log1p(2*u)
	}
	return -scale * math.Log1p(-2*u)
}

// Gamma returns one draw from the Gamma distribution with the given shape
// (k > 0) and rate (β > 0), i.e. mean k/β, using r. It uses Marsaglia and
// Tsang's (2000) squeeze method for k ≥ 1 and the boost
// Gamma(k) = Gamma(k+1)·U^{1/k} for k < 1.
func Gamma(r *rand.Rand, shape, rate float64) float64 {
	if !(shape > 0) || !(rate > 0) || math.IsInf(shape, 0) || math.IsInf(rate, 0) {
		panic(fmt.Sprintf("dp: Gamma(shape %v, rate %v) needs finite positive parameters", shape, rate))
	}
	if shape < 1 {
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		// log form avoids underflow of U^{1/k} for tiny k.
		return Gamma(r, shape+1, rate) * math.Exp(math.Log(u)/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = r.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return d * v / rate
		}
		if u > 0 && math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v / rate
		}
	}
}

// ObjectivePerturbation is the noise of objective perturbation (Chaudhuri,
// Monteleoni and Sarwate 2011; Upcycled-FL §6): a random vector n with
// density ∝ exp(−Alpha·‖n‖₂), added to the objective as the linear term
// ⟨n, ω⟩. A larger Alpha means less noise: E‖n‖ = Shape/Alpha.
//
// Such a density factorises into a radius ‖n‖ ~ Gamma(shape = dimension,
// rate = Alpha) and an independent direction uniform on the unit sphere.
// Shape defaults (0) to the dimension of the vector being filled, which is
// what makes the density exactly ∝ exp(−α‖n‖). Setting Shape explicitly
// reproduces code that uses another value (upstream Upcycled-FL uses the
// input dimension rather than the parameter count; upcycled.md §3.8).
type ObjectivePerturbation struct {
	Alpha float64 // rate α > 0
	Shape float64 // Gamma shape; 0 = len(dst)
}

// Sample overwrites dst with one noise vector drawn from r and returns its
// radius ‖dst‖₂. The direction is a normalised standard Gaussian vector,
// which is uniform on the sphere.
func (o ObjectivePerturbation) Sample(r *rand.Rand, dst []float64) float64 {
	if len(dst) == 0 {
		return 0
	}
	shape := o.Shape
	if shape == 0 {
		shape = float64(len(dst))
	}
	radius := Gamma(r, shape, o.Alpha)
	var n float64
	for n == 0 { // a zero Gaussian vector has probability 0; redraw if it happens
		for i := range dst {
			dst[i] = r.NormFloat64()
		}
		n = Norm2(dst)
	}
	s := radius / n
	for i := range dst {
		dst[i] *= s
	}
	return radius
}
