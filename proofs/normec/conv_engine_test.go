package normec

import (
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/prooftest"
)

// TestConvergenceEngineAgrees runs the hand-written Theorem 1 check (quick
// mode) and the generic convergence engine's verdict (as claims/convergence
// TestGolden pins it: prooftest.ConvergenceVerdict) on
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
	engine := prooftest.ConvergenceVerdict(t, "normec-thm1")
	if (engine == conv.Violated) != (hand.Verdict == proofs.Refuted) || engine == conv.Underspecified {
		t.Errorf("engine %s, hand-written check %s", engine, hand.Verdict)
	}
	t.Logf("engine %s; hand-written: %s", engine, hand.Verdict)
}
