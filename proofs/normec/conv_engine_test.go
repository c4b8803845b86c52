package normec

import (
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
	"github.com/fedrepro/fedrepro/proofs"
)

// TestConvergenceEngineAgrees runs the hand-written Theorem 1 check (quick
// mode) and the generic convergence engine on
// claims/convergence/normec-thm1.yaml: holds ↔ no counterexample or
// vacuous; refuted ↔ violated.
func TestConvergenceEngineAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Theorem 1 check and the engine")
	}
	var hand proofs.Result
	found := false
	for _, c := range proofs.Claims("normec") {
		if c.ID == "normec/thm1-bound" {
			hand, found = proofs.Run(c, proofs.Config{Seed: proofs.DefaultSeed, Quick: true}), true
		}
	}
	if !found {
		t.Fatal("thm1-bound is not registered")
	}
	c, err := convclaims.Load("normec-thm1")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := conv.Audit(c, conv.Options{Seed: proofs.DefaultSeed})
	if err != nil {
		t.Fatal(err)
	}
	if (rep.Verdict == conv.Violated) != (hand.Verdict == proofs.Refuted) || rep.Verdict == conv.Underspecified {
		t.Errorf("engine %s, hand-written check %s", rep.Verdict, hand.Verdict)
	}
	t.Logf("engine %s — %s; hand-written: %s", rep.Verdict, rep.Summary, hand.Verdict)
}
