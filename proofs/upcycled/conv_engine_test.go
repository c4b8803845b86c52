package upcycled

import (
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
	"github.com/fedrepro/fedrepro/proofs"
)

// TestConvergenceEngineAgrees runs the hand-written Lemma 5.5 check
// (quick mode) and the generic convergence engine on
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
		c, err := convclaims.Load(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := conv.Audit(c, conv.Options{Seed: proofs.DefaultSeed})
		if err != nil {
			t.Fatal(err)
		}
		if (rep.Verdict == conv.Violated) != tc.refuted || rep.Verdict == conv.Underspecified {
			t.Errorf("%s: engine %s, hand-written check refuted = %v (%s)", tc.file, rep.Verdict, tc.refuted, hand.Verdict)
		}
		t.Logf("%s: engine %s — %s", tc.file, rep.Verdict, rep.Summary)
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
		c, err := convclaims.Load(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := conv.Audit(c, conv.Options{Seed: proofs.DefaultSeed})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict == conv.Underspecified || (tc.compared && (rep.Verdict == conv.Violated) != tc.refuted) {
			t.Errorf("%s: engine %s, hand-written cor5.8-rate %s", tc.file, rep.Verdict, hand.Verdict)
		}
		t.Logf("%s: engine %s — %s", tc.file, rep.Verdict, rep.Summary)
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
