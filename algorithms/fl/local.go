package fl

import (
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Client is a selected client's view during its local update: its data,
// the broadcast model, its local-epoch budget, its random streams and its
// persistent state. It is valid only during Algorithm.Local and the hooks.
type Client struct {
	ID     int
	Data   *data.Dataset
	Global []float64 // broadcast global model (read-only)
	Epochs int       // local epochs for this round (fewer for a straggler)
	Local  *LocalConfig
	Model  model.Differentiable
	// Rand drives shuffling and stochastic layers; Noise drives privacy
	// noise, so adding a privacy mechanism does not shift training draws.
	Rand, Noise *rand.Rand
	// Linear is a vector added to every local gradient (set by a hook for
	// objective perturbation; nil otherwise).
	Linear []float64
	// State persists across this client's rounds (algorithm-owned).
	State any

	steps, sampleGrads int
	release            func(*Client, []float64)
	sgd                *optim.SGD
	grad, bx           []float64
	by, perm           []int
	// train is the PCG under the Rand that reset made (own): while Rand is
	// still that one, batchRows shuffles from train directly (the same
	// draws, without an indirect call per element).
	train *rand.PCG
	own   *rand.Rand
}

func (c *Client) reset(e *Engine, id, epochs int, key rng.Key) {
	c.ID, c.Data, c.Global, c.Epochs = id, e.clients[id], e.server.Global, epochs
	c.Local, c.Model = &e.cfg.Local, e.model
	c.train = key.Derive("train").Source()
	c.Rand = rand.New(c.train)
	c.own = c.Rand
	c.Noise = key.Derive("noise").Rand()
	c.Linear, c.State = nil, e.states[id]
	c.steps, c.sampleGrads = 0, 0
	c.release = e.hooks.AfterLocal
	if c.sgd == nil {
		c.sgd = &optim.SGD{}
	}
}

// Count adds local work done outside TrainSGD to the run's counters.
func (c *Client) Count(steps, sampleGrads int) {
	c.steps += steps
	c.sampleGrads += sampleGrads
}

// Release passes a model the client sends to the server besides its upload
// (pFedMe's personalised model, upstream) through the AfterLocal hook, so a
// privacy mechanism treats it as it treats the upload; without a hook it
// does nothing.
func (c *Client) Release(params []float64) {
	if c.release != nil {
		c.release(c, params)
	}
}

// Steps returns the local optimizer steps taken so far this round.
func (c *Client) Steps() int { return c.steps }

// SGD returns the client's reusable SGD optimizer, reset and configured
// from the local config (learning rate, momentum, buffer mode, Linear).
// Callers may set Prox/Anchor before training.
func (c *Client) SGD() *optim.SGD {
	if c.sgd == nil {
		c.sgd = &optim.SGD{}
	}
	s := c.sgd
	// Set the exported fields one by one: assigning a fresh struct would
	// drop the momentum buffer's capacity and reallocate it every round.
	s.LR, s.Momentum, s.Nesterov, s.WeightDecay = c.Local.LR, c.Local.Momentum, false, 0
	s.Prox, s.Anchor, s.Linear = 0, nil, c.Linear
	s.Mode = optim.ModeGradient
	if c.Local.Upstream {
		s.Mode = optim.ModeUpstreamBuffer
	}
	s.Reset()
	return s
}

// Batches calls step for every mini-batch of c.Epochs epochs over a fresh
// shuffle of the client's data (the last batch of an epoch may be smaller:
// PyTorch's DataLoader with shuffle=True, drop_last=False). The batch
// aliases scratch storage valid during the call.
func (c *Client) Batches(step func(b model.Batch)) {
	d := c.Data
	if cap(c.bx) < c.Local.BatchSize*d.D {
		c.bx = make([]float64, c.Local.BatchSize*d.D)
		c.by = make([]int, c.Local.BatchSize)
	}
	c.batchRows(func(rows []int) {
		n := len(rows)
		for j, src := range rows {
			copy(c.bx[j*d.D:(j+1)*d.D], d.X[src*d.D:(src+1)*d.D])
			c.by[j] = d.Y[src]
		}
		step(model.Batch{X: c.bx[:n*d.D], Y: c.by[:n], N: n, D: d.D})
	})
}

// batchRows calls step with the row indices of every mini-batch, in the
// order Batches visits them (the same shuffles).
func (c *Client) batchRows(step func(rows []int)) {
	d := c.Data
	bs := c.Local.BatchSize
	if cap(c.perm) < d.N {
		c.perm = make([]int, d.N)
	}
	c.perm = c.perm[:d.N]
	for ep := 0; ep < c.Epochs; ep++ {
		if c.Rand == c.own && c.train != nil {
			rng.PermPCG(c.train, c.perm)
		} else {
			rng.Perm(c.Rand, c.perm)
		}
		for start := 0; start < d.N; start += bs {
			step(c.perm[start:min(start+bs, d.N)])
		}
	}
}

// GradHook adjusts a mini-batch gradient g at parameters p in place.
type GradHook func(p, g []float64)

// TrainSGD runs the shared local loop on p: for every mini-batch of
// Batches, g = ∇loss(p; batch), then hook (if any) adjusts g, then g is
// clipped to Local.MaxGradNorm (if set), then opt steps. It returns the
// mean mini-batch loss, or NaN when the model computes gradients only
// (model.GradOnly, which skips the per-example loss nobody reads here).
func (c *Client) TrainSGD(p []float64, opt optim.Optimizer, hook GradHook) float64 {
	if cap(c.grad) < len(p) {
		c.grad = make([]float64, len(p))
	}
	g := c.grad[:len(p)]
	var lossSum float64
	var batches int
	after := func(n int) {
		if hook != nil {
			hook(p, g)
		}
		if c.Local.MaxGradNorm > 0 {
			ClipNorm(g, c.Local.MaxGradNorm)
		}
		opt.Step(p, g)
		c.steps++
		c.sampleGrads += n
		batches++
	}
	gradOnly, _ := c.Model.(model.GradOnly)
	if rg, ok := c.Model.(model.RowGrad); ok && gradOnly != nil {
		// Gradient straight from the shuffled rows: no batch copy.
		d := c.Data
		c.batchRows(func(rows []int) {
			rg.GradRows(p, d.X, d.Y, d.D, rows, g, c.Rand)
			after(len(rows))
		})
		lossSum = math.NaN()
	} else {
		c.Batches(func(b model.Batch) {
			if gradOnly != nil {
				gradOnly.Grad(p, b, g, c.Rand)
				lossSum = math.NaN()
			} else {
				lossSum += c.Model.LossGrad(p, b, g, c.Rand)
			}
			after(b.N)
		})
	}
	if batches == 0 {
		return math.NaN()
	}
	return lossSum / float64(batches)
}

// ClipNorm scales g so that ‖g‖₂ ≤ c (torch.nn.utils.clip_grad_norm_,
// which multiplies by c/(‖g‖+1e-6) when ‖g‖ > c) and returns the norm
// before clipping.
func ClipNorm(g []float64, c float64) float64 {
	var ss float64
	for _, v := range g {
		ss += v * v
	}
	n := math.Sqrt(ss)
	if coef := c / (n + 1e-6); coef < 1 {
		for i := range g {
			g[i] *= coef
		}
	}
	return n
}
