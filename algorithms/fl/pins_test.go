package fl

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Unit pins of the baselines' rounds (issue 12, item 4): 2–3 clients, a
// 2-parameter model, 2 local steps, 2 rounds. The model is a weighted
// quadratic written here, so the pins do not depend on model/'s code:
//
//	loss(p; x) = ½ Σ_j a_j (p_j − x_j)²,   ∇ = a ⊙ (p − x),
//
// averaged over a mini-batch. With the batch size at least the client's
// size every epoch is one full-batch step whatever the shuffle, so the
// expectations below are plain gradient-descent recursions written out in
// the test (refLocal, refAverage, …), never the package's code, and one
// case is worked by hand in a comment. The mini-batch pin recomputes the
// shuffle from the stream ARCHITECTURE.md names: the run key derived by
// ("round", k, "client", i), then by "train". Tolerance: 1e-12 relative (absolute below 1), pinNear.

func pinNear(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

// quadModel is the pins' model; it draws nothing from r.
type quadModel struct{ a []float64 }

func (q quadModel) NumParams() int { return len(q.a) }

func (q quadModel) LossGrad(p []float64, b model.Batch, grad []float64, _ *rand.Rand) float64 {
	if grad != nil {
		for j := range grad {
			grad[j] = 0
		}
	}
	var loss float64
	for i := 0; i < b.N; i++ {
		x := b.Row(i)
		for j, aj := range q.a {
			d := p[j] - x[j]
			loss += 0.5 * aj * d * d
			if grad != nil {
				grad[j] += aj * d / float64(b.N)
			}
		}
	}
	return loss / float64(b.N)
}

// quadGradOnly is quadModel with the model.GradOnly fast path.
type quadGradOnly struct{ quadModel }

func (q quadGradOnly) Grad(p []float64, b model.Batch, grad []float64, r *rand.Rand) {
	q.LossGrad(p, b, grad, r)
}

// pinClient builds a client holding the given examples (rows of length d).
func pinClient(rows ...[]float64) *data.Dataset {
	d := len(rows[0])
	ds := &data.Dataset{N: len(rows), D: d, Classes: 1, Y: make([]int, len(rows))}
	for _, r := range rows {
		ds.X = append(ds.X, r...)
	}
	return ds
}

// pinClients: three clients of sizes 1, 2 and 3 (size-weighted averaging
// matters), two features.
func pinClients() []*data.Dataset {
	return []*data.Dataset{
		pinClient([]float64{1, 0}),
		pinClient([]float64{0, 2}, []float64{2, 2}),
		pinClient([]float64{-1, 1}, []float64{3, -2}, []float64{1, 4}),
	}
}

var pinA = []float64{1, 0.5}

// mean returns the mean example of a client (the full-batch target).
func mean(d *data.Dataset) []float64 {
	m := make([]float64, d.D)
	for i := 0; i < d.N; i++ {
		for j := 0; j < d.D; j++ {
			m[j] += d.X[i*d.D+j] / float64(d.N)
		}
	}
	return m
}

// refOpts are the local-training terms of refLocal.
type refOpts struct {
	lr, rho float64
	mu      float64   // FedProx μ, centred at anchor
	anchor  []float64 // FedProx centre
	corr    []float64 // Scaffold's c − c_i added to the gradient
	clip    float64   // torch clip_grad_norm_ (0: off)
}

// refLocal is `steps` full-batch steps of torch SGD (momentum, buffer =
// first gradient) from p0 on the quadratic with target xbar: g = a(p − x̄)
// + corr, clipped by c/(‖g‖ + 1e-6) when that is < 1, then
// d = g + μ(p − anchor), buf = ρ·buf + d, p −= lr·buf.
func refLocal(p0, xbar []float64, steps int, o refOpts) []float64 {
	p := append([]float64(nil), p0...)
	buf := make([]float64, len(p))
	for s := 0; s < steps; s++ {
		g := make([]float64, len(p))
		for j := range p {
			g[j] = pinA[j] * (p[j] - xbar[j])
			if o.corr != nil {
				g[j] += o.corr[j]
			}
		}
		if o.clip > 0 {
			n := math.Sqrt(g[0]*g[0] + g[1]*g[1])
			if f := o.clip / (n + 1e-6); f < 1 {
				g[0], g[1] = g[0]*f, g[1]*f
			}
		}
		for j := range p {
			d := g[j]
			if o.mu != 0 {
				d += o.mu * (p[j] - o.anchor[j])
			}
			if s == 0 || o.rho == 0 {
				buf[j] = d
			} else {
				buf[j] = o.rho*buf[j] + d
			}
			p[j] -= o.lr * buf[j]
		}
	}
	return p
}

// refAverage is Σ w_i x_i / Σ w_i.
func refAverage(xs [][]float64, ws []float64) []float64 {
	out := make([]float64, len(xs[0]))
	var tot float64
	for _, w := range ws {
		tot += w
	}
	for i, x := range xs {
		for j := range out {
			out[j] += ws[i] / tot * x[j]
		}
	}
	return out
}

func pinEngine(t *testing.T, alg Algorithm, clients []*data.Dataset, cfg Config, init []float64) *Engine {
	t.Helper()
	e, err := New(quadModel{pinA}, clients, alg, cfg, rng.New(11, "pins"), init, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func checkVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for j := range want {
		if !pinNear(got[j], want[j]) {
			t.Errorf("%s = %.17g, want %.17g", what, got, want)
			return
		}
	}
}

// FedAvg by hand. Clients 0 and 1 of pinClients with a = (1, 1) — written
// out for this case — lr 0.5, E = 2 full-batch epochs, no momentum, from 0.
// Client 0 (x̄ = (1, 0), n = 1): g = (−1, 0) → p = (0.5, 0); g = (−0.5, 0) → (0.75, 0).
// Client 1 (x̄ = (1, 2), n = 2): g = (−1, −2) → (0.5, 1); g = (−0.5, −1) → (0.75, 1.5).
// Average with weights 1/3, 2/3: (0.75, 1).
// Round 2 from (0.75, 1): client 0: (0.875, 0.5), (0.9375, 0.25); client 1:
// (0.875, 1.5), (0.9375, 1.75). Average: (0.9375, (0.25 + 3.5)/3 = 1.25).
// Mean mini-batch loss of client 1's first epoch at p = 0:
// ½·mean(0² + 2², 2² + 2²) = ½·6 = 3.
func TestPinFedAvgByHand(t *testing.T) {
	clients := pinClients()[:2]
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 2, BatchSize: 4, LR: 0.5}}
	rec := &lossRecorder{}
	e, err := New(quadModel{[]float64{1, 1}}, clients, rec, cfg, rng.New(3, "hand"), []float64{0, 0}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	e.TrainRound()
	checkVec(t, "round 1", e.Server().Global, []float64{0.75, 1})
	checkVec(t, "Prev after round 1", e.Server().Prev, []float64{0, 0})
	e.TrainRound()
	checkVec(t, "round 2", e.Server().Global, []float64{0.9375, 1.25})
	checkVec(t, "Prev after round 2", e.Server().Prev, []float64{0.75, 1})
	// Client 1's first-round loss: epoch 1 at p = 0 gives 3, epoch 2 at
	// (0.5, 1) gives ½·mean(0.5² + 1², 1.5² + 1²) = ½·2.25 = 1.125; mean 2.0625.
	if got := rec.loss[[2]int{0, 1}]; !pinNear(got, 2.0625) {
		t.Errorf("client 1's mean mini-batch loss in round 1 = %.17g, want 2.0625", got)
	}
	c := e.Server().Counters
	if c.TrainingRounds != 2 || c.DataAccesses != 4 || c.Uploads != 4 || c.SGDSteps != 8 || c.SampleGrads != 2*(2*1+2*2) {
		t.Errorf("counters %+v", c)
	}
}

// lossRecorder is FedAvg that records TrainSGD's mean mini-batch loss per
// (round, client).
type lossRecorder struct {
	FedAvg
	round int
	loss  map[[2]int]float64
}

func (l *lossRecorder) Local(c *Client, up *Upload) {
	if l.loss == nil {
		l.loss = map[[2]int]float64{}
	}
	l.loss[[2]int{l.round, c.ID}] = c.TrainSGD(up.Params, c.SGD(), nil)
}
func (l *lossRecorder) Aggregate(s *Server, ups []*Upload) {
	l.FedAvg.Aggregate(s, ups)
	l.round++
}

// stragglerEpochsRef recomputes a selected client's local epochs from the
// stream ARCHITECTURE.md names (the run key derived by ("round", k,
// "client", i), then by "straggler"): with probability rate a straggler runs
// 1 + U{0..E−2} epochs.
func stragglerEpochsRef(key rng.Key, k, id, epochs int, rate float64) int {
	r := key.Derive("round", k, "client", id).Derive("straggler").Rand()
	if r.Float64() < rate {
		return 1 + r.IntN(epochs-1)
	}
	return epochs
}

// FedAvg with local momentum, gradient clipping and stragglers over three
// clients (sizes 1, 2, 3): every client trains its epochs (fewer for a
// straggler) from the global model and the server takes the size-weighted
// average.
func TestPinFedAvgMomentumClipStragglers(t *testing.T) {
	clients := pinClients()
	cfg := Config{Sampling: Uniform, Frac: 1, Stragglers: 0.5,
		Local: LocalConfig{Epochs: 3, BatchSize: 3, LR: 0.3, Momentum: 0.5, MaxGradNorm: 0.8}}
	init := []float64{0.5, -0.5}
	e := pinEngine(t, &FedAvg{}, clients, cfg, init)
	key := rng.New(11, "pins")
	global := append([]float64(nil), init...)
	sawStraggler, sawFull := false, false
	var steps, grads int64
	for k := 0; k < 2; k++ {
		info := e.TrainRound()
		var xs [][]float64
		var ws []float64
		for j, id := range info.Selected {
			ep := stragglerEpochsRef(key, k, id, 3, 0.5)
			if info.Epochs[j] != ep {
				t.Fatalf("round %d client %d ran %d epochs, its straggler stream says %d", k, id, info.Epochs[j], ep)
			}
			sawStraggler = sawStraggler || ep < 3
			sawFull = sawFull || ep == 3
			steps += int64(ep)
			grads += int64(ep * clients[id].N)
			xs = append(xs, refLocal(global, mean(clients[id]), ep, refOpts{lr: 0.3, rho: 0.5, clip: 0.8}))
			ws = append(ws, float64(clients[id].N))
		}
		global = refAverage(xs, ws)
		checkVec(t, "global", e.Server().Global, global)
	}
	if !sawStraggler || !sawFull {
		t.Fatalf("the pin needs both stragglers and full clients (straggler %v, full %v); change the seed", sawStraggler, sawFull)
	}
	if c := e.Server().Counters; c.SGDSteps != steps || c.SampleGrads != grads {
		t.Errorf("counters %+v, want %d steps and %d sample gradients", c, steps, grads)
	}
}

// Every selected client a straggler with E = 2: each runs exactly one epoch.
func TestPinAllStragglersRunOneEpoch(t *testing.T) {
	clients := pinClients()
	cfg := Config{Sampling: Uniform, Frac: 1, Stragglers: 1, Local: LocalConfig{Epochs: 2, BatchSize: 8, LR: 0.25}}
	e := pinEngine(t, &FedAvg{}, clients, cfg, []float64{0, 0})
	info := e.TrainRound()
	var xs [][]float64
	var ws []float64
	for j, id := range info.Selected {
		if info.Epochs[j] != 1 {
			t.Errorf("client %d ran %d epochs, want 1", id, info.Epochs[j])
		}
		xs = append(xs, refLocal([]float64{0, 0}, mean(clients[id]), 1, refOpts{lr: 0.25}))
		ws = append(ws, float64(clients[id].N))
	}
	checkVec(t, "global", e.Server().Global, refAverage(xs, ws))
}

// FedProx: the local objective adds (μ/2)‖p − ω̄‖² centred at the
// broadcast model, so d = a(p − x̄) + μ(p − ω̄).
func TestPinFedProx(t *testing.T) {
	clients := pinClients()
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 2, BatchSize: 3, LR: 0.4, Momentum: 0.5}}
	alg, err := NewAlgorithm("fedprox", Params{Mu: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	init := []float64{2, -1}
	e := pinEngine(t, alg, clients, cfg, init)
	global := init
	for k := 0; k < 2; k++ {
		info := e.TrainRound()
		var xs [][]float64
		var ws []float64
		for _, id := range info.Selected {
			xs = append(xs, refLocal(global, mean(clients[id]), 2, refOpts{lr: 0.4, rho: 0.5, mu: 0.7, anchor: global}))
			ws = append(ws, float64(clients[id].N))
		}
		global = refAverage(xs, ws)
		checkVec(t, "global", e.Server().Global, global)
	}
}

// FedAvgM: pseudo-gradient Δ = ω̄ − avg, torch SGD with Nesterov momentum
// on the server: buf = Δ (first) or ρ_s·buf + Δ, ω̄ −= η_s(Δ + ρ_s·buf).
func TestPinFedAvgM(t *testing.T) {
	clients := pinClients()
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 2, BatchSize: 3, LR: 0.2}}
	const slr, srho = 0.7, 0.3
	alg, err := NewAlgorithm("fedavgm", Params{ServerLR: slr, ServerMomentum: srho})
	if err != nil {
		t.Fatal(err)
	}
	init := []float64{1, 1}
	e := pinEngine(t, alg, clients, cfg, init)
	global := append([]float64(nil), init...)
	buf := make([]float64, 2)
	for k := 0; k < 3; k++ {
		info := e.TrainRound()
		var xs [][]float64
		var ws []float64
		for _, id := range info.Selected {
			xs = append(xs, refLocal(global, mean(clients[id]), 2, refOpts{lr: 0.2}))
			ws = append(ws, float64(clients[id].N))
		}
		avg := refAverage(xs, ws)
		for j := range global {
			pg := global[j] - avg[j]
			if k == 0 {
				buf[j] = pg
			} else {
				buf[j] = srho*buf[j] + pg
			}
			global[j] -= slr * (pg + srho*buf[j])
		}
		checkVec(t, "global", e.Server().Global, global)
	}
}

// FedAvgM's defaults are upstream's: server lr 1, momentum 0.3.
func TestPinFedAvgMDefaults(t *testing.T) {
	alg, err := NewAlgorithm("fedavgm", Params{})
	if err != nil {
		t.Fatal(err)
	}
	f := alg.(*FedAvgM)
	if f.LR != 1 || f.Momentum != 0.3 {
		t.Errorf("defaults lr %g momentum %g, want 1 and 0.3", f.LR, f.Momentum)
	}
	y, _ := NewAlgorithm("fedyogi", Params{})
	if g := y.(*FedYogi); g.LR != 0.1 || g.Tau != 1e-3 || g.Beta1 != 0.9 || g.Beta2 != 0.99 {
		t.Errorf("FedYogi defaults %+v, want η 0.1, τ 1e-3, β 0.9, 0.99", g)
	}
}

// Scaffold (option II): local gradients get c − c_i; after K steps
// c_i⁺ = c_i − c + (ω̄ − y_i)/(K·lr); the server averages the models by
// size and adds (1/N)·Σ_S (c_i⁺ − c_i) to c. Two of three clients per
// round and stragglers, so K differs between clients and 1/N ≠ 1/|S|.
func TestPinScaffold(t *testing.T) {
	clients := pinClients()
	const lr = 0.3
	cfg := Config{Sampling: Uniform, Frac: 0.67, Stragglers: 0.5,
		Local: LocalConfig{Epochs: 3, BatchSize: 3, LR: lr, Momentum: 0.5}}
	alg := &Scaffold{}
	init := []float64{0.25, 0.75}
	e := pinEngine(t, alg, clients, cfg, init)
	global := append([]float64(nil), init...)
	c := []float64{0, 0}
	ci := [][]float64{{0, 0}, {0, 0}, {0, 0}}
	sawK := map[int]bool{}
	for k := 0; k < 3; k++ {
		info := e.TrainRound()
		if len(info.Selected) != 2 {
			t.Fatalf("selected %v, want 2 of 3", info.Selected)
		}
		var xs [][]float64
		var ws []float64
		dc := []float64{0, 0}
		for j, id := range info.Selected {
			steps := info.Epochs[j] // one full-batch step per epoch
			sawK[steps] = true
			corr := []float64{c[0] - ci[id][0], c[1] - ci[id][1]}
			y := refLocal(global, mean(clients[id]), steps, refOpts{lr: lr, rho: 0.5, corr: corr})
			for q := range ci[id] {
				next := ci[id][q] - c[q] + (global[q]-y[q])/(float64(steps)*lr)
				dc[q] += (next - ci[id][q]) / 3
				ci[id][q] = next
			}
			xs = append(xs, y)
			ws = append(ws, float64(clients[id].N))
		}
		global = refAverage(xs, ws)
		for q := range c {
			c[q] += dc[q]
		}
		checkVec(t, "global", e.Server().Global, global)
		checkVec(t, "server control variate", alg.ControlVariate(), c)
		for id := range ci {
			if st, ok := e.ClientState(id).(*scaffoldClient); ok {
				checkVec(t, "client control variate", st.ci, ci[id])
			}
		}
	}
	if len(sawK) < 2 {
		t.Fatalf("the pin needs clients with different step counts, saw %v", sawK)
	}
	// An Upcycled-style state extrapolation moves c by coef·(1/N)Σ Δc_i of
	// the last training round.
	last := append([]float64(nil), alg.lastDelta...)
	before := append([]float64(nil), c...)
	alg.ExtrapolateState(e.Server(), 0.4)
	checkVec(t, "extrapolated c", alg.ControlVariate(), []float64{before[0] + 0.4*last[0], before[1] + 0.4*last[1]})
}

// FedYogi (Reddi et al. Alg. 2, m and v from 0): Δ = avg − ω̄,
// m = β1·m + (1−β1)Δ, v = v − (1−β2)Δ²·sign(v − Δ²), ω̄ += η·m/(√v + τ).
func TestPinFedYogi(t *testing.T) {
	clients := pinClients()
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 2, BatchSize: 3, LR: 0.2}}
	const eta, tau, b1, b2 = 0.15, 0.01, 0.8, 0.95
	alg, err := NewAlgorithm("fedyogi", Params{YogiLR: eta, YogiTau: tau, YogiBeta1: b1, YogiBeta2: b2})
	if err != nil {
		t.Fatal(err)
	}
	init := []float64{-1, 2}
	e := pinEngine(t, alg, clients, cfg, init)
	global := append([]float64(nil), init...)
	m, v := []float64{0, 0}, []float64{0, 0}
	sgn := func(x float64) float64 {
		if x > 0 {
			return 1
		} else if x < 0 {
			return -1
		}
		return 0
	}
	sawPos, sawNeg := false, false
	for k := 0; k < 8; k++ {
		info := e.TrainRound()
		var xs [][]float64
		var ws []float64
		for _, id := range info.Selected {
			xs = append(xs, refLocal(global, mean(clients[id]), 2, refOpts{lr: 0.2}))
			ws = append(ws, float64(clients[id].N))
		}
		avg := refAverage(xs, ws)
		for j := range global {
			d := avg[j] - global[j]
			m[j] = b1*m[j] + (1-b1)*d
			s := sgn(v[j] - d*d)
			sawPos, sawNeg = sawPos || s > 0, sawNeg || s < 0
			v[j] = v[j] - (1-b2)*d*d*s
			global[j] += eta * m[j] / (math.Sqrt(v[j]) + tau)
		}
		checkVec(t, "global", e.Server().Global, global)
	}
	if !sawPos || !sawNeg {
		t.Fatalf("the pin should see both signs of v − Δ² (pos %v, neg %v)", sawPos, sawNeg)
	}
}

// Mini-batches: B = 2 on a client of 3 examples gives batches of 2 and 1
// per epoch, over a fresh shuffle per epoch drawn from the client's "train"
// stream (rng.Perm, Fisher–Yates), with momentum carried across batches
// and epochs. The expectation replays that order with plain code.
func TestPinMiniBatchesFollowTheTrainStream(t *testing.T) {
	clients := pinClients()[2:]
	const lr, rho = 0.2, 0.5
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 2, BatchSize: 2, LR: lr, Momentum: rho}}
	for _, m := range []model.Differentiable{quadModel{pinA}, quadGradOnly{quadModel{pinA}}} {
		rec := &lossRecorder{}
		key := rng.New(11, "pins")
		e, err := New(m, clients, rec, cfg, key, []float64{0, 0}, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		e.TrainRound()
		d := clients[0]
		r := key.Derive("round", 0, "client", 0).Derive("train").Rand()
		perm := make([]int, 3)
		p := []float64{0, 0}
		buf := []float64{0, 0}
		first := true
		var lossSum float64
		for ep := 0; ep < 2; ep++ {
			rng.Perm(r, perm)
			for _, batch := range [][]int{perm[:2], perm[2:]} {
				g := []float64{0, 0}
				for _, i := range batch {
					for j := range g {
						diff := p[j] - d.X[i*2+j]
						g[j] += pinA[j] * diff / float64(len(batch))
						lossSum += 0.5 * pinA[j] * diff * diff / float64(len(batch))
					}
				}
				for j := range p {
					if first {
						buf[j] = g[j]
					} else {
						buf[j] = rho*buf[j] + g[j]
					}
					p[j] -= lr * buf[j]
				}
				first = false
			}
		}
		checkVec(t, "global", e.Server().Global, p)
		loss := rec.loss[[2]int{0, 0}]
		if _, gradOnly := m.(model.GradOnly); gradOnly {
			if !math.IsNaN(loss) {
				t.Errorf("a GradOnly model's TrainSGD loss = %g, want NaN", loss)
			}
		} else if !pinNear(loss, lossSum/4) {
			t.Errorf("mean mini-batch loss %.17g, want %.17g", loss, lossSum/4)
		}
		if c := e.Server().Counters; c.SGDSteps != 4 || c.SampleGrads != 6 {
			t.Errorf("counters %+v, want 4 steps and 6 sample gradients", c)
		}
	}
}

// ClipNorm is torch.nn.utils.clip_grad_norm_: g·c/(‖g‖ + 1e-6) whenever
// that factor is below 1, including ‖g‖ = c; it returns the norm before.
func TestPinClipNorm(t *testing.T) {
	cases := []struct {
		g    []float64
		c    float64
		want []float64
	}{
		{[]float64{3, 4}, 1, []float64{3 / (5 + 1e-6), 4 / (5 + 1e-6)}},
		{[]float64{3, 4}, 5, []float64{3 * 5 / (5 + 1e-6), 4 * 5 / (5 + 1e-6)}},
		{[]float64{0.3, 0.4}, 1, []float64{0.3, 0.4}},
		{[]float64{-6, 8}, 5, []float64{-6 * 5 / (10 + 1e-6), 8 * 5 / (10 + 1e-6)}},
	}
	for _, c := range cases {
		g := append([]float64(nil), c.g...)
		n := ClipNorm(g, c.c)
		if wantN := math.Hypot(c.g[0], c.g[1]); !pinNear(n, wantN) {
			t.Errorf("ClipNorm(%v) returned %g, want %g", c.g, n, wantN)
		}
		checkVec(t, "clipped", g, c.want)
	}
}

// WeightedAverage with no uploads or zero total weight leaves dst alone
// and says so.
func TestPinWeightedAverageEdges(t *testing.T) {
	dst := []float64{7, 8}
	if WeightedAverage(dst, nil) || dst[0] != 7 || dst[1] != 8 {
		t.Errorf("no uploads: %v", dst)
	}
	ups := []*Upload{{Weight: 0, Params: []float64{1, 1}}}
	if WeightedAverage(dst, ups) || dst[0] != 7 || dst[1] != 8 {
		t.Errorf("zero weight: %v", dst)
	}
	ups = []*Upload{{Weight: 1, Params: []float64{1, 2}}, {Weight: 3, Params: []float64{5, -2}}}
	if !WeightedAverage(dst, ups) {
		t.Fatal("two uploads: false")
	}
	checkVec(t, "average", dst, []float64{(1 + 15) / 4.0, (2 - 6) / 4.0})
}

// Validate's boundaries: every limit the doc states is inclusive or
// exclusive exactly as written (each case moves one field).
func TestPinConfigBoundaries(t *testing.T) {
	base := func() Config {
		return Config{Sampling: Uniform, Frac: 0.5, Local: LocalConfig{Epochs: 2, BatchSize: 4, LR: 0.1}}
	}
	ok := []struct {
		name string
		mut  func(*Config)
	}{
		{"frac 1", func(c *Config) { c.Frac = 1 }},
		{"p 1", func(c *Config) { c.Sampling, c.P = Bernoulli, 1 }},
		{"stragglers 0", func(c *Config) { c.Stragglers = 0 }},
		{"stragglers 1", func(c *Config) { c.Stragglers = 1 }},
		{"epochs 1", func(c *Config) { c.Local.Epochs = 1 }},
		{"batch 1", func(c *Config) { c.Local.BatchSize = 1 }},
		{"momentum 0", func(c *Config) { c.Local.Momentum = 0 }},
		{"momentum just below 1", func(c *Config) { c.Local.Momentum = math.Nextafter(1, 0) }},
		{"max grad norm 0", func(c *Config) { c.Local.MaxGradNorm = 0 }},
	}
	for _, c := range ok {
		cfg := base()
		c.mut(&cfg)
		if err := cfg.Validate(1); err != nil {
			t.Errorf("%s rejected: %v", c.name, err)
		}
	}
	bad := []struct {
		name    string
		clients int
		mut     func(*Config)
		want    string
	}{
		{"no clients", 0, func(*Config) {}, "no clients"},
		{"frac above 1", 3, func(c *Config) { c.Frac = math.Nextafter(1, 2) }, "fraction"},
		{"frac NaN", 3, func(c *Config) { c.Frac = math.NaN() }, "fraction"},
		{"p 0", 3, func(c *Config) { c.Sampling, c.P = Bernoulli, 0 }, "probability"},
		{"p above 1", 3, func(c *Config) { c.Sampling, c.P = Bernoulli, math.Nextafter(1, 2) }, "probability"},
		{"unknown sampling", 3, func(c *Config) { c.Sampling = Sampling(5) }, "unknown sampling"},
		{"stragglers negative", 3, func(c *Config) { c.Stragglers = -1e-12 }, "straggler"},
		{"stragglers above 1", 3, func(c *Config) { c.Stragglers = math.Nextafter(1, 2) }, "straggler"},
		{"stragglers NaN", 3, func(c *Config) { c.Stragglers = math.NaN() }, "straggler"},
		{"epochs 0", 3, func(c *Config) { c.Local.Epochs = 0 }, "epochs"},
		{"batch 0", 3, func(c *Config) { c.Local.BatchSize = 0 }, "batch size"},
		{"lr 0", 3, func(c *Config) { c.Local.LR = 0 }, "learning rate"},
		{"lr NaN", 3, func(c *Config) { c.Local.LR = math.NaN() }, "learning rate"},
		{"lr +Inf", 3, func(c *Config) { c.Local.LR = math.Inf(1) }, "learning rate"},
		{"momentum negative", 3, func(c *Config) { c.Local.Momentum = -1e-12 }, "momentum"},
		{"momentum 1", 3, func(c *Config) { c.Local.Momentum = 1 }, "momentum"},
		{"max grad norm negative", 3, func(c *Config) { c.Local.MaxGradNorm = -1e-12 }, "max gradient norm"},
	}
	for _, b := range bad {
		cfg := base()
		b.mut(&cfg)
		err := cfg.Validate(b.clients)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want one mentioning %q", b.name, err, b.want)
		}
	}
}

// New rejects an initial model of the wrong length and clients without data.
func TestPinNewRejectsBadInput(t *testing.T) {
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 1, BatchSize: 1, LR: 0.1}}
	m := quadModel{pinA}
	if _, err := New(m, pinClients(), &FedAvg{}, cfg, rng.New(1), []float64{0}, Hooks{}); err == nil || !strings.Contains(err.Error(), "initial model has 1 parameters, the model needs 2") {
		t.Errorf("short init: %v", err)
	}
	empty := []*data.Dataset{pinClients()[0], {D: 2}}
	if _, err := New(m, empty, &FedAvg{}, cfg, rng.New(1), []float64{0, 0}, Hooks{}); err == nil || !strings.Contains(err.Error(), "client 1 has no training data") {
		t.Errorf("empty client: %v", err)
	}
	if _, err := New(m, []*data.Dataset{nil}, &FedAvg{}, cfg, rng.New(1), []float64{0, 0}, Hooks{}); err == nil || !strings.Contains(err.Error(), "client 0 has no training data") {
		t.Errorf("nil client: %v", err)
	}
}

// The round counter advances by one per training round and names the
// next round's streams; E = 1 leaves no room to straggle (no panic, one
// epoch) even at rate 1.
func TestPinRoundCounterAndOneEpochStragglers(t *testing.T) {
	cfg := Config{Sampling: Uniform, Frac: 1, Stragglers: 1, Local: LocalConfig{Epochs: 1, BatchSize: 8, LR: 0.1}}
	e := pinEngine(t, &FedAvg{}, pinClients(), cfg, []float64{0, 0})
	for k := 0; k < 3; k++ {
		if e.Server().Round != k {
			t.Fatalf("Round = %d before training round %d", e.Server().Round, k)
		}
		info := e.TrainRound()
		if info.Round != k {
			t.Errorf("RoundInfo.Round = %d, want %d", info.Round, k)
		}
		for j, ep := range info.Epochs {
			if ep != 1 {
				t.Errorf("round %d client %d ran %d epochs with E = 1", k, info.Selected[j], ep)
			}
		}
	}
	if e.Server().Counters.TrainingRounds != 3 {
		t.Errorf("training rounds %d", e.Server().Counters.TrainingRounds)
	}
}

// StragglerEpochs recomputed from its documented rule on one stream: rate
// 0 and E ≤ 1 never straggle; otherwise a uniform draw below rate means a
// uniform 1..E−1.
func TestPinStragglerEpochsRule(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		for _, c := range []struct {
			e    int
			rate float64
		}{{1, 1}, {4, 0}, {4, 0.3}, {4, 1}, {2, 0.5}} {
			got := StragglerEpochs(rng.Stream(seed, "straggle"), c.e, c.rate)
			want := c.e
			if c.e > 1 && c.rate > 0 {
				r := rng.Stream(seed, "straggle")
				if r.Float64() < c.rate {
					want = 1 + r.IntN(c.e-1)
				}
			}
			if got != want {
				t.Fatalf("seed %d E=%d rate %g: %d epochs, want %d", seed, c.e, c.rate, got, want)
			}
		}
	}
}

// FedYogi when a coordinate does not move (Δ_j = 0 exactly, so
// v_j − Δ_j² = 0 and sign 0): m_j and v_j stay 0 and ω̄_j stays put, while
// the other coordinate takes the Yogi step. Two clients of one example
// each (weights ½, ½) whose second feature equals the model's.
func TestPinFedYogiStillCoordinate(t *testing.T) {
	clients := []*data.Dataset{pinClient([]float64{1, 5}), pinClient([]float64{3, 5})}
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 1, BatchSize: 1, LR: 0.5}}
	alg := &FedYogi{LR: 0.1, Tau: 1e-3, Beta1: 0.9, Beta2: 0.99}
	e := pinEngine(t, alg, clients, cfg, []float64{0, 5})
	e.TrainRound()
	// Coordinate 0: both clients step p = 0 − 0.5·(0 − x) = x/2 → avg 1,
	// Δ = 1, m = 0.1, v = 0.01, ω̄ = 0.1·0.1/(0.1 + 0.001) = 0.01/0.101.
	checkVec(t, "global", e.Server().Global, []float64{0.01 / 0.101, 5})
	checkVec(t, "m", alg.m, []float64{0.1, 0})
	checkVec(t, "v", alg.v, []float64{0.01, 0})
}

// TestNewAlgorithmModes: NewAlgorithm builds FedDyn in each mode it names
// (and with the default), refuses an unknown mode, and checks FedProx's μ.
func TestNewAlgorithmModes(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Params
		mode string
		err  string
	}{
		{name: "feddyn", p: Params{DynMode: DynPaper}, mode: DynPaper},
		{name: "feddyn", mode: DynUpstream}, // the default
		{name: "feddyn", p: Params{DynMode: DynUpstream}, mode: DynUpstream},
		{name: "feddyn", p: Params{DynMode: "bogus"}, err: `feddyn mode "bogus"`},
		{name: "fedprox", p: Params{Mu: -1}, err: "fedprox needs a proximal coefficient mu > 0"},
		{name: "nope", err: `unknown algorithm "nope"`},
	} {
		a, err := NewAlgorithm(c.name, c.p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %+v: error %v, want %q", c.name, c.p, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %+v: %v", c.name, c.p, err)
			continue
		}
		if d, ok := a.(*FedDyn); !ok || d.Mode != c.mode {
			t.Errorf("%s %+v: got %#v, want FedDyn in mode %s", c.name, c.p, a, c.mode)
		}
	}
}
