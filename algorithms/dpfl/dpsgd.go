package dpfl

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
)

// PerExample is a model with per-example gradients (model.LogReg and
// model.MLP), which DP-SGD's per-example clipping needs.
type PerExample interface {
	model.Differentiable
	PerExampleGrads(p []float64, b model.Batch, g []float64, loss []float64, r *rand.Rand)
}

// PoissonLot writes into dst (reusing its storage) the indices of [0, n)
// that independent Bernoulli(q) coins include, in increasing order: the
// Poisson sampling of DP-SGD lots that the accountants assume. It draws
// geometric gaps (one uniform per included index, plus one), so a lot costs
// O(qn) draws, not n.
func PoissonLot(r *rand.Rand, n int, q float64, dst []int) []int {
	dst = dst[:0]
	switch {
	case n <= 0 || q <= 0:
		return dst
	case q >= 1:
		for i := 0; i < n; i++ {
			dst = append(dst, i)
		}
		return dst
	}
	lq := math.Log1p(-q)
	i := -1
	for {
		// G = ⌊log(1−U)/log(1−q)⌋ is Geometric(q) on {0, 1, …}: the
		// number of excluded indices before the next included one.
		g := math.Floor(math.Log1p(-r.Float64()) / lq)
		if g >= float64(n-1-i) {
			return dst
		}
		i += int(g) + 1
		dst = append(dst, i)
	}
}

// LotSampling is how PoissonLot samples a lot with probability q, in the
// accountants' terms: Poisson(q), each example independently. DPSGD
// records it in every ledger entry, so the accounted sampling is the one
// that ran.
func LotSampling(q float64) accountant.Sampling {
	return accountant.Sampling{Kind: accountant.SamplePoisson, Q: q}
}

// StepsPerEpoch is the number of lots that make one local epoch over n
// examples with expected lot size L: max(1, round(n/L)) (Abadi et al.: an
// epoch is N/L lots).
func StepsPerEpoch(n int, lot float64) int {
	return max(1, int(math.Round(float64(n)/lot)))
}

// DPSGD is sample-level DP federated learning: every selected client runs
// DP-SGD on its data and uploads its model; the server takes the
// size-weighted average (eq. (4) with an equal split and q_c = 1 is the
// plain mean).
//
// A client's local update is c.Epochs × StepsPerEpoch(n, Lot) steps; each
// draws a Poisson lot with q = min(1, Lot/n) from Client.Rand, computes the
// per-example gradients, and lets Mechanism turn them into
// (Σ clip_C(g_i) + noise)/(q·n) with the round's (σ, C) from Schedule; the
// optimizer then steps. Every selected client's releases are recorded in its
// Client.State, a *Ledger (fl.Engine.ClientState).
type DPSGD struct {
	Mechanism Mechanism
	Schedule  Schedule
	// Lot is the expected lot size L.
	Lot float64
	// Optimizer is the local optimizer, reset before every local update
	// (DP-Adam, DP-AdaGrad); nil means Client.SGD(), the local config's
	// (momentum) SGD.
	Optimizer optim.Optimizer
	// Ghost computes a Gaussian lot by ghost norms when the model is a
	// model.ClippedSummer: per-example norms from activations and errors
	// and the clipped sum as one matrix product (issue 24), the fastest
	// path. It equals the default up to rounding (1e-12 relative), not bit
	// for bit, so it is off by default and in every golden-gated run;
	// other mechanisms ignore it. Without it a Gaussian lot of a
	// model.ExactClipper is still computed without materialising the
	// per-example gradients, bit for bit as Gaussian.Lot on them.
	Ghost bool

	round int
	idx   []int
	bx    []float64
	by    []int
	g     []float64
	rows  [][]float64
	gbar  []float64

	clip   float64                                 // this step's C, for factor
	factor func(float64, func() []float64) float64 // exactFactor, bound once
}

// Name is "dp-sgd/<mechanism>".
func (a *DPSGD) Name() string { return "dp-sgd/" + a.Mechanism.Name() }

// Setup validates the configuration and starts the round count.
func (a *DPSGD) Setup(s *fl.Server) {
	if a.Mechanism == nil || a.Schedule == nil || !(a.Lot > 0) {
		panic(fmt.Sprintf("dpfl: DPSGD needs a mechanism, a schedule and a lot size > 0 (got %v, %v, %g)", a.Mechanism, a.Schedule, a.Lot))
	}
	a.round = s.Round
}

// ClientLedger returns the ledger stored in a DPSGD client's state (nil
// for a client never selected).
func ClientLedger(state any) *Ledger {
	l, _ := state.(*Ledger)
	return l
}

// Local runs the client's DP-SGD steps on up.Params.
func (a *DPSGD) Local(c *fl.Client, up *fl.Upload) {
	pe, ok := c.Model.(PerExample)
	if !ok {
		panic(fmt.Sprintf("dpfl: DP-SGD needs per-example gradients; %T has none", c.Model))
	}
	sigma, clip := a.Schedule.At(a.round)
	d := c.Data
	n := d.N
	q := math.Min(1, a.Lot/float64(n))
	denom := q * float64(n)
	steps := c.Epochs * StepsPerEpoch(n, a.Lot)
	p := up.Params
	var opt optim.Optimizer = a.Optimizer
	if opt == nil {
		opt = c.SGD()
	} else {
		opt.Reset()
	}
	for s := 0; s < steps; s++ {
		k := a.step(pe, d, p, opt, q, denom, sigma, clip, c.Rand, c.Noise)
		c.Count(1, k)
	}
	l, _ := c.State.(*Ledger)
	if l == nil {
		l = &Ledger{}
		c.State = l
	}
	l.Add(Entry{Q: q, Sigma: sigma, Multiplier: a.Mechanism.Multiplier(sigma, len(p)), Steps: steps, Sampling: LotSampling(q)})
}

// step is one DP-SGD step on p: draw a Poisson lot of d with probability q
// from rlot, compute its per-example gradients, privatise them with the
// mechanism (noise from rnoise) and let opt step. It returns the lot size.
func (a *DPSGD) step(pe PerExample, d *data.Dataset, p []float64, opt optim.Optimizer, q, denom, sigma, clip float64, rlot, rnoise *rand.Rand) int {
	dim, np := d.D, len(p)
	if len(a.gbar) != np {
		a.gbar = make([]float64, np)
	}
	a.idx = PoissonLot(rlot, d.N, q, a.idx)
	k := len(a.idx)
	a.grow(k, dim, np)
	for j, src := range a.idx {
		copy(a.bx[j*dim:(j+1)*dim], d.X[src*dim:(src+1)*dim])
		a.by[j] = d.Y[src]
	}
	if k > 0 && isGaussian(a.Mechanism) {
		// The Gaussian lot without materialised per-example gradients:
		// bit for bit (ExactClipper) or, when asked, by ghost norms.
		batch := model.Batch{X: a.bx[:k*dim], Y: a.by[:k], N: k, D: dim}
		done := false
		if cs, ok := pe.(model.ClippedSummer); ok && a.Ghost {
			cs.ClippedGradSum(p, batch, clip, a.gbar, nil, rlot)
			done = true
		} else if ex, ok := pe.(model.ExactClipper); ok {
			a.clip = clip
			if a.factor == nil {
				a.factor = a.exactFactor
			}
			done = ex.ExactClippedGradSum(p, batch, a.gbar, a.factor, rlot)
		}
		if done {
			gaussianNoise(a.gbar, clip, sigma, denom, rnoise)
			opt.Step(p, a.gbar)
			return k
		}
	}
	rows := a.rows[:k]
	if k > 0 {
		pe.PerExampleGrads(p, model.Batch{X: a.bx[:k*dim], Y: a.by[:k], N: k, D: dim}, a.g[:k*np], nil, rlot)
		for j := range rows {
			rows[j] = a.g[j*np : (j+1)*np]
		}
	}
	a.Mechanism.Lot(a.gbar, rows, clip, sigma, denom, rnoise)
	opt.Step(p, a.gbar)
	return k
}

// isGaussian reports whether mech is the vanilla Gaussian mechanism.
func isGaussian(mech Mechanism) bool {
	switch mech.(type) {
	case Gaussian, *Gaussian:
		return true
	}
	return false
}

// exactFactor is Gaussian.Lot's clip factor clipFactor(norm2(g), C) of a
// gradient g with ss = g·g (as floats.Dot rounds it): norm2 is sqrt(ss)
// inside (1e-280, 1e280), else the scaled dp.Norm2 of g, materialised on
// demand. The tests check it against Gaussian.Lot bit for bit.
func (a *DPSGD) exactFactor(ss float64, g func() []float64) float64 {
	if ss > 1e-280 && ss < 1e280 {
		return clipFactor(math.Sqrt(ss), a.clip)
	}
	return clipFactor(dp.Norm2(g()), a.clip)
}

// gaussianNoise finishes a Gaussian lot from the clipped sum in dst:
// dst ← (dst + N(0, (σc)²))/denom, the draws and arithmetic of
// Gaussian.Lot.
func gaussianNoise(dst []float64, c, sigma, denom float64, r *rand.Rand) {
	inv := 1 / denom
	if sigma == 0 {
		floats.Scale(inv, dst)
		return
	}
	std := sigma * c
	for k := range dst {
		dst[k] = (dst[k] + std*r.NormFloat64()) * inv
	}
}

// grow sizes the lot buffers for k examples (amortised: no allocation
// once the largest lot has been seen).
func (a *DPSGD) grow(k, dim, np int) {
	if cap(a.by) < k || len(a.bx) < k*dim || len(a.g) < k*np {
		k2 := max(k, 2*cap(a.by))
		a.bx = make([]float64, k2*dim)
		a.by = make([]int, k2)
		a.g = make([]float64, k2*np)
		a.rows = make([][]float64, k2)
	}
	a.by = a.by[:cap(a.by)]
}

// Aggregate sets the global model to the size-weighted average of the
// uploads (unchanged when no client was selected) and advances the round.
func (a *DPSGD) Aggregate(s *fl.Server, ups []*fl.Upload) {
	fl.WeightedAverage(s.Global, ups)
	a.round++
}
