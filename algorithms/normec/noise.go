package normec

import (
	"fmt"
	"math"
)

// ExperimentSigma is the noise level of the paper's experiments (Section 6):
// p·β·√(K·ln(1/δ))/ε with K = rounds. The paper calls it the "variance" of
// the added noise; we read it as the per-coordinate standard deviation σ
// (z ~ N(0, σ²·I_d)), as the theory formula it is an instance of (c = β)
// is a standard deviation; log is natural. At ε = 8, δ = 1e-5, K = 300 it
// is 7.346213·p·β. It is TheorySigma with c = β.
func ExperimentSigma(p, beta float64, rounds int, eps, delta float64) float64 {
	return p * beta * math.Sqrt(float64(rounds)*math.Log(1/delta)) / eps
}

// TheorySigma is the theory's noise level (Section 5.1, Corollaries 1, 3,
// 6): c·p·√((K+1)·ln(1/δ))/ε, where rounds = K+1 is the number of rounds
// run and c > 0 is a constant the paper leaves unspecified (Abadi et al.'s
// moments-accountant constant). It is a standard deviation.
func TheorySigma(c, p float64, rounds int, eps, delta float64) float64 {
	return c * p * math.Sqrt(float64(rounds)*math.Log(1/delta)) / eps
}

// TheoryConstant inverts TheorySigma: the c for which the theory formula
// gives σ.
func TheoryConstant(sigma, p float64, rounds int, eps, delta float64) float64 {
	return sigma * eps / (p * math.Sqrt(float64(rounds)*math.Log(1/delta)))
}

// VarianceB is the constant B of Lemma 3 / Theorem 1 as printed,
// B = 2(p−1)²/p + 2(1−p) + 2·noiseSq/p, where noiseSq = E‖z_i^k‖² is the
// total noise power: the paper's σ²_DP. With per-coordinate std σ (as
// Algorithm does), noiseSq = d·σ² — not σ², see the lemma3 claims.
func VarianceB(p, noiseSq float64) float64 {
	return 2*(p-1)*(p-1)/p + 2*(1-p) + 2*noiseSq/p
}

func checkPrivacyArgs(p float64, rounds int, eps, delta float64) error {
	// If-chains, not a tagless switch: see Config.Validate.
	if !(p > 0 && p <= 1) {
		return fmt.Errorf("normec: sampling probability %v, want 0 < p ≤ 1", p)
	}
	if rounds < 1 {
		return fmt.Errorf("normec: %d rounds, want ≥ 1", rounds)
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("normec: ε = %v, want a finite ε > 0", eps)
	}
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("normec: δ = %v, want 0 < δ < 1", delta)
	}
	return nil
}
