package upcycled

import (
	"math"
	"testing"
)

// TestCostChargesTheGridSearch: a tuned run's cost is its own training
// plus its share of the cell's grid search, whose size follows the grid
// (lrs, cs, search seeds; shared_lr adds the baseline's lr search to
// Upcycled's c search instead of searching lr × c).
func TestCostChargesTheGridSearch(t *testing.T) {
	tuned := tunedConfig()
	tuned.Source = "released"
	tuned.Tune = &TuneConfig{LRs: []float64{0.001, 0.01, 0.1}, Cs: []float64{0.1, 0.5}, Seeds: []uint64{7, 8}, ValFrac: 0.2}
	own := tuned
	own.Tune = nil
	gridRun := func(c RunConfig) float64 { // one grid point's run
		c.Tune, c.EvalEvery = nil, c.Iterations
		return c.ownCost(0.8)
	}
	base := tuned
	base.Variant, base.Coef = "baseline", 0
	baseOwn := own
	baseOwn.Variant, baseOwn.Coef = "baseline", 0
	shared := tuned
	shared.Tune = &TuneConfig{LRs: tuned.Tune.LRs, Cs: tuned.Tune.Cs, Seeds: tuned.Tune.Seeds, ValFrac: 0.2, SharedLR: true}
	shared.BaselineIterations = 3
	sharedBase := base
	sharedBase.Iterations = 3
	for _, tc := range []struct {
		name      string
		cfg       RunConfig
		ownCost   float64
		searchPer float64 // per search seed
	}{
		{"baseline: 3 lrs", base, baseOwn.Cost(), 3 * gridRun(base)},
		{"upcycled: 3 lrs × 2 cs", tuned, own.Cost(), 6 * gridRun(tuned)},
		{"upcycled, shared lr: 2 cs + the baseline's 3 lrs", shared, own.Cost(), 2*gridRun(tuned) + 3*gridRun(sharedBase)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, share := range []float64{0, 1, 0.2} {
				c := tc.cfg
				c.SearchShare = share
				s := share
				if s == 0 {
					s = 1
				}
				want := tc.ownCost + s*2*tc.searchPer
				if got := c.Cost(); math.Abs(got-want) > 1e-9*want {
					t.Errorf("share %g: cost %g, want %g", share, got, want)
				}
			}
		})
	}
	// The validation split's run trains on less and is never free.
	if g := gridRun(base); !(g > 0 && g < baseOwn.Cost()) {
		t.Errorf("grid run %g, the run itself %g", g, baseOwn.Cost())
	}
}

// TestPlanSharesTheSearch: a tuned run is charged 1/(reported seeds) of its
// cell's search; an untuned one none.
func TestPlanSharesTheSearch(t *testing.T) {
	s, runs := scalePlan(t, "paper")
	n := 0
	for _, r := range runs {
		cfg := r.Config.(RunConfig)
		if cfg.Tune == nil {
			if cfg.SearchShare != 0 {
				t.Fatalf("%s: untuned run with search share %g", r.ID(), cfg.SearchShare)
			}
			continue
		}
		n++
		for _, e := range s.Experiments {
			if e.Name == r.Experiment {
				if want := 1 / float64(len(s.SeedsOf(&e.ExperimentHeader))); cfg.SearchShare != want {
					t.Fatalf("%s: search share %g, want %g", r.ID(), cfg.SearchShare, want)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the paper scale plans no tuned run")
	}
}
