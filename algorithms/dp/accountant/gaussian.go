package accountant

import (
	"fmt"
	"math"
)

// Exact privacy curves of the Gaussian mechanism and of Gaussian
// differential privacy (GDP). These are the oracles the RDP and PLD
// accountants are tested against: RDP must never be below them, PLD must be
// within its discretization error of them.

// GDPDelta returns δ(ε) of μ-GDP (Dong, Roth and Su 2022, Cor 2.13):
// δ = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2). μ = 0 gives 0, μ = +Inf gives 1.
// It is computed without overflow for large ε: with a = −ε/μ + μ/2,
// b = a − μ, e^ε Φ(b) = ½e^{−a²/2}·erfcx(−b/√2), so for a < 0
// δ = ½e^{−a²/2}[erfcx(−a/√2) − erfcx(−b/√2)].
func GDPDelta(mu, eps float64) (float64, error) {
	if !(mu >= 0) {
		return 0, fmt.Errorf("GDP μ = %v: want μ ≥ 0", mu)
	}
	if math.IsNaN(eps) {
		return 0, fmt.Errorf("ε is NaN")
	}
	if mu == 0 {
		return 0, nil
	}
	if math.IsInf(mu, 1) {
		return 1, nil
	}
	if math.IsInf(eps, 1) {
		return 0, nil
	}
	a := -eps/mu + mu/2
	b := a - mu
	var d float64
	if a >= 0 {
		d = normCDF(a) - math.Exp(eps+logNormCDF(b))
	} else {
		d = 0.5 * math.Exp(-a*a/2) * (erfcx(-a/math.Sqrt2) - erfcx(-b/math.Sqrt2))
	}
	return math.Min(1, math.Max(0, d)), nil
}

// GDPEpsilon returns the smallest ε ≥ 0 with GDPDelta(μ, ε) ≤ δ.
func GDPEpsilon(mu, delta float64) (float64, error) {
	if !(mu >= 0) {
		return 0, fmt.Errorf("GDP μ = %v: want μ ≥ 0", mu)
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("δ = %v: want 0 < δ < 1", delta)
	}
	if math.IsInf(mu, 1) {
		return math.Inf(1), fmt.Errorf("%w: μ = ∞ (no noise)", ErrInfinite)
	}
	f := func(e float64) float64 { d, _ := GDPDelta(mu, e); return d }
	if f(0) <= delta {
		return 0, nil
	}
	hi := math.Max(1, mu*mu)
	for f(hi) > delta {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1), fmt.Errorf("%w: no ε below 1e12 reaches δ = %v", ErrInfinite, delta)
		}
	}
	lo := 0.0
	for i := 0; i < 200 && hi-lo > 1e-14*hi; i++ {
		mid := 0.5 * (lo + hi)
		if f(mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// GaussianDelta is the exact privacy curve of the Gaussian mechanism with
// noise multiplier sigma (Balle and Wang 2018 Thm 8):
// δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ), i.e. GDP with μ = 1/σ.
// k-fold composition is GaussianDelta(sigma/√k, eps).
func GaussianDelta(sigma, eps float64) (float64, error) {
	if !(sigma >= 0) {
		return 0, fmt.Errorf("σ = %v: want σ ≥ 0", sigma)
	}
	return GDPDelta(1/sigma, eps)
}

// GaussianEpsilon is the smallest ε with GaussianDelta(sigma, ε) ≤ δ.
func GaussianEpsilon(sigma, delta float64) (float64, error) {
	if !(sigma >= 0) {
		return 0, fmt.Errorf("σ = %v: want σ ≥ 0", sigma)
	}
	if sigma == 0 {
		return math.Inf(1), fmt.Errorf("%w: σ = 0: no noise", ErrInfinite)
	}
	return GDPEpsilon(1/sigma, delta)
}

// PoissonGDPMu is the central-limit approximation of T steps of the
// Poisson-subsampled Gaussian (Bu, Dong, Long and Su 2020; Opacus' GDP
// accountant): μ = q·√T·√(e^{1/σ²} − 1). It is an approximation, not a
// bound — it can under-state ε for small T or large q — so use it for
// comparison with papers that report it, not for guarantees.
func PoissonGDPMu(q, sigma float64, steps int) (float64, error) {
	if !(q >= 0 && q <= 1) || !(sigma >= 0) || steps < 0 {
		return 0, fmt.Errorf("PoissonGDPMu(q=%v, σ=%v, steps=%d): want q ∈ [0,1], σ ≥ 0, steps ≥ 0", q, sigma, steps)
	}
	if sigma == 0 {
		if q == 0 || steps == 0 {
			return 0, nil
		}
		return math.Inf(1), nil
	}
	return q * math.Sqrt(float64(steps)) * math.Sqrt(math.Expm1(1/(sigma*sigma))), nil
}
