package upcycled

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/algorithms/upcycled"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// RunKey names a run's streams. It deliberately leaves out the method,
// variant and mode: every algorithm on the same data and seed sees the same
// client selections and stragglers in its k-th training round, as the paper
// requires ("the same for all algorithms").
func RunKey(seed uint64, source, dataset string) rng.Key {
	return rng.New(seed, "upcycled", source, dataset)
}

// Execute runs one configuration on a dataset: it is the whole experiment
// of a run, exported for tests and benchmarks. A tuned configuration
// (cfg.Tune set) first selects its learning rate and c by the grid search
// of tune.go, then runs with them; its final metrics add "lr", "coef" and
// "val_acc" (the selected point's validation accuracy) and its Extra holds
// the grid.
func Execute(ctx context.Context, fed *data.Federated, cfg RunConfig, seed uint64) (*runner.Outcome, error) {
	if cfg.Tune != nil {
		sel, err := selectHyper(ctx, fed, cfg)
		if err != nil {
			return nil, err
		}
		run := cfg
		run.Tune, run.LR, run.Coef = nil, sel.LR, sel.C
		out, err := Execute(ctx, fed, run, seed)
		if err != nil {
			return nil, err
		}
		out.Final["lr"], out.Final["coef"], out.Final["val_acc"] = sel.LR, sel.C, sel.ValAcc
		out.Extra = map[string]any{"grid": sel.Grid}
		return out, nil
	}
	mode, err := upcycled.ParseMode(cfg.Mode)
	if err != nil {
		return nil, err
	}
	every := max(cfg.EvalEvery, 1)
	key := finalKey(fed, cfg, seed)
	if every >= cfg.Iterations {
		if v, ok := lastEvals.Load(key); ok && v.(lastEval).fed == fed {
			return v.(lastEval).outcome(), nil
		}
	}
	var m model.Model
	switch cfg.Model {
	case "logreg":
		m = model.NewLogReg(fed.D, fed.Classes, mode.Loss())
	case "mlp":
		m = model.NewMLP([]int{fed.D, cfg.Hidden, fed.Classes}, 0.5, mode.Loss())
	default:
		return nil, fmt.Errorf("unknown model %q", cfg.Model)
	}
	rk := RunKey(seed, cfg.Source, cfg.Dataset)
	init := make([]float64, m.NumParams())
	m.Init(init, rk.Derive("init").Rand())

	name, _ := algorithmOf(cfg.Method, cfg.Params, cfg.Mode)
	alg, err := fl.NewAlgorithm(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	var hooks fl.Hooks
	switch cfg.Privacy {
	case "output":
		op := upcycled.OutputPerturbation{Tau: cfg.Tau, Sigma: cfg.Sigma, Mode: mode}
		if err := op.Validate(); err != nil {
			return nil, err
		}
		hooks = op.Hooks()
	case "objective":
		op := upcycled.ObjectivePerturbation{Alpha: cfg.Alpha, Mode: mode, InputDim: fed.D}
		if tl, ok := m.(model.TensorLayout); ok {
			op.Tensors = tl.Tensors()
		}
		if err := op.Validate(); err != nil {
			return nil, err
		}
		hooks = op.Hooks()
	case "none":
	default:
		return nil, fmt.Errorf("unknown privacy %q", cfg.Privacy)
	}
	trains := make([]*data.Dataset, len(fed.Clients))
	for i, c := range fed.Clients {
		trains[i] = c.Train
	}
	flcfg := fl.Config{
		Sampling: fl.Uniform, Frac: cfg.Frac, Stragglers: cfg.Stragglers,
		Local: fl.LocalConfig{Epochs: cfg.Epochs, BatchSize: cfg.Batch, LR: cfg.LR, Momentum: cfg.Momentum, Upstream: mode == upcycled.Upstream},
	}
	e, err := fl.New(m, trains, alg, flcfg, rk, init, hooks)
	if err != nil {
		return nil, err
	}
	ev := newEvaluator(m, fed, alg, e)
	sched := upcycled.Schedule{Iterations: cfg.Iterations, Upcycled: cfg.Variant == "upcycled", Coef: cfg.Coef}
	out := &runner.Outcome{}
	if every < cfg.Iterations {
		first := ev.metrics() // the curve starts at the initial model
		first["t"] = 0
		out.Rounds = append(out.Rounds, first)
	}
	var last runner.Metrics
	err = upcycled.Run(e, alg, sched, func(it upcycled.Iteration) {
		if ctx.Err() != nil {
			return
		}
		if it.T%every != 0 && it.T != cfg.Iterations {
			return
		}
		mt := ev.metrics()
		mt["t"] = float64(it.T)
		mt["training"] = b2f(it.Training)
		mt["training_rounds"] = float64(e.Server().Counters.TrainingRounds)
		out.Rounds = append(out.Rounds, mt)
		last = mt
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out.Final = runner.Metrics{}
	for k, v := range last {
		if k != "t" && k != "training" {
			out.Final[k] = v
		}
	}
	out.Counters = e.Server().Counters.Map()
	lastEvals.Store(key, lastEval{fed: fed, last: maps.Clone(last), counters: maps.Clone(out.Counters)})
	return out, nil
}

// Reuse of identical runs. A tuned run whose search selects the fixed
// hyper-parameters of a table is the same training as that table's run of
// the same seed (same streams, same data, same configuration but for labels
// and how often it is evaluated — evaluation reads the model and never
// draws), so its final evaluation is reused instead of trained again. The
// memo holds, per process, each run's last evaluation and counters under
// everything that determines them; it only answers runs that evaluate the
// final model alone (a curve needs every round), and a miss just trains,
// so results do not depend on which runs happened to go first.
var lastEvals sync.Map // finalKey → lastEval

type lastEval struct {
	// fed is held so that its address, part of the key, is never reused
	// by another federation while the entry exists.
	fed      *data.Federated
	last     runner.Metrics
	counters runner.Counters
}

// outcome rebuilds what a final-only run returns from its last evaluation.
func (l lastEval) outcome() *runner.Outcome {
	out := &runner.Outcome{Rounds: []runner.Metrics{maps.Clone(l.last)}, Final: runner.Metrics{}, Counters: maps.Clone(l.counters)}
	for k, v := range l.last {
		if k != "t" && k != "training" {
			out.Final[k] = v
		}
	}
	return out
}

// finalKey names a run by what determines its training: the data (by
// identity: one loaded federation per source and dataset and process, or a
// validation split of it), the seed, and the configuration without its
// labels (experiment, table, figure, provenance of the hyper-parameters),
// evaluation cadence and tuning fields.
func finalKey(fed *data.Federated, cfg RunConfig, seed uint64) string {
	c := cfg
	c.Experiment, c.Table, c.Figure, c.TunedFrom, c.EvalEvery = "", "", "", "", 0
	c.Tune, c.BaselineIterations = nil, 0
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // RunConfig holds only plain values
	}
	return fmt.Sprintf("%p|%d|%s", fed, seed, b)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// evaluator computes test metrics of the global model on the pooled test
// set, and for pFedMe also of the personalised models on each client's test
// set weighted by the client's share of training data (upstream's report).
type evaluator struct {
	m      model.Model
	fed    *data.Federated
	e      *fl.Engine
	pfedme *fl.PFedMe
	ev     model.Evaluator
	w      []float64
}

func newEvaluator(m model.Model, fed *data.Federated, alg fl.Algorithm, e *fl.Engine) *evaluator {
	x := &evaluator{m: m, fed: fed, e: e}
	if p, ok := alg.(*fl.PFedMe); ok {
		x.pfedme = p
		var total float64
		for _, c := range fed.Clients {
			total += float64(c.Train.N)
		}
		for _, c := range fed.Clients {
			x.w = append(x.w, float64(c.Train.N)/total)
		}
	}
	return x
}

// metrics returns loss and accuracy ("acc" is what the paper's tables
// report: the global model's, or the personalised models' for pFedMe).
func (x *evaluator) metrics() runner.Metrics {
	t := x.fed.Test
	g := x.e.Server().Global
	loss, acc := x.ev.Evaluate(x.m, g, t.X, t.Y, t.N, t.D)
	mt := runner.Metrics{"loss": loss, "acc": acc, "global_loss": loss, "global_acc": acc}
	if x.pfedme != nil {
		var pl, pa float64
		for i, c := range x.fed.Clients {
			if c.Test == nil || c.Test.N == 0 {
				continue
			}
			l, a := x.ev.Evaluate(x.m, x.pfedme.Personal(x.e.ClientState(i)), c.Test.X, c.Test.Y, c.Test.N, c.Test.D)
			pl += x.w[i] * l
			pa += x.w[i] * a
		}
		mt["personal_loss"], mt["personal_acc"] = pl, pa
		mt["loss"], mt["acc"] = pl, pa
	}
	return mt
}
