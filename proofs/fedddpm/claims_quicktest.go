package fedddpm

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
)

func init() {
	register("quicktest-properties", "Algorithm 3 (QuickTest), Algorithm 2 line 7, §VI-A2",
		"QuickTest (γ = 0.4, Threshold = 0.2) compares the new score with the EMA of the previous scores and stops FedDDPM+ when they differ by at most the threshold: the first call never fires and sets AvgScore = Score; scores 10, 9, 8.9 give AvgScore 10, 9.6, 9.32 without firing; a constant score fires on the second call; firing leaves the state unchanged; checked every 10 rounds, a convergent score sequence eventually stops training, never before round 10.",
		checkQuickTest)
}

func checkQuickTest(cfg proofs.Config) proofs.Result {
	c := fedddpm.PaperQuickTest()
	var fails []string
	// (ii) the worked example.
	st := fedddpm.QuickTestState{}
	var trace []float64
	for _, s := range []float64{10, 9, 8.9} {
		var fire bool
		fire, st = fedddpm.QuickTest(st, s, c)
		if fire {
			fails = append(fails, fmt.Sprintf("fired on score %g", s))
		}
		trace = append(trace, st.AvgScore)
	}
	if math.Abs(trace[0]-10) > 1e-12 || math.Abs(trace[1]-9.6) > 1e-12 || math.Abs(trace[2]-9.32) > 1e-12 {
		fails = append(fails, fmt.Sprintf("AvgScore trace %v, want [10 9.6 9.32]", trace))
	}
	tests := 300
	if cfg.Quick {
		tests = 100
	}
	outs := []sweep.Outcome{
		// (i) the first call never fires and sets AvgScore = Score.
		sweep.Run(sweepOf(cfg, "quicktest", "first-call"), tests, func(cs *sweep.Case) bool {
			return quickFirstCall(c, cs.Float64Range(0, 400))
		}),
		// (iii) a constant score fires on the second call.
		sweep.Run(sweepOf(cfg, "quicktest", "constant-fires"), tests, func(cs *sweep.Case) bool {
			return quickConstantFires(c, cs.Float64Range(0, 400))
		}),
		// (iv) firing leaves the state unchanged, else the γ-EMA update.
		sweep.Run(sweepOf(cfg, "quicktest", "ema-update"), tests, func(cs *sweep.Case) bool {
			return quickEMA(c, cs.Float64Range(0, 60), cs.Float64Range(0, 60))
		}),
		// Convergent scores stop training at a multiple of 10, never before round 10.
		sweep.Run(sweepOf(cfg, "quicktest", "convergent-stops"), tests, func(cs *sweep.Case) bool {
			return quickConvergentStops(c, cs.Uint64())
		}),
	}
	report := sweep.Report(outs...)
	v := proofs.Holds
	if !sweep.AllOK(outs...) || len(fails) > 0 {
		v = proofs.Refuted
	}
	return proofs.Result{Verdict: v,
		Evidence: fmt.Sprintf("fedddpm.QuickTest / StopRule implement Algorithm 3 and line 7 of Algorithm 2 literally; worked example AvgScore trace %v%s; %s", trace, strings.Join(append([]string{""}, fails...), "; FAILED: "), report),
		Values:   map[string]any{"trace": trace}}
}

// quickFirstCall: the first QuickTest call on score s never fires and sets
// AvgScore = s (Algorithm 3, property (i)).
func quickFirstCall(c fedddpm.QuickTestConfig, s float64) bool {
	f, st := fedddpm.QuickTest(fedddpm.QuickTestState{}, s, c)
	return !f && st.Set && st.AvgScore == s
}

// quickConstantFires: the same score s twice fires on the second call
// (property (iii): |avg − s| = 0 ≤ Threshold).
func quickConstantFires(c fedddpm.QuickTestConfig, s float64) bool {
	_, st := fedddpm.QuickTest(fedddpm.QuickTestState{}, s, c)
	f, _ := fedddpm.QuickTest(st, s, c)
	return f
}

// quickEMA: from AvgScore avg, score s fires and leaves the state unchanged
// when |avg − s| ≤ Threshold, else it does not fire and AvgScore becomes
// γs + (1−γ)avg to 1e-12 relative (property (iv)).
func quickEMA(c fedddpm.QuickTestConfig, avg, s float64) bool {
	st := fedddpm.QuickTestState{AvgScore: avg, Set: true}
	f, next := fedddpm.QuickTest(st, s, c)
	if math.Abs(avg-s) <= c.Threshold {
		return f && next == st
	}
	return !f && math.Abs(next.AvgScore-(c.Gamma*s+(1-c.Gamma)*avg)) <= 1e-12*(1+math.Abs(avg)+math.Abs(s))
}

// quickConvergentStops: a score sequence limit + amp·rate^k (drawn from the
// stream seeded by seed) checked every 10 rounds stops training at a round
// t ≥ 10 with t a multiple of 10, recorded as StopRound.
func quickConvergentStops(c fedddpm.QuickTestConfig, seed uint64) bool {
	r := rng.New(seed, "quicktest-convergent").Rand()
	limit, amp, rate := 50*r.Float64(), 100*r.Float64(), 0.3+0.65*r.Float64()
	rule, err := fedddpm.NewStopRule(fedddpm.PaperCheckEvery, c)
	if err != nil {
		return false
	}
	check := 0
	for t := 0; t < 100000; t++ {
		if rule.Observe(t, func() float64 { check++; return limit + amp*math.Pow(rate, float64(check)) }) {
			return t >= 10 && t%10 == 0 && rule.StopRound == t
		}
	}
	return false
}
