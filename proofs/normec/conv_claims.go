package normec

import (
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
)

// The generic convergence engine (algorithms/audit/convergence) on this
// paper's convergence claim files (claims/convergence/normec-*.yaml), so that
// `fedrepro verify --paper normec` shows its verdicts beside the hand-written
// checks: a violation (the measured quantity above the bound on an
// instance of the theorem's class) is refuted; no counterexample within
// the file's smoke budget, or a vacuous bound, holds; readings that
// disagree are inconclusive. Computation kind: the verdict comes from
// running the project's implementation of the method in the engine.
func init() {
	convclaims.RegisterProof(paper, "conv-engine-thm1", "normec-thm1",
		"Theorem 1 (p = 1, σ_DP = 0), through claims/convergence/normec-thm1.yaml",
		"min_k E‖∇f(x^k)‖ ≤ 3/(K+1)·(f(x⁰) − f^inf)/η + 2R + ηL/2 + γ·𝕀_{T≠1}·8L√(2L)√Δ^inf for Fed-α-NormEC with local GD steps")
	convclaims.RegisterProof(paper, "conv-engine-thm2", "normec-thm2",
		"Theorem 2 (local cyclic IG steps, p = 1, σ_DP = 0), through claims/convergence/normec-thm2.yaml",
		"min_k E‖∇f(x^k)‖ ≤ 3/(K+1)·(f(x⁰) − f^inf)/η + 2R + γ·8L√(2L)√Δ^inf + γ·4L√(2L)√((1/M)ΣΔ_i^inf) + ηL/2 for Fed-α-NormEC with one cyclic IG pass per round (readings: Δ_i^inf as printed and with f_i^inf)")
}
