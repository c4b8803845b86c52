package haar

// Algorithm 1's two readings of where the noise goes.
//
// Algorithm 1 as printed (paper §4.1) calls WaveletNoise inside the loop
// "for each i ∈ L_n": every example's clipped coefficient vector gets its own
// draw N(0, σ_c²C²/W_j²) before the lot is summed and divided by L. The
// executable reading the reproduction uses by default (noise_per: lot) draws
// once per lot, as Abadi et al.'s DP-SGD does. The spec option noise_per
// selects the reading; noise_per: example applies the printed loop to the
// wavelet mechanisms (wav, wav_literal, wav_corrected) of a sample-level
// experiment — vanilla DP-SGD (Abadi et al.) and Dyn keep one draw per lot,
// and gauss_matched matches the per-example WAV's noise std.
//
// Noise. The B examples of a lot contribute B independent draws ν_i with
// the per-lot covariance Σ₁ each; their sum is Gaussian with covariance
// B·Σ₁. So the per-example reading is, exactly in distribution, the per-lot
// mechanism at σ_c·√B (every mechanism here is linear in σ), which is how
// Lot draws it (one draw, scaled: the same law, B times cheaper). After the
// division by the expected lot L the per-coordinate noise std of the
// averaged gradient is √B/L·σ_c·(…) ≈ σ_c·(…)/√L instead of σ_c·(…)/L: √L
// times the per-lot std in absolute terms, i.e. far more noise.
//
// Sensitivity and ε. One example still moves the clipped sum by at most C
// in the clipping domain, so against the mean shift the noise multiplier
// grows by √B: μ_example = μ_lot·√B, where μ_lot is the mechanism's
// effective multiplier (haar.EffectiveMultiplier). B is random (Poisson
// lots): we take the noise of the OTHER examples only, B₀ ~ Binomial(n−1,
// q), and its lower quantile b with P(B₀ < b) ≤ δ_b = δ/(2T) per step (T the
// steps a client composes), so that with probability ≥ 1 − δ/2 over the
// whole run every lot has at least b other draws; the accountant then runs
// at multiplier μ_lot·√b and δ/2 (the other δ/2 covers the rare small
// lots). If b = 0 the shift part is unbounded (a lot holding the target
// alone releases it with noise while its neighbour releases an exact 0).
//
// What this does NOT account: neighbouring lots differ also in the number
// of draws (B₀ against B₀ + 1), so the two output laws differ in covariance
// as well as in mean — the released vector's norm carries the lot size. A
// Gaussian-shift accountant cannot see that leak; the per-example ε we
// report is the mean-shift part only and is labelled so. The per-lot
// reading has no such leak.

import (
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/dpfl"
)

// Readings of Algorithm 1 (spec key noise_per).
const (
	noisePerLot     = "lot"
	noisePerExample = "example"
)

// noisePerReadings are the values noise_per may take, in report order.
var noisePerReadings = []string{noisePerLot, noisePerExample}

// perExample wraps a wavelet mechanism into Algorithm 1's per-example
// reading (see the file comment for the law and the accounting).
type perExample struct {
	inner dpfl.Mechanism
	// lot is the expected lot size L = q·n (PerCoordinateStd's √L).
	lot float64
	// others is b, the lower quantile of the other examples' count B₀ in a
	// lot that the accounting relies on (Multiplier's √b).
	others int
}

// newPerExample returns the per-example reading of inner for clients of n
// examples sampled at rate q, over steps composed steps, at total δ.
func newPerExample(inner dpfl.Mechanism, n int, q float64, steps int, delta float64) *perExample {
	return &perExample{inner: inner, lot: q * float64(n), others: binomialLowerQuantile(n-1, q, delta/(2*float64(max(steps, 1))))}
}

// Name is the inner name with "_per_example".
func (p *perExample) Name() string { return p.inner.Name() + "_per_example" }

// Norm is the inner mechanism's clipping norm.
func (p *perExample) Norm(v []float64) float64 { return p.inner.Norm(v) }

// Clip is the inner mechanism's clip.
func (p *perExample) Clip(v []float64, c float64) float64 { return p.inner.Clip(v, c) }

// Lot is (Σ_i (clip_c(g_i) + ν_i))/denom with B = len(grads) independent
// draws ν_i of the inner mechanism's noise: drawn as one draw at σ·√B,
// which has the same law. An empty lot gets no noise (no example, no draw).
func (p *perExample) Lot(dst []float64, grads [][]float64, c, sigma, denom float64, r *rand.Rand) {
	p.inner.Lot(dst, grads, c, sigma*math.Sqrt(float64(len(grads))), denom, r)
}

// Release is the inner release: the per-example reading is Algorithm 1's
// (sample level); a release of an aggregate has one draw.
func (p *perExample) Release(v []float64, sens, sigma float64, r *rand.Rand) {
	p.inner.Release(v, sens, sigma, r)
}

// Multiplier is μ_lot·√b: the mean-shift part of the per-example reading's
// privacy (see the file comment; the covariance leak is not in it).
func (p *perExample) Multiplier(sigma float64, n int) float64 {
	return p.inner.Multiplier(sigma, n) * math.Sqrt(float64(p.others))
}

// PerCoordinateStd is the inner std times √L: the per-coordinate std of the
// summed draws of an expected lot, per unit of c/denom.
func (p *perExample) PerCoordinateStd(sigma float64, n int) float64 {
	return p.inner.PerCoordinateStd(sigma, n) * math.Sqrt(p.lot)
}

// binomialLowerQuantile is the largest b with P(X < b) ≤ tail for X ~
// Binomial(n, q) (0 when even P(X = 0) exceeds tail). The pmf is summed
// upward in log space from k = 0.
func binomialLowerQuantile(n int, q, tail float64) int {
	if n <= 0 || q <= 0 {
		return 0
	}
	if q >= 1 {
		return n
	}
	lq, l1q := math.Log(q), math.Log1p(-q)
	var cdf float64 // P(X < k)
	for k := 0; k <= n; k++ {
		lg1, _ := math.Lgamma(float64(n + 1))
		lg2, _ := math.Lgamma(float64(k + 1))
		lg3, _ := math.Lgamma(float64(n - k + 1))
		pk := math.Exp(lg1 - lg2 - lg3 + float64(k)*lq + float64(n-k)*l1q)
		if cdf+pk > tail {
			return k
		}
		cdf += pk
	}
	return n
}
