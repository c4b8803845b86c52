package normec

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	alg "github.com/fedrepro/fedrepro/algorithms/normec"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// RunKey names a run's streams other than the client split: the model's
// initialisation, the clients' minibatch order and — inside the algorithm
// — participation and DP noise. It leaves out the method, noise setting,
// p, β and γ: every configuration of a seed starts from the same x^0,
// draws the same minibatches, and (through the shared uniforms of
// Bernoulli sampling) selects nested client sets for different p.
func RunKey(seed uint64, dataset, split, modelName string) rng.Key {
	return rng.New(seed, paperID, dataset, split, modelName)
}

// batchObjective is a client's f_i as the experiments sample it: each
// Grad call returns the mean-loss gradient on the client's next minibatch
// of Batch rows, drawn without replacement from a permutation of its rows
// that is redrawn every epoch (a shuffling DataLoader with drop_last: an
// epoch ends when fewer than Batch rows are left).
type batchObjective struct {
	m     model.Model
	src   *data.Dataset
	rows  []int
	batch int
	r     *rand.Rand

	perm []int
	pos  int
	bx   []float64
	by   []int
}

func newBatchObjective(m model.Model, src *data.Dataset, rows []int, batch int, r *rand.Rand) *batchObjective {
	b := min(batch, len(rows))
	o := &batchObjective{m: m, src: src, rows: rows, batch: b, r: r,
		perm: append([]int(nil), rows...), bx: make([]float64, b*src.D), by: make([]int, b)}
	o.pos = len(o.perm) // draw a permutation on first use
	return o
}

// NumParams is the model's parameter count.
func (o *batchObjective) NumParams() int { return o.m.NumParams() }

// Grad writes the gradient of the mean loss on the next minibatch and
// returns that loss.
func (o *batchObjective) Grad(x, g []float64) float64 {
	if o.pos+o.batch > len(o.perm) {
		rng.Shuffle(o.r, o.perm)
		o.pos = 0
	}
	d := o.src.D
	for j := range o.batch {
		row := o.perm[o.pos+j]
		copy(o.bx[j*d:(j+1)*d], o.src.X[row*d:(row+1)*d])
		o.by[j] = o.src.Y[row]
	}
	o.pos += o.batch
	return o.m.LossGrad(x, model.Batch{X: o.bx, Y: o.by, N: o.batch, D: d}, g, nil)
}

// newModel builds the run's classifier; the MLP takes torch.nn.Linear's
// default initialisation.
func newModel(cfg RunConfig, d, classes int) (model.Model, error) {
	return paper.NewImageClassifier(cfg.Model, d, cfg.Hidden, classes, model.InitTorchDefault)
}

// NewStepper builds the run's method on the clients' objectives:
// Fed-α-NormEC (Algorithm 1, all-client or participants-only memory,
// v_i^0 = 0, the experiments' plain server step x − γ·v̂ with η = γ, local
// operator T steps of γ/T on minibatches) or the Appendix A.1 FedAvg
// (x − (γβ/M)·Σ_i[Norm_α(x − T_i(x)) + z_i], p = 1).
func NewStepper(cfg RunConfig, clients []alg.Objective, x0 []float64, key rng.Key) (alg.Stepper, error) {
	local, _ := localOperator(cfg.Training.LocalSteps)
	switch cfg.Method {
	case "normec":
		mem, err := parseMemory(cfg.Training.Memory)
		if err != nil {
			return nil, err
		}
		c := alg.Config{Alpha: cfg.Training.Alpha, Beta: cfg.Beta, Gamma: cfg.Gamma, Eta: cfg.Gamma, P: cfg.P, Sigma: cfg.Sigma,
			Local: local, Server: alg.PlainStep, Memory: mem, Init: alg.Init{Kind: alg.InitZero}}
		return alg.New(c, clients, x0, key)
	case "fedavg":
		c := alg.AppendixA1(cfg.Training.Alpha, cfg.Beta, cfg.Gamma, cfg.Sigma)
		c.P = cfg.P
		c.Local = local
		return alg.NewFedAvg(c, clients, x0, key)
	}
	return nil, fmt.Errorf("unknown method %q", cfg.Method)
}

// Execute runs one configuration on a (prepared) training and test set:
// the whole experiment of a run, exported for tests and benchmarks.
func Execute(ctx context.Context, train, test *data.Dataset, cfg RunConfig, seed uint64) (*runner.Outcome, error) {
	t := cfg.Training
	parts, err := Partition(train.Y, cfg.Split, t.Clients, t.ShardsPerClient, cfg.Data.PerClient, PartitionKey(seed, cfg.Dataset, cfg.Split))
	if err != nil {
		return nil, err
	}
	m, err := newModel(cfg, train.D, train.Classes)
	if err != nil {
		return nil, err
	}
	key := RunKey(seed, cfg.Dataset, cfg.Split, cfg.Model)
	x0 := make([]float64, m.NumParams())
	m.Init(x0, key.Derive("init").Rand())
	clients := make([]alg.Objective, len(parts))
	for i, rows := range parts {
		if len(rows) == 0 {
			return nil, fmt.Errorf("client %d has no data", i)
		}
		clients[i] = newBatchObjective(m, train, rows, t.Batch, key.Derive("client", i, "batches").Rand())
	}
	st, err := NewStepper(cfg, clients, x0, key)
	if err != nil {
		return nil, err
	}
	ev := &evaluator{m: m, test: testSubset(test, cfg.Data.Test, cfg.Dataset), train: trainEvalSubset(train, parts, cfg.Data.TrainEval, key)}

	out := &runner.Outcome{}
	record := func() runner.Metrics {
		mt := ev.metrics(st.X())
		mt["round"] = float64(st.Round())
		mt["transmissions"] = float64(st.Counters().Transmissions)
		out.Rounds = append(out.Rounds, mt)
		return mt
	}
	last := record()
	best := last["acc"]
	diverged := 0.0
	for k := 1; k <= t.Rounds; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st.Step()
		if k%t.EvalEvery == 0 || k == t.Rounds {
			last = record()
			best = math.Max(best, last["acc"])
			if !finite(st.X()) {
				diverged = 1
			}
		}
	}
	out.Final = runner.Metrics{
		"acc": last["acc"], "loss": last["loss"], "train_loss": last["train_loss"],
		"best_acc": best, "transmissions": last["transmissions"], "diverged": diverged,
	}
	if cfg.Gate {
		out.Final["gate_acc"], out.Final["gate_train_loss"] = last["acc"], last["train_loss"]
	}
	c := st.Counters()
	out.Counters = runner.Counters{"rounds": int64(c.Rounds), "transmissions": int64(c.Transmissions), "local_runs": int64(c.LocalRuns),
		"grads": int64(c.Grads), "skipped": int64(c.Skipped)}
	sp := SpentBy(cfg.Sigma, cfg.P, t.Rounds, cfg.Privacy)
	out.Extra = runExtra{Params: m.NumParams(), Label: st.Label(), Privacy: runner.Metrics{
		"sigma": sp.Sigma, "noise_norm": sp.Sigma * math.Sqrt(float64(m.NumParams())), "c": sp.C,
		"epsilon_amplified_rdp": sp.Amplified, "epsilon_visible_exact": sp.Visible, "delta": cfg.Privacy.Delta,
	}}
	return out, nil
}

// runExtra is the Extra of a run's result.
type runExtra struct {
	// Params is the model dimension d (the noise is added per coordinate,
	// so its norm is σ·√d: noise_norm).
	Params int    `json:"params"`
	Label  string `json:"label"`
	// Privacy is what the run's noise buys (see SpentBy); ε is +Inf
	// without noise.
	Privacy runner.Metrics `json:"privacy"`
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// evaluator computes the global model's test accuracy and loss and its
// training loss on the run's evaluation subsets.
type evaluator struct {
	m           model.Model
	test, train *data.Dataset
	ev          model.Evaluator
}

func (e *evaluator) metrics(x []float64) runner.Metrics {
	loss, acc := e.ev.Evaluate(e.m, x, e.test.X, e.test.Y, e.test.N, e.test.D)
	tl, _ := e.ev.Evaluate(e.m, x, e.train.X, e.train.Y, e.train.N, e.train.D)
	return runner.Metrics{"acc": acc, "loss": loss, "train_loss": tl}
}
