package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// shiftMechanism releases shift·[neighbour] + N(0, std²): the one-round
// output perturbation of the Upcycled-FL audit reduced to its score.
func shiftMechanism(shift, std float64) Mechanism {
	return func(r *rand.Rand, neighbour bool) float64 {
		x := std * r.NormFloat64()
		if neighbour {
			x += shift
		}
		return x
	}
}

// TestGDPMovesWithNoise is the regression test of the Upcycled-FL
// op-empirical figure that read 42.28 for noise std 1, 0.8 and 0.64: with
// a separation of 20 (2τ) every threshold test is error-free, so the
// count-based GDP estimate is one number fixed by the trial count — the
// game must say so (BudgetLimited) — while the score fit must move with
// the noise, bracket the true μ = 20/std, and order the three settings.
func TestGDPMovesWithNoise(t *testing.T) {
	const trials, delta = 5000, 1e-5
	var counted []float64
	prevMu := 0.0
	for _, std := range []float64{1, 0.8, 0.64} {
		g := Game{ID: fmt.Sprintf("gdp-moves/%g", std), Seed: 7, Trials: trials, Delta: delta}
		res, err := g.Run(shiftMechanism(20, std))
		if err != nil {
			t.Fatal(err)
		}
		counted = append(counted, res.EpsilonGDP)
		if !res.BudgetLimited || res.EpsilonLB != res.MaxEpsilonLB {
			t.Errorf("std %g: error-free test not flagged as budget-limited (ε_lb %v, max %v, %+v)", std, res.EpsilonLB, res.MaxEpsilonLB, res.Counts)
		}
		want := 20 / std
		f := res.Fit
		if !(f.MuLo <= want && want <= f.MuHi) || !(math.Abs(f.Mu-want) <= 0.05*want) {
			t.Errorf("std %g: fitted μ %v [%v, %v], want ≈ %v inside the interval", std, f.Mu, f.MuLo, f.MuHi, want)
		}
		if !(f.Mu > prevMu) {
			t.Errorf("std %g: μ %v does not grow as the noise shrinks (previous %v)", std, f.Mu, prevMu)
		}
		prevMu = f.Mu
		e, err := GDPEpsilon(f.MuLo, 1, delta)
		if err != nil || !(e > res.EpsilonGDP) {
			t.Errorf("std %g: ε at μ_lo %v (%v) should exceed the saturated count estimate %v", std, e, err, res.EpsilonGDP)
		}
	}
	if counted[0] != counted[1] || counted[1] != counted[2] {
		t.Logf("count-based GDP estimates differ: %v (expected identical when saturated)", counted)
	}
}

// TestGaussianFitCoverage: over independent replicates the interval
// contains the true μ at least at its confidence (the union bound makes
// it conservative), and μ_lo ≤ μ̂ ≤ μ_hi always.
func TestGaussianFitCoverage(t *testing.T) {
	const reps, n, mu = 400, 60, 1.3
	miss := 0
	for k := 0; k < reps; k++ {
		r := rng.New(11, "fit-coverage", k).Rand()
		s0, s1 := make([]float64, n), make([]float64, n)
		for i := range s0 {
			s0[i] = 3 + 2*r.NormFloat64()
			s1[i] = 3 + 2*mu + 2*r.NormFloat64()
		}
		f, err := GaussianFit(s0, s1, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if !(f.MuLo <= f.Mu && f.Mu <= f.MuHi) {
			t.Fatalf("replicate %d: μ̂ %v outside its own interval [%v, %v]", k, f.Mu, f.MuLo, f.MuHi)
		}
		if !(f.MuLo <= mu && mu <= f.MuHi) {
			miss++
		}
	}
	// Binomial(400, 0.05) exceeds 30 with probability < 0.2%.
	if miss > 30 {
		t.Errorf("interval missed μ in %d of %d replicates (95%% intervals)", miss, reps)
	}
	if _, err := GaussianFit([]float64{1}, []float64{1, 2}, 0.95); err == nil {
		t.Error("one score on D accepted")
	}
	f, err := GaussianFit([]float64{1, 1}, []float64{2, 2}, 0.95)
	if err != nil || !math.IsInf(f.MuLo, 1) {
		t.Errorf("deterministic distinct scores: %+v (%v), want μ = +Inf", f, err)
	}
}

// TestCalibratedGame: calibrated selection never certifies more than the
// mechanism's true ε (a Gaussian of μ = 1.5: ε = GDP(1.5) at δ), grows
// with the number of evaluation trials on an error-free mechanism exactly
// as MaxEpsilonLB, and is deterministic.
func TestCalibratedGame(t *testing.T) {
	const delta = 1e-5
	truth, err := accountant.GDPEpsilon(1.5, delta)
	if err != nil {
		t.Fatal(err)
	}
	g := Game{ID: "calibrated/valid", Seed: 3, Trials: 3000, Calibration: 300, Delta: delta, Selection: Calibrated}
	res, err := g.Run(shiftMechanism(1.5, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !(res.EpsilonLB <= truth) || !(res.EpsilonLB > 0) {
		t.Errorf("ε_lb %v: want in (0, %v]", res.EpsilonLB, truth)
	}
	if res.BudgetLimited {
		t.Errorf("overlapping Gaussians flagged budget-limited: %+v", res.Counts)
	}
	again, _ := g.Run(shiftMechanism(1.5, 1))
	if again.EpsilonLB != res.EpsilonLB || again.Counts != res.Counts {
		t.Error("calibrated game not deterministic")
	}
	prev := 0.0
	for _, n := range []int{50, 500, 5000} {
		g := Game{ID: "calibrated/grows", Seed: 3, Trials: n, Calibration: 20, Delta: 0, Selection: Calibrated}
		r, err := g.Run(shiftMechanism(50, 1))
		if err != nil {
			t.Fatal(err)
		}
		if r.EpsilonLB != r.MaxEpsilonLB || !(r.EpsilonLB > prev) || !r.BudgetLimited {
			t.Errorf("n = %d: ε_lb %v, max %v, previous %v", n, r.EpsilonLB, r.MaxEpsilonLB, prev)
		}
		// 0 errors in n trials: ε_lb = ln((a^{1/n})/(1 − a^{1/n})), a = 0.025.
		a := math.Pow(0.025, 1/float64(n))
		if want := math.Log(a / (1 - a)); !(math.Abs(r.EpsilonLB-want) <= 1e-9) {
			t.Errorf("n = %d: ε_lb %v, closed form %v", n, r.EpsilonLB, want)
		}
		prev = r.EpsilonLB
	}
	if _, err := (Game{ID: "x", Trials: 10, Selection: Calibrated}).Run(shiftMechanism(1, 1)); err == nil {
		t.Error("calibrated game without calibration trials accepted")
	}
}

// TestGameInfiniteScores: a game whose scores are infinite still gives
// its Clopper–Pearson bound; only the fit is left NaN.
func TestGameInfiniteScores(t *testing.T) {
	g := Game{ID: "inf-scores", Seed: 1, Trials: 100, Delta: 1e-5}
	res, err := g.Run(func(_ *rand.Rand, neighbour bool) float64 {
		if neighbour {
			return math.Inf(1)
		}
		return 0
	})
	if err != nil || !(res.EpsilonLB > 0) || !math.IsNaN(res.Fit.Mu) {
		t.Errorf("ε_lb %v, fit %+v, %v", res.EpsilonLB, res.Fit, err)
	}
}
