package fedddpm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// quadModel is a deterministic test model: the loss of a batch is
// ½·mean_rows Σ_j a_j (w_j − x_ij)², with per-coordinate curvatures a, so
// its gradient is exact and ignores r.
type quadModel struct{ a []float64 }

func (q quadModel) NumParams() int { return len(q.a) }

func (q quadModel) LossGrad(p []float64, b model.Batch, grad []float64, _ *rand.Rand) float64 {
	if grad != nil {
		clear(grad)
	}
	var loss float64
	inv := 1 / float64(b.N)
	for i := 0; i < b.N; i++ {
		row := b.X[i*b.D : (i+1)*b.D]
		for j, v := range p {
			d := v - row[j]
			loss += 0.5 * q.a[j] * d * d * inv
			if grad != nil {
				grad[j] += q.a[j] * d * inv
			}
		}
	}
	return loss
}

// testClients returns n clients of equal size m in d dimensions, each
// centred at a different point (heterogeneous data).
func testClients(n, m, d int, key rng.Key) []*data.Dataset {
	out := make([]*data.Dataset, n)
	for i := range out {
		r := key.Derive("client", i).Rand()
		ds := &data.Dataset{X: make([]float64, m*d), Y: make([]int, m), N: m, D: d, Classes: 1}
		for k := 0; k < m; k++ {
			for j := 0; j < d; j++ {
				ds.X[k*d+j] = float64(i) - float64(n)/2 + 0.3*r.NormFloat64()
			}
		}
		out[i] = ds
	}
	return out
}

func testModel(d int) quadModel {
	a := make([]float64, d)
	for j := range a {
		a[j] = 0.5 + float64(j)
	}
	return quadModel{a: a}
}

func flConfig(frac float64, epochs, batch int, lr float64) fl.Config {
	return fl.Config{Sampling: fl.Uniform, Frac: frac, Local: fl.LocalConfig{Epochs: epochs, BatchSize: batch, LR: lr}}
}

func runAlg(t *testing.T, m model.Differentiable, clients []*data.Dataset, alg fl.Algorithm, cfg fl.Config, key rng.Key, rounds int) *fl.Engine {
	t.Helper()
	e, err := fl.New(m, clients, alg, cfg, key, make([]float64, m.NumParams()), fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	RunRounds(e, alg, rounds, nil)
	return e
}

func maxDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

func TestAverageWeightings(t *testing.T) {
	ups := []*fl.Upload{{Weight: 1, Params: []float64{0, 3}}, {Weight: 3, Params: []float64{4, 7}}}
	cases := []struct {
		w    Weighting
		want []float64
	}{
		{Uniform, []float64{2, 5}},
		{BySize, []float64{3, 6}},
	}
	for _, c := range cases {
		dst := make([]float64, 2)
		if !Average(dst, ups, c.w) || maxDiff(dst, c.want) > 1e-12 {
			t.Errorf("%v: got %v, want %v", c.w, dst, c.want)
		}
	}
	if Average(make([]float64, 2), nil, Uniform) {
		t.Error("no uploads must report false")
	}
	for _, s := range []string{"", "uniform", "size"} {
		if _, err := ParseWeighting(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseWeighting("median"); err == nil {
		t.Error("unknown weighting accepted")
	}
}

// The uniform mean of n copies of the same vector is that vector.
func TestAverageProperty(t *testing.T) {
	props := properties(t)
	props.Property("mean of identical uploads", prop.ForAll(func(n int, v []float64) bool {
		ups := make([]*fl.Upload, n)
		for i := range ups {
			ups[i] = &fl.Upload{Weight: float64(i + 1), Params: v}
		}
		for _, w := range []Weighting{Uniform, BySize} {
			dst := make([]float64, len(v))
			Average(dst, ups, w)
			for i := range v {
				if !(math.Abs(dst[i]-v[i]) <= 1e-9*(1+math.Abs(v[i]))) {
					return false
				}
			}
		}
		return true
	}, gen.IntRange(1, 8), gen.SliceOfN(5, gen.Float64Range(-100, 100))))
	props.TestingRun(t)
}

func TestTrainerCounts(t *testing.T) {
	cases := []struct{ n, batch, epochs, steps int }{{10, 4, 1, 3}, {10, 5, 2, 4}, {7, 10, 3, 3}, {1, 1, 1, 1}}
	m := testModel(2)
	for _, c := range cases {
		ds := testClients(1, c.n, 2, rng.New(1, "trainer"))[0]
		var tr Trainer
		p := make([]float64, 2)
		var calls int64
		w, loss := tr.Epochs(m, p, ds, &optim.SGD{LR: 0.1}, c.epochs, c.batch, rng.Stream(1, "t"), func(step int64, _ float64) { calls = step })
		if w.Steps != int64(c.steps) || w.SampleGrads != int64(c.n*c.epochs) || calls != w.Steps || math.IsNaN(loss) {
			t.Errorf("%+v: work %+v, callbacks %d, loss %g", c, w, calls, loss)
		}
	}
}

// FedProx with μ = 0 is FedAvg, and MoFedSAM with ρ = 0 and α = 1 is FedAvg
// on a model that ignores its random stream (both take the same steps).
func TestReductionsToFedAvg(t *testing.T) {
	key := rng.New(3, "reductions")
	clients := testClients(6, 12, 3, key)
	m := testModel(3)
	cfg := flConfig(0.5, 2, 5, 0.05)
	base := Base{Opt: Opt{Kind: "sgd", LR: 0.05}}
	ref := runAlg(t, m, clients, &FedAvg{Base: base}, cfg, key, 4).Server().Global
	full := flConfig(0.5, 2, 12, 0.05)
	cases := []struct {
		name string
		alg  fl.Algorithm
		cfg  fl.Config
		ref  []float64
	}{
		{"fedprox-mu0", &FedProx{Base: base, Mu: 0}, cfg, ref},
		// MoFedSAM draws a per-step seed from the client's stream, which
		// shifts later shuffles: compare on full batches, whose gradient
		// does not depend on the order.
		{"mofedsam-rho0-alpha1", &MoFedSAM{Base: base, Rho: 0, Alpha: 1}, full,
			runAlg(t, m, clients, &FedAvg{Base: base}, full, key, 4).Server().Global},
	}
	for _, c := range cases {
		got := runAlg(t, m, clients, c.alg, c.cfg, key, 4).Server().Global
		if d := maxDiff(got, c.ref); d > 1e-12 {
			t.Errorf("%s differs from FedAvg by %g", c.name, d)
		}
	}
	// FedProx with μ > 0 keeps the local models closer to the broadcast
	// model than FedAvg does.
	drift := func(alg fl.Algorithm) float64 {
		var d float64
		hooks := fl.Hooks{AfterLocal: func(c *fl.Client, y []float64) {
			for j := range y {
				d += (y[j] - c.Global[j]) * (y[j] - c.Global[j])
			}
		}}
		e, err := fl.New(m, clients, alg, cfg, key, make([]float64, 3), hooks)
		if err != nil {
			t.Fatal(err)
		}
		RunRounds(e, alg, 3, nil)
		return d
	}
	if dp, da := drift(&FedProx{Base: base, Mu: 5}), drift(&FedAvg{Base: base}); !(dp < da) {
		t.Errorf("FedProx local drift %g, FedAvg %g: proximal term had no effect", dp, da)
	}
}

// With plain SGD, c_i⁺ computed as the mean raw gradient equals
// Karimireddy et al.'s option II, c_i − c + (x − y_i)/(K·η_l).
func TestScaffoldOptionII(t *testing.T) {
	key := rng.New(5, "scaffold")
	clients := testClients(5, 10, 2, key)
	m := testModel(2)
	const lr = 0.07
	cfg := flConfig(0.6, 2, 3, lr)
	alg := &Scaffold{Base: Base{Opt: Opt{Kind: "sgd", LR: lr}}}
	var before, cBefore []float64
	checked := 0
	hooks := fl.Hooks{
		BeforeLocal: func(c *fl.Client) {
			before, cBefore = nil, append([]float64(nil), alg.ControlVariate()...)
			if st, ok := c.State.(*clientState); ok && st.ci != nil {
				before = append([]float64(nil), st.ci...)
			} else {
				before = make([]float64, 2)
			}
		},
		AfterLocal: func(c *fl.Client, y []float64) {
			st := c.State.(*clientState)
			K := float64(c.Steps())
			for j := range y {
				want := before[j] - cBefore[j] + (c.Global[j]-y[j])/(K*lr)
				if !(math.Abs(st.ci[j]-want) <= 1e-9) {
					t.Errorf("round client %d coord %d: c_i⁺ = %.12g, option II %.12g", c.ID, j, st.ci[j], want)
				}
			}
			checked++
		},
	}
	e, err := fl.New(m, clients, alg, cfg, key, make([]float64, 2), hooks)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 5; k++ {
		prevC := append([]float64(nil), alg.ControlVariate()...)
		e.TrainRound()
		// c moves by (1/N)Σ Δc_i: nonzero once clients have trained.
		if k == 0 && maxDiff(prevC, alg.ControlVariate()) == 0 {
			t.Error("server control variate did not move")
		}
	}
	if checked == 0 {
		t.Fatal("no client checked")
	}
}

// With plain SGD and equal client sizes, MoFedSAM's Δ_{t+1} equals FedCM's
// (1/(|S|Kη_l))Σ_i (x_t − y_{i,K}) = (x_t − x_{t+1})/(K·η_l).
func TestMoFedSAMDirection(t *testing.T) {
	key := rng.New(6, "mofedsam")
	clients := testClients(6, 8, 3, key)
	m := testModel(3)
	const lr = 0.05
	cfg := flConfig(0.5, 1, 4, lr)
	alg := &MoFedSAM{Base: Base{Opt: Opt{Kind: "sgd", LR: lr}}, Rho: 0.05, Alpha: 0.3}
	e, err := fl.New(m, clients, alg, cfg, key, make([]float64, 3), fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 4; k++ {
		e.TrainRound()
		s := e.Server()
		K := float64(2) // 8 rows, batch 4, one epoch
		for j := range s.Global {
			want := (s.Prev[j] - s.Global[j]) / (K * lr)
			if !(math.Abs(alg.Direction()[j]-want) <= 1e-9) {
				t.Fatalf("round %d coord %d: Δ = %.12g, FedCM form %.12g", k, j, alg.Direction()[j], want)
			}
		}
	}
	// Two gradient evaluations per step are counted.
	if got, want := e.Server().Counters.SampleGrads, int64(4*3*8*2); got != want {
		t.Errorf("sample gradients %d, want %d", got, want)
	}
}

// FedDDPM's round is FedAvg's aggregate followed by E epochs on A drawn
// from the server stream of that round.
func TestFedDDPMRoundIsFedAvgThenCorrection(t *testing.T) {
	key := rng.New(7, "fedddpm")
	clients := testClients(4, 10, 2, key)
	aux := testClients(1, 9, 2, key.Derive("aux"))[0]
	m := testModel(2)
	cfg := flConfig(0.5, 1, 4, 0.05)
	base := Base{Opt: Opt{Kind: "sgd", LR: 0.05}}
	server := Correction{Model: m, Aux: aux, Opt: Opt{Kind: "sgd", LR: 0.02}, Epochs: 2, Batch: 4}
	alg, err := NewFedDDPM(base, server)
	if err != nil {
		t.Fatal(err)
	}
	got := runAlg(t, m, clients, alg, cfg, key, 1).Server().Global
	want := append([]float64(nil), runAlg(t, m, clients, &FedAvg{Base: base}, cfg, key, 1).Server().Global...)
	var tr Trainer
	tr.Epochs(m, want, aux, &optim.SGD{LR: 0.02}, 2, 4, key.Derive("round", 0, "server", "aux-correction").Rand(), nil)
	if d := maxDiff(got, want); d > 1e-12 {
		t.Errorf("FedDDPM round differs from FedAvg + correction by %g", d)
	}
	if w := alg.ServerWork(); w.Steps != 2*3 || w.SampleGrads != 2*9 {
		t.Errorf("server work %+v, want 6 steps and 18 sample gradients", w)
	}
	if _, err := NewFedDDPM(base, Correction{Model: m, Opt: Opt{LR: 1}, Epochs: 1, Batch: 1}); err == nil {
		t.Error("FedDDPM without an aux set accepted")
	}
}

func TestFedDDPMPlusStopping(t *testing.T) {
	key := rng.New(8, "plus")
	clients := testClients(4, 6, 2, key)
	aux := testClients(1, 5, 2, key.Derive("aux"))[0]
	m := testModel(2)
	cfg := flConfig(0.5, 1, 3, 0.05)
	base := Base{Opt: Opt{Kind: "sgd", LR: 0.05}}
	cases := []struct {
		name        string
		score       func(t int) float64
		never       NeverFired
		rounds      int
		stop        int
		corrected   bool
		serverSteps int64
	}{
		// Constant scores: the first check (t = 0) initialises, the
		// second (t = 3) fires; training ends after round 3 (4 rounds).
		{"constant fires at second check", func(int) float64 { return 1 }, CorrectAtEnd, 4, 3, true, 2 * 2},
		{"diverging never fires, corrected at end", func(t int) float64 { return float64(t * t * 100) }, CorrectAtEnd, 10, -1, true, 2 * 2},
		{"diverging never fires, no correction", func(t int) float64 { return float64(t * t * 100) }, NoCorrection, 10, -1, false, 0},
	}
	for _, c := range cases {
		rule, err := NewStopRule(3, QuickTestConfig{Gamma: 0.4, Threshold: 0.5, TestSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		var e *fl.Engine
		score := func([]float64, *rand.Rand) float64 { calls++; return c.score(e.Server().Round) }
		alg, err := NewFedDDPMPlus(base, Correction{Model: m, Aux: aux, Opt: Opt{Kind: "sgd", LR: 0.05}, Epochs: 2, Batch: 3}, rule, score, c.never)
		if err != nil {
			t.Fatal(err)
		}
		e, err = fl.New(m, clients, alg, cfg, key, make([]float64, 2), fl.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		n := RunRounds(e, alg, 10, nil)
		ok, at := alg.Corrected()
		if n != c.rounds || rule.StopRound != c.stop || ok != c.corrected || alg.ServerWork().Steps != c.serverSteps || !alg.Done() {
			t.Errorf("%s: rounds %d, stop %d, corrected %v at %d, server steps %d", c.name, n, rule.StopRound, ok, at, alg.ServerWork().Steps)
		}
		if want := len(rule.Scores); calls != want {
			t.Errorf("%s: score called %d times, rule recorded %d", c.name, calls, want)
		}
	}
}

func TestLocalAugData(t *testing.T) {
	key := rng.New(9, "localaug")
	clients := testClients(3, 4, 2, key)
	aux := testClients(1, 8, 2, key.Derive("aux"))[0]
	for i := range aux.X {
		aux.X[i] = float64(i) // distinct rows
	}
	out, err := LocalAugData(clients, aux, key)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float64]int{}
	for i, ds := range out {
		extra := ds.N - clients[i].N
		if extra < 8/3 || extra > 8/3+1 {
			t.Errorf("client %d got %d aux rows", i, extra)
		}
		for j := clients[i].N; j < ds.N; j++ {
			seen[ds.X[j*2]]++
		}
		for _, y := range ds.Y {
			if y != 0 {
				t.Fatal("labels not dropped")
			}
		}
	}
	if len(seen) != 8 {
		t.Errorf("%d distinct aux rows dealt, want 8", len(seen))
	}
	for v, c := range seen {
		if c != 1 {
			t.Errorf("aux row %g dealt %d times", v, c)
		}
	}
}

// SplitAux deals every row once, in pieces whose sizes differ by ≤ 1.
func TestSplitAuxProperty(t *testing.T) {
	props := properties(t)
	props.Property("even split", prop.ForAll(func(rows, n int) bool {
		if rows < n {
			return true
		}
		aux := &data.Dataset{X: make([]float64, rows), Y: make([]int, rows), N: rows, D: 1, Classes: 1}
		for i := range aux.X {
			aux.X[i] = float64(i)
		}
		parts, err := SplitAux(aux, n, rng.New(uint64(rows), "split"))
		if err != nil {
			return false
		}
		lo, hi, total := rows, 0, 0
		seen := map[float64]bool{}
		for _, p := range parts {
			lo, hi, total = min(lo, p.N), max(hi, p.N), total+p.N
			for _, v := range p.X {
				if seen[v] {
					return false
				}
				seen[v] = true
			}
		}
		return total == rows && hi-lo <= 1
	}, gen.IntRange(1, 60), gen.IntRange(1, 12)))
	props.TestingRun(t)
}

// A client's warmup depends only on its own data, the init and the key.
func TestWarmupIndependentOfOtherClients(t *testing.T) {
	key := rng.New(10, "warmup")
	clients := testClients(3, 7, 2, key)
	m := testModel(2)
	cfg := WarmupConfig{Opt: Opt{LR: 0.01}, Epochs: 3, Batch: 3}
	init := []float64{0.5, -0.5}
	all, work, err := Warmup(m, clients, init, cfg, key)
	if err != nil {
		t.Fatal(err)
	}
	if work.SampleGrads != 3*7*3 {
		t.Errorf("warmup work %+v", work)
	}
	// Client 2 alone at index 2 (others replaced by different data).
	other := testClients(3, 5, 2, key.Derive("other"))
	other[2] = clients[2]
	again, _, _ := Warmup(m, other, init, cfg, key)
	if maxDiff(all[2], again[2]) != 0 {
		t.Error("client 2's warmup depends on the other clients")
	}
	if maxDiff(all[0], init) == 0 {
		t.Error("warmup did not move the model")
	}
	if _, _, err := Warmup(m, clients, init, WarmupConfig{Opt: Opt{Kind: "rmsprop", LR: 1}, Epochs: 1, Batch: 1}, key); err == nil {
		t.Error("unknown optimizer accepted")
	}
}

func TestOptConfig(t *testing.T) {
	cases := []struct {
		o  Opt
		ok bool
	}{
		{Opt{LR: 1e-3}, true},
		{Opt{Kind: "adam", LR: 1e-3}, true},
		{Opt{Kind: "sgd", LR: 0.1, Momentum: 0.9}, true},
		{Opt{Kind: "sgd", LR: 0}, false},
		{Opt{Kind: "sgd", LR: 0.1, Momentum: 1}, false},
		{Opt{Kind: "lion", LR: 0.1}, false},
	}
	for _, c := range cases {
		if err := c.o.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: err %v", c.o, err)
		}
	}
	if _, ok := (Opt{LR: 1}).New().(*optim.Adam); !ok {
		t.Error("default optimizer is not Adam")
	}
}

// Persisted client optimizers live in the client's state and keep their
// step count across rounds; fresh ones are reset every ClientUpdate.
func TestOptimizerPersistence(t *testing.T) {
	key := rng.New(11, "persist")
	clients := testClients(2, 6, 2, key)
	m := testModel(2)
	cfg := flConfig(1, 1, 3, 0.01)
	for _, persist := range []bool{false, true} {
		alg := &FedAvg{Base: Base{Opt: Opt{LR: 0.01, Persist: persist}}}
		e := runAlg(t, m, clients, alg, cfg, key, 3)
		st, _ := e.ClientState(0).(*clientState)
		switch {
		case persist && (st == nil || st.opt.(*optim.Adam).Steps() != 3*2):
			t.Errorf("persisted optimizer: state %+v", st)
		case !persist && st != nil && st.opt != nil:
			t.Error("fresh optimizers must not be stored per client")
		}
	}
}

// End to end on the denoiser: every method trains, FedDDPM+ reports its
// stop round, and runs are reproducible.
func TestMethodsOnDenoiser(t *testing.T) {
	g, _ := DefaultMixture().Mixture(nil)
	ds, _ := Generate(g, 300, rng.Stream(1, "gen"))
	parts, err := data.PartitionShards(ds.Y, 6, 2, rng.New(1, "p"))
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]*data.Dataset, len(parts))
	for i, p := range parts {
		clients[i] = ds.Subset(p)
	}
	s, _ := diffusion.ScaledLinear(30)
	den, _ := diffusion.NewDenoiser(diffusion.NetConfig{Dim: 2, Hidden: []int{16}, TimeDim: 8}, s)
	key := rng.New(2, "denoiser")
	init := make([]float64, den.NumParams())
	den.Init(init, key.Derive("init").Rand())
	ws, _, err := Warmup(den, clients, init, WarmupConfig{Opt: Opt{LR: 3e-3}, Epochs: 2, Batch: 16}, key)
	if err != nil {
		t.Fatal(err)
	}
	preds := make([]diffusion.Predictor, len(ws))
	for i, w := range ws {
		preds[i] = den.Clone().Bind(w)
	}
	sizes, _ := AuxSizes([]int{50, 50, 50, 50, 50, 50}, AuxFraction)
	aux, err := BuildAux(preds, sizes, diffusion.NewSampler(s, diffusion.VarBeta), key)
	if err != nil {
		t.Fatal(err)
	}
	base := Base{Opt: Opt{LR: 3e-3}}
	mk := map[string]func() fl.Algorithm{
		"fedavg":   func() fl.Algorithm { return &FedAvg{Base: base} },
		"fedprox":  func() fl.Algorithm { return &FedProx{Base: base, Mu: 0.01} },
		"scaffold": func() fl.Algorithm { return &Scaffold{Base: base} },
		"mofedsam": func() fl.Algorithm { return &MoFedSAM{Base: base, Rho: 0.05, Alpha: 0.1} },
		"fedddpm": func() fl.Algorithm {
			a, _ := NewFedDDPM(base, Correction{Model: den, Aux: aux, Opt: Opt{LR: 1e-3}, Epochs: 1, Batch: 16})
			return a
		},
		"fedddpm+": func() fl.Algorithm {
			rule, _ := NewStopRule(2, QuickTestConfig{Gamma: 0.4, Threshold: 10, TestSize: 20})
			a, _ := NewFedDDPMPlus(base, Correction{Model: den, Aux: aux, Opt: Opt{LR: 3e-3}, Epochs: 2, Batch: 16}, rule,
				func(p []float64, r *rand.Rand) float64 { return 1 }, CorrectAtEnd)
			return a
		},
	}
	cfg := flConfig(0.5, 1, 16, 3e-3)
	for name, f := range mk {
		a, b := f(), f()
		ga := runAlg(t, den, clients, a, cfg, key, 5).Server().Global
		gb := runAlg(t, den, clients, b, cfg, key, 5).Server().Global
		if maxDiff(ga, gb) != 0 {
			t.Errorf("%s is not reproducible", name)
		}
		if maxDiff(ga, init) == 0 {
			t.Errorf("%s did not train", name)
		}
		for _, v := range ga {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s diverged", name)
			}
		}
		if p, ok := a.(*FedDDPMPlus); ok && p.Rule.StopRound != 2 {
			t.Errorf("FedDDPM+ stop round %d, want 2 (constant score)", p.Rule.StopRound)
		}
	}
}
