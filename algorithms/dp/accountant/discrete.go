package accountant

import (
	"math"
)

// The discrete Gaussian N_ℤ(0, σ²): P[X = x] = e^{−x²/(2σ²)}/Z on the
// integers (Canonne, Kamath and Steinke 2020, "The discrete Gaussian for
// differential privacy", arXiv:2004.00010).

// dgNorm returns Z = Σ_x e^{−x²/(2σ²)}, the normaliser of N_ℤ(0, σ²).
// For σ ≥ 1 it uses Poisson summation (the Jacobi theta identity)
// Z = σ√(2π)·Σ_k e^{−2π²σ²k²}, whose k ≠ 0 terms are below 3e-9 and fall
// off as e^{−19.7k²}; below, the direct sum has at most ~40 terms.
func dgNorm(sigma float64) float64 {
	if sigma < 1 {
		k := int(math.Ceil(37.2*sigma)) + 1
		inv := 1 / (2 * sigma * sigma)
		z := 1.0
		for x := k; x >= 1; x-- { // smallest first
			z += 2 * math.Exp(-float64(x)*float64(x)*inv)
		}
		return z
	}
	c := 2 * math.Pi * math.Pi * sigma * sigma
	s := 1.0
	for k := 1.0; ; k++ {
		t := 2 * math.Exp(-c*k*k)
		s += t
		if t < 1e-18*s {
			break
		}
	}
	return sigma * math.Sqrt(2*math.Pi) * s
}

// dgTailBound bounds P[X ≥ t] for X ∼ N_ℤ(0, σ²) and t ≥ 0: the discrete
// Gaussian is σ²-sub-Gaussian, E e^{λX} ≤ e^{λ²σ²/2} (Canonne, Kamath and
// Steinke 2020), so Chernoff gives P[X ≥ t] ≤ e^{−t²/(2σ²)}.
func dgTailBound(sigma, t float64) float64 {
	if t <= 0 {
		return 1
	}
	return math.Exp(-t * t / (2 * sigma * sigma))
}

// dgAtomTail is the probability each tail of the PLD/PRV atom table may
// leave out: far below any δ these accountants resolve (their own
// TailMass is 1e-15), and what it leaves out is put where it can only
// make the bound larger (see discreteGaussianLoss).
const dgAtomTail = 1e-30

// dgCut returns the smallest k ≥ 1 with P[X > k] ≤ dgTailBound(σ, k+1) ≤
// tail: the table x = −k … k leaves out at most tail on each side.
func dgCut(sigma, tail float64) int {
	k := int(math.Ceil(sigma*math.Sqrt(2*math.Log(1/tail)))) - 1
	for k > 1 && dgTailBound(sigma, float64(k)) <= tail {
		k--
	}
	for dgTailBound(sigma, float64(k+1)) > tail {
		k++
	}
	return max(k, 1)
}

// maxDiscreteSigma bounds σ for which the PMF is tabulated (the PLD/PRV
// table has ~23.5σ entries, 38 MB at the bound).
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
	return dgDelta(sigma, float64(sensitivity), dgNorm(sigma), eps, 0), nil
}

// dgDelta sums δ(ε) = Σ_{x < x*} p(x)·(1 − e^{ε − L(x)}) over the losses
// above ε, x < x* = (Δ² − 2εσ²)/(2Δ), from x* outwards, with compensated
// (Neumaier) summation. It stops once x ≤ 0 and what is left, at most
// P[X < x] ≤ e^{−x²/(2σ²)}, is below 2⁻⁶⁴ of max(sum, floor): a caller
// that only compares δ with a target passes the target as floor, so the
// work is bounded by the few σ where the loss is within reach of it
// instead of the whole support.
//
// At σ near its bound a call adds up to ~10⁶ terms, so the two
// exponentials of a term come from recurrences, re-anchored on exact
// values every dgBlock terms: p(x−1) = p(x)·r(x) with r(x) = e^{(2x−1)/(2σ²)},
// r(x−1) = r(x)·e^{−1/σ²}, and g(x) = e^{ε−L(x)} − 1 as
// g(x−1) = g(x)·m + (m − 1), m = e^{−Δ/σ²}, which has no cancellation
// (g and m − 1 are both negative). Within a block the relative error of
// a term stays below dgBlock²/2 ulps.
func dgDelta(sigma, d, z, eps, floor float64) float64 {
	inv := 1 / (2 * sigma * sigma)
	xs := (d*d - 2*eps*sigma*sigma) / (2 * d)
	x := math.Ceil(xs) - 1 // the largest integer with L(x) > ε
	if x > xs-1 && (d*d-2*x*d)*inv <= eps {
		x-- // rounding put x* on an integer
	}
	// Above 38.7σ, e^{−x²/(2σ²)} is 0 in float64: those terms add exactly
	// nothing, and with a large Δ there may be ~Δ/2 of them.
	x = math.Min(x, math.Ceil(38.7*sigma)+1)
	m, mm1, cr := math.Exp(-2*d*inv), math.Expm1(-2*d*inv), math.Exp(-2*inv)
	block := dgBlock
	if sigma < 2 {
		// The ratios e^{±(2x−1)/(2σ²)} leave the double range within a
		// few terms (0·∞ = NaN): every term exact; there are few.
		block = 1
	}
	s, c := 0.0, 0.0
	for {
		if x <= 0 && dgTailBound(sigma, -x) <= 0x1p-64*math.Max(s, floor) {
			break
		}
		p := math.Exp(-x*x*inv) / z
		g := math.Expm1(eps - (d*d-2*x*d)*inv)
		r := math.Exp((2*x - 1) * inv)
		for range block {
			t := p * -g
			u := s + t
			if s >= t {
				c += (s - u) + t
			} else {
				c += (t - u) + s
			}
			s = u
			p *= r
			r *= cr
			g = g*m + mm1
		}
		x -= float64(block)
	}
	return math.Min(1, s+c)
}

// dgBlock is how many terms dgDelta takes from its recurrences between
// exact values.
const dgBlock = 16

// DiscreteGaussianEpsilon is the smallest ε ≥ 0 with
// DiscreteGaussianDelta(σ, Δ, ε) ≤ δ, to 1e-12 relative. δ(ε) is
// continuous and decreasing; the root is bracketed and found by the
// Illinois variant of false position on ln δ, which keeps the bracket
// and halves the weight of an end that stays put, with a bisection step
// whenever that fails to halve the bracket, so it ends in a few dozen
// evaluations at most.
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
	d, z := float64(sensitivity), dgNorm(sigma)
	f := func(e float64) float64 { return dgDelta(sigma, d, z, e, delta) }
	if f(0) <= delta {
		return 0, nil
	}
	// Bracket: the continuous Gaussian's ε is a close first guess.
	lo, hi := 0.0, d/sigma
	if e, err := GaussianEpsilon(sigma/d, delta); err == nil && e > hi {
		hi = e
	}
	for f(hi) > delta {
		lo, hi = hi, 2*hi
	}
	return illinois(func(e float64) float64 {
		v := f(e)
		if v <= 0 {
			return math.Inf(-1)
		}
		return math.Log(v) - math.Log(delta)
	}, lo, hi, 1e-12), nil
}

// illinois returns hi of a bracket [lo, hi] with g(lo) > 0 ≥ g(hi) and
// hi − lo ≤ rel·hi, g decreasing. It steps to the false-position point,
// halving the value kept at an end that survives two steps in a row (the
// Illinois rule, so both ends close in), and bisects every third step, so
// the bracket at least halves every three evaluations whatever g does.
func illinois(g func(float64) float64, lo, hi, rel float64) float64 {
	glo, ghi := g(lo), g(hi)
	last := 0 // which end the previous step moved: −1 lo, +1 hi
	for i := 0; i < 400 && hi-lo > rel*hi; i++ {
		m := 0.5 * (lo + hi)
		if i%3 != 2 && !math.IsInf(glo, 0) && !math.IsInf(ghi, 0) {
			if fp := hi - ghi*(hi-lo)/(ghi-glo); fp > lo && fp < hi {
				m = fp
			}
		}
		if gm := g(m); gm > 0 {
			lo, glo = m, gm
			if last == -1 {
				ghi /= 2
			}
			last = -1
		} else {
			hi, ghi = m, gm
			if last == 1 {
				glo /= 2
			}
			last = 1
		}
	}
	return hi
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
