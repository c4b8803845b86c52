package upcycled

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Tuning — "we use the grid search to find the optimal results for all
// methods" (Table 1's caption), done the way a run can do it alone.
//
// A tuned run (RunConfig.Tune set) first selects its learning rate (and,
// for Upcycled, its coefficient c) by a grid search, then trains with the
// selected values on the full training data over its own seed and reports
// test accuracy like any other run. The search trains on a validation
// split carved from each client's training data — never the test set — and
// scores each grid point by the accuracy the tables report (the global
// model on the pooled validation data; pFedMe's personalised models on
// their clients' validation data), averaged over the tuning seeds; the
// first best point in grid order wins, a diverged run scores −∞.
//
// The search is self-contained and deterministic: it depends only on the
// run's configuration (never on which other results exist), so tuned runs
// can be planned statically, sharded and resumed like every other run.
// Within one process the search of a configuration is done once and shared
// by its seeds (memoised); a shard that holds some of a cell's seeds
// repeats that cell's search, which costs time, not correctness.

// TuneConfig is a tuned run's grid (stored in its configuration).
type TuneConfig struct {
	LRs     []float64 `json:"lrs" yaml:"lrs"`           // learning rates to try
	Cs      []float64 `json:"cs" yaml:"cs"`             // Upcycled coefficients to try (Upcycled runs only)
	Seeds   []uint64  `json:"seeds" yaml:"seeds"`       // seeds of the search runs (distinct from the reported seeds)
	ValFrac float64   `json:"val_frac" yaml:"val_frac"` // share of each client's training data held out for validation
	// SharedLR makes an Upcycled run take the learning rate its baseline's
	// search selects and search c only (the upstream client files, too,
	// pair one lr with both variants): 5 + 5 grid runs per cell instead of
	// 5 + 25 on the default grid.
	SharedLR bool `json:"shared_lr,omitempty" yaml:"shared_lr"`
}

func (t *TuneConfig) validate() error {
	switch {
	case len(t.LRs) == 0:
		return errors.New("tune: no learning rates")
	case len(t.Seeds) == 0:
		return errors.New("tune: no seeds")
	case !(t.ValFrac > 0 && t.ValFrac < 1):
		return fmt.Errorf("tune: val_frac %g outside (0,1)", t.ValFrac)
	}
	for _, lr := range t.LRs {
		if !(lr > 0) || math.IsInf(lr, 0) {
			return fmt.Errorf("tune: learning rate %g, want > 0", lr)
		}
	}
	for _, c := range t.Cs {
		if !(c >= 0 && c < 1) {
			return fmt.Errorf("tune: coefficient c = %g outside [0,1)", c)
		}
	}
	return nil
}

// GridPoint is one grid configuration and its validation score.
type GridPoint struct {
	LR     float64   `json:"lr"`
	C      float64   `json:"c"`
	ValAcc float64   `json:"val_acc"` // mean over the tuning seeds (NaN when a run diverged)
	PerRun []float64 `json:"per_seed"`
}

// Selection is the outcome of a grid search.
type Selection struct {
	LR, C  float64
	ValAcc float64
	Grid   []GridPoint
}

type selectionEntry struct {
	once sync.Once
	sel  *Selection
	err  error
}

// selections memoises searches by configuration and dataset.
var selections sync.Map // string → *selectionEntry

// selectHyper returns the grid search's selection for cfg on fed (cfg.Tune
// set), computing it once per process.
func selectHyper(ctx context.Context, fed *data.Federated, cfg RunConfig) (*Selection, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%p|%s", fed, b)
	v, _ := selections.LoadOrStore(key, &selectionEntry{})
	ent := v.(*selectionEntry)
	ent.once.Do(func() { ent.sel, ent.err = gridSearch(ctx, fed, cfg) })
	if ent.err != nil && ctx.Err() != nil {
		// An interrupted search must not answer later calls.
		selections.CompareAndDelete(key, ent)
	}
	return ent.sel, ent.err
}

// gridSearch runs every grid point over the tuning seeds on the validation
// split and picks the best.
func gridSearch(ctx context.Context, fed *data.Federated, cfg RunConfig) (*Selection, error) {
	t := cfg.Tune
	if err := t.validate(); err != nil {
		return nil, err
	}
	split, err := ValidationSplit(fed, t.ValFrac, cfg.Source, cfg.Dataset)
	if err != nil {
		return nil, err
	}
	cs := []float64{0}
	if cfg.Variant == "upcycled" {
		if len(t.Cs) == 0 {
			return nil, errors.New("tune: an Upcycled run needs coefficients cs")
		}
		cs = t.Cs
	}
	lrs := t.LRs
	if cfg.Variant == "upcycled" && t.SharedLR {
		b, err := baselineOf(cfg)
		if err != nil {
			return nil, err
		}
		bsel, err := selectHyper(ctx, fed, b)
		if err != nil {
			return nil, fmt.Errorf("tune: the baseline's search: %w", err)
		}
		lrs = []float64{bsel.LR}
	}
	sel := &Selection{ValAcc: math.Inf(-1)}
	for _, lr := range lrs {
		for _, c := range cs {
			run := cfg
			run.Tune, run.LR, run.Coef = nil, lr, c
			run.EvalEvery = run.Iterations // only the final model is scored
			gp := GridPoint{LR: lr, C: c}
			var sum float64
			for _, seed := range t.Seeds {
				out, err := Execute(ctx, split, run, seed)
				if err != nil {
					return nil, fmt.Errorf("tune: lr %g c %g seed %d: %w", lr, c, seed, err)
				}
				a := out.Final["acc"]
				gp.PerRun = append(gp.PerRun, a)
				sum += a
			}
			gp.ValAcc = sum / float64(len(t.Seeds))
			score := gp.ValAcc
			if math.IsNaN(score) {
				score = math.Inf(-1)
			}
			if score > sel.ValAcc || sel.Grid == nil {
				sel.LR, sel.C, sel.ValAcc = lr, c, score
			}
			sel.Grid = append(sel.Grid, gp)
		}
	}
	return sel, nil
}

// baselineOf returns the configuration of the baseline run paired with a
// tuned Upcycled run (as Plan writes it, so its search is shared).
func baselineOf(cfg RunConfig) (RunConfig, error) {
	if cfg.BaselineIterations < 1 {
		return cfg, errors.New("tune: shared_lr needs the baseline's iteration count (baseline_iterations)")
	}
	b := cfg
	b.Variant, b.Coef, b.BaselineIterations = "baseline", 0, 0
	if cfg.EvalEvery == cfg.Iterations {
		b.EvalEvery = cfg.BaselineIterations
	}
	b.Iterations = cfg.BaselineIterations
	return b, nil
}

// ValidationSplit returns fed with each client's training data split in
// two: a share valFrac (at least one example, at most all but one) drawn by
// a fixed permutation — named by the data source, dataset and client, not
// by any run's seed, so every search sees the same split — becomes that
// client's test set, the rest its training set; the pooled test set is the
// union of the validation parts. The original test data is not used.
func ValidationSplit(fed *data.Federated, valFrac float64, source, dataset string) (*data.Federated, error) {
	out := &data.Federated{Name: fed.Name + "/validation", Source: fed.Source, D: fed.D, Classes: fed.Classes}
	var vals []*data.Dataset
	for i, c := range fed.Clients {
		n := c.Train.N
		if n < 2 {
			return nil, fmt.Errorf("validation split: client %d has %d training examples, need 2", i, n)
		}
		k := min(max(int(math.Round(valFrac*float64(n))), 1), n-1)
		perm := make([]int, n)
		rng.Perm(rng.New(0, "upcycled", "validation", source, dataset, i).Rand(), perm)
		val := c.Train.Subset(perm[:k])
		out.Clients = append(out.Clients, data.Client{ID: c.ID, Train: c.Train.Subset(perm[k:]), Test: val})
		vals = append(vals, val)
	}
	out.Test = data.Concat(vals...)
	return out, nil
}
