package fl

import (
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
)

// StateExtrapolator is implemented by algorithms whose server-side state
// also moves on an Upcycled even round (Scaffold's control variate); the
// method sees only the server.
type StateExtrapolator interface {
	ExtrapolateState(s *Server, coef float64)
}

// Params holds every baseline's hyperparameters; zero fields take the
// upstream Upcycled-FL defaults (spec upcycled.md §6) via WithDefaults.
type Params struct {
	Mu             float64 `json:"mu,omitempty" yaml:"mu"`                               // FedProx proximal μ
	ServerLR       float64 `json:"server_lr,omitempty" yaml:"server_lr"`                 // FedAvgM server step (1.0)
	ServerMomentum float64 `json:"server_momentum,omitempty" yaml:"server_momentum"`     // FedAvgM Nesterov momentum (0.3)
	DynAlpha       float64 `json:"dyn_alpha,omitempty" yaml:"dyn_alpha"`                 // FedDyn α (0.01)
	DynMaxGradNorm float64 `json:"dyn_max_grad_norm,omitempty" yaml:"dyn_max_grad_norm"` // FedDyn gradient clip, upstream mode (10)
	// DynMode is DynUpstream (the released code: detached regulariser,
	// clipping, unweighted mean) or DynPaper (Acar et al. 2021).
	DynMode      string  `json:"dyn_mode,omitempty" yaml:"dyn_mode"`
	PFedMeK      int     `json:"pfedme_k,omitempty" yaml:"pfedme_k"`           // inner steps per batch (5)
	PFedMeLambda float64 `json:"pfedme_lambda,omitempty" yaml:"pfedme_lambda"` // λ (15)
	PFedMeMu     float64 `json:"pfedme_mu,omitempty" yaml:"pfedme_mu"`         // L2 μ on the personal model (1e-3)
	PFedMeBeta   float64 `json:"pfedme_beta,omitempty" yaml:"pfedme_beta"`     // server mixing β (1)
	// PFedMeReleasePersonal passes the personalised model through the
	// output-perturbation hook too (upstream stores it on the server).
	PFedMeReleasePersonal bool    `json:"pfedme_release_personal,omitempty" yaml:"pfedme_release_personal"`
	YogiLR                float64 `json:"yogi_lr,omitempty" yaml:"yogi_lr"`       // η (0.1)
	YogiTau               float64 `json:"yogi_tau,omitempty" yaml:"yogi_tau"`     // τ (1e-3)
	YogiBeta1             float64 `json:"yogi_beta1,omitempty" yaml:"yogi_beta1"` // β1 (0.9)
	YogiBeta2             float64 `json:"yogi_beta2,omitempty" yaml:"yogi_beta2"` // β2 (0.99)
}

// WithDefaults fills zero fields with the upstream defaults.
func (p Params) WithDefaults() Params {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&p.ServerLR, 1)
	def(&p.ServerMomentum, 0.3)
	def(&p.DynAlpha, 0.01)
	def(&p.DynMaxGradNorm, 10)
	if p.DynMode == "" {
		p.DynMode = DynUpstream
	}
	if p.PFedMeK == 0 {
		p.PFedMeK = 5
	}
	def(&p.PFedMeLambda, 15)
	def(&p.PFedMeMu, 1e-3)
	def(&p.PFedMeBeta, 1)
	def(&p.YogiLR, 0.1)
	def(&p.YogiTau, 1e-3)
	def(&p.YogiBeta1, 0.9)
	def(&p.YogiBeta2, 0.99)
	return p
}

// Baselines lists the names NewAlgorithm accepts.
var Baselines = []string{"fedavg", "fedavgm", "fedprox", "scaffold", "feddyn", "pfedme", "fedyogi"}

// NewAlgorithm returns a fresh baseline by name (one per run: algorithms
// keep per-run state).
func NewAlgorithm(name string, p Params) (Algorithm, error) {
	p = p.WithDefaults()
	switch name {
	case "fedavg":
		return &FedAvg{}, nil
	case "fedprox":
		if !(p.Mu > 0) {
			return nil, fmt.Errorf("fedprox needs a proximal coefficient mu > 0, got %g", p.Mu)
		}
		return &FedProx{Mu: p.Mu}, nil
	case "fedavgm":
		return &FedAvgM{LR: p.ServerLR, Momentum: p.ServerMomentum}, nil
	case "scaffold":
		return &Scaffold{}, nil
	case "feddyn":
		if p.DynMode != DynUpstream && p.DynMode != DynPaper {
			return nil, fmt.Errorf("feddyn mode %q (want %s or %s)", p.DynMode, DynUpstream, DynPaper)
		}
		return &FedDyn{Alpha: p.DynAlpha, MaxGradNorm: p.DynMaxGradNorm, Mode: p.DynMode}, nil
	case "pfedme":
		return &PFedMe{K: p.PFedMeK, Lambda: p.PFedMeLambda, Mu: p.PFedMeMu, Beta: p.PFedMeBeta, ReleasePersonal: p.PFedMeReleasePersonal}, nil
	case "fedyogi":
		return &FedYogi{LR: p.YogiLR, Tau: p.YogiTau, Beta1: p.YogiBeta1, Beta2: p.YogiBeta2}, nil
	}
	return nil, fmt.Errorf("unknown algorithm %q (known: %v)", name, Baselines)
}

// FedAvg (McMahan et al. 2017): local momentum SGD, size-weighted average
// of the sampled clients' models.
type FedAvg struct{}

func (*FedAvg) Name() string                       { return "fedavg" }
func (*FedAvg) Setup(*Server)                      {}
func (*FedAvg) Local(c *Client, up *Upload)        { c.TrainSGD(up.Params, c.SGD(), nil) }
func (*FedAvg) Aggregate(s *Server, ups []*Upload) { WeightedAverage(s.Global, ups) }

// FedProx (Li et al. 2020): FedAvg whose local objective adds
// (μ/2)‖ω − ω̄‖², centred at the broadcast model.
type FedProx struct{ Mu float64 }

func (*FedProx) Name() string  { return "fedprox" }
func (*FedProx) Setup(*Server) {}
func (f *FedProx) Local(c *Client, up *Upload) {
	opt := c.SGD()
	opt.Prox, opt.Anchor = f.Mu, c.Global
	c.TrainSGD(up.Params, opt, nil)
}
func (*FedProx) Aggregate(s *Server, ups []*Upload) { WeightedAverage(s.Global, ups) }

// FedAvgM (Hsu et al. 2019): the server treats ω̄ − avg(ω_i) as a
// pseudo-gradient and steps with Nesterov momentum (upstream: torch SGD,
// lr 1.0, momentum 0.3, nesterov=True).
type FedAvgM struct {
	LR, Momentum float64
	opt          *optim.SGD
	avg, pg      []float64
}

func (*FedAvgM) Name() string { return "fedavgm" }
func (f *FedAvgM) Setup(s *Server) {
	f.opt = &optim.SGD{LR: f.LR, Momentum: f.Momentum, Nesterov: true}
	f.avg = make([]float64, len(s.Global))
	f.pg = make([]float64, len(s.Global))
	s.State = f.opt
}
func (*FedAvgM) Local(c *Client, up *Upload) { c.TrainSGD(up.Params, c.SGD(), nil) }
func (f *FedAvgM) Aggregate(s *Server, ups []*Upload) {
	if !WeightedAverage(f.avg, ups) {
		return
	}
	for i := range f.pg {
		f.pg[i] = s.Global[i] - f.avg[i]
	}
	f.opt.Step(s.Global, f.pg)
}

// Scaffold (Karimireddy et al. 2020), option II control variates as in
// upstream: local gradients are corrected by c − c_i; after K local steps
// c_i⁺ = c_i − c + (x − y_i)/(K·lr); the server averages models and adds
// (1/N)Σ_S Δc_i to c. On an Upcycled even round c also moves by
// coef·(1/N)Σ_S Δc_i of the last training round (upstream behaviour).
type Scaffold struct {
	c         []float64 // server control variate
	lastDelta []float64 // (1/N)Σ_S Δc_i of the last training round
	corr      []float64
}

type scaffoldClient struct{ ci []float64 }

func (*Scaffold) Name() string { return "scaffold" }
func (f *Scaffold) Setup(s *Server) {
	f.c = make([]float64, len(s.Global))
	f.lastDelta = make([]float64, len(s.Global))
	f.corr = make([]float64, len(s.Global))
	s.State = f
}
func (f *Scaffold) Local(c *Client, up *Upload) {
	st, _ := c.State.(*scaffoldClient)
	if st == nil {
		st = &scaffoldClient{ci: make([]float64, len(up.Params))}
		c.State = st
	}
	for i := range f.corr {
		f.corr[i] = f.c[i] - st.ci[i]
	}
	opt := c.SGD()
	c.TrainSGD(up.Params, opt, func(_, g []float64) {
		for i := range g {
			g[i] += f.corr[i]
		}
	})
	k := opt.Steps()
	delta := make([]float64, len(up.Params))
	if k > 0 {
		coef := 1 / (float64(k) * c.Local.LR)
		for i := range delta {
			next := st.ci[i] - f.c[i] + coef*(c.Global[i]-up.Params[i])
			delta[i] = next - st.ci[i]
			st.ci[i] = next
		}
	}
	up.Extra = delta
}
func (f *Scaffold) Aggregate(s *Server, ups []*Upload) {
	WeightedAverage(s.Global, ups)
	for i := range f.lastDelta {
		f.lastDelta[i] = 0
	}
	n := float64(s.NClients)
	for _, u := range ups {
		d := u.Extra.([]float64)
		for i := range d {
			f.lastDelta[i] += d[i] / n
		}
	}
	for i := range f.c {
		f.c[i] += f.lastDelta[i]
	}
}

// ExtrapolateState moves c by coef times the last round's mean delta.
func (f *Scaffold) ExtrapolateState(_ *Server, coef float64) {
	for i := range f.c {
		f.c[i] += coef * f.lastDelta[i]
	}
}

// ControlVariate returns the server control variate c (read-only).
func (f *Scaffold) ControlVariate() []float64 { return f.c }

// FedDyn modes: what the released Upcycled-FL code computes, and the
// algorithm of Acar et al. 2021 that the paper cites.
const (
	DynUpstream = "upstream"
	DynPaper    = "paper"
)

// FedDyn has two modes (Params.DynMode).
//
// Upstream (DynUpstream) is what the released Upcycled-FL code computes
// (osu-srml/Upcycled-FL@4dd7400, client/feddyn.py and server/feddyn.py,
// after FL-bench). Its client adds α·⟨ω, ∇_i − ω̄⟩ to the loss, but the ω in
// that term comes from utils.vectorize, which detaches by default, so the
// term has no gradient: local training is plain momentum SGD on the loss
// with the gradient clipped to MaxGradNorm (10). The server takes the plain
// (unweighted) mean avg of the uploaded models, adds θ_j − avg to ∇ at the
// client's position j in the sampled list (not at its id), and broadcasts
// avg + (1/N)Σ_{all N} ∇. Because Σ_j (θ_j − avg) = 0 for a plain mean, Σ∇
// stays 0 (up to rounding) and the broadcast model is the plain mean: the
// ∇ states change nothing. On an Upcycled even round the code's attempt to
// extrapolate ∇ rebinds a loop variable and has no effect either; only the
// weights are extrapolated. This type computes all of that, rounding
// included, so upstream FedDyn is FedAvg with unweighted aggregation and
// gradient clipping.
//
// Paper (DynPaper) is Acar et al., "Federated Learning Based on Dynamic
// Regularization" (ICLR 2021), Algorithm 1: client i minimises
// f_i(θ) − ⟨g_i, θ⟩ + (α/2)‖θ − θ^{t−1}‖² by the local optimizer (gradient
// ∇f_i(θ) − g_i + α(θ − θ^{t−1})), then updates its state
// g_i ← g_i − α(θ_i − θ^{t−1}) (g_i = ∇L_i(θ_i^{t−1}), 0 initially); the
// server updates h ← h − α·(1/N)·Σ_{i∈P_t}(θ_i − θ^{t−1}) over the active
// set P_t of the N clients and broadcasts θ^t = mean_{P_t}(θ_i) − h/α.
// No gradient clipping (Acar et al. have none); on an Upcycled even round
// only the weights are extrapolated (h is server state the paper's
// extrapolation does not define).
type FedDyn struct {
	Alpha, MaxGradNorm float64
	Mode               string // DynUpstream or DynPaper

	nabla [][]float64 // upstream: per-position ∇ states
	h     []float64   // paper: server state h
}

type feddynClient struct{ g []float64 } // paper mode: g_i = ∇L_i(θ_i^{t−1})

func (*FedDyn) Name() string { return "feddyn" }
func (f *FedDyn) Setup(s *Server) {
	switch f.Mode {
	case DynPaper:
		f.h = make([]float64, len(s.Global))
	default:
		f.nabla = make([][]float64, s.NClients)
		for i := range f.nabla {
			f.nabla[i] = make([]float64, len(s.Global))
		}
	}
	s.State = f
}

func (f *FedDyn) Local(c *Client, up *Upload) {
	if f.Mode != DynPaper {
		// The regulariser is detached upstream: no gradient, only the clip.
		c.TrainSGD(up.Params, c.SGD(), func(_, g []float64) {
			if f.MaxGradNorm > 0 {
				ClipNorm(g, f.MaxGradNorm)
			}
		})
		return
	}
	st, _ := c.State.(*feddynClient)
	if st == nil {
		st = &feddynClient{g: make([]float64, len(up.Params))}
		c.State = st
	}
	a, anchor := f.Alpha, c.Global
	c.TrainSGD(up.Params, c.SGD(), func(p, g []float64) {
		for i := range g {
			g[i] += a*(p[i]-anchor[i]) - st.g[i]
		}
	})
	for i, v := range up.Params {
		st.g[i] -= a * (v - anchor[i])
	}
}

func (f *FedDyn) Aggregate(s *Server, ups []*Upload) {
	if len(ups) == 0 {
		return
	}
	avg := s.Global // reuse: Prev holds the old model
	for i := range avg {
		avg[i] = 0
	}
	inv := 1 / float64(len(ups))
	for _, u := range ups {
		for i, v := range u.Params {
			avg[i] += inv * v
		}
	}
	if f.Mode == DynPaper {
		// h ← h − α(1/N)Σ(θ_i − θ^{t−1}); θ^t = avg − h/α.
		k := f.Alpha / float64(s.NClients)
		for _, u := range ups {
			for i, v := range u.Params {
				f.h[i] -= k * (v - s.Prev[i])
			}
		}
		for i := range avg {
			avg[i] -= f.h[i] / f.Alpha
		}
		return
	}
	for j, u := range ups {
		nab := f.nabla[j] // upstream indexes ∇ by position in the sampled list
		for i, v := range u.Params {
			nab[i] += v - avg[i]
		}
	}
	invN := 1 / float64(len(f.nabla))
	for i := range avg {
		var m float64
		for _, nab := range f.nabla {
			m += nab[i]
		}
		avg[i] += invN * m
	}
}

// NablaMean returns (1/N)Σ∇ of upstream mode (nil in paper mode): the
// term the upstream server adds to the mean, which stays 0 up to rounding.
func (f *FedDyn) NablaMean() []float64 {
	if f.nabla == nil {
		return nil
	}
	out := make([]float64, len(f.nabla[0]))
	for _, nab := range f.nabla {
		for i, v := range nab {
			out[i] += v / float64(len(f.nabla))
		}
	}
	return out
}

// PFedMe (T Dinh et al. 2020) as upstream runs it (client/pfedme.py): the
// personalised model θ starts each local update at the broadcast model;
// for every mini-batch θ takes K steps θ −= lr·(∇f(θ) + λ(θ − w) + μθ)
// on that same batch (the objective-perturbation vector, when set, is
// added after the lr scaling, as upstream does), then the local model
// moves w −= λ·lr·(w − θ). The client uploads w; the server keeps θ for
// evaluation and mixes ω̄ ← (1−β)ω̄ + β·avg (upstream ignores β: its
// server takes the plain size-weighted average, i.e. β = 1, the default).
// With ReleasePersonal θ is also passed through the engine's AfterLocal
// hook (output perturbation), as upstream perturbs both models it stores
// on the server.
type PFedMe struct {
	K                int
	Lambda, Mu, Beta float64
	ReleasePersonal  bool
	avg              []float64
	init             []float64
}

type pfedmeClient struct{ theta []float64 }

func (*PFedMe) Name() string { return "pfedme" }
func (f *PFedMe) Setup(s *Server) {
	f.avg = make([]float64, len(s.Global))
	f.init = append([]float64(nil), s.Global...)
}
func (f *PFedMe) Local(c *Client, up *Upload) {
	st, _ := c.State.(*pfedmeClient)
	if st == nil {
		st = &pfedmeClient{theta: make([]float64, len(up.Params))}
		c.State = st
	}
	theta, w := st.theta, up.Params
	copy(theta, c.Global)
	lr := c.Local.LR
	if cap(c.grad) < len(w) {
		c.grad = make([]float64, len(w))
	}
	g := c.grad[:len(w)]
	gradOnly, _ := c.Model.(model.GradOnly)
	c.Batches(func(b model.Batch) {
		for k := 0; k < f.K; k++ {
			if gradOnly != nil {
				gradOnly.Grad(theta, b, g, c.Rand)
			} else {
				c.Model.LossGrad(theta, b, g, c.Rand)
			}
			for i := range theta {
				x := lr * (g[i] + f.Lambda*(theta[i]-w[i]) + f.Mu*theta[i])
				if c.Linear != nil {
					x += c.Linear[i]
				}
				theta[i] -= x
			}
			c.Count(1, b.N)
		}
		for i := range w {
			w[i] -= f.Lambda * lr * (w[i] - theta[i])
		}
	})
	if f.ReleasePersonal {
		c.Release(theta)
	}
}
func (f *PFedMe) Aggregate(s *Server, ups []*Upload) {
	if !WeightedAverage(f.avg, ups) {
		return
	}
	for i := range s.Global {
		s.Global[i] = (1-f.Beta)*s.Global[i] + f.Beta*f.avg[i]
	}
}

// Personal returns client state's personalised model, or the initial
// global model for a client never selected (upstream keeps a copy of the
// initial model for every client).
func (f *PFedMe) Personal(state any) []float64 {
	if st, ok := state.(*pfedmeClient); ok && st != nil {
		return st.theta
	}
	return f.init
}

// FedYogi (Reddi et al. 2021, Algorithm 2): the server averages the client
// deltas Δ = Σ p_i(ω_i − ω̄) and applies Yogi: m = β1·m + (1−β1)Δ,
// v = v − (1−β2)Δ²·sign(v − Δ²), ω̄ += η·m/(√v + τ), with m, v starting at 0
// (upstream).
type FedYogi struct {
	LR, Tau, Beta1, Beta2 float64
	m, v, delta           []float64
}

func (*FedYogi) Name() string { return "fedyogi" }
func (f *FedYogi) Setup(s *Server) {
	n := len(s.Global)
	f.m, f.v, f.delta = make([]float64, n), make([]float64, n), make([]float64, n)
	s.State = f
}
func (*FedYogi) Local(c *Client, up *Upload) { c.TrainSGD(up.Params, c.SGD(), nil) }
func (f *FedYogi) Aggregate(s *Server, ups []*Upload) {
	if !WeightedAverage(f.delta, ups) {
		return
	}
	for i := range f.delta {
		d := f.delta[i] - s.Global[i]
		f.m[i] = f.Beta1*f.m[i] + (1-f.Beta1)*d
		d2 := d * d
		f.v[i] -= (1 - f.Beta2) * d2 * sign(f.v[i]-d2)
		s.Global[i] += f.LR * f.m[i] / (math.Sqrt(f.v[i]) + f.Tau)
	}
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
