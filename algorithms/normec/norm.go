package normec

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// NormScale returns the factor 1/(α+‖v‖) by which Norm_α multiplies a
// vector of norm n, with the convention Norm_0(0) = 0 (factor 0) that makes
// the operator total when α = 0. α must be ≥ 0 and n ≥ 0.
func NormScale(alpha, n float64) float64 {
	den := alpha + n
	if den == 0 {
		return 0
	}
	return 1 / den
}

// Norm replaces v by Norm_α(v) = v/(α+‖v‖) in place and returns ‖v‖ before
// the update. The result has norm ‖v‖/(α+‖v‖) ≤ 1 (< 1 when α > 0): this
// is the bound the paper uses as the DP sensitivity of a client message.
// Norm_0(0) = 0. It does not allocate.
func Norm(alpha float64, v []float64) float64 {
	n := floats.Norm(v, 2)
	floats.Scale(NormScale(alpha, n), v)
	return n
}

// NormTo writes Norm_α(v) into dst (which may alias v) and returns ‖v‖.
// It does not allocate.
func NormTo(dst []float64, alpha float64, v []float64) float64 {
	if len(dst) != len(v) {
		panic("normec: NormTo length mismatch")
	}
	n := floats.Norm(v, 2)
	floats.ScaleTo(dst, NormScale(alpha, n), v)
	return n
}

// NormOfNorm returns ‖Norm_α(v)‖ = n/(α+n) for ‖v‖ = n without forming the
// vector (0 for n = 0).
func NormOfNorm(alpha, n float64) float64 { return n * NormScale(alpha, n) }

// EFResidual returns ‖u − β·Norm_α(u)‖ for ‖u‖ = t in closed form,
// |1 − β/(α+t)|·t (Lemma 1 of the α-NormEC paper as used in Lemma 1 here):
// the residual an error-feedback step leaves when the memory moves by
// β·Norm_α towards its target.
func EFResidual(alpha, beta, t float64) float64 {
	return math.Abs(1-beta*NormScale(alpha, t)) * t
}
