package diffusion

import (
	"fmt"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Predictor predicts the noise ε of a batch of noisy samples that all sit at
// the same diffusion step; it is what the sampler needs. Implementations:
// a Denoiser bound to a parameter vector (Denoiser.Bind) and the exact
// optimal predictors of Gaussian and Gaussian-mixture data.
type Predictor interface {
	// Dim is the data dimension d.
	Dim() int
	// PredictEps writes ε̂(x_t, t) for the rows × d matrix x into out
	// (rows × d). x and out do not alias.
	PredictEps(x []float64, rows, t int, out []float64)
}

// Denoiser is an ε-prediction DDPM model: a Net plus the Schedule it was
// built for. It satisfies model.Differentiable with the DDPM simple loss of
// Eq. (6), so FL engines and optimizers train it unchanged. A Denoiser is
// not safe for concurrent use; Clone gives an independent one.
type Denoiser struct {
	net   *Net
	sched *Schedule

	capRows int
	xt, eps []float64
	ts      []int
}

var _ model.Differentiable = (*Denoiser)(nil)

// evalKey names the stream LossGrad uses when it is given no stream.
var evalKey = rng.New(0, "diffusion", "evaluation-draws")

// NewDenoiser builds an MLP denoiser of the given shape for schedule s.
func NewDenoiser(cfg NetConfig, s *Schedule) (*Denoiser, error) {
	if s == nil {
		return nil, fmt.Errorf("diffusion: denoiser needs a schedule")
	}
	net, err := NewNet(cfg, s.Steps())
	if err != nil {
		return nil, err
	}
	return &Denoiser{net: net, sched: s}, nil
}

// Net returns the underlying network.
func (d *Denoiser) Net() *Net { return d.net }

// Schedule returns the noise schedule.
func (d *Denoiser) Schedule() *Schedule { return d.sched }

// Dim returns the data dimension d.
func (d *Denoiser) Dim() int { return d.net.cfg.Dim }

// NumParams implements model.Differentiable.
func (d *Denoiser) NumParams() int { return d.net.nparams }

// Init writes initial parameters drawn from r (see Net.Init).
func (d *Denoiser) Init(p []float64, r *rand.Rand) { d.net.Init(p, r) }

// Clone returns a denoiser of the same shape and schedule with its own
// scratch buffers.
func (d *Denoiser) Clone() *Denoiser { return &Denoiser{net: d.net.Clone(), sched: d.sched} }

func (d *Denoiser) ensure(rows int) {
	if rows <= d.capRows {
		return
	}
	c := max(rows, 2*d.capRows)
	dim := d.net.cfg.Dim
	d.xt = make([]float64, c*dim)
	d.eps = make([]float64, c*dim)
	d.ts = make([]int, c)
	d.capRows = c
}

// LossGrad implements model.Differentiable. For every row x_0 of b it draws
// t ~ U{1..T} and then ε ~ N(0, I_d) from r (in that order, row by row),
// forms x_t by Eq. (3) and returns mean_rows mean_cols (ε − ε_w(x_t, t))²;
// when grad is not nil it overwrites grad with the gradient of that loss.
// b.Y is ignored (diffusion training is unsupervised). With r == nil the
// draws come from a fixed evaluation stream, so evaluation losses of
// different parameter vectors share their draws.
func (d *Denoiser) LossGrad(p []float64, b model.Batch, grad []float64, r *rand.Rand) float64 {
	dim := d.net.cfg.Dim
	if b.D != dim {
		panic(fmt.Sprintf("diffusion: batch has %d features, denoiser expects %d", b.D, dim))
	}
	if r == nil {
		r = evalKey.Rand()
	}
	rows := b.N
	d.ensure(rows)
	T := d.sched.Steps()
	ts, eps := d.ts[:rows], d.eps[:rows*dim]
	for i := 0; i < rows; i++ {
		ts[i] = 1 + r.IntN(T)
		rng.FillNormal(r, eps[i*dim:(i+1)*dim], 1)
	}
	return d.LossAt(p, b.X, rows, ts, eps, grad)
}

// LossAt is the ε-prediction loss with given steps ts (rows) and noise eps
// (rows × d): mean_rows mean_cols (ε − ε_w(√ᾱ_t x_0 + √(1−ᾱ_t) ε, t))².
// When grad is not nil it is overwritten with the gradient (zero for an
// empty batch, whose loss is 0). It is the
// deterministic core of LossGrad, exposed for gradient checks and for
// evaluation on fixed draws.
func (d *Denoiser) LossAt(p, x0 []float64, rows int, ts []int, eps, grad []float64) float64 {
	dim := d.net.cfg.Dim
	if rows == 0 {
		clear(grad)
		return 0
	}
	d.ensure(rows)
	xt := d.xt[:rows*dim]
	for i := 0; i < rows; i++ {
		lo, hi := i*dim, (i+1)*dim
		d.sched.Noise(xt[lo:hi], x0[lo:hi], eps[lo:hi], ts[i])
	}
	out := d.net.forward(p, xt, ts, rows, grad != nil)
	scale := 1 / float64(rows*dim)
	var loss float64
	// Reuse xt as the output gradient buffer: 2(ε̂ − ε)/(rows·d).
	for i := range out[:rows*dim] {
		r := out[i] - eps[i]
		loss += r * r
		xt[i] = 2 * scale * r
	}
	if grad != nil {
		d.net.Backward(p, xt, grad, rows)
	}
	return loss * scale
}

// PredictEps writes ε_w(x, t) for rows rows of x into out using
// parameters p.
func (d *Denoiser) PredictEps(p, x []float64, rows, t int, out []float64) {
	d.ensure(rows)
	ts := d.ts[:rows]
	for i := range ts {
		ts[i] = t
	}
	copy(out[:rows*d.net.cfg.Dim], d.net.forward(p, x, ts, rows, false))
}

// Bind returns the Predictor ε_w for the parameter vector p (not copied:
// later changes to p are seen). The predictor shares the Denoiser's scratch
// buffers, so it must not be used concurrently with the Denoiser.
func (d *Denoiser) Bind(p []float64) Predictor {
	if len(p) != d.net.nparams {
		panic(fmt.Sprintf("diffusion: %d parameters, denoiser has %d", len(p), d.net.nparams))
	}
	return bound{d, p}
}

type bound struct {
	d *Denoiser
	p []float64
}

// Dim implements Predictor.
func (b bound) Dim() int { return b.d.Dim() }

// PredictEps implements Predictor with the bound parameters.
func (b bound) PredictEps(x []float64, rows, t int, out []float64) {
	b.d.PredictEps(b.p, x, rows, t, out)
}
