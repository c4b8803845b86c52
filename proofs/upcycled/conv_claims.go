package upcycled

import (
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
)

// The generic convergence engine (algorithms/audit/convergence) on this
// paper's convergence claim files (claims/convergence/upcycled-*.yaml), so that
// `fedrepro verify --paper upcycled` shows its verdicts beside the hand-written
// checks: a violation (the measured quantity above the bound on an
// instance of the theorem's class) is refuted; no counterexample within
// the file's smoke budget, or a vacuous bound, holds; readings that
// disagree are inconclusive. Computation kind: the verdict comes from
// running the project's implementation of the method in the engine.
func init() {
	convclaims.RegisterProof(paper, "conv-engine-lemma5.5", "upcycled-lemma5.5",
		"Lemma 5.5, Eqs. (11)–(13), through claims/convergence/upcycled-lemma5.5.yaml",
		"one Upcycled-FL step pair decreases E f by C₁‖∇f‖² up to C₂h¹ + C₃h², with the printed constants")
	convclaims.RegisterProof(paper, "conv-engine-lemma5.5-corrected", "upcycled-lemma5.5-corrected",
		"Lemma 5.5 with fedrepro's corrected C₁, C₂, through claims/convergence/upcycled-lemma5.5-corrected.yaml",
		"the same decrease with C₁ and C₂ recomputed from the proof's own steps")
}
