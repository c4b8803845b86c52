package upcycled

import (
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/prooftest"
)

// TestConvergenceEngineAgrees runs the hand-written Lemma 5.5 check
// (quick mode) and the generic convergence engine's verdict (as
// claims/convergence TestGolden pins it: prooftest.ConvergenceVerdict) on
// claims/convergence/upcycled-lemma5.5*.yaml, and requires the same
// outcome: the printed lemma refuted ↔ violated; the corrected constants
// without violation ↔ no counterexample (or vacuous).
func TestConvergenceEngineAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Lemma 5.5 check and the engine")
	}
	hand := runHand(t, "lemma5.5-one-step")
	corrected, ok := hand.Values["corrected_violations"].(int)
	if !ok {
		t.Fatalf("the check records no corrected_violations (%T)", hand.Values["corrected_violations"])
	}
	for _, tc := range []struct {
		file    string
		refuted bool
	}{
		{"upcycled-lemma5.5", hand.Verdict == proofs.Refuted},
		{"upcycled-lemma5.5-corrected", corrected > 0},
	} {
		engine := prooftest.ConvergenceVerdict(t, tc.file)
		if (engine == conv.Violated) != tc.refuted || engine == conv.Underspecified {
			t.Errorf("%s: engine %s, hand-written check refuted = %v (%s)", tc.file, engine, tc.refuted, hand.Verdict)
		}
		t.Logf("%s: engine %s", tc.file, engine)
	}
}

// TestConvergenceEngineThm56Agrees runs the hand-written Corollary 5.8 /
// Theorem 5.6 check (quick mode), which holds only if the trajectory's
// average E‖∇f(ω̄^{2m−1})‖² stays below Theorem 5.6's right-hand side with
// the corrected constants, and the engine on
// claims/convergence/upcycled-thm5.6-corrected.yaml (the same inequality
// times C₁, with the h terms moved left): the check holding ↔ no violation
// found (no counterexample or vacuous). The printed-constant file is
// audited too and must not be underspecified (one reading).
func TestConvergenceEngineThm56Agrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Corollary 5.8 check and the engine")
	}
	hand := runHand(t, "cor5.8-rate")
	if hand.Verdict == proofs.Inconclusive {
		t.Fatalf("the hand-written check is inconclusive: %s", hand.Evidence)
	}
	for _, tc := range []struct {
		file     string
		refuted  bool
		compared bool
	}{
		{"upcycled-thm5.6-corrected", hand.Verdict == proofs.Refuted, true},
		{"upcycled-thm5.6", false, false},
	} {
		engine := prooftest.ConvergenceVerdict(t, tc.file)
		if engine == conv.Underspecified || (tc.compared && (engine == conv.Violated) != tc.refuted) {
			t.Errorf("%s: engine %s, hand-written cor5.8-rate %s", tc.file, engine, hand.Verdict)
		}
		t.Logf("%s: engine %s", tc.file, engine)
	}
}

// runHand runs the hand-written check paper/slug in quick mode at the
// default seed.
func runHand(t *testing.T, slug string) proofs.Result {
	t.Helper()
	for _, c := range proofs.Claims(paper) {
		if c.ID == paper+"/"+slug {
			return proofs.Run(c, proofs.Config{Seed: proofs.DefaultSeed, Quick: true})
		}
	}
	t.Fatalf("%s is not registered", slug)
	return proofs.Result{}
}
