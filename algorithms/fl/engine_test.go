package fl

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// toyClients draws separable-ish 2-class data for n clients of varied size.
func toyClients(seed uint64, n, d int) []*data.Dataset {
	r := rng.Stream(seed, "toy-data")
	w := make([]float64, d)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	out := make([]*data.Dataset, n)
	for c := range out {
		m := 20 + 7*c
		ds := &data.Dataset{X: make([]float64, m*d), Y: make([]int, m), N: m, D: d, Classes: 2}
		for i := 0; i < m; i++ {
			var s float64
			for j := 0; j < d; j++ {
				v := r.NormFloat64() + 0.3*float64(c%3)
				ds.X[i*d+j] = v
				s += w[j] * v
			}
			if s+0.3*r.NormFloat64() > 0 {
				ds.Y[i] = 1
			}
		}
		out[c] = ds
	}
	return out
}

func baseConfig() Config {
	return Config{Sampling: Uniform, Frac: 0.5, Stragglers: 0.3,
		Local: LocalConfig{Epochs: 3, BatchSize: 8, LR: 0.05, Momentum: 0.5}}
}

func globalLoss(m model.Model, p []float64, clients []*data.Dataset) float64 {
	all := data.Concat(clients...)
	l, _ := model.Evaluate(m, p, all.X, all.Y, all.N, all.D)
	return l
}

func newEngine(t testing.TB, name string, cfg Config, hooks Hooks) (*Engine, model.Model, []*data.Dataset) {
	t.Helper()
	clients := toyClients(1, 6, 5)
	m := model.NewLogReg(5, 2, model.CrossEntropy)
	alg, err := NewAlgorithm(name, Params{Mu: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	init := make([]float64, m.NumParams())
	e, err := New(m, clients, alg, cfg, rng.New(7, "run"), init, hooks)
	if err != nil {
		t.Fatal(err)
	}
	return e, m, clients
}

func TestEveryBaselineLearnsAndIsDeterministic(t *testing.T) {
	for _, name := range Baselines {
		t.Run(name, func(t *testing.T) {
			e1, m, clients := newEngine(t, name, baseConfig(), Hooks{})
			e2, _, _ := newEngine(t, name, baseConfig(), Hooks{})
			before := globalLoss(m, e1.Server().Global, clients)
			for k := 0; k < 15; k++ {
				e1.TrainRound()
				e2.TrainRound()
			}
			after := globalLoss(m, e1.Server().Global, clients)
			if !(after < before-0.05) {
				t.Errorf("loss %.4f → %.4f: no learning", before, after)
			}
			if !reflect.DeepEqual(e1.Server().Global, e2.Server().Global) {
				t.Error("two engines with the same key diverged")
			}
		})
	}
}

func TestSameSelectionsAcrossAlgorithms(t *testing.T) {
	var ref [][]int
	for i, name := range Baselines {
		e, _, _ := newEngine(t, name, baseConfig(), Hooks{})
		var got [][]int
		for k := 0; k < 5; k++ {
			info := e.TrainRound()
			got = append(got, append([]int(nil), info.Selected...))
		}
		if i == 0 {
			ref = got
			continue
		}
		if !reflect.DeepEqual(got, ref) {
			t.Fatalf("%s selected %v, fedavg %v", name, got, ref)
		}
	}
}

func TestCountersMatchTheWork(t *testing.T) {
	e, _, clients := newEngine(t, "fedavg", baseConfig(), Hooks{})
	var wantSteps, wantGrads, selected int64
	for k := 0; k < 4; k++ {
		info := e.TrainRound()
		for j, id := range info.Selected {
			n := clients[id].N
			batches := (n + 7) / 8
			wantSteps += int64(info.Epochs[j] * batches)
			wantGrads += int64(info.Epochs[j] * n)
			selected++
		}
		if len(info.Selected) != 3 {
			t.Fatalf("K = %d, want ⌊0.5·6⌋ = 3", len(info.Selected))
		}
	}
	c := e.Server().Counters
	if c.TrainingRounds != 4 || c.DataAccesses != selected || c.Uploads != selected || c.SGDSteps != wantSteps || c.SampleGrads != wantGrads {
		t.Fatalf("counters %+v; want rounds 4, accesses/uploads %d, steps %d, grads %d", c, selected, wantSteps, wantGrads)
	}
}

func TestHooksSeeTheUploadAndNoiseStreamIsSeparate(t *testing.T) {
	var calls int
	hooks := Hooks{AfterLocal: func(c *Client, p []float64) {
		calls++
		for i := range p {
			p[i] += 0.01 * c.Noise.NormFloat64()
		}
	}}
	e1, _, _ := newEngine(t, "fedavg", baseConfig(), Hooks{})
	e2, _, _ := newEngine(t, "fedavg", baseConfig(), hooks)
	i1, i2 := e1.TrainRound(), e2.TrainRound()
	if calls != 3 {
		t.Fatalf("AfterLocal ran %d times, want 3", calls)
	}
	if !reflect.DeepEqual(i1.Epochs, i2.Epochs) {
		t.Fatal("a privacy hook changed the straggler draws")
	}
	var diff float64
	for i := range e1.Server().Global {
		diff = math.Max(diff, math.Abs(e1.Server().Global[i]-e2.Server().Global[i]))
	}
	if diff == 0 || diff > 0.05 {
		t.Fatalf("perturbed round differs by %g; want small but nonzero", diff)
	}
}

func TestFedAvgMWithoutMomentumIsFedAvg(t *testing.T) {
	clients := toyClients(1, 6, 5)
	m := model.NewLogReg(5, 2, model.CrossEntropy)
	init := make([]float64, m.NumParams())
	a, _ := New(m, clients, &FedAvg{}, baseConfig(), rng.New(3), init, Hooks{})
	b, _ := New(m.Clone(), clients, &FedAvgM{LR: 1, Momentum: 0}, baseConfig(), rng.New(3), init, Hooks{})
	for k := 0; k < 5; k++ {
		a.TrainRound()
		b.TrainRound()
	}
	for i := range a.Server().Global {
		if !(math.Abs(a.Server().Global[i]-b.Server().Global[i]) <= 1e-12) {
			t.Fatalf("parameter %d: %g vs %g", i, a.Server().Global[i], b.Server().Global[i])
		}
	}
}

func TestFedYogiFirstStepIsSignLike(t *testing.T) {
	// With m = v = 0, the first Yogi step is η(1−β1)Δ/(√(1−β2)|Δ| + τ),
	// about η·sign(Δ) for |Δ| ≫ τ.
	s := &Server{Global: []float64{0, 0}, Prev: []float64{0, 0}, NClients: 1}
	y := &FedYogi{LR: 0.1, Tau: 1e-3, Beta1: 0.9, Beta2: 0.99}
	y.Setup(s)
	y.Aggregate(s, []*Upload{{Weight: 1, Params: []float64{2, -0.5}}})
	for i, d := range []float64{2, -0.5} {
		want := 0.1 * 0.1 * d / (math.Sqrt(0.01)*math.Abs(d) + 1e-3)
		if !(math.Abs(s.Global[i]-want) <= 1e-12) {
			t.Errorf("coordinate %d: %g, want %g", i, s.Global[i], want)
		}
	}
}

func TestScaffoldControlVariatesAverageToServer(t *testing.T) {
	// With full participation, c = (1/N)Σ c_i after every round.
	cfg := baseConfig()
	cfg.Frac, cfg.Stragglers = 1, 0
	e, _, _ := newEngine(t, "scaffold", cfg, Hooks{})
	for k := 0; k < 3; k++ {
		e.TrainRound()
	}
	sc := e.Server().State.(*Scaffold)
	n := e.Server().NClients
	for i, cv := range sc.ControlVariate() {
		var mean float64
		for id := 0; id < n; id++ {
			mean += e.ClientState(id).(*scaffoldClient).ci[i] / float64(n)
		}
		if !(math.Abs(mean-cv) <= 1e-12) {
			t.Fatalf("coordinate %d: c = %g, mean c_i = %g", i, cv, mean)
		}
	}
}

func TestBernoulliRoundWithNobodyKeepsModel(t *testing.T) {
	cfg := baseConfig()
	cfg.Sampling, cfg.P = Bernoulli, 1e-9
	for _, name := range Baselines {
		e, _, _ := newEngine(t, name, cfg, Hooks{})
		before := append([]float64(nil), e.Server().Global...)
		if info := e.TrainRound(); len(info.Selected) != 0 {
			t.Fatalf("%s: selected %v", name, info.Selected)
		}
		if !reflect.DeepEqual(before, e.Server().Global) {
			t.Fatalf("%s: an empty round moved the model", name)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	bad := []struct {
		name string
		mut  func(*Config)
		want string
	}{
		{"frac 0", func(c *Config) { c.Frac = 0 }, "fraction"},
		{"frac > 1", func(c *Config) { c.Frac = 1.5 }, "fraction"},
		{"p out", func(c *Config) { c.Sampling, c.P = Bernoulli, 0 }, "probability"},
		{"E=0", func(c *Config) { c.Local.Epochs = 0 }, "epochs"},
		{"lr<0", func(c *Config) { c.Local.LR = -0.1 }, "learning rate"},
		{"batch 0", func(c *Config) { c.Local.BatchSize = 0 }, "batch"},
		{"stragglers", func(c *Config) { c.Stragglers = 2 }, "straggler"},
		{"momentum", func(c *Config) { c.Local.Momentum = 1 }, "momentum"},
	}
	for _, b := range bad {
		cfg := baseConfig()
		b.mut(&cfg)
		if err := cfg.Validate(5); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v", b.name, err)
		}
	}
	if _, err := NewAlgorithm("fedprox", Params{}); err == nil {
		t.Error("fedprox without mu accepted")
	}
	if _, err := NewAlgorithm("fedsgd", Params{}); err == nil {
		t.Error("unknown algorithm accepted")
	}
}

// BenchmarkFedAvgRoundSyn00 times one FedAvg training round at the paper's
// synthetic scale: 9 of 30 clients, E = 10, batch 32, momentum 0.5, on the
// released Syn(0,0) data when ../shared is present (else our generator).
func BenchmarkFedAvgRoundSyn00(b *testing.B) {
	fed, err := data.LoadUpcycled("../../../shared/datasets/upcycled-synthetic", "synthetic_0_0")
	if err != nil {
		b.Logf("released data unavailable (%v); using the generator", err)
		cfg, err := data.SyntheticPreset("syn_0_0")
		if err != nil {
			b.Fatal(err)
		}
		if fed, err = data.GenerateSynthetic(cfg, rng.New(1, "bench")); err != nil {
			b.Fatal(err)
		}
	}
	clients := make([]*data.Dataset, len(fed.Clients))
	for i, c := range fed.Clients {
		clients[i] = c.Train
	}
	m := model.NewLogReg(fed.D, fed.Classes, model.DoubleSoftmax)
	conf := Config{Sampling: Uniform, Frac: 0.3, Local: LocalConfig{Epochs: 10, BatchSize: 32, LR: 0.1, Momentum: 0.5}}
	e, err := New(m, clients, &FedAvg{}, conf, rng.New(1, "bench-run"), make([]float64, m.NumParams()), Hooks{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.TrainRound()
	}
	b.ReportMetric(float64(e.Server().Counters.SampleGrads)/float64(b.N), "samplegrads/op")
}
