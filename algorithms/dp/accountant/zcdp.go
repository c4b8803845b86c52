package accountant

import (
	"fmt"
	"math"
)

// Zero-concentrated differential privacy (Bun and Steinke 2016,
// "Concentrated differential privacy: simplifications, extensions, and
// lower bounds"): M is (ξ, ρ)-zCDP if D_α(M(D) ‖ M(D′)) ≤ ξ + ρα for all
// α > 1. The Gaussian mechanism with L2 sensitivity Δ and noise σ is
// Δ²/(2σ²)-zCDP (BS Prop 1.6), an ε-DP mechanism is ε²/2-zCDP (BS Prop
// 1.4), and zCDP composes by adding ρ and ξ (BS Lemma 2.3). zCDP has no
// amplification-by-subsampling theorem, so sampled events are
// unsupported here (the RDP accountant handles them).

// ZCDPOf returns (ρ, ξ) with e (ξ, ρ)-zCDP under nb. Events with no
// noise give ρ = +Inf.
func ZCDPOf(e Event, nb Neighbouring) (rho, xi float64, err error) {
	if err := validate(e); err != nil {
		return 0, 0, err
	}
	leaves, err := flatten(e)
	if err != nil {
		return 0, 0, err
	}
	for _, lf := range leaves {
		r, x, err := leafZCDP(lf.event, nb)
		if err != nil {
			return 0, 0, err
		}
		n := float64(lf.count)
		if r > 0 {
			rho += n * r
		}
		if x > 0 {
			xi += n * x
		}
	}
	return rho, xi, nil
}

func leafZCDP(e Event, nb Neighbouring) (rho, xi float64, err error) {
	gauss := func(s float64) float64 {
		if s == 0 {
			return math.Inf(1)
		}
		return 1 / (2 * s * s)
	}
	switch e := e.(type) {
	case Gaussian:
		return gauss(effSigma(e.Sigma, nb)), 0, nil
	case TreeAggregation:
		s := treeGaussianSigma(e)
		if math.IsInf(s, 1) {
			return 0, 0, nil
		}
		return gauss(effSigma(s, nb)), 0, nil
	case Laplace:
		b := e.Scale
		if nb == ReplaceOne {
			b /= 2
		}
		if b == 0 {
			return math.Inf(1), 0, nil
		}
		return 0.5 / (b * b), 0, nil // (1/b)²/2
	case DiscreteGaussian:
		d := float64(e.Sensitivity)
		if nb == ReplaceOne {
			d *= 2
		}
		return gauss(e.Sigma / d), 0, nil
	case DistributedDiscreteGaussian:
		return ddgRho(e, nb), 0, nil
	case ZCDP:
		return e.Rho, e.Xi, nil
	case PoissonSampled:
		if e.Q == 0 {
			return 0, 0, nil
		}
		if e.Q == 1 {
			return leafZCDP(e.Event, nb)
		}
		return 0, 0, unsupported("zCDP has no amplification by Poisson sampling; use the RDP, PLD or PRV accountant")
	case SampledWithoutReplacement:
		if e.SampleSize == 0 {
			return 0, 0, nil
		}
		if e.SampleSize == e.PopulationSize {
			return leafZCDP(e.Event, nb)
		}
		return 0, 0, unsupported("zCDP has no amplification by sampling without replacement; use the RDP accountant")
	}
	return 0, 0, fmt.Errorf("unknown event %T", e)
}

// ZCDPEpsilon converts (ξ, ρ)-zCDP to ε at δ. Classic is Bun–Steinke
// Prop 1.3, ε = ξ + ρ + 2√(ρ·log(1/δ)) (the RDP conversion of Mironov
// 2017 optimised over real α). Improved is the conversion of Canonne,
// Kamath and Steinke 2020 (Cor 13; the same as Balle et al. 2020 Thm 21
// for RDP ξ + ρα) optimised over real α > 1:
// ε = min_α ξ + αρ + log(1 − 1/α) − (log δ + log α)/(α − 1).
// It also returns the optimal α.
func ZCDPEpsilon(rho, xi, delta float64, c Conversion) (eps, alpha float64, err error) {
	if !(rho >= 0) || !(xi >= 0) {
		return 0, 0, fmt.Errorf("zCDP ρ = %v, ξ = %v: want ≥ 0", rho, xi)
	}
	if !(delta > 0 && delta < 1) {
		return 0, 0, errDelta(delta)
	}
	if math.IsInf(rho, 1) || math.IsInf(xi, 1) {
		return math.Inf(1), 0, infinite("ρ = ∞: no noise")
	}
	L := math.Log(1 / delta)
	if rho == 0 {
		return xi, math.Inf(1), nil
	}
	switch c {
	case Classic:
		return xi + rho + 2*math.Sqrt(rho*L), 1 + math.Sqrt(L/rho), nil
	case Improved:
		f := func(a float64) float64 {
			return xi + a*rho + math.Log1p(-1/a) - (math.Log(delta)+math.Log(a))/(a-1)
		}
		a, v := minimizeOrder(f, 1+math.Sqrt(L/rho))
		return math.Max(0, v), a, nil
	}
	return 0, 0, fmt.Errorf("unknown conversion %v", c)
}

// ZCDPDelta is the inverse question: the smallest δ at ε for (ξ, ρ)-zCDP.
// Classic: δ = min_α e^{(α−1)(ξ + αρ − ε)}; Improved (CKS Cor 13):
// δ = min_α e^{(α−1)(ξ + αρ − ε)}·(1 − 1/α)^{α−1}/α. δ ≤ 1.
func ZCDPDelta(rho, xi, eps float64, c Conversion) (delta, alpha float64, err error) {
	if !(rho >= 0) || !(xi >= 0) {
		return 0, 0, fmt.Errorf("zCDP ρ = %v, ξ = %v: want ≥ 0", rho, xi)
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, 0, fmt.Errorf("ε = %v: want a finite value ≥ 0", eps)
	}
	if math.IsInf(rho, 1) || math.IsInf(xi, 1) {
		return 1, 0, infinite("ρ = ∞: no noise")
	}
	if rho == 0 {
		if xi <= eps {
			return 0, math.Inf(1), nil
		}
		return 1, 0, nil
	}
	var f func(a float64) float64
	switch c {
	case Classic:
		f = func(a float64) float64 { return (a - 1) * (xi + a*rho - eps) }
	case Improved:
		f = func(a float64) float64 {
			return (a-1)*(xi+a*rho-eps+math.Log1p(-1/a)) - math.Log(a)
		}
	default:
		return 0, 0, fmt.Errorf("unknown conversion %v", c)
	}
	guess := 1 + math.Max(eps-xi, rho)/(2*rho)
	a, v := minimizeOrder(f, guess)
	return math.Min(1, math.Exp(v)), a, nil
}

// minimizeOrder minimises f over α > 1: a scan of u = log(α − 1) on
// [−12, 14] (and around the guess), then golden-section refinement.
// Any α gives a valid bound, so a local minimum is still correct.
func minimizeOrder(f func(float64) float64, guess float64) (alpha, value float64) {
	g := func(u float64) float64 {
		v := f(1 + math.Exp(u))
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	bestU, bestV := 0.0, math.Inf(1)
	try := func(u float64) {
		if v := g(u); v < bestV {
			bestU, bestV = u, v
		}
	}
	for u := -12.0; u <= 14; u += 0.1 {
		try(u)
	}
	if guess > 1 {
		try(math.Log(guess - 1))
	}
	lo, hi := bestU-0.1, bestU+0.1
	const phi = 0.6180339887498949
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	f1, f2 := g(x1), g(x2)
	for i := 0; i < 80; i++ {
		if f1 < f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - phi*(hi-lo)
			f1 = g(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + phi*(hi-lo)
			f2 = g(x2)
		}
	}
	try(x1)
	try(x2)
	return 1 + math.Exp(bestU), bestV
}
