package convergence

import (
	"strings"
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
)

// TestOutcomeOf: the engine's verdicts map onto the proofs registry's
// (violated → refuted; no counterexample and vacuous → holds, the engine's
// own verdict kept in the values and the evidence; underspecified →
// inconclusive), and the worst ratio over the readings is the one reported.
func TestOutcomeOf(t *testing.T) {
	worst := func(r float64) *conv.Eval { return &conv.Eval{Ratio: conv.Float(r), Bound: 1} }
	for _, tc := range []struct {
		engine, want string
		ratios       []float64
		evidence     string
	}{
		{conv.Violated, "refuted", []float64{1.2}, "1.2"},
		{conv.NoCounter, "holds", []float64{0.3, 0.7}, "0.7"},
		{conv.Vacuous, "holds", []float64{0.9}, "vacuous"},
		{conv.Underspecified, "inconclusive", []float64{0.4, 1.5}, "1.5"},
	} {
		rep := &conv.Report{ID: "x", Verdict: tc.engine}
		for i, r := range tc.ratios {
			rep.Readings = append(rep.Readings, conv.ReadingReport{Reading: string(rune('a' + i)), Verdict: tc.engine, Worst: worst(r)})
		}
		o := outcomeOf(rep)
		if o.Verdict != tc.want || o.Values["engine_verdict"] != tc.engine {
			t.Errorf("%s: got %s (engine_verdict %v), want %s", tc.engine, o.Verdict, o.Values["engine_verdict"], tc.want)
		}
		if !strings.Contains(o.Evidence, tc.evidence) {
			t.Errorf("%s: evidence %q lacks %q", tc.engine, o.Evidence, tc.evidence)
		}
		if got := o.Values["reading/a/worst_ratio"]; got != tc.ratios[0] {
			t.Errorf("%s: reading/a/worst_ratio = %v, want %v", tc.engine, got, tc.ratios[0])
		}
	}
}

// TestAuditOutcomeUnknown: an unknown id is a one-line error, not a verdict.
func TestAuditOutcomeUnknown(t *testing.T) {
	if _, err := AuditOutcome("no-such-claim", 1); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("AuditOutcome(no-such-claim) = %v, want a one-line error", err)
	}
}
