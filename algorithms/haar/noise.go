package haar

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// AddCoefficientNoise adds independent N(0, (scale/W_j)²) noise to every
// coefficient h_j of a transform of padded length len(h): the paper's
// noise-injection scheme (§3.4 of the spec), with scale = σ·C in
// Algorithm 1 and scale = σ in Algorithm 2. Draws come from r in
// coefficient order, so the same stream gives the same noise.
func AddCoefficientNoise(r *rand.Rand, h []float64, scale float64) {
	m := len(h)
	if m == 0 {
		return
	}
	h[0] += scale / float64(m) * r.NormFloat64()
	n := Levels(m)
	for j := 1; j <= n; j++ {
		off := PassOffset(m, j)
		std := scale / float64(int(1)<<j)
		blk := h[off : off+m>>j]
		for i := range blk {
			blk[i] += std * r.NormFloat64()
		}
	}
}

// SigmaHaar is Lemma 2's calibration σ_Haar = σ·sqrt(2/(2+log2 m)): the
// coefficient noise scale the paper claims gives the same (ε, δ) as
// vanilla noise σ on a vector of padded length m.
func SigmaHaar(sigma float64, m int) float64 {
	return sigma * math.Sqrt(2/(2+float64(Levels(m))))
}

// Alg2Sigma is Algorithm 2's server noise scale σ = z·C/(q_c·d) for noise
// multiplier z, clipping bound C, client selection probability q_c and
// total data size d (the fixed-denominator estimator of eq. (5)).
func Alg2Sigma(z, c, qc, d float64) float64 { return z * c / (qc * d) }

// ClipDomain says where a WaveletNoise variant bounds each example's
// contribution.
type ClipDomain int

const (
	// CoefficientDomain clips ‖HWT(g)‖₂ ≤ C, as Algorithm 1 (step 13) does.
	CoefficientDomain ClipDomain = iota
	// GradientDomain clips ‖g‖₂ ≤ C before transforming (the usual DP-SGD
	// clip; what Algorithm 2's ClientTraining does).
	GradientDomain
)

// String names the domain ("coefficient" or "gradient").
func (d ClipDomain) String() string {
	switch d {
	case CoefficientDomain:
		return "coefficient"
	case GradientDomain:
		return "gradient"
	}
	return fmt.Sprintf("ClipDomain(%d)", int(d))
}

// Alg1Params configures WaveletNoiseInto (DP-SGD-WAV, Algorithm 1).
type Alg1Params struct {
	// C is the clipping bound.
	C float64
	// Sigma is the coefficient noise multiplier σ_c: coefficient j gets
	// noise std σ_c·C/W_j. The paper's input σ, or SigmaHaar(σ, m) under
	// Lemma 2's mapping — the caller decides (spec §7.2.1).
	Sigma float64
	// Domain selects coefficient-domain clipping (Algorithm 1 as printed)
	// or gradient-domain clipping.
	Domain ClipDomain
	// Lot divides the reconstructed noisy sum (the 1/L of step 16); 0 means
	// len(grads), or 1 for an empty lot.
	Lot float64
}

// ScratchLen is the scratch length WaveletNoiseInto and
// WaveletNoiseAggregateInto need for vectors of length n.
func ScratchLen(n int) int { return 2 * PaddedLen(n) }

// WaveletNoise is the allocating form of WaveletNoiseInto.
func WaveletNoise(r *rand.Rand, grads [][]float64, p Alg1Params) []float64 {
	if len(grads) == 0 {
		panic("haar: WaveletNoise needs at least one gradient")
	}
	n := len(grads[0])
	out := make([]float64, n)
	WaveletNoiseInto(out, r, grads, p, make([]float64, ScratchLen(n)))
	return out
}

// WaveletNoiseInto runs one lot of DP-SGD-WAV (Algorithm 1, in the
// executable reading of the spec §3.5, consistent with Abadi et al.): each
// example gradient is clipped to norm C in p.Domain, the clipped
// coefficient vectors are summed, ONE draw of N(0, (σ_c·C/W_j)²) is added
// per coefficient, and the inverse transform of the noisy sum divided by
// the lot size is written to dst (len(dst) = the gradients' length).
//
// Clipping is applied in the gradient domain even for CoefficientDomain —
// by linearity HWT(s·g) = s·HWT(g), so only the clip factor s needs the
// coefficient norm — which keeps the cost at O(m) per example and one
// forward transform per lot. scratch needs length ≥ ScratchLen(len(dst));
// nothing is allocated.
func WaveletNoiseInto(dst []float64, r *rand.Rand, grads [][]float64, p Alg1Params, scratch []float64) {
	n := len(dst)
	m := PaddedLen(n)
	acc := scratch[:m]
	coef := scratch[m : 2*m]
	clear(acc)
	for i, g := range grads {
		if len(g) != n {
			panic(fmt.Sprintf("haar: gradient %d has length %d, want %d", i, len(g), n))
		}
		var norm float64
		switch p.Domain {
		case CoefficientDomain:
			norm = CoefficientNorm(g, coef)
		case GradientDomain:
			var ss float64
			for _, v := range g {
				ss += v * v
			}
			norm = math.Sqrt(ss)
		default:
			panic(fmt.Sprintf("haar: unknown clip domain %d", p.Domain))
		}
		s := 1 / math.Max(1, norm/p.C)
		a := acc[:n]
		for k, v := range g {
			a[k] += s * v
		}
	}
	ForwardInto(coef, acc[:n], acc)
	// σ = 0 adds no noise whatever C is (C = +Inf, no clipping, would make
	// σ·C NaN); the draws are still taken so the stream stays aligned.
	scale := p.Sigma * p.C
	if p.Sigma == 0 {
		scale = 0
	}
	AddCoefficientNoise(r, coef, scale)
	InverseInto(dst, coef, acc)
	lot := p.Lot
	if lot == 0 {
		lot = float64(max(len(grads), 1))
	}
	if lot != 1 {
		inv := 1 / lot
		for i := range dst {
			dst[i] *= inv
		}
	}
}

// WaveletNoiseAggregate is the allocating form of WaveletNoiseAggregateInto.
func WaveletNoiseAggregate(r *rand.Rand, w []float64, sigma float64) []float64 {
	out := make([]float64, len(w))
	WaveletNoiseAggregateInto(out, r, w, sigma, make([]float64, ScratchLen(len(w))))
	return out
}

// WaveletNoiseAggregateInto is Algorithm 2's WaveletNoise(w, σ): transform
// the aggregate w, add N(0, σ²/W_j²) to each coefficient, and write the
// inverse transform (truncated to len(w)) to dst. Use σ = Alg2Sigma(z, C,
// q_c, d), or σ_Haar under Lemma 2's mapping. (The printed step 15 inverts
// the noiseless H_t; the noisy Ĥ_t is clearly meant.) By linearity the
// result is w + HWT⁻¹(ν): DP-FedAvg with correlated Gaussian noise.
// scratch needs length ≥ ScratchLen(len(w)); dst must not alias w.
func WaveletNoiseAggregateInto(dst []float64, r *rand.Rand, w []float64, sigma float64, scratch []float64) {
	n := len(w)
	m := PaddedLen(n)
	coef := scratch[:m]
	tmp := scratch[m : 2*m]
	ForwardInto(coef, w, tmp)
	AddCoefficientNoise(r, coef, sigma)
	InverseInto(dst[:n], coef, tmp)
}

// ReconstructedNoiseInto writes HWT⁻¹(ν)[:len(dst)] for one draw of
// ν_j ~ N(0, (scale/W_j)²) — the noise a WaveletNoise call adds to its
// input — using scratch of length ≥ ScratchLen(len(dst)).
func ReconstructedNoiseInto(dst []float64, r *rand.Rand, scale float64, scratch []float64) {
	m := PaddedLen(len(dst))
	coef := scratch[:m]
	clear(coef)
	AddCoefficientNoise(r, coef, scale)
	InverseInto(dst, coef, scratch[m:2*m])
}
