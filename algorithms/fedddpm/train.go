package fedddpm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Opt describes an optimizer of the FedDDPM experiments (spec §6 item 2,
// decision 2): Adam with PyTorch's defaults β = (0.9, 0.999), ε = 10⁻⁸
// (what DDPM trains with, and what the paper's rates 2·10⁻⁴ and 5·10⁻⁵
// suggest), or plain SGD with optional momentum (the listings' update).
// Persist says whether the optimizer's state (Adam's moments, SGD's
// momentum) survives between calls: for clients, between the rounds a
// client is selected in (kept in fl.Client.State); for the server, between
// rounds. The default, false, starts every ClientUpdate and every server
// correction from a fresh state, because the listings pass only the model
// between rounds.
type Opt struct {
	Kind     string  `json:"kind" yaml:"kind"` // "adam" (default when empty) or "sgd"
	LR       float64 `json:"lr" yaml:"lr"`
	Momentum float64 `json:"momentum,omitempty" yaml:"momentum"` // SGD only
	Persist  bool    `json:"persist,omitempty" yaml:"persist"`
}

// Validate reports an unknown kind or a non-positive learning rate.
func (o Opt) Validate() error {
	switch o.Kind {
	case "", "adam", "sgd":
	default:
		return fmt.Errorf("fedddpm: optimizer %q (want adam or sgd)", o.Kind)
	}
	if !(o.LR > 0) || math.IsInf(o.LR, 0) {
		return fmt.Errorf("fedddpm: learning rate %g, want > 0", o.LR)
	}
	if o.Momentum < 0 || o.Momentum >= 1 {
		return fmt.Errorf("fedddpm: momentum %g outside [0,1)", o.Momentum)
	}
	return nil
}

// New returns a fresh optimizer.
func (o Opt) New() optim.Optimizer {
	if o.Kind == "sgd" {
		return &optim.SGD{LR: o.LR, Momentum: o.Momentum}
	}
	return optim.NewAdam(o.LR)
}

// String is "adam(0.002)" or "sgd(0.1)".
func (o Opt) String() string {
	k := o.Kind
	if k == "" {
		k = "adam"
	}
	return fmt.Sprintf("%s(%g)", k, o.LR)
}

// Trainer runs epochs of shuffled mini-batch training on one dataset (the
// server's correction on A, a client's warmup, centralized training),
// with the semantics of fl.Client.Batches: a fresh permutation from r per
// epoch, batches of size B, the last one of an epoch possibly smaller. It
// reuses its buffers between calls and is not safe for concurrent use.
type Trainer struct {
	grad, bx []float64
	by, perm []int
}

// Work counts gradient work: optimizer steps and per-example gradient
// evaluations (a mini-batch of b rows costs b).
type Work struct {
	Steps       int64 `json:"steps"`
	SampleGrads int64 `json:"sample_grads"`
}

// Add accumulates w2 into w.
func (w *Work) Add(w2 Work) { w.Steps += w2.Steps; w.SampleGrads += w2.SampleGrads }

// Epochs trains p in place on ds for the given number of epochs with opt
// (which it does not reset), drawing the shuffles and the model's
// randomness (diffusion steps and noise) from r. after, when not nil, is
// called after every optimizer step with the running step count and the
// mini-batch loss. It returns the work done and the mean mini-batch loss.
func (tr *Trainer) Epochs(m model.Differentiable, p []float64, ds *data.Dataset, opt optim.Optimizer, epochs, batch int, r *rand.Rand, after func(step int64, loss float64)) (Work, float64) {
	var w Work
	if ds == nil || ds.N == 0 || epochs <= 0 {
		return w, math.NaN()
	}
	batch = max(batch, 1)
	if cap(tr.grad) < len(p) {
		tr.grad = make([]float64, len(p))
	}
	g := tr.grad[:len(p)]
	if cap(tr.perm) < ds.N {
		tr.perm = make([]int, ds.N)
	}
	perm := tr.perm[:ds.N]
	if cap(tr.bx) < batch*ds.D {
		tr.bx = make([]float64, batch*ds.D)
		tr.by = make([]int, batch)
	}
	var lossSum float64
	for ep := 0; ep < epochs; ep++ {
		rng.Perm(r, perm)
		for start := 0; start < ds.N; start += batch {
			n := min(batch, ds.N-start)
			for j := 0; j < n; j++ {
				src := perm[start+j]
				copy(tr.bx[j*ds.D:(j+1)*ds.D], ds.X[src*ds.D:(src+1)*ds.D])
				tr.by[j] = ds.Y[src]
			}
			loss := m.LossGrad(p, model.Batch{X: tr.bx[:n*ds.D], Y: tr.by[:n], N: n, D: ds.D}, g, r)
			opt.Step(p, g)
			lossSum += loss
			w.Steps++
			w.SampleGrads += int64(n)
			if after != nil {
				after(w.Steps, loss)
			}
		}
	}
	return w, lossSum / float64(w.Steps)
}

// WarmupConfig is the local training of every client before FL (§III-B,
// "Warmup"; decision 9): the clients' optimizer, learning rate and batch
// size, for Epochs passes over the client's own data, starting from the
// shared initial model w_0.
type WarmupConfig struct {
	Opt    Opt `json:"opt" yaml:"opt"`
	Epochs int `json:"epochs" yaml:"epochs"`
	Batch  int `json:"batch" yaml:"batch"`
}

// Warmup trains one local model per client (all N clients, the paper's S)
// from init on that client's data alone and returns the N parameter
// vectors w^i_warmup with the total work. Client i draws everything from
// key.Derive("warmup", "client", i) and starts from a fresh optimizer, so
// its model depends only on its data, init, cfg and the key (not on the
// other clients or their order).
func Warmup(m model.Differentiable, clients []*data.Dataset, init []float64, cfg WarmupConfig, key rng.Key) ([][]float64, Work, error) {
	if err := cfg.Opt.Validate(); err != nil {
		return nil, Work{}, err
	}
	if cfg.Epochs < 1 || cfg.Batch < 1 {
		return nil, Work{}, fmt.Errorf("fedddpm: warmup needs ≥ 1 epoch and batch ≥ 1, got %d and %d", cfg.Epochs, cfg.Batch)
	}
	if len(init) != m.NumParams() {
		return nil, Work{}, fmt.Errorf("fedddpm: initial model has %d parameters, the model needs %d", len(init), m.NumParams())
	}
	var tr Trainer
	var total Work
	opt := cfg.Opt.New()
	out := make([][]float64, len(clients))
	for i, ds := range clients {
		p := append([]float64(nil), init...)
		opt.Reset()
		w, _ := tr.Epochs(m, p, ds, opt, cfg.Epochs, cfg.Batch, key.Derive("warmup", "client", i).Rand(), nil)
		total.Add(w)
		out[i] = p
	}
	return out, total, nil
}

// TrainCentral is the "Training w/ Aux. Data" reference of Table IV:
// centralized DDPM training of p, in place, on one dataset (the synthetic
// auxiliary set) for the given epochs with a fresh optimizer, drawing from
// key.Derive("central"). afterEpoch, when not nil, is called after every
// epoch (1-based) for learning curves.
func TrainCentral(m model.Differentiable, p []float64, ds *data.Dataset, opt Opt, epochs, batch int, key rng.Key, afterEpoch func(epoch int)) (Work, error) {
	if err := opt.Validate(); err != nil {
		return Work{}, err
	}
	var tr Trainer
	var total Work
	o := opt.New()
	r := key.Derive("central").Rand()
	for ep := 1; ep <= epochs; ep++ {
		w, _ := tr.Epochs(m, p, ds, o, 1, batch, r, nil)
		total.Add(w)
		if afterEpoch != nil {
			afterEpoch(ep)
		}
	}
	return total, nil
}
