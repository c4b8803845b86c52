package normec

import (
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
	"github.com/fedrepro/fedrepro/proofs"
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
	registerEngine("conv-engine-thm1", "normec-thm1",
		"Theorem 1 (p = 1, σ_DP = 0), through claims/convergence/normec-thm1.yaml",
		"min_k E‖∇f(x^k)‖ ≤ 3/(K+1)·(f(x⁰) − f^inf)/η + 2R + ηL/2 + γ·𝕀_{T≠1}·8L√(2L)√Δ^inf for Fed-α-NormEC with local GD steps")
}

// registerEngine registers the engine's audit of claims/convergence/<file>.yaml.
func registerEngine(slug, file, source, statement string) {
	proofs.Register(proofs.Claim{
		ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement,
		Check: func(cfg proofs.Config) proofs.Result {
			o, err := convclaims.AuditOutcome(file, cfg.Seed)
			if err != nil {
				return proofs.Result{Verdict: proofs.Inconclusive, Evidence: "convergence engine: " + err.Error()}
			}
			return proofs.Result{Verdict: proofs.Verdict(o.Verdict), Evidence: o.Evidence, Values: o.Values}
		},
	})
}
