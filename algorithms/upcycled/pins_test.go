package upcycled

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Unit pins (issue 12, item 4) of the Upcycled even step and of both
// privacy mechanisms in paper and upstream mode. The model is a quadratic
// written here (loss ½Σ_j a_j(p_j − x_j)², gradient a ⊙ (p − x̄) on a full
// batch), so local training is plain gradient descent that the test
// replays; noise is recomputed from the named streams (the run key derived
// by ("round", k, "client", i), then "noise") with plain code. Tolerance:
// 1e-12 relative (absolute below 1), pinNear.

func pinNear(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func checkVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for j := range want {
		if len(got) != len(want) || !pinNear(got[j], want[j]) {
			t.Errorf("%s = %.17g, want %.17g", what, got, want)
			return
		}
	}
}

var pinA = []float64{1, 0.5}

type quadModel struct{}

func (quadModel) NumParams() int { return 2 }
func (quadModel) LossGrad(p []float64, b model.Batch, grad []float64, _ *rand.Rand) float64 {
	clear(grad)
	var loss float64
	for i := 0; i < b.N; i++ {
		for j := range pinA {
			d := p[j] - b.X[i*b.D+j]
			loss += 0.5 * pinA[j] * d * d / float64(b.N)
			grad[j] += pinA[j] * d / float64(b.N)
		}
	}
	return loss
}

func pinClients() []*data.Dataset {
	mk := func(rows ...float64) *data.Dataset {
		n := len(rows) / 2
		return &data.Dataset{X: rows, Y: make([]int, n), N: n, D: 2, Classes: 1}
	}
	return []*data.Dataset{mk(1, 0), mk(0, 2, 2, 2), mk(-1, 1, 3, -2, 1, 4)}
}

func mean(d *data.Dataset) []float64 {
	m := make([]float64, 2)
	for i := 0; i < d.N; i++ {
		m[0] += d.X[2*i] / float64(d.N)
		m[1] += d.X[2*i+1] / float64(d.N)
	}
	return m
}

// refLocal: `steps` full-batch steps of torch momentum SGD with the
// gradient a(p − x̄) + extra (Scaffold's correction or objective
// perturbation's linear term).
func refLocal(p0, xbar []float64, steps int, lr, rho float64, extra []float64) []float64 {
	p := append([]float64(nil), p0...)
	buf := make([]float64, 2)
	for s := 0; s < steps; s++ {
		for j := range p {
			g := pinA[j] * (p[j] - xbar[j])
			if extra != nil {
				g += extra[j]
			}
			if s == 0 {
				buf[j] = g
			} else {
				buf[j] = rho*buf[j] + g
			}
			p[j] -= lr * buf[j]
		}
	}
	return p
}

func refAverage(xs [][]float64, ws []float64) []float64 {
	var tot float64
	for _, w := range ws {
		tot += w
	}
	out := make([]float64, 2)
	for i, x := range xs {
		out[0] += ws[i] / tot * x[0]
		out[1] += ws[i] / tot * x[1]
	}
	return out
}

// The even step with Scaffold over T = 5 iterations (train, even, train,
// even, train) and a per-pair coefficient c_m: on even iteration 2m the
// server sets ω̄ += c_m(ω̄ − ω̄_prev) with ω̄_prev the model before the last
// training round, and moves the control variate c += c_m·(1/N)Σ_S Δc_i of
// that round; the next training round corrects with the moved c.
func TestPinEvenStepWithScaffold(t *testing.T) {
	clients := pinClients()
	const lr, rho = 0.3, 0.5
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 0.67, Local: fl.LocalConfig{Epochs: 2, BatchSize: 4, LR: lr, Momentum: rho}}
	alg, err := fl.NewAlgorithm("scaffold", fl.Params{})
	if err != nil {
		t.Fatal(err)
	}
	init := []float64{0.5, -0.25}
	e, err := fl.New(quadModel{}, clients, alg, cfg, rng.New(4, "pins"), init, fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	coefs := map[int]float64{1: 0.6, 2: 0.35}
	global := append([]float64(nil), init...)
	prev := append([]float64(nil), init...)
	c := []float64{0, 0}
	last := []float64{0, 0}
	ci := [][]float64{{0, 0}, {0, 0}, {0, 0}}
	var iters []Iteration
	sched := Schedule{Iterations: 5, Upcycled: true, CoefAt: func(m int) float64 { return coefs[m] }}
	err = Run(e, alg, sched, func(it Iteration) {
		iters = append(iters, it)
		if !it.Training {
			cm := coefs[it.T/2]
			for j := range global {
				global[j] += cm * (global[j] - prev[j])
				c[j] += cm * last[j]
			}
		} else {
			var xs [][]float64
			var ws []float64
			dc := []float64{0, 0}
			for _, id := range it.Round.Selected {
				corr := []float64{c[0] - ci[id][0], c[1] - ci[id][1]}
				y := refLocal(global, mean(clients[id]), 2, lr, rho, corr)
				for q := range dc {
					next := ci[id][q] - c[q] + (global[q]-y[q])/(2*lr)
					dc[q] += (next - ci[id][q]) / 3
					ci[id][q] = next
				}
				xs = append(xs, y)
				ws = append(ws, float64(clients[id].N))
			}
			copy(prev, global)
			global = refAverage(xs, ws)
			copy(last, dc)
			for q := range c {
				c[q] += dc[q]
			}
		}
		checkVec(t, "global", e.Server().Global, global)
		checkVec(t, "control variate", alg.(*fl.Scaffold).ControlVariate(), c)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(iters) != 5 {
		t.Fatalf("%d iterations", len(iters))
	}
	for i, it := range iters {
		if it.T != i+1 || it.Training != (i%2 == 0) {
			t.Errorf("iteration %d: %+v", i, it)
		}
	}
	cnt := e.Server().Counters
	if cnt.TrainingRounds != 3 || cnt.ServerRounds != 2 || cnt.DataAccesses != 6 || cnt.Uploads != 6 {
		t.Errorf("counters %+v", cnt)
	}
}

// EvenStep by hand on a bare server: Global (1, −2), Prev (0.5, 0), c = 0.4:
// Global + 0.4·(Global − Prev) = (1 + 0.2, −2 − 0.8) = (1.2, −2.8).
// Without a state extrapolator only the model moves.
func TestPinEvenStepByHand(t *testing.T) {
	s := &fl.Server{Global: []float64{1, -2}, Prev: []float64{0.5, 0}}
	EvenStep(s, nil, 0.4)
	checkVec(t, "global", s.Global, []float64{1.2, -2.8})
	checkVec(t, "prev", s.Prev, []float64{0.5, 0})
	if s.Counters.ServerRounds != 1 || s.Counters.TrainingRounds != 0 || s.Counters.DataAccesses != 0 {
		t.Errorf("counters %+v", s.Counters)
	}
}

// A baseline schedule trains on every iteration with a constant Coef
// ignored; an upcycled one with Coef extrapolates by it on even
// iterations.
func TestPinScheduleConstantCoef(t *testing.T) {
	clients := pinClients()
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 1, BatchSize: 4, LR: 0.5}}
	for _, up := range []bool{false, true} {
		e, err := fl.New(quadModel{}, clients, &fl.FedAvg{}, cfg, rng.New(4, "pins"), []float64{0, 0}, fl.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		global, prev := []float64{0, 0}, []float64{0, 0}
		err = Run(e, &fl.FedAvg{}, Schedule{Iterations: 4, Upcycled: up, Coef: 0.25}, func(it Iteration) {
			if it.Training != (!up || it.T%2 == 1) {
				t.Fatalf("upcycled %v: iteration %d training %v", up, it.T, it.Training)
			}
			if it.Training {
				var xs [][]float64
				for _, d := range clients {
					xs = append(xs, refLocal(global, mean(d), 1, 0.5, 0, nil))
				}
				copy(prev, global)
				global = refAverage(xs, []float64{1, 2, 3})
			} else {
				for j := range global {
					global[j] += 0.25 * (global[j] - prev[j])
				}
			}
			checkVec(t, "global", e.Server().Global, global)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Schedule: T, ⌈T/2⌉ training rounds, and the bounds of c.
func TestPinScheduleRules(t *testing.T) {
	for _, c := range []struct {
		s    Schedule
		want int
	}{{Schedule{Iterations: 5}, 5}, {Schedule{Iterations: 5, Upcycled: true}, 3}, {Schedule{Iterations: 4, Upcycled: true}, 2}, {Schedule{Iterations: 1, Upcycled: true}, 1}} {
		if got := c.s.TrainingRounds(); got != c.want {
			t.Errorf("%+v: %d training rounds, want %d", c.s, got, c.want)
		}
	}
	okCases := []Schedule{
		{Iterations: 1},
		{Iterations: 2, Upcycled: true, Coef: 0},
		{Iterations: 2, Upcycled: true, Coef: math.Nextafter(1, 0)},
		{Iterations: 2, Upcycled: true, Coef: 7, CoefAt: func(int) float64 { return 0.5 }},
		{Iterations: 2, Coef: 7}, // baselines ignore c
	}
	for _, s := range okCases {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v rejected: %v", s, err)
		}
	}
	bad := []struct {
		s    Schedule
		want string
	}{
		{Schedule{Iterations: 0}, "0 iterations"},
		{Schedule{Iterations: 2, Upcycled: true, Coef: 1}, "outside [0,1)"},
		{Schedule{Iterations: 2, Upcycled: true, Coef: -1e-12}, "outside [0,1)"},
		{Schedule{Iterations: 2, Upcycled: true, Coef: math.NaN()}, "outside [0,1)"},
	}
	for _, b := range bad {
		if err := b.s.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: %v, want %q", b.s, err, b.want)
		}
		e, err := fl.New(quadModel{}, pinClients(), &fl.FedAvg{}, fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 1, BatchSize: 1, LR: 0.1}}, rng.New(1), []float64{0, 0}, fl.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Run(e, &fl.FedAvg{}, b.s, nil); err == nil {
			t.Errorf("Run accepted %+v", b.s)
		}
	}
	// Eq. (6): c = μ/(μ+λ); Algorithm 1: c = λ/2.
	if got := CoefTheory(1, 3); got != 0.25 {
		t.Errorf("CoefTheory(1, 3) = %g, want 1/4", got)
	}
	if got := CoefAlgorithm1(3); got != 1.5 {
		t.Errorf("CoefAlgorithm1(3) = %g, want 3/2", got)
	}
}

// Output perturbation, both modes, by hand and through the engine. By
// hand: v = (3, 4), τ = 1 → clip factor 1/5, v = (0.6, 0.8); noise std σ
// (paper) or σ² (upstream) times the stream's first two normal draws.
func TestPinOutputPerturbation(t *testing.T) {
	for _, mode := range []Mode{Paper, Upstream} {
		o := OutputPerturbation{Tau: 1, Sigma: 0.5, Mode: mode}
		std := 0.5
		if mode == Upstream {
			std = 0.25
		}
		if o.Std() != std {
			t.Errorf("%v: Std %g, want %g", mode, o.Std(), std)
		}
		v := []float64{3, 4}
		f := o.Apply(rng.Stream(9, "op", mode.String()), v)
		r := rng.Stream(9, "op", mode.String())
		want := []float64{0.6 + std*r.NormFloat64(), 0.8 + std*r.NormFloat64()}
		if !pinNear(f, 0.2) {
			t.Errorf("%v: clip factor %g, want 0.2", mode, f)
		}
		checkVec(t, mode.String()+" perturbed", v, want)
		// Inside the ball: no scaling, factor 1.
		v = []float64{0.3, 0.4}
		if f := o.Apply(rng.Stream(9, "in"), v); f != 1 {
			t.Errorf("%v: factor %g inside the ball", mode, f)
		}
		r = rng.Stream(9, "in")
		checkVec(t, "inside", v, []float64{0.3 + std*r.NormFloat64(), 0.4 + std*r.NormFloat64()})
	}
}

// Through the engine: every client's trained model is clipped to τ and
// noised from its own noise stream before the size-weighted average.
func TestPinOutputPerturbationRound(t *testing.T) {
	clients := pinClients()
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 2, BatchSize: 4, LR: 0.4, Momentum: 0.5}}
	for _, mode := range []Mode{Paper, Upstream} {
		o := OutputPerturbation{Tau: 0.9, Sigma: 0.3, Mode: mode}
		key := rng.New(8, "pins", mode.String())
		init := []float64{0.2, 0.1}
		e, err := fl.New(quadModel{}, clients, &fl.FedAvg{}, cfg, key, init, o.Hooks())
		if err != nil {
			t.Fatal(err)
		}
		info := e.TrainRound()
		std := 0.3
		if mode == Upstream {
			std = 0.09
		}
		var xs [][]float64
		var ws []float64
		for _, id := range info.Selected {
			y := refLocal(init, mean(clients[id]), 2, 0.4, 0.5, nil)
			if n := math.Hypot(y[0], y[1]); n > 0.9 {
				y[0], y[1] = y[0]*0.9/n, y[1]*0.9/n
			}
			r := key.Derive("round", 0, "client", id).Derive("noise").Rand()
			y[0] += std * r.NormFloat64()
			y[1] += std * r.NormFloat64()
			xs = append(xs, y)
			ws = append(ws, float64(clients[id].N))
		}
		checkVec(t, mode.String()+" global", e.Server().Global, refAverage(xs, ws))
	}
}

// gammaRef is Marsaglia and Tsang's (2000) method written plainly (shape
// k ≥ 1, rate β): d = k − 1/3, c = 1/√(9d); draw x ~ N(0,1) until
// v = (1 + cx)³ > 0, u ~ U[0,1); accept d·v/β if u < 1 − 0.0331x⁴ or
// log u < x²/2 + d(1 − v + log v).
func gammaRef(r *rand.Rand, k, beta float64) float64 {
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		for v <= 0 {
			x = r.NormFloat64()
			v = 1 + c*x
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || (u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v))) {
			return d * v / beta
		}
	}
}

// Objective perturbation noise. Paper: radius ~ Gamma(#params, α) drawn
// first, then a standard normal vector normalised to that radius.
// Upstream: per tensor, uniforms U − ½ in order; the Gamma(InputDim, α)
// radius drawn after them; every entry scaled by radius/Σ_t ‖tensor_t‖.
func TestPinObjectivePerturbationSample(t *testing.T) {
	dst := make([]float64, 3)
	// Paper mode.
	o := ObjectivePerturbation{Alpha: 2}
	got := o.Sample(rng.Stream(2, "obj"), dst)
	r := rng.Stream(2, "obj")
	radius := gammaRef(r, 3, 2)
	z := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	nz := math.Sqrt(z[0]*z[0] + z[1]*z[1] + z[2]*z[2])
	if !pinNear(got, radius) {
		t.Errorf("paper: returned %g, want the radius %g", got, radius)
	}
	checkVec(t, "paper noise", dst, []float64{z[0] * radius / nz, z[1] * radius / nz, z[2] * radius / nz})

	// Upstream mode, two tensors (2 and 1 entries), input dimension 5.
	tensors := []model.Tensor{{Name: "w", Offset: 0, Rows: 2, Cols: 1}, {Name: "b", Offset: 2, Rows: 1, Cols: 1}}
	o = ObjectivePerturbation{Alpha: 2, Mode: Upstream, InputDim: 5, Tensors: tensors}
	got = o.Sample(rng.Stream(2, "obj-up"), dst)
	r = rng.Stream(2, "obj-up")
	u := []float64{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5}
	sumNorms := math.Hypot(u[0], u[1]) + math.Abs(u[2])
	radius = gammaRef(r, 5, 2)
	want := []float64{u[0] * radius / sumNorms, u[1] * radius / sumNorms, u[2] * radius / sumNorms}
	checkVec(t, "upstream noise", dst, want)
	if wn := math.Sqrt(want[0]*want[0] + want[1]*want[1] + want[2]*want[2]); !pinNear(got, wn) {
		t.Errorf("upstream: returned %g, want the norm %g", got, wn)
	}
	// Upstream without a tensor list: one tensor, so Σ norms = ‖u‖ and
	// the noise has norm exactly the radius.
	o = ObjectivePerturbation{Alpha: 2, Mode: Upstream, InputDim: 5}
	got = o.Sample(rng.Stream(2, "obj-one"), dst)
	r = rng.Stream(2, "obj-one")
	u = []float64{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5}
	nu := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
	radius = gammaRef(r, 5, 2)
	checkVec(t, "upstream one-tensor noise", dst, []float64{u[0] * radius / nu, u[1] * radius / nu, u[2] * radius / nu})
	if !pinNear(got, radius) {
		t.Errorf("one tensor: returned %g, want %g", got, radius)
	}
}

// Through the engine: each client draws its linear term n from its noise
// stream before local training, and every local gradient gets + n.
func TestPinObjectivePerturbationRound(t *testing.T) {
	clients := pinClients()
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 2, BatchSize: 4, LR: 0.4, Momentum: 0.5}}
	for _, mode := range []Mode{Paper, Upstream} {
		cfg.Local.Upstream = mode == Upstream
		o := ObjectivePerturbation{Alpha: 3, Mode: mode, InputDim: 4}
		key := rng.New(8, "obj-pins", mode.String())
		init := []float64{0.2, 0.1}
		e, err := fl.New(quadModel{}, clients, &fl.FedAvg{}, cfg, key, init, o.Hooks())
		if err != nil {
			t.Fatal(err)
		}
		info := e.TrainRound()
		var xs [][]float64
		var ws []float64
		for _, id := range info.Selected {
			r := key.Derive("round", 0, "client", id).Derive("noise").Rand()
			var n []float64
			if mode == Paper {
				radius := gammaRef(r, 2, 3)
				z0, z1 := r.NormFloat64(), r.NormFloat64()
				nz := math.Hypot(z0, z1)
				n = []float64{z0 * radius / nz, z1 * radius / nz}
			} else {
				u0, u1 := r.Float64()-0.5, r.Float64()-0.5
				nu := math.Hypot(u0, u1)
				radius := gammaRef(r, 4, 3)
				n = []float64{u0 * radius / nu, u1 * radius / nu}
			}
			xs = append(xs, refLocal(init, mean(clients[id]), 2, 0.4, 0.5, n))
			ws = append(ws, float64(clients[id].N))
		}
		checkVec(t, mode.String()+" global", e.Server().Global, refAverage(xs, ws))
	}
}

// Modes: names, parsing, losses, and the validation bounds of both
// mechanisms (σ = 0 and InputDim = 1 are allowed; the limits are exact).
func TestPinModesAndValidation(t *testing.T) {
	for s, want := range map[string]Mode{"paper": Paper, "": Paper, "upstream": Upstream} {
		if m, err := ParseMode(s); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("torch"); err == nil || !strings.Contains(err.Error(), `unknown mode "torch"`) {
		t.Errorf("ParseMode(torch): %v", err)
	}
	if Paper.String() != "paper" || Upstream.String() != "upstream" {
		t.Errorf("names %q %q", Paper, Upstream)
	}
	if Paper.Loss() != model.CrossEntropy || Upstream.Loss() != model.DoubleSoftmax {
		t.Errorf("losses %v %v", Paper.Loss(), Upstream.Loss())
	}
	for _, o := range []OutputPerturbation{{Tau: 1, Sigma: 0}, {Tau: 1e-300, Sigma: 2}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v rejected: %v", o, err)
		}
	}
	for _, c := range []struct {
		o    OutputPerturbation
		want string
	}{
		{OutputPerturbation{Tau: 0, Sigma: 1}, "clip τ"},
		{OutputPerturbation{Tau: math.Inf(1), Sigma: 1}, "clip τ"},
		{OutputPerturbation{Tau: math.NaN(), Sigma: 1}, "clip τ"},
		{OutputPerturbation{Tau: 1, Sigma: -1e-12}, "σ"},
		{OutputPerturbation{Tau: 1, Sigma: math.Inf(1)}, "σ"},
		{OutputPerturbation{Tau: 1, Sigma: math.NaN()}, "σ"},
	} {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	for _, o := range []ObjectivePerturbation{{Alpha: 1e-300}, {Alpha: 1, Mode: Upstream, InputDim: 1}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v rejected: %v", o, err)
		}
	}
	for _, c := range []struct {
		o    ObjectivePerturbation
		want string
	}{
		{ObjectivePerturbation{Alpha: 0}, "α"},
		{ObjectivePerturbation{Alpha: math.Inf(1)}, "α"},
		{ObjectivePerturbation{Alpha: math.NaN()}, "α"},
		{ObjectivePerturbation{Alpha: 1, Mode: Upstream, InputDim: 0}, "input dimension 0"},
	} {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	// The paper mode needs no input dimension.
	if err := (ObjectivePerturbation{Alpha: 1, Mode: Paper}).Validate(); err != nil {
		t.Errorf("paper mode without input dimension: %v", err)
	}
	_ = dp.Norm2 // the mechanisms build on dp; their own pins live there
}
