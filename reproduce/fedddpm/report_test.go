package fedddpm

import (
	"testing"

	fa "github.com/fedrepro/fedrepro/algorithms/fedddpm"
)

// On a first score followed by a constant one, QuickTest fires exactly at
// the check forgetChecks predicts.
func TestForgetChecksMatchesQuickTest(t *testing.T) {
	cases := []struct{ s0, s, gamma, thr float64 }{
		{100, 0, 0.4, 0.2}, {1e4, 0.3, 0.4, 0.038}, {5, 4.9, 0.4, 0.2}, {300, 20, 0.5, 2.4},
	}
	for _, c := range cases {
		rule, err := fa.NewStopRule(1, fa.QuickTestConfig{Gamma: c.gamma, Threshold: c.thr, TestSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		scores := []float64{c.s0}
		for k := 1; k < 200 && !rule.Fired(); k++ {
			scores = append(scores, c.s)
		}
		for i, v := range scores {
			if rule.Observe(i, func() float64 { return v }) {
				break
			}
		}
		if got := forgetChecks(rule.Scores, c.gamma, c.thr); got != rule.StopRound {
			t.Errorf("%+v: forgetChecks %d, QuickTest fired at check %d", c, got, rule.StopRound)
		}
	}
}

func TestLabels(t *testing.T) {
	cases := map[string]string{"shard/p0.15": "Shard 15%", "dir0.1/p0.3": "Dir 0.1 30%", "dir0.3/p0.5": "Dir 0.3 50%"}
	for in, want := range cases {
		if got := colLabel(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
