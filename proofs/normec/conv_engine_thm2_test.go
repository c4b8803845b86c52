package normec

import (
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
	"github.com/fedrepro/fedrepro/proofs"
)

// TestConvergenceEngineAgreesThm2 runs the hand-written checks that
// concern Theorem 2's bound — Corollary 5 (Theorem 2 at the corollary's
// schedules, one cyclic IG pass per round on logistic regression) and
// Lemma 8 (the IG drift bound that carries the Δ^inf and Δ_i^inf terms) —
// in quick mode, and the generic engine on
// claims/convergence/normec-thm2.yaml: holds ↔ no counterexample or
// vacuous; refuted ↔ violated; the engine's two readings of Δ_i^inf must
// agree (not underspecified).
func TestConvergenceEngineAgreesThm2(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Corollary 5 and Lemma 8 checks and the engine")
	}
	c, err := convclaims.Load("normec-thm2")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := conv.Audit(c, conv.Options{Seed: proofs.DefaultSeed})
	if err != nil {
		t.Fatal(err)
	}
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
		if (rep.Verdict == conv.Violated) != (hand.Verdict == proofs.Refuted) || rep.Verdict == conv.Underspecified {
			t.Errorf("engine %s, hand-written %s: %s", rep.Verdict, id, hand.Verdict)
		}
		t.Logf("engine %s — %s; hand-written %s: %s", rep.Verdict, rep.Summary, id, hand.Verdict)
	}
}
