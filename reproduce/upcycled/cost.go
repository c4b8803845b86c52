package upcycled

import (
	"fmt"
	"math"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
)

// dims are a dataset's training and test rows, input dimension, classes
// and clients.
type dims struct{ train, test, d, classes, clients int }

// releasedDims are those of the released upstream synthetic data (fixed
// files, checksummed), and of FEMNIST approximately: it is user-supplied
// LEAF data, so its size is not known here.
var releasedDims = map[string]dims{
	"syn_iid":     {6043, 683, 60, 10, 30},
	"syn_0_0":     {12396, 1395, 60, 10, 30},
	"syn_0.5_0.5": {7218, 818, 60, 10, 30},
	"syn_1_1":     {9430, 1063, 60, 10, 30},
	"femnist":     {36000, 4000, 784, 62, 200},
}

// Cost estimates a run's work in multiply–adds, for balancing shards.
// With P the model's parameters:
//
//   - training rounds: every iteration of a baseline, the odd iterations
//     of Upcycled (its even ones are a server-side extrapolation);
//   - per training round, ⌊frac·N⌋ clients each run E epochs over their
//     rows, stragglers (probability s) a uniform 1..E−1, so E·(1 − s/2) on
//     average; 2P + 8000 per example gradient (measured: at these model
//     sizes a per-example overhead of ≈ 100 ns dominates — a 42-parameter
//     and a 610-parameter logistic regression cost the same per example)
//     plus P per mini-batch step for the method's own vector work
//     (proximal terms, control variates); pFedMe solves its inner problem
//     with K steps per batch (×K);
//   - evaluation: P + 4000 per test row at every eval_every-th iteration
//     and at t = 0 (twice for pFedMe, whose personalised models are
//     evaluated too);
//   - a fixed 10⁶ for building the federation and the model;
//   - a tuned run (Tune set) adds its share (SearchShare) of its cell's
//     grid search: per search seed, one training on the (1 − val_frac)
//     split and one evaluation on the validation split per grid point —
//     len(lrs) points for a baseline; for Upcycled len(cs) at the
//     baseline's lr plus the baseline's own len(lrs) (shared_lr), else
//     len(lrs)·len(cs).
func (cfg RunConfig) Cost() float64 {
	c := cfg.ownCost(1)
	if t := cfg.Tune; t != nil {
		share := cfg.SearchShare
		if !(share > 0) {
			share = 1
		}
		grid := cfg
		grid.Tune, grid.EvalEvery = nil, grid.Iterations
		points := float64(len(t.LRs))
		search := 0.0
		if cfg.Variant == "upcycled" {
			if t.SharedLR {
				points = float64(len(t.Cs))
				base := grid
				base.Variant, base.Iterations, base.Coef = "baseline", cfg.BaselineIterations, 0
				base.EvalEvery = base.Iterations
				search += float64(len(t.LRs)) * base.ownCost(1-t.ValFrac)
			} else {
				points *= float64(len(t.Cs))
			}
		}
		search += points * grid.ownCost(1-t.ValFrac)
		c += share * float64(len(t.Seeds)) * search
	}
	return c
}

// ownCost is Cost without a tuned run's grid search, for a run that trains
// on the share frac of every client's training rows and is evaluated on
// as many rows as the rest (the test set when frac = 1, the validation
// split otherwise).
func (cfg RunConfig) ownCost(frac float64) float64 {
	dd, ok := releasedDims[cfg.Dataset]
	if cfg.Source == "generated" {
		dd, ok = generatedDims(cfg.Dataset, cfg.GeneratorSeed)
	}
	if !ok {
		return 1
	}
	var params int
	if cfg.Model == "mlp" {
		params = model.NewMLP([]int{dd.d, cfg.Hidden, dd.classes}, 0.5, model.CrossEntropy).NumParams()
	} else {
		params = model.NewLogReg(dd.d, dd.classes, model.CrossEntropy).NumParams()
	}
	p := float64(params)
	it := float64(cfg.Iterations)
	training := it
	if cfg.Variant == "upcycled" {
		training = math.Ceil(it / 2)
	}
	clients := float64(fl.ClientsPerRound(cfg.Frac, dd.clients))
	epochs := float64(cfg.Epochs)
	if cfg.Epochs > 1 {
		epochs *= 1 - cfg.Stragglers/2
	}
	rows := frac * float64(dd.train) / float64(dd.clients)
	steps := math.Ceil(rows / float64(max(cfg.Batch, 1)))
	inner := 1.0
	if cfg.Method == "pfedme" {
		inner = float64(max(cfg.Params.PFedMeK, 1))
	}
	train := training * clients * epochs * inner * (rows*(2*p+8000) + steps*p)
	evalRows := float64(dd.test)
	if frac < 1 {
		evalRows = (1 - frac) * float64(dd.train)
	}
	if cfg.Method == "pfedme" {
		evalRows *= 2
	}
	evals := it/float64(max(cfg.EvalEvery, 1)) + 1
	return train + evals*evalRows*(p+4000) + 1e6
}

var (
	genMu   sync.Mutex
	genDims = map[string]dims{}
)

// generatedDims are the sizes of a regenerated synthetic set: its client
// sizes are lognormal draws (up to several times the released ones), so the
// set is generated once per process to know them (milliseconds).
func generatedDims(ds string, seed uint64) (dims, bool) {
	key := fmt.Sprintf("%s/%d", ds, seed)
	genMu.Lock()
	defer genMu.Unlock()
	if d, ok := genDims[key]; ok {
		return d, d.train > 0
	}
	var d dims
	if cfg, err := data.SyntheticPreset(ds); err == nil {
		if fed, err := data.GenerateSynthetic(cfg, GeneratorKey(seed, ds)); err == nil {
			d = dims{d: fed.D, classes: fed.Classes, clients: len(fed.Clients)}
			for _, c := range fed.Clients {
				d.train += c.Train.N
			}
			if fed.Test != nil {
				d.test = fed.Test.N
			}
		}
	}
	genDims[key] = d
	return d, d.train > 0
}

// costRate is RunConfig.Cost's units per CPU-second, measured on the 2-core
// development machine over the default scale (Σ cost / Σ CPU seconds: the
// 1,192 runs of 2026-11-27, fused two-class step, idle machine; per
// experiment 2.2–2.6·10¹¹), for the time estimate printed before long runs.
const costRate = 2.35e11
