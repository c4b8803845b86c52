package fedddpm

import (
	"strings"
	"testing"

	fa "github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/fedrepro/fedrepro/golden"
	"github.com/fedrepro/fedrepro/reproduce/paper"
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

// Table IV's relations are counted on the paper's printed FIDs (aux below
// both FL models in all three columns, FedDDPM below the centrally trained
// model in all three, FedAvg in two: not on MNIST), never typed in.
func TestPaperTable4Counts(t *testing.T) {
	nums, err := paper.LoadNumbersFS(golden.Papers, "fedddpm")
	if err != nil {
		t.Fatal(err)
	}
	pt, ok := nums.Table("IV")
	if !ok {
		t.Fatal("paper.yaml has no Table IV")
	}
	if got, want := paperTable4(pt), (t4Counts{n: 3, auxBest: 3, fedddpmBeatsCentral: 3, fedavgBeatsCentral: 2}); got != want {
		t.Errorf("paperTable4 = %+v, want %+v", got, want)
	}
	if got := paperTable4(nil); got != (t4Counts{}) {
		t.Errorf("no table: %+v", got)
	}
	// The first scores the paper's MNIST stop rounds imply: checks 12–17 at
	// γ = 0.4 and threshold 0.2 give 0.2/0.6^11 ≈ 55 and 0.2/0.6^16 ≈ 709.
	w := &reportWriter{ReportWriter: paper.ReportWriter[Spec, map[gkey]*group]{Nums: nums}}
	if note := w.paperStopNote(); !strings.Contains(note, "≈ 55 ") || !strings.Contains(note, "≈ 709,") {
		t.Errorf("paperStopNote = %q", note)
	}
}
