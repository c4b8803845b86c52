package fedddpm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Weighting selects the aggregation weights of the sampled clients.
type Weighting int

const (
	// Uniform weights every sampled client 1/n, as Eq. (9) of Algorithm 1
	// and line 6 of Algorithm 2 (decision 5), also under unequal Dirichlet
	// client sizes. Every method of the comparison uses it.
	Uniform Weighting = iota
	// BySize weights client i by m_i / Σ_{j∈Z_t} m_j (the weights p_i of the
	// objective, Eq. (7); McMahan et al.'s FedAvg).
	BySize
)

// String names the weighting.
func (w Weighting) String() string {
	switch w {
	case Uniform:
		return "uniform"
	case BySize:
		return "size"
	}
	return fmt.Sprintf("weighting(%d)", int(w))
}

// ParseWeighting turns "uniform" (or "") and "size" into a Weighting.
func ParseWeighting(s string) (Weighting, error) {
	switch s {
	case "", "uniform":
		return Uniform, nil
	case "size":
		return BySize, nil
	}
	return 0, fmt.Errorf("fedddpm: unknown aggregation weighting %q (want uniform or size)", s)
}

// Average writes the weighted mean of the uploads' parameters into dst and
// reports whether there was any upload.
func Average(dst []float64, ups []*fl.Upload, w Weighting) bool {
	if len(ups) == 0 {
		return false
	}
	if w == BySize {
		return fl.WeightedAverage(dst, ups)
	}
	clear(dst)
	inv := 1 / float64(len(ups))
	for _, u := range ups {
		for i, v := range u.Params {
			dst[i] += inv * v
		}
	}
	return true
}

// Base holds what every method of the comparison shares: the clients'
// optimizer (learning rate ζ) and the aggregation weights. K (local
// epochs) and B (batch) come from the engine's fl.LocalConfig.
type Base struct {
	Opt     Opt
	Weights Weighting

	shared optim.Optimizer // reused, reset per ClientUpdate, when !Opt.Persist
}

// clientState is what a client keeps between the rounds it is selected
// in: its optimizer when Opt.Persist, and SCAFFOLD's control variate.
type clientState struct {
	opt optim.Optimizer
	ci  []float64
}

func stateOf(c *fl.Client) *clientState {
	st, _ := c.State.(*clientState)
	if st == nil {
		st = &clientState{}
		c.State = st
	}
	return st
}

// optimizer returns the client's optimizer for this ClientUpdate: a reset
// shared one (the default: fresh state per round), or the client's own,
// created on its first selection and kept in c.State (Opt.Persist).
func (b *Base) optimizer(c *fl.Client) optim.Optimizer {
	if b.Opt.Persist {
		st := stateOf(c)
		if st.opt == nil {
			st.opt = b.Opt.New()
		}
		return st.opt
	}
	if b.shared == nil {
		b.shared = b.Opt.New()
	}
	b.shared.Reset()
	return b.shared
}

// FedAvg (McMahan et al. 2017) as the paper runs it: every sampled client
// trains the broadcast model for K local epochs with the client optimizer;
// the server sets w_{t+1} = w_t + Σ_{i∈Z_t} (1/n)(w^i_{t+1} − w_t), i.e.
// the mean of the uploads (Alg. 1 without lines 8–10).
type FedAvg struct{ Base }

// Name implements fl.Algorithm.
func (*FedAvg) Name() string { return "fedavg" }

// Setup implements fl.Algorithm.
func (*FedAvg) Setup(*fl.Server) {}

// Local implements fl.Algorithm.
func (f *FedAvg) Local(c *fl.Client, up *fl.Upload) { c.TrainSGD(up.Params, f.optimizer(c), nil) }

// Aggregate implements fl.Algorithm.
func (f *FedAvg) Aggregate(s *fl.Server, ups []*fl.Upload) { Average(s.Global, ups, f.Weights) }

// FedProx (Li et al., MLSys 2020; the paper's citation [76] is missing,
// decision 19): each client minimises f_i(w) + (μ/2)‖w − w_t‖², i.e. its
// mini-batch gradients get μ(w − w_t) added before the optimizer step;
// aggregation as FedAvg.
type FedProx struct {
	Base
	Mu float64
}

// Name implements fl.Algorithm.
func (*FedProx) Name() string { return "fedprox" }

// Setup implements fl.Algorithm.
func (*FedProx) Setup(*fl.Server) {}

// Local implements fl.Algorithm.
func (f *FedProx) Local(c *fl.Client, up *fl.Upload) {
	anchor := c.Global
	c.TrainSGD(up.Params, f.optimizer(c), func(p, g []float64) {
		for i := range g {
			g[i] += f.Mu * (p[i] - anchor[i])
		}
	})
}

// Aggregate implements fl.Algorithm.
func (f *FedProx) Aggregate(s *fl.Server, ups []*fl.Upload) { Average(s.Global, ups, f.Weights) }

// Scaffold (Karimireddy et al., ICML 2020, Algorithm 1 with option II):
// local steps use the corrected gradient g_i(y) − c_i + c; after local
// training c_i⁺ = c_i − c + (x − y_i)/(K·η_l); the server sets
// x ← x + η_g·(1/|S|)Σ_{i∈S}(y_i − x) and c ← c + (1/N)Σ_{i∈S}(c_i⁺ − c_i).
//
// With plain SGD, option II's c_i⁺ equals the mean of the client's raw
// mini-batch gradients g_i(y_k) along its local trajectory (the corrections
// cancel), and that is how it is computed here, so that it stays in
// gradient units when the local optimizer is Adam, whose displacement is
// not K·η_l times a gradient (decision 13; the equality under SGD is
// tested). GlobalLR η_g = 1 as in the original experiments.
type Scaffold struct {
	Base
	GlobalLR float64

	c, avg, corr, sum []float64
}

// Name implements fl.Algorithm.
func (*Scaffold) Name() string { return "scaffold" }

// Setup implements fl.Algorithm.
func (f *Scaffold) Setup(s *fl.Server) {
	n := len(s.Global)
	f.c, f.avg, f.corr, f.sum = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	if f.GlobalLR == 0 {
		f.GlobalLR = 1
	}
	s.State = f
}

// Local implements fl.Algorithm.
func (f *Scaffold) Local(c *fl.Client, up *fl.Upload) {
	st := stateOf(c)
	if st.ci == nil {
		st.ci = make([]float64, len(up.Params))
	}
	for i := range f.corr {
		f.corr[i] = f.c[i] - st.ci[i]
	}
	clear(f.sum)
	k := 0
	c.TrainSGD(up.Params, f.optimizer(c), func(_, g []float64) {
		for i, v := range g {
			f.sum[i] += v
			g[i] = v + f.corr[i]
		}
		k++
	})
	delta := make([]float64, len(up.Params))
	if k > 0 {
		inv := 1 / float64(k)
		for i := range delta {
			next := inv * f.sum[i]
			delta[i] = next - st.ci[i]
			st.ci[i] = next
		}
	}
	up.Extra = delta
}

// Aggregate implements fl.Algorithm.
func (f *Scaffold) Aggregate(s *fl.Server, ups []*fl.Upload) {
	if !Average(f.avg, ups, f.Weights) {
		return
	}
	for i := range s.Global {
		s.Global[i] += f.GlobalLR * (f.avg[i] - s.Global[i])
	}
	inv := 1 / float64(s.NClients)
	for _, u := range ups {
		for i, v := range u.Extra.([]float64) {
			f.c[i] += inv * v
		}
	}
}

// ControlVariate returns the server control variate c (read-only).
func (f *Scaffold) ControlVariate() []float64 { return f.c }

// MoFedSAM (Qu et al., ICML 2022, Algorithm 2, which adds FedCM's client
// momentum to FedSAM): at local step k a client takes the SAM gradient
// g̃ = ∇ℓ(y + ρ·g/‖g‖) with g = ∇ℓ(y) on the same mini-batch (and, for the
// denoiser, the same diffusion steps and noise), mixes it with the
// server's last global direction, v = α·g̃ + (1−α)·Δ_t, and steps with v.
// The server averages the models (global step η_g = 1) and sets
// Δ_{t+1} = (1/|S|)Σ_{i∈S} mean_k v_{i,k}, which with plain SGD equals
// FedCM/MoFedSAM's (1/(|S|Kη_l))Σ_i (x_t − y_{i,K}) and stays in gradient
// units under Adam (decision 13). Δ_0 = 0. Each step costs two gradient
// evaluations, counted as such.
type MoFedSAM struct {
	Base
	Rho   float64 // SAM radius ρ
	Alpha float64 // weight α of the local SAM gradient

	delta, next, g, pert, sum []float64
	uploads                   int
}

// Name implements fl.Algorithm.
func (*MoFedSAM) Name() string { return "mofedsam" }

// Setup implements fl.Algorithm.
func (f *MoFedSAM) Setup(s *fl.Server) {
	n := len(s.Global)
	f.delta, f.next, f.g, f.pert, f.sum = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	s.State = f
}

// Local implements fl.Algorithm.
func (f *MoFedSAM) Local(c *fl.Client, up *fl.Upload) {
	p := up.Params
	opt := f.optimizer(c)
	clear(f.sum)
	k := 0
	c.Batches(func(b model.Batch) {
		seed := c.Rand.Uint64()
		c.Model.LossGrad(p, b, f.g, rand.New(rand.NewPCG(seed, 0)))
		var ss float64
		for _, v := range f.g {
			ss += v * v
		}
		scale := f.Rho / (math.Sqrt(ss) + 1e-12)
		for i, v := range p {
			f.pert[i] = v + scale*f.g[i]
		}
		c.Model.LossGrad(f.pert, b, f.g, rand.New(rand.NewPCG(seed, 0)))
		for i, v := range f.g {
			f.g[i] = f.Alpha*v + (1-f.Alpha)*f.delta[i]
			f.sum[i] += f.g[i]
		}
		opt.Step(p, f.g)
		c.Count(1, 2*b.N)
		k++
	})
	dir := make([]float64, len(p))
	if k > 0 {
		inv := 1 / float64(k)
		for i, v := range f.sum {
			dir[i] = inv * v
		}
	}
	up.Extra = dir
}

// Aggregate implements fl.Algorithm.
func (f *MoFedSAM) Aggregate(s *fl.Server, ups []*fl.Upload) {
	if !Average(s.Global, ups, f.Weights) {
		return
	}
	clear(f.next)
	inv := 1 / float64(len(ups))
	for _, u := range ups {
		for i, v := range u.Extra.([]float64) {
			f.next[i] += inv * v
		}
	}
	copy(f.delta, f.next)
}

// Direction returns the current global direction Δ_t (read-only).
func (f *MoFedSAM) Direction() []float64 { return f.delta }

// ServerWorker is implemented by methods that compute on the server
// (training on the auxiliary set); the work is kept apart from the
// clients' engine counters.
type ServerWorker interface {
	ServerWork() Work
}

// Correction is the server's training on the auxiliary set A: Epochs
// passes of mini-batches of size Batch with the optimizer Opt, drawing
// from the server's stream of the current round.
type Correction struct {
	Model  model.Differentiable
	Aux    *data.Dataset
	Opt    Opt
	Epochs int
	Batch  int

	opt  optim.Optimizer
	tr   Trainer
	work Work
}

// run trains s.Global on A for c.Epochs epochs (fresh optimizer state
// unless c.Opt.Persist) with stream s.Rand(purpose).
func (c *Correction) run(s *fl.Server, epochs int, purpose string) {
	if c.opt == nil {
		c.opt = c.Opt.New()
	} else if !c.Opt.Persist {
		c.opt.Reset()
	}
	w, _ := c.tr.Epochs(c.Model, s.Global, c.Aux, c.opt, epochs, c.Batch, s.Rand(purpose), nil)
	c.work.Add(w)
}

func (c *Correction) validate() error {
	if c.Model == nil || c.Aux == nil || c.Aux.N == 0 {
		return fmt.Errorf("fedddpm: server correction needs a model and a non-empty auxiliary set")
	}
	if c.Epochs < 1 || c.Batch < 1 {
		return fmt.Errorf("fedddpm: server correction needs ≥ 1 epoch and batch ≥ 1, got %d and %d", c.Epochs, c.Batch)
	}
	return c.Opt.Validate()
}

// FedDDPM is Algorithm 1: FedAvg's round (lines 3–7, Eq. 9) followed, in
// every round, by E epochs of server training on the auxiliary set with
// the server step size η (lines 8–11): ŵ_{t+1,e+1} = ŵ_{t+1,e} − η∇̃f_A.
// The server never sends A to clients.
type FedDDPM struct {
	Base
	Server Correction
}

// NewFedDDPM checks the configuration and returns the method.
func NewFedDDPM(b Base, server Correction) (*FedDDPM, error) {
	if err := server.validate(); err != nil {
		return nil, err
	}
	return &FedDDPM{Base: b, Server: server}, nil
}

// Name implements fl.Algorithm.
func (*FedDDPM) Name() string { return "fedddpm" }

// Setup implements fl.Algorithm.
func (*FedDDPM) Setup(*fl.Server) {}

// Local implements fl.Algorithm (ClientUpdate, lines 12–15).
func (f *FedDDPM) Local(c *fl.Client, up *fl.Upload) { c.TrainSGD(up.Params, f.optimizer(c), nil) }

// Aggregate implements fl.Algorithm: Eq. (9), then the correction.
func (f *FedDDPM) Aggregate(s *fl.Server, ups []*fl.Upload) {
	Average(s.Global, ups, f.Weights)
	f.Server.run(s, f.Server.Epochs, "aux-correction")
}

// ServerWork implements ServerWorker.
func (f *FedDDPM) ServerWork() Work { return f.Server.work }

// Stopper is implemented by methods that can end training before the
// last round (FedDDPM+).
type Stopper interface{ Done() bool }

// Finisher is implemented by methods with work after the last round.
type Finisher interface{ Finish(s *fl.Server) }

// FedDDPMPlus is Algorithm 2 (FedDDPM+): plain FedAvg rounds (line 6, no
// per-round server training); after round t, when t mod Rule.Every = 0,
// QuickTest (Algorithm 3) scores the new global model with Score; when it
// fires, the server trains the model for Server.Epochs (E = 20 or 30 in
// the paper) epochs on A with Server.Opt — the listing's ζ_t by default
// (decision 4) — and training ends (Done). If QuickTest never fires within
// the rounds, Finish applies NeverFired (decision 12).
type FedDDPMPlus struct {
	Base
	Server Correction
	Rule   *StopRule
	// Score returns the (proxy) FID of TestSize samples drawn from the
	// global model with r (Algorithm 3, line 1).
	Score      func(global []float64, r *rand.Rand) float64
	NeverFired NeverFired

	done, corrected bool
	correctedAt     int
}

// NewFedDDPMPlus checks the configuration and returns the method.
func NewFedDDPMPlus(b Base, server Correction, rule *StopRule, score func([]float64, *rand.Rand) float64, never NeverFired) (*FedDDPMPlus, error) {
	if err := server.validate(); err != nil {
		return nil, err
	}
	if rule == nil || score == nil {
		return nil, fmt.Errorf("fedddpm: FedDDPM+ needs a stop rule and a score")
	}
	return &FedDDPMPlus{Base: b, Server: server, Rule: rule, Score: score, NeverFired: never, correctedAt: -1}, nil
}

// Name implements fl.Algorithm.
func (*FedDDPMPlus) Name() string { return "fedddpm+" }

// Setup implements fl.Algorithm.
func (*FedDDPMPlus) Setup(*fl.Server) {}

// Local implements fl.Algorithm.
func (f *FedDDPMPlus) Local(c *fl.Client, up *fl.Upload) {
	c.TrainSGD(up.Params, f.optimizer(c), nil)
}

// Aggregate implements fl.Algorithm: Eq. (9), then line 7's test on the
// round index t = s.Round (0-based, decision 17) and, when it fires, the
// final correction.
func (f *FedDDPMPlus) Aggregate(s *fl.Server, ups []*fl.Upload) {
	if f.done {
		return
	}
	Average(s.Global, ups, f.Weights)
	t := s.Round
	if f.Rule.Observe(t, func() float64 { return f.Score(s.Global, s.Rand("quicktest")) }) {
		f.correct(s)
		f.done = true
	}
}

func (f *FedDDPMPlus) correct(s *fl.Server) {
	f.Server.run(s, f.Server.Epochs, "final-correction")
	f.corrected = true
	f.correctedAt = s.Round
}

// Done implements Stopper: QuickTest fired and the correction ran.
func (f *FedDDPMPlus) Done() bool { return f.done }

// Finish implements Finisher: without a firing, CorrectAtEnd runs the
// correction on w_T; NoCorrection leaves w_T.
func (f *FedDDPMPlus) Finish(s *fl.Server) {
	if f.done {
		return
	}
	f.done = true
	if f.NeverFired == CorrectAtEnd {
		f.correct(s)
	}
}

// Corrected reports whether the final correction ran and after which
// training round (0-based; −1 when it did not).
func (f *FedDDPMPlus) Corrected() (bool, int) { return f.corrected, f.correctedAt }

// ServerWork implements ServerWorker.
func (f *FedDDPMPlus) ServerWork() Work { return f.Server.work }

// RunRounds runs up to rounds training rounds of e (whose algorithm is
// alg), stopping early when alg is a Stopper that is Done, then calls
// Finish when alg is a Finisher. after, when not nil, runs after each
// training round with its 0-based index. It returns the number of
// training rounds run.
func RunRounds(e *fl.Engine, alg fl.Algorithm, rounds int, after func(t int)) int {
	st, _ := alg.(Stopper)
	t := 0
	for ; t < rounds; t++ {
		if st != nil && st.Done() {
			break
		}
		e.TrainRound()
		if after != nil {
			after(t)
		}
	}
	if fin, ok := alg.(Finisher); ok {
		fin.Finish(e.Server())
	}
	return t
}

// SplitAux deals the auxiliary set out to n clients for LocalAug: a
// permutation from key.Derive("localaug", "split") cut into n pieces whose
// sizes differ by at most one ("distributes the auxiliary dataset evenly
// to the local systems"; the 1/N share A^(i) of spec §3.8).
func SplitAux(aux *data.Dataset, n int, key rng.Key) ([]*data.Dataset, error) {
	parts, err := data.PartitionIID(aux.N, n, key.Derive("localaug", "split"))
	if err != nil {
		return nil, fmt.Errorf("fedddpm: LocalAug split: %w", err)
	}
	out := make([]*data.Dataset, n)
	for i, p := range parts {
		out[i] = aux.Subset(p)
	}
	return out, nil
}

// LocalAugData returns the LocalAug clients' training sets D_i ∪ A^(i)
// (Fig. 8's baseline, after [48, 38]): every client trains, with FedAvg,
// on its own data plus an even share of the auxiliary set; there is no
// server correction. Labels are dropped (set to 0): no loss reads them.
func LocalAugData(clients []*data.Dataset, aux *data.Dataset, key rng.Key) ([]*data.Dataset, error) {
	shares, err := SplitAux(aux, len(clients), key)
	if err != nil {
		return nil, err
	}
	out := make([]*data.Dataset, len(clients))
	for i, c := range clients {
		a := data.Concat(c, shares[i])
		clear(a.Y)
		a.Classes = 1
		out[i] = a
	}
	return out, nil
}
