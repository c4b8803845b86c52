package normec

import (
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/prooftest"
)

// TestConvergenceEngineAgreesThm2 runs the hand-written checks that
// concern Theorem 2's bound — Corollary 5 (Theorem 2 at the corollary's
// schedules, one cyclic IG pass per round on logistic regression) and
// Lemma 8 (the IG drift bound that carries the Δ^inf and Δ_i^inf terms) —
// in quick mode, and the generic engine's verdict (as claims/convergence
// TestGolden pins it: prooftest.ConvergenceVerdict) on
// claims/convergence/normec-thm2.yaml: holds ↔ no counterexample or
// vacuous; refuted ↔ violated; the engine's two readings of Δ_i^inf must
// agree (not underspecified).
func TestConvergenceEngineAgreesThm2(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Corollary 5 and Lemma 8 checks and the engine")
	}
	engine := prooftest.ConvergenceVerdict(t, "normec-thm2")
	for _, id := range []string{"normec/cor5-rate-k-1-8-ig", "normec/lemma8-ig-drift"} {
		var hand proofs.Result
		found := false
		for _, cl := range proofs.Claims("normec") {
			if cl.ID == id {
				hand, found = proofs.Run(cl, proofs.Config{Seed: proofs.DefaultSeed, Quick: true}), true
			}
		}
		if !found {
			t.Fatalf("%s is not registered", id)
		}
		if (engine == conv.Violated) != (hand.Verdict == proofs.Refuted) || engine == conv.Underspecified {
			t.Errorf("engine %s, hand-written %s: %s", engine, id, hand.Verdict)
		}
		t.Logf("engine %s; hand-written %s: %s", engine, id, hand.Verdict)
	}
}
