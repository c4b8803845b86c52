package upcycled

import (
	"math"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// The paper's closed forms come from the accountant package
// (accountant.UpcycledOutput*, UpcycledObjectiveEpsilon); the checks
// compare them with forms written here independently: App. E's printed
// Eq. (15) and numeric minimisation over the moments-accountant order λ.

// thm62Epsilon is Thm 6.2's ε(δ) = 2√(a·log(1/δ)) + a, a = Mτ²/(2σ²|D|²)
// (NaN when the accountant rejects the inputs).
func thm62Epsilon(m int, tau, sigma float64, n int, delta float64) float64 {
	e, err := accountant.UpcycledOutputEpsilon(m, tau, sigma, n, delta)
	if err != nil {
		return math.NaN()
	}
	return e
}

// thm62Delta is Thm 6.2's δ(ε) = exp(−(ε−a)²/(4a)), ε ≥ a (NaN otherwise).
func thm62Delta(m int, tau, sigma float64, n int, eps float64) float64 {
	d, err := accountant.UpcycledOutputDelta(m, tau, sigma, n, eps)
	if err != nil {
		return math.NaN()
	}
	return d
}

// thm62DeltaEq15 is App. E's printed form (15), written out here:
// δ = exp((Mτ²/(4|D|²σ²) − ε/2)(ε|D|²σ²/(Mτ²) − ½)).
func thm62DeltaEq15(m int, tau, sigma float64, n int, eps float64) float64 {
	M, d := float64(m), float64(n)
	return math.Exp((M*tau*tau/(4*d*d*sigma*sigma) - eps/2) * (eps*d*d*sigma*sigma/(M*tau*tau) - 0.5))
}

// thm63Epsilon is Thm 6.3's ε = Σ (2α u₁ μ + 2.8 u₂)/(|D| μ) for a constant
// α over `terms` summands (M+1 as printed); the accountant's assumption
// report is dropped here (the callers check the assumptions themselves).
func thm63Epsilon(terms int, alpha, u1, u2, mu float64, n int) float64 {
	alphas := make([]float64, terms)
	for i := range alphas {
		alphas[i] = alpha
	}
	e, _ := accountant.UpcycledObjectiveEpsilon(accountant.ObjectivePerturbationBound{Alphas: alphas, U1: u1, U2: u2, Mu: mu, N: n, FeaturesNormalised: true})
	return e
}

// goldenMin minimises a unimodal f on [lo, hi] by golden-section search.
func goldenMin(f func(float64) float64, lo, hi float64, iters int) (x, fx float64) {
	g := (math.Sqrt(5) - 1) / 2
	a, b := lo, hi
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(c), f(d)
	for i := 0; i < iters; i++ {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
	}
	if fc < fd {
		return c, fc
	}
	return d, fd
}

// thm62A is a = Mτ²/(2σ²|D|²), written out for the numeric minimisations.
func thm62A(m int, tau, sigma float64, n int) float64 {
	return float64(m) * tau * tau / (2 * sigma * sigma * float64(n) * float64(n))
}

// thm62EpsilonNumeric minimises App. E's h₁(λ) = Mτ²(λ+1)/(2|D|²σ²) + log(1/δ)/λ
// over λ > 0 numerically (golden section on log λ).
func thm62EpsilonNumeric(m int, tau, sigma float64, n int, delta float64) float64 {
	a := thm62A(m, tau, sigma, n)
	l := math.Log(1 / delta)
	_, v := goldenMin(func(t float64) float64 {
		lam := math.Exp(t)
		return a*(lam+1) + l/lam
	}, -40, 40, 300)
	return v
}

// thm62LogDeltaNumeric minimises App. E's log h(λ) = Mτ²λ(λ+1)/(2|D|²σ²) − λε
// over λ ≥ 0 numerically (bracket by doubling, then golden section).
func thm62LogDeltaNumeric(m int, tau, sigma float64, n int, eps float64) float64 {
	a := thm62A(m, tau, sigma, n)
	f := func(lam float64) float64 { return a*lam*(lam+1) - lam*eps }
	hi := 1.0
	for f(2*hi) < f(hi) && hi < 1e300 {
		hi *= 2
	}
	_, v := goldenMin(f, 0, 2*hi, 300)
	return math.Min(v, 0)
}
