package accountant

import (
	"errors"
	"fmt"
	"math"
)

// Closed-form privacy statements that the reproduced papers use. They are
// implemented exactly as printed so that audits can recompute a paper's
// numbers and then compare them with the accountants above.

// ErrAssumption is wrapped by errors reporting that a closed form is used
// outside the assumptions it was proved under. Functions that return it
// still return the formula's value, so audits can print both.
var ErrAssumption = errors.New("assumption violated")

// AbadiC2 is the leading-order constant c₂ of Abadi et al. 2016 Thm 1
// implied by their Lemma 3: with the per-step log-moment
// q²λ(λ+1)/((1−q)σ²), the tail bound gives ε ≈ 2√(a·log(1/δ)) for
// a = Tq²/σ², i.e. σ = 2q√(T log(1/δ))/ε as q → 0. The paper leaves c₁, c₂
// unspecified.
const AbadiC2 = 2

// AbadiSigma is Abadi et al. 2016 Thm 1: the noise multiplier
// σ = c₂·q·√(T·log(1/δ))/ε that makes T steps of DP-SGD with sampling
// probability q (ε, δ)-DP, for ε < c₁q²T. The Haar-wavelet paper's eq. (11)
// prints log(1/q) in place of log(1/δ); AbadiSigma(q, T, ε, q, c₂)
// reproduces that printed form (haar.md §4.2).
func AbadiSigma(q float64, steps int, eps, delta, c2 float64) (float64, error) {
	if !(q > 0 && q <= 1) || steps < 1 || !(eps > 0) || !(delta > 0 && delta < 1) || !(c2 > 0) {
		return 0, fmt.Errorf("AbadiSigma(q=%v, T=%d, ε=%v, δ=%v, c₂=%v): want q ∈ (0,1], T ≥ 1, ε > 0, δ ∈ (0,1), c₂ > 0", q, steps, eps, delta, c2)
	}
	return c2 * q * math.Sqrt(float64(steps)*math.Log(1/delta)) / eps, nil
}

// AbadiEpsilon is the moments-accountant ε of Abadi et al. 2016 keeping
// only the leading term of Lemma 3, α(λ) = q²λ(λ+1)/((1−q)σ²) per step:
// with a = T·q²/((1−q)σ²), δ = min_λ exp(aλ(λ+1) − λε) gives
// ε = a + 2√(a·log(1/δ)) at λ* = √(log(1/δ)/a). Lemma 3 assumes σ ≥ 1 and
// λ ≤ σ² log(1/(qσ)); outside that range (or for q = 1, where there is no
// subsampling and the exact Gaussian log-moment is λ(λ+1)/(2σ²)) the value
// is returned with an error wrapping ErrAssumption. Dropping the
// O(q³λ³/σ³) term makes this an approximation, not a bound: use the RDP
// accountant for guarantees.
func AbadiEpsilon(q, sigma float64, steps int, delta float64) (float64, error) {
	if !(q > 0 && q <= 1) || !(sigma > 0) || steps < 1 || !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("AbadiEpsilon(q=%v, σ=%v, T=%d, δ=%v): want q ∈ (0,1], σ > 0, T ≥ 1, δ ∈ (0,1)", q, sigma, steps, delta)
	}
	if q == 1 {
		return math.Inf(1), fmt.Errorf("%w: Lemma 3 needs subsampling (q < 1)", ErrAssumption)
	}
	a := float64(steps) * q * q / ((1 - q) * sigma * sigma)
	L := math.Log(1 / delta)
	eps := a + 2*math.Sqrt(a*L)
	lam := math.Sqrt(L / a)
	switch {
	case sigma < 1:
		return eps, fmt.Errorf("%w: Abadi et al. Lemma 3 needs σ ≥ 1 (σ = %g)", ErrAssumption, sigma)
	case q*sigma >= 1 || lam > sigma*sigma*math.Log(1/(q*sigma)):
		return eps, fmt.Errorf("%w: the optimal moment λ* = %.3g exceeds Lemma 3's range σ²·log(1/(qσ))", ErrAssumption, lam)
	}
	return eps, nil
}

// UpcycledOutputA is a = M·τ²/(2σ²|D|²) of Upcycled-FL Thm 6.2: the
// composed log-moment coefficient of M data-touching rounds of output
// perturbation with clip τ, noise std σ and a client dataset of n records
// (per-round L2 sensitivity τ/|D| under add-one, App. E).
func UpcycledOutputA(rounds int, tau, sigma float64, n int) float64 {
	return float64(rounds) * tau * tau / (2 * sigma * sigma * float64(n) * float64(n))
}

func checkUpcycledOutput(rounds int, tau, sigma float64, n int) error {
	if rounds < 1 || !(tau > 0) || !(sigma > 0) || n < 1 {
		return fmt.Errorf("Upcycled Thm 6.2 needs rounds ≥ 1, τ > 0, σ > 0, |D| ≥ 1 (got %d, %v, %v, %d)", rounds, tau, sigma, n)
	}
	return nil
}

// UpcycledOutputEpsilon is Upcycled-FL Thm 6.2: ε(δ) = 2√(a·log(1/δ)) + a.
func UpcycledOutputEpsilon(rounds int, tau, sigma float64, n int, delta float64) (float64, error) {
	if err := checkUpcycledOutput(rounds, tau, sigma, n); err != nil {
		return 0, err
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("δ = %v: want 0 < δ < 1", delta)
	}
	a := UpcycledOutputA(rounds, tau, sigma, n)
	return 2*math.Sqrt(a*math.Log(1/delta)) + a, nil
}

// UpcycledOutputDelta is Upcycled-FL Thm 6.2's δ(ε) = exp(−(ε−a)²/(4a)),
// stated for ε ≥ a; a smaller ε returns an error wrapping ErrAssumption
// (the theorem says nothing there; the λ-form gives δ = 1).
func UpcycledOutputDelta(rounds int, tau, sigma float64, n int, eps float64) (float64, error) {
	if err := checkUpcycledOutput(rounds, tau, sigma, n); err != nil {
		return 0, err
	}
	a := UpcycledOutputA(rounds, tau, sigma, n)
	if !(eps >= a) {
		return 1, fmt.Errorf("%w: Thm 6.2 needs ε ≥ a = %.4g (ε = %v)", ErrAssumption, a, eps)
	}
	return math.Exp(-(eps - a) * (eps - a) / (4 * a)), nil
}

// UpcycledOutputDeltaLambda is the App. E form of Thm 6.2:
// δ = min_{λ≥0} exp(aλ(λ+1) − λε), minimised at λ* = ε/(2a) − ½ (clamped
// at 0, where δ = 1). It returns δ and λ*; for ε ≥ a it equals
// UpcycledOutputDelta.
func UpcycledOutputDeltaLambda(rounds int, tau, sigma float64, n int, eps float64) (delta, lambda float64, err error) {
	if err := checkUpcycledOutput(rounds, tau, sigma, n); err != nil {
		return 0, 0, err
	}
	a := UpcycledOutputA(rounds, tau, sigma, n)
	lambda = math.Max(0, eps/(2*a)-0.5)
	return math.Exp(a*lambda*(lambda+1) - lambda*eps), lambda, nil
}

// UpcycledOutputEpsilonLambda is the App. E ε form:
// ε = min_{λ>0} a(λ+1) + log(1/δ)/λ, at λ* = √(log(1/δ)/a). It returns ε
// and λ*; ε equals UpcycledOutputEpsilon.
func UpcycledOutputEpsilonLambda(rounds int, tau, sigma float64, n int, delta float64) (eps, lambda float64, err error) {
	if err := checkUpcycledOutput(rounds, tau, sigma, n); err != nil {
		return 0, 0, err
	}
	if !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("δ = %v: want 0 < δ < 1", delta)
	}
	a := UpcycledOutputA(rounds, tau, sigma, n)
	L := math.Log(1 / delta)
	lambda = math.Sqrt(L / a)
	return a*(lambda+1) + L/lambda, lambda, nil
}

// UpcycledOutputSigma inverts Thm 6.2: the noise std σ for which M rounds
// are (ε, δ)-DP, from √a = √(log(1/δ) + ε) − √(log(1/δ)) and
// σ = τ√M/(|D|√(2a)).
func UpcycledOutputSigma(rounds int, tau float64, n int, eps, delta float64) (float64, error) {
	if rounds < 1 || !(tau > 0) || n < 1 || !(eps > 0) || !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("UpcycledOutputSigma(rounds=%d, τ=%v, |D|=%d, ε=%v, δ=%v): want positive values and δ ∈ (0,1)", rounds, tau, n, eps, delta)
	}
	L := math.Log(1 / delta)
	// √(L+ε) − √L, written without cancellation.
	sa := eps / (math.Sqrt(L+eps) + math.Sqrt(L))
	a := sa * sa
	return tau * math.Sqrt(float64(rounds)) / (float64(n) * math.Sqrt(2*a)), nil
}

// ObjectivePerturbationBound holds the inputs of Upcycled-FL Thm 6.3
// (objective perturbation, pure ε-DP for one client).
type ObjectivePerturbationBound struct {
	// Alphas are the noise rates α_i^m of the leaking rounds; the printed
	// sum runs over m = 0..M, i.e. M+1 rounds.
	Alphas []float64
	// U1 bounds the per-example gradient norm ‖∇F̂(ω; d)‖ < u₁.
	U1 float64
	// U2 bounds the GLM's second derivative |F̂''| ≤ u₂.
	U2 float64
	// Mu is the proximal coefficient μ > 0.
	Mu float64
	// N is the client's dataset size |D_i|.
	N int
	// FeaturesNormalised records whether every feature vector has ‖x‖ ≤ 1,
	// which the proof assumes; false is reported as a violated assumption.
	FeaturesNormalised bool
}

// UpcycledObjectiveEpsilon is Upcycled-FL Thm 6.3:
// ε = Σ_m (2α_m u₁ μ + 2.8 u₂)/(|D| μ). Per round, 2α u₁/|D| bounds the
// noise-density ratio and 2.8u₂/(|D|μ) the Jacobian ratio, the latter via
// −ln(1−x) < 1.4x, valid for x = u₂/(|D|μ) ≤ ½. It returns the value and,
// when an assumption fails (u₂ > ½|D|μ, or features not normalised), an
// error wrapping ErrAssumption; invalid inputs (μ ≤ 0, negative bounds or
// rates, no rounds) return a plain error.
func UpcycledObjectiveEpsilon(b ObjectivePerturbationBound) (float64, error) {
	if !(b.Mu > 0) {
		return 0, fmt.Errorf("Thm 6.3 needs μ > 0 (μ = %v)", b.Mu)
	}
	if b.N < 1 || !(b.U1 >= 0) || !(b.U2 >= 0) || len(b.Alphas) == 0 {
		return 0, fmt.Errorf("Thm 6.3 needs |D| ≥ 1, u₁, u₂ ≥ 0 and at least one round (got |D|=%d, u₁=%v, u₂=%v, %d rounds)", b.N, b.U1, b.U2, len(b.Alphas))
	}
	n := float64(b.N)
	eps := 0.0
	for m, a := range b.Alphas {
		if !(a >= 0) || math.IsInf(a, 0) {
			return 0, fmt.Errorf("Thm 6.3: noise rate α at round %d is %v; want a finite value ≥ 0", m, a)
		}
		eps += (2*a*b.U1*b.Mu + 2.8*b.U2) / (n * b.Mu)
	}
	switch {
	case b.U2 > 0.5*n*b.Mu:
		return eps, fmt.Errorf("%w: Thm 6.3 needs u₂ ≤ ½|D|μ (u₂ = %g > %g)", ErrAssumption, b.U2, 0.5*n*b.Mu)
	case !b.FeaturesNormalised:
		return eps, fmt.Errorf("%w: Thm 6.3 needs features normalised to ‖x‖ ≤ 1", ErrAssumption)
	}
	return eps, nil
}

// UpcycledObjectiveAlpha inverts Thm 6.3 for a constant rate over R leaking
// rounds: α = (ε|D|/R − 2.8u₂/μ)/(2u₁). A non-positive result means the
// Jacobian term alone exceeds the budget, reported as an error.
func UpcycledObjectiveAlpha(eps float64, rounds int, u1, u2, mu float64, n int) (float64, error) {
	if !(eps > 0) || rounds < 1 || !(u1 > 0) || !(u2 >= 0) || !(mu > 0) || n < 1 {
		return 0, fmt.Errorf("UpcycledObjectiveAlpha(ε=%v, R=%d, u₁=%v, u₂=%v, μ=%v, |D|=%d): want ε, u₁, μ > 0, u₂ ≥ 0, R, |D| ≥ 1", eps, rounds, u1, u2, mu, n)
	}
	alpha := (eps*float64(n)/float64(rounds) - 2.8*u2/mu) / (2 * u1)
	if alpha <= 0 {
		return 0, fmt.Errorf("%w: the Jacobian term 2.8u₂R/(|D|μ) = %.4g alone exceeds ε = %g", ErrUnreachable, 2.8*u2*float64(rounds)/(float64(n)*mu), eps)
	}
	return alpha, nil
}
