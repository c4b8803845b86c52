package accountant

import (
	"math"
)

// The discrete Gaussian N_ℤ(0, σ²): P[X = x] = e^{−x²/(2σ²)}/Z on the
// integers (Canonne, Kamath and Steinke 2020, "The discrete Gaussian for
// differential privacy", arXiv:2004.00010).

// discreteGaussianPMF returns the probabilities of x = −k … k (index
// x + k), where k is large enough that the mass beyond is below 1e-300 of
// the total, normalised to sum to one. σ must be > 0.
func discreteGaussianPMF(sigma float64) (pmf []float64, k int) {
	// e^{−x²/(2σ²)} < 1e-300 beyond x = σ·√(2·300·ln 10) ≈ 37.2σ.
	k = int(math.Ceil(37.2*sigma)) + 1
	pmf = make([]float64, 2*k+1)
	z := 0.0
	inv := 1 / (2 * sigma * sigma)
	for x := -k; x <= k; x++ {
		v := math.Exp(-float64(x) * float64(x) * inv)
		pmf[x+k] = v
		z += v
	}
	for i := range pmf {
		pmf[i] /= z
	}
	return pmf, k
}

// maxDiscreteSigma bounds σ for which the PMF is tabulated (the table has
// ~75σ entries, 60 MB at the bound).
const maxDiscreteSigma = 1e5

// DiscreteGaussianDelta is the exact δ(ε) of the discrete Gaussian
// mechanism with integer sensitivity Δ: the privacy loss of the pair
// (N_ℤ(0,σ²), N_ℤ(Δ,σ²)) at x is (Δ² − 2xΔ)/(2σ²), so
// δ = Σ_x p(x)·(1 − e^{ε − L(x)})₊, which CKS Thm 7 writes as
// P[X > εσ²/Δ − Δ/2] − e^ε·P[X > εσ²/Δ + Δ/2] (X ∼ N_ℤ(0,σ²)); the pair
// is symmetric (x ↦ Δ − x), so this is the curve of both directions.
func DiscreteGaussianDelta(sigma float64, sensitivity int, eps float64) (float64, error) {
	if err := validate(DiscreteGaussian{Sigma: sigma, Sensitivity: sensitivity}); err != nil {
		return 0, err
	}
	if math.IsNaN(eps) {
		return 0, errNaNEps
	}
	if sigma == 0 {
		return 1, nil
	}
	if sigma > maxDiscreteSigma {
		return 0, unsupported("discrete Gaussian σ = %g is beyond the tabulated range (≤ %g)", sigma, maxDiscreteSigma)
	}
	pmf, k := discreteGaussianPMF(sigma)
	return dgDelta(pmf, k, sigma, float64(sensitivity), eps), nil
}

// dgDelta sums the tail: losses above ε are x < x* = (Δ² − 2εσ²)/(2Δ).
// Terms are added smallest first (from the far tail inwards).
func dgDelta(pmf []float64, k int, sigma, d, eps float64) float64 {
	inv := 1 / (2 * sigma * sigma)
	s := 0.0
	for x := -k; x <= k; x++ {
		l := (d*d - 2*float64(x)*d) * inv
		if l <= eps {
			break
		}
		s += pmf[x+k] * -math.Expm1(eps-l)
	}
	return math.Min(1, s)
}

// DiscreteGaussianEpsilon is the smallest ε ≥ 0 with
// DiscreteGaussianDelta(σ, Δ, ε) ≤ δ. δ(ε) is continuous and decreasing,
// so bisection finds it to 1e-12 relative.
func DiscreteGaussianEpsilon(sigma float64, sensitivity int, delta float64) (float64, error) {
	if err := validate(DiscreteGaussian{Sigma: sigma, Sensitivity: sensitivity}); err != nil {
		return 0, err
	}
	if !(delta > 0 && delta < 1) {
		return 0, errDelta(delta)
	}
	if sigma == 0 {
		return math.Inf(1), infinite("σ = 0: no noise")
	}
	if sigma > maxDiscreteSigma {
		return 0, unsupported("discrete Gaussian σ = %g is beyond the tabulated range (≤ %g)", sigma, maxDiscreteSigma)
	}
	pmf, k := discreteGaussianPMF(sigma)
	d := float64(sensitivity)
	f := func(e float64) float64 { return dgDelta(pmf, k, sigma, d, e) }
	if f(0) <= delta {
		return 0, nil
	}
	// The largest loss is at x = −k: (Δ² + 2kΔ)/(2σ²); δ is 0 above it.
	hi := (d*d + 2*float64(k)*d) / (2 * sigma * sigma)
	lo := 0.0
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := 0.5 * (lo + hi)
		if f(mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// ddgTau is τ = 10·Σ_{k=1}^{n−1} e^{−2π²σ²·k/(k+1)} of Kairouz, Liu and
// Steinke 2021 (Thm 1): how far the sum of n discrete Gaussians is from
// being one.
func ddgTau(sigma float64, n int) float64 {
	t := 0.0
	c := 2 * math.Pi * math.Pi * sigma * sigma
	for k := 1; k < n; k++ {
		term := math.Exp(-c * float64(k) / float64(k+1))
		t += term
		if term < 1e-300 {
			// the remaining terms are below e^{−c/2} < this one × n
			break
		}
	}
	return 10 * t
}

// ddgRDP is KLS 2021 Prop. 14 for the sum of n discrete Gaussians of
// variance σ² each added to a d-dimensional integer vector of
// sensitivities Δ₂, Δ₁ (central noise scale √n·σ):
//
//	ε(α) = min{ α/2·s₂² + τd,  α/2·(s₂² + 2s₁τ + τ²d),  α/2·(s₂ + τ√d)² }
//
// with s₂ = Δ₂/(√nσ), s₁ = Δ₁/(√nσ).
func ddgRDP(e DistributedDiscreteGaussian, alpha float64, nb Neighbouring) float64 {
	if e.Sigma == 0 || math.IsInf(alpha, 1) {
		return math.Inf(1)
	}
	l2, l1 := ddgSens(e, nb)
	c := math.Sqrt(float64(e.Clients)) * e.Sigma
	s2, s1 := l2/c, l1/c
	tau := ddgTau(e.Sigma, e.Clients)
	d := float64(e.Dim)
	t1 := alpha/2*s2*s2 + tau*d
	t2 := alpha / 2 * (s2*s2 + 2*s1*tau + tau*tau*d)
	t3 := alpha / 2 * (s2 + tau*math.Sqrt(d)) * (s2 + tau*math.Sqrt(d))
	return math.Min(t1, math.Min(t2, t3))
}

// ddgRho is the zCDP part of Prop. 14 (the two terms linear in α).
func ddgRho(e DistributedDiscreteGaussian, nb Neighbouring) float64 {
	if e.Sigma == 0 {
		return math.Inf(1)
	}
	l2, l1 := ddgSens(e, nb)
	c := math.Sqrt(float64(e.Clients)) * e.Sigma
	s2, s1 := l2/c, l1/c
	tau := ddgTau(e.Sigma, e.Clients)
	d := float64(e.Dim)
	t2 := 0.5 * (s2*s2 + 2*s1*tau + tau*tau*d)
	t3 := 0.5 * (s2 + tau*math.Sqrt(d)) * (s2 + tau*math.Sqrt(d))
	return math.Min(t2, t3)
}

// ddgSens returns (Δ₂, Δ₁) under nb: L1 = 0 means √d·Δ₂; replace-one
// doubles both.
func ddgSens(e DistributedDiscreteGaussian, nb Neighbouring) (l2, l1 float64) {
	l2, l1 = e.L2, e.L1
	if l1 == 0 {
		l1 = math.Sqrt(float64(e.Dim)) * l2
	}
	if nb == ReplaceOne {
		l2, l1 = 2*l2, 2*l1
	}
	return l2, l1
}
