package normec

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

const testSeed = 20240727

func properties(t *testing.T) *gopter.Properties {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(testSeed)
	p.MinSuccessfulTests = 200
	return gopter.NewProperties(p)
}

func TestNormTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alpha float64
		v     []float64
		want  []float64
	}{
		{"zero alpha zero vector", 0, []float64{0, 0}, []float64{0, 0}},
		{"zero alpha unit", 0, []float64{3, 4}, []float64{0.6, 0.8}},
		{"alpha one", 1, []float64{3, 4}, []float64{0.5, 2.0 / 3}},
		{"alpha zero vector", 0.01, []float64{0, 0, 0}, []float64{0, 0, 0}},
		{"huge", 0.01, []float64{1e200, 0}, []float64{1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := append([]float64(nil), tc.v...)
			n := Norm(tc.alpha, got)
			if !floats.EqualApprox(got, tc.want, 1e-15) {
				t.Errorf("Norm_%g(%v) = %v, want %v", tc.alpha, tc.v, got, tc.want)
			}
			if want := floats.Norm(tc.v, 2); n != want {
				t.Errorf("returned norm %v, want %v", n, want)
			}
			dst := make([]float64, len(tc.v))
			NormTo(dst, tc.alpha, tc.v)
			if !floats.Equal(dst, got) {
				t.Errorf("NormTo = %v, Norm = %v", dst, got)
			}
		})
	}
}

func TestNormProperties(t *testing.T) {
	props := properties(t)
	alphas := gen.OneConstOf(0.0, 1e-8, 0.01, 1.0, 100.0)
	scales := gen.OneConstOf(0.0, 1e-300, 1e-8, 1.0, 1e8, 1e150)
	props.Property("‖Norm_α(v)‖ ≤ 1, = ‖v‖/(α+‖v‖), same direction", prop.ForAll(
		func(alpha, scale float64, raw []float64) string {
			v := make([]float64, len(raw))
			floats.ScaleTo(v, scale, raw)
			n := floats.Norm(v, 2)
			out := append([]float64(nil), v...)
			Norm(alpha, out)
			on := floats.Norm(out, 2)
			if on > 1+4e-16 {
				return "norm above 1"
			}
			if want := NormOfNorm(alpha, n); !(math.Abs(on-want) <= 1e-14*math.Max(1, want)) {
				return "norm differs from ‖v‖/(α+‖v‖)"
			}
			if n > 0 && on > 0 {
				// Each vector scaled to unit length first: the plain
				// Dot(out, v)/(on·n) underflows to 0/0 for ‖v‖ near 1e-305.
				var cos float64
				for j := range v {
					cos += (out[j] / on) * (v[j] / n)
				}
				if !(math.Abs(cos-1) <= 1e-12) {
					return "direction changed"
				}
			}
			return ""
		}, alphas, scales, gen.SliceOfN(5, gen.Float64Range(-1, 1))))
	props.TestingRun(t)
}

func TestNormDoesNotAllocate(t *testing.T) {
	v := []float64{1, 2, 3}
	if n := testing.AllocsPerRun(100, func() { Norm(0.01, v); NormTo(v, 0.01, v) }); n != 0 {
		t.Errorf("Norm allocates %v times", n)
	}
}

func TestEFResidualIdentity(t *testing.T) {
	r := rng.Stream(testSeed, "ef-identity")
	for range 1000 {
		u := make([]float64, 4)
		rng.FillNormal(r, u, math.Exp(4*r.NormFloat64()))
		alpha, beta := r.Float64(), 2*r.Float64()
		nu := append([]float64(nil), u...)
		t0 := Norm(alpha, nu)
		floats.AddScaledTo(nu, u, -beta, nu)
		got, want := floats.Norm(nu, 2), EFResidual(alpha, beta, t0)
		if !(math.Abs(got-want) <= 1e-12*math.Max(1, want)) {
			t.Fatalf("‖u − βNorm(u)‖ = %v, closed form %v", got, want)
		}
	}
}

func quadClients(t testing.TB, seed uint64, m, d int, minEig float64) ([]Objective, *quad.Federation) {
	t.Helper()
	fed, err := quad.Random(rng.Stream(seed, "quad"), quad.Spec{Clients: m, Dim: d, MinEig: minEig, MaxEig: 2, Spread: 1})
	if err != nil {
		t.Fatal(err)
	}
	objs := make([]Objective, m)
	for i, q := range fed.Clients {
		objs[i] = &ModelObjective{Model: q}
	}
	return objs, fed
}

func logRegClients(r *rand.Rand, m, n, d, classes int) ([]Objective, *model.LogReg) {
	lr := model.NewLogReg(d, classes, model.CrossEntropy)
	objs := make([]Objective, m)
	for i := range objs {
		b := model.Batch{X: make([]float64, n*d), Y: make([]int, n), N: n, D: d}
		rng.FillNormal(r, b.X, 1)
		for j := range b.Y {
			b.Y[j] = r.IntN(classes)
		}
		objs[i] = &ModelObjective{Model: lr, Data: b}
	}
	return objs, lr
}

func TestValidateRejects(t *testing.T) {
	good := Config{Alpha: 0.01, Beta: 0.01, Gamma: 0.1, Eta: 0.1, P: 0.5}
	if err := good.Validate(); err != nil {
		t.Fatalf("good config rejected: %v", err)
	}
	for _, tc := range []struct {
		name string
		mut  func(*Config)
		want string
	}{
		{"p zero", func(c *Config) { c.P = 0 }, "participation probability"},
		{"p above one", func(c *Config) { c.P = 1.5 }, "participation probability"},
		{"p NaN", func(c *Config) { c.P = math.NaN() }, "participation probability"},
		{"alpha negative", func(c *Config) { c.Alpha = -1 }, "alpha"},
		{"beta zero", func(c *Config) { c.Beta = 0 }, "beta"},
		{"gamma negative", func(c *Config) { c.Gamma = -0.1 }, "gamma"},
		{"eta zero", func(c *Config) { c.Eta = 0 }, "eta"},
		{"sigma negative", func(c *Config) { c.Sigma = -1 }, "sigma"},
		{"bad server", func(c *Config) { c.Server = 7 }, "server step"},
		{"bad R", func(c *Config) { c.Init = Init{Kind: InitOffset, R: -1} }, "offset R"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.mut(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	objs, _ := quadClients(t, 1, 2, 3, 0.5)
	if _, err := New(Config{Alpha: 0.01, Beta: 0.01, Gamma: 0.1, Eta: 0.1, P: 1, Local: Local{Kind: GDSteps}}, objs, make([]float64, 3), rng.New(1)); err == nil {
		t.Error("GDSteps with 0 steps accepted")
	}
	if _, err := New(good, objs, make([]float64, 4), rng.New(1)); err == nil {
		t.Error("dimension mismatch accepted")
	}
	fa := AppendixA1(0.01, 0.01, 0.1, 0)
	fa.P = 0
	if _, err := NewFedAvg(fa, objs, make([]float64, 3), rng.New(1)); err == nil {
		t.Error("FedAvg with p = 0 accepted")
	}
}

func TestLocalOperators(t *testing.T) {
	objs, fed := quadClients(t, 2, 3, 4, -0.5)
	x := []float64{0.3, -1, 2, 0.5}
	gamma := 0.2
	ws := NewWorkspace(4)
	p1 := make([]float64, 4)
	g := make([]float64, 4)
	Local{Kind: OneStep}.Pseudo(objs[0], x, gamma, p1, ws)
	fed.Clients[0].Grad(x, g)
	if !floats.Equal(p1, g) {
		t.Errorf("one-step P = %v, ∇f = %v", p1, g)
	}
	pT := make([]float64, 4)
	Local{Kind: GDSteps, Steps: 1}.Pseudo(objs[0], x, gamma, pT, ws)
	if !floats.Equal(pT, g) {
		t.Errorf("GD with T=1 differs from one step")
	}
	for _, l := range []Local{{Kind: OneStep}, {Kind: GDSteps, Steps: 7}} {
		it, pp := l.Path(objs[1], x, gamma)
		tx := make([]float64, 4)
		l.Apply(objs[1], x, gamma, tx, ws)
		if !floats.EqualApprox(tx, it[len(it)-1], 1e-13) {
			t.Errorf("%v: T(x) = %v, last iterate %v", l, tx, it[len(it)-1])
		}
		p := make([]float64, 4)
		l.Pseudo(objs[1], x, gamma, p, ws)
		if !floats.EqualApprox(p, pp, 1e-13) {
			t.Errorf("%v: Pseudo %v, Path %v", l, p, pp)
		}
	}
	// IG on a mean of quadratics: manual cyclic pass.
	parts := make([]model.Differentiable, len(fed.Clients))
	for i, q := range fed.Clients {
		parts[i] = q
	}
	mo := NewMeanObjective(parts...)
	y := append([]float64(nil), x...)
	for _, q := range fed.Clients {
		q.Grad(y, g)
		floats.AddScaled(y, -gamma/3, g)
	}
	tx := make([]float64, 4)
	Local{Kind: IncrementalGradient}.Apply(mo, x, gamma, tx, ws)
	if !floats.EqualApprox(tx, y, 1e-13) {
		t.Errorf("IG T(x) = %v, manual %v", tx, y)
	}
	if err := (Local{Kind: IncrementalGradient}).Check(gradOnly{}); err == nil {
		t.Error("IG accepted an objective without components")
	}
	// Logistic regression: components are examples.
	lobjs, _ := logRegClients(rng.Stream(3, "lr"), 1, 5, 3, 2)
	lx := make([]float64, 8)
	rng.FillNormal(rng.Stream(3, "x"), lx, 1)
	it, _ := Local{Kind: IncrementalGradient}.Path(lobjs[0], lx, 0.5)
	if len(it) != 6 {
		t.Errorf("IG path has %d iterates, want N+1 = 6", len(it))
	}
}

func newAlg(t testing.TB, cfg Config, objs []Objective, d int, seed uint64) *Algorithm {
	t.Helper()
	x0 := make([]float64, d)
	rng.FillNormal(rng.Stream(seed, "x0"), x0, 1)
	a, err := New(cfg, objs, x0, rng.New(seed, "alg"))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAlgorithmInvariants(t *testing.T) {
	objs, _ := quadClients(t, 4, 5, 3, 0.2)
	cfg := Config{Alpha: 0.1, Beta: 0.05, Gamma: 0.25, Eta: 0.01, P: 1,
		Init: Init{Kind: InitOffset, R: 0.3, Direction: RandomDirection}}
	a := newAlg(t, cfg, objs, 3, 5)
	if got := a.InitialR(); !(math.Abs(got-0.3) <= 1e-15) {
		t.Errorf("InitialR = %v, want 0.3", got)
	}
	mv := make([]float64, 3)
	for range 50 {
		st := a.Step()
		if !(math.Abs(st.StepNorm-cfg.Eta) <= 1e-14) {
			t.Fatalf("round %d: step %v, want η = %v", st.Round, st.StepNorm, cfg.Eta)
		}
		a.MeanV(mv)
		if d := floats.Distance(mv, a.VHat(), math.Inf(1)); d > 1e-14 {
			t.Fatalf("round %d: p=1, σ=0 but v̂ differs from mean v_i by %g", st.Round, d)
		}
		for i := range a.Clients() {
			if n := floats.Norm(a.Delta(i), 2); n > 1 {
				t.Fatalf("‖Δ‖ = %v > 1", n)
			}
		}
	}
	c := a.Counters()
	if c.Rounds != 50 || c.Transmissions != 250 || c.LocalRuns != 250 || c.Grads != 255 {
		t.Errorf("counters %+v", c)
	}
}

func TestAlgorithmDeterministicAndKeyed(t *testing.T) {
	objs, _ := quadClients(t, 6, 6, 3, -0.3)
	cfg := Config{Alpha: 0.01, Beta: 0.01, Gamma: 0.1, Eta: 0.05, P: 0.5, Sigma: 0.3, Server: PlainStep}
	run := func(seed uint64) []float64 {
		a := newAlg(t, cfg, objs, 3, seed)
		a.Run(30)
		return append([]float64(nil), a.X()...)
	}
	if a, b := run(1), run(1); !floats.Equal(a, b) {
		t.Errorf("same key, different results: %v vs %v", a, b)
	}
	if a, b := run(1), run(2); floats.Equal(a, b) {
		t.Error("different keys, same results")
	}
}

func TestParticipantsOnlyAndSameSelection(t *testing.T) {
	objs, _ := quadClients(t, 7, 8, 3, 0.5)
	cfg := Config{Alpha: 0.01, Beta: 0.01, Gamma: 0.1, Eta: 0.05, P: 0.4, Memory: ParticipantsOnly}
	a := newAlg(t, cfg, objs, 3, 9)
	fcfg := AppendixA1(0.01, 0.01, 0.1, 0)
	fcfg.P = 0.4
	f, err := NewFedAvg(fcfg, objs, a.X(), rng.New(9, "alg"))
	if err != nil {
		t.Fatal(err)
	}
	before := make([]float64, 8*3)
	for range 20 {
		for i := range 8 {
			copy(before[i*3:], a.V(i))
		}
		a.Step()
		f.Step()
		if !equalInts(a.Participants(), f.Participants()) {
			t.Fatalf("round %d: selections differ %v vs %v", a.Round(), a.Participants(), f.Participants())
		}
		in := map[int]bool{}
		for _, i := range a.Participants() {
			in[i] = true
		}
		for i := range 8 {
			same := floats.Equal(before[i*3:i*3+3], a.V(i))
			if in[i] == same || a.Updated(i) != in[i] {
				t.Fatalf("round %d client %d: participant %v, memory unchanged %v", a.Round(), i, in[i], same)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestZeroServerMemorySkipsNormalizedStep(t *testing.T) {
	z, err := quad.New(mat.NewSymDense(2, nil), []float64{0, 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	objs := []Objective{&ModelObjective{Model: z}, &ModelObjective{Model: z}}
	a, err := New(Config{Alpha: 0.1, Beta: 0.1, Gamma: 1, Eta: 0.5, P: 1}, objs, []float64{1, 2}, rng.New(1))
	if err != nil {
		t.Fatal(err)
	}
	st := a.Step()
	if !st.Skipped || a.Counters().Skipped != 1 || !floats.Equal(a.X(), []float64{1, 2}) {
		t.Errorf("v̂ = 0: stats %+v, x = %v", st, a.X())
	}
}

func TestFedAvgClipping(t *testing.T) {
	objs, _ := quadClients(t, 8, 4, 3, 0.5)
	cfg := FedAvgConfig{Psi: Psi{Kind: Clipping, C: 0.01}, Beta: 1, Eta: 1, Gamma: 1, P: 1, Local: Local{Kind: OneStep}}
	f, err := NewFedAvg(cfg, objs, []float64{5, 5, 5}, rng.New(2))
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if st := f.Step(); st.StepNorm > 0.01+1e-15 {
			t.Fatalf("clipped step of length %v > C", st.StepNorm)
		}
	}
}

func TestStepsDoNotAllocate(t *testing.T) {
	objs, _ := logRegClients(rng.Stream(10, "lr"), 4, 20, 5, 3)
	d := objs[0].NumParams()
	for _, cfg := range []Config{
		{Alpha: 0.01, Beta: 0.01, Gamma: 0.1, Eta: 0.01, P: 0.5, Sigma: 0.1, Local: Local{Kind: GDSteps, Steps: 3}},
		{Alpha: 0.01, Beta: 0.01, Gamma: 0.1, Eta: 0.01, P: 1, Local: Local{Kind: IncrementalGradient}, Server: PlainStep},
	} {
		a := newAlg(t, cfg, objs, d, 11)
		a.Step()
		if n := testing.AllocsPerRun(20, func() { a.Step() }); n != 0 {
			t.Errorf("%s: Step allocates %v times", cfg.Label(), n)
		}
	}
	f, err := NewFedAvg(AppendixA1(0.01, 0.01, 0.1, 0.2), objs, make([]float64, d), rng.New(3))
	if err != nil {
		t.Fatal(err)
	}
	f.Step()
	if n := testing.AllocsPerRun(20, func() { f.Step() }); n != 0 {
		t.Errorf("FedAvg Step allocates %v times", n)
	}
}

func TestNoiseFormulas(t *testing.T) {
	if got := ExperimentSigma(1, 1, 300, 8, 1e-5); !(math.Abs(got-7.346213) <= 1e-6) {
		t.Errorf("ExperimentSigma(1,1,300,8,1e-5) = %v, want 7.346213", got)
	}
	for _, p := range []float64{0.25, 0.5, 1} {
		for _, beta := range []float64{0.001, 0.01, 0.1} {
			e, th := ExperimentSigma(p, beta, 300, 8, 1e-5), TheorySigma(beta, p, 300, 8, 1e-5)
			if e != th {
				t.Errorf("experiment formula %v ≠ theory formula with c = β %v", e, th)
			}
			if c := TheoryConstant(e, p, 300, 8, 1e-5); !(math.Abs(c-beta) <= 1e-15) {
				t.Errorf("TheoryConstant = %v, want β = %v", c, beta)
			}
		}
	}
	for _, tc := range []struct{ p, want float64 }{{1, 0}, {0.5, 2}, {0.25, 6}} {
		if got := VarianceB(tc.p, 0); !(math.Abs(got-tc.want) <= 1e-12) {
			t.Errorf("sampling part of B at p = %v: %v, want %v", tc.p, got, tc.want)
		}
	}
}

// gradOnly is an Objective without components.
type gradOnly struct{}

func (gradOnly) NumParams() int              { return 1 }
func (gradOnly) Grad(x, g []float64) float64 { g[0] = x[0]; return x[0] * x[0] / 2 }
