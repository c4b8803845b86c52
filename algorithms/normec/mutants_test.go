package normec

// Behavioural checks written against the mutants gremlins left alive
// (issue 12, item 5): exact error conditions at their boundaries, the
// paths of the privacy functions, and small accessors. Expected values are
// derived in the comments or by plain formulas in the test.

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/mat"
)

func wantErr(t *testing.T, what string, err error, frag string) {
	t.Helper()
	if frag == "" {
		if err != nil {
			t.Errorf("%s: unexpected error %v", what, err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), frag) {
		t.Errorf("%s: error %v, want one mentioning %q", what, err, frag)
	}
}

func TestConfigValidateBoundaries(t *testing.T) {
	good := Config{Alpha: 0.01, Beta: 0.01, Gamma: 0.1, Eta: 0.1, P: 0.5}
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name string
		mut  func(*Config)
		want string // "" = accepted
	}{
		{"p = 1", func(c *Config) { c.P = 1 }, ""},
		{"p just above 1", func(c *Config) { c.P = math.Nextafter(1, 2) }, "participation probability p = "},
		{"p = 0", func(c *Config) { c.P = 0 }, "want 0 < p ≤ 1"},
		{"p tiny", func(c *Config) { c.P = 1e-300 }, ""},
		{"alpha = 0", func(c *Config) { c.Alpha = 0 }, ""},
		{"alpha below 0", func(c *Config) { c.Alpha = -1e-300 }, "alpha = "},
		{"alpha inf", func(c *Config) { c.Alpha = inf }, "a finite α ≥ 0"},
		{"alpha NaN", func(c *Config) { c.Alpha = nan }, "alpha"},
		{"beta tiny", func(c *Config) { c.Beta = 1e-300 }, ""},
		{"beta = 0", func(c *Config) { c.Beta = 0 }, "a finite β > 0"},
		{"beta inf", func(c *Config) { c.Beta = inf }, "beta = +Inf"},
		{"gamma tiny", func(c *Config) { c.Gamma = 1e-300 }, ""},
		{"gamma = 0", func(c *Config) { c.Gamma = 0 }, "a finite γ > 0"},
		{"gamma inf", func(c *Config) { c.Gamma = inf }, "gamma = +Inf"},
		{"eta tiny", func(c *Config) { c.Eta = 1e-300 }, ""},
		{"eta = 0", func(c *Config) { c.Eta = 0 }, "a finite η > 0"},
		{"eta inf", func(c *Config) { c.Eta = inf }, "eta = +Inf"},
		{"sigma = 0", func(c *Config) { c.Sigma = 0 }, ""},
		{"sigma below 0", func(c *Config) { c.Sigma = -1e-300 }, "a finite σ ≥ 0"},
		{"sigma inf", func(c *Config) { c.Sigma = inf }, "sigma = +Inf"},
		{"sigma NaN", func(c *Config) { c.Sigma = nan }, "sigma"},
		{"plain server", func(c *Config) { c.Server = PlainStep }, ""},
		{"bad server", func(c *Config) { c.Server = -1 }, "unknown server step -1"},
		{"participants", func(c *Config) { c.Memory = ParticipantsOnly }, ""},
		{"bad memory", func(c *Config) { c.Memory = 2 }, "unknown memory mode 2"},
		{"offset R = 0", func(c *Config) { c.Init = Init{Kind: InitOffset, R: 0} }, ""},
		{"offset R < 0", func(c *Config) { c.Init = Init{Kind: InitOffset, R: -1e-300} }, "initial offset R"},
		{"offset R inf", func(c *Config) { c.Init = Init{Kind: InitOffset, R: inf} }, "a finite R ≥ 0"},
		{"offset random", func(c *Config) { c.Init = Init{Kind: InitOffset, R: 1, Direction: RandomDirection} }, ""},
		{"offset bad direction", func(c *Config) { c.Init = Init{Kind: InitOffset, R: 1, Direction: 2} }, "unknown offset direction 2"},
		{"explicit", func(c *Config) { c.Init = Init{Kind: InitExplicit} }, ""},
		{"bad init", func(c *Config) { c.Init = Init{Kind: 3} }, "unknown init kind 3"},
	} {
		c := good
		tc.mut(&c)
		wantErr(t, tc.name, c.Validate(), tc.want)
	}
}

func TestFedAvgValidateBoundaries(t *testing.T) {
	good := AppendixA1(0.01, 0.01, 0.1, 0)
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		mut  func(*FedAvgConfig)
		want string
	}{
		{"p = 1", func(c *FedAvgConfig) { c.P = 1 }, ""},
		{"p above 1", func(c *FedAvgConfig) { c.P = math.Nextafter(1, 2) }, "fedavg participation probability p"},
		{"p = 0", func(c *FedAvgConfig) { c.P = 0 }, "want 0 < p ≤ 1"},
		{"beta = 0", func(c *FedAvgConfig) { c.Beta = 0 }, "fedavg beta"},
		{"beta tiny", func(c *FedAvgConfig) { c.Beta = 1e-300 }, ""},
		{"beta inf", func(c *FedAvgConfig) { c.Beta = inf }, "fedavg beta"},
		{"gamma = 0", func(c *FedAvgConfig) { c.Gamma = 0 }, "fedavg gamma"},
		{"gamma tiny", func(c *FedAvgConfig) { c.Gamma = 1e-300 }, ""},
		{"gamma inf", func(c *FedAvgConfig) { c.Gamma = inf }, "fedavg gamma"},
		{"eta = 0", func(c *FedAvgConfig) { c.Eta = 0 }, "fedavg eta"},
		{"eta tiny", func(c *FedAvgConfig) { c.Eta = 1e-300 }, ""},
		{"eta inf", func(c *FedAvgConfig) { c.Eta = inf }, "fedavg eta"},
		{"sigma = 0", func(c *FedAvgConfig) { c.Sigma = 0 }, ""},
		{"sigma < 0", func(c *FedAvgConfig) { c.Sigma = -1e-300 }, "fedavg sigma"},
		{"sigma inf", func(c *FedAvgConfig) { c.Sigma = inf }, "fedavg sigma"},
		{"alpha = 0", func(c *FedAvgConfig) { c.Psi.Alpha = 0 }, ""},
		{"alpha < 0", func(c *FedAvgConfig) { c.Psi.Alpha = -1e-300 }, "fedavg alpha"},
		{"alpha inf", func(c *FedAvgConfig) { c.Psi.Alpha = inf }, "fedavg alpha"},
		{"clip C tiny", func(c *FedAvgConfig) { c.Psi = Psi{Kind: Clipping, C: 1e-300} }, ""},
		{"clip C = 0", func(c *FedAvgConfig) { c.Psi = Psi{Kind: Clipping, C: 0} }, "clipping norm C"},
		{"clip C inf", func(c *FedAvgConfig) { c.Psi = Psi{Kind: Clipping, C: inf} }, "clipping norm C"},
		{"bad bounding", func(c *FedAvgConfig) { c.Psi = Psi{Kind: 5} }, "unknown bounding 5"},
		{"pseudo-gradient", func(c *FedAvgConfig) { c.Input = PseudoGradient }, ""},
		{"bad input", func(c *FedAvgConfig) { c.Input = 9 }, "unknown fedavg input 9"},
	} {
		c := good
		tc.mut(&c)
		wantErr(t, tc.name, c.Validate(), tc.want)
	}
}

func TestNewRejectsBadClients(t *testing.T) {
	cfg := Config{Alpha: 0.1, Beta: 0.1, Gamma: 1, Eta: 0.1, P: 1}
	one := []Objective{centred{a: 1, c: []float64{0, 0}}}
	_, err := New(cfg, nil, []float64{0, 0}, rng.New(1))
	wantErr(t, "no clients", err, "normec: no clients")
	_, err = New(cfg, one, nil, rng.New(1))
	wantErr(t, "empty x0", err, "empty model x0")
	_, err = New(cfg, []Objective{one[0], nil}, []float64{0, 0}, rng.New(1))
	wantErr(t, "nil objective", err, "client 1 has no objective")
	_, err = New(cfg, one, []float64{0, 0, 0}, rng.New(1))
	wantErr(t, "dimension", err, "client 0 has 2 parameters, x0 has 3")
	bad := cfg
	bad.Local = Local{Kind: GDSteps}
	_, err = New(bad, one, []float64{0, 0}, rng.New(1))
	wantErr(t, "local check", err, "client 0: normec: 0 local GD steps")
	bad = cfg
	bad.Beta = 0
	_, err = New(bad, one, []float64{0, 0}, rng.New(1))
	wantErr(t, "config", err, "beta")
	ex := cfg
	ex.Init = Init{Kind: InitExplicit, Offsets: [][]float64{{1, 0}, {0, 1}}}
	_, err = New(ex, one, []float64{0, 0}, rng.New(1))
	wantErr(t, "offset count", err, "2 explicit offsets for 1 clients")
	ex.Init.Offsets = [][]float64{{1, 0, 0}}
	_, err = New(ex, one, []float64{0, 0}, rng.New(1))
	wantErr(t, "offset length", err, "offset of client 0 has length 3, want 2")
	ex.Init.Offsets = [][]float64{{1, 0}}
	_, err = New(ex, one, []float64{0, 0}, rng.New(1))
	wantErr(t, "good explicit", err, "")

	fcfg := AppendixA1(0.1, 1, 1, 0)
	_, err = NewFedAvg(fcfg, nil, []float64{0, 0}, rng.New(1))
	wantErr(t, "fedavg no clients", err, "normec: no clients")
	_, err = NewFedAvg(fcfg, one, nil, rng.New(1))
	wantErr(t, "fedavg empty x0", err, "empty model x0")
	_, err = NewFedAvg(fcfg, []Objective{nil}, []float64{0, 0}, rng.New(1))
	wantErr(t, "fedavg nil objective", err, "client 0 has no objective")
	_, err = NewFedAvg(fcfg, one, []float64{0}, rng.New(1))
	wantErr(t, "fedavg dimension", err, "client 0 has 2 parameters, x0 has 1")
	fcfg.Local = Local{Kind: IncrementalGradient}
	_, err = NewFedAvg(fcfg, one, []float64{0, 0}, rng.New(1))
	wantErr(t, "fedavg local check", err, "client 0: normec: incremental gradient needs a Components objective")
}

// TestInitOffsetFirstAxis: v_i^0 = P_i(x^0) + (R, 0, …); with f_i =
// ½‖x − c_i‖² and x^0 = 0, P_i(x^0) = −c_i.
func TestInitOffsetFirstAxis(t *testing.T) {
	objs := []Objective{centred{a: 1, c: []float64{1, 2}}, centred{a: 1, c: []float64{-1, 0}}}
	cfg := Config{Alpha: 0.1, Beta: 0.1, Gamma: 1, Eta: 0.1, P: 1, Init: Init{Kind: InitOffset, R: 0.25}}
	a, err := New(cfg, objs, []float64{0, 0}, rng.New(3))
	if err != nil {
		t.Fatal(err)
	}
	nearVec(t, "v_1^0", a.V(0), []float64{-0.75, -2})
	nearVec(t, "v_2^0", a.V(1), []float64{1.25, 0})
	nearVec(t, "v̂^0", a.VHat(), []float64{0.25, -1})
	near(t, "InitialR", a.InitialR(), 0.25)
	if c := a.Counters(); c.Grads != 2 || c.LocalRuns != 0 {
		t.Errorf("initialisation counters %+v", c)
	}
	if a.Clients() != 2 || a.Dim() != 2 || a.Round() != 0 || a.Config().Init.R != 0.25 {
		t.Errorf("accessors: M=%d d=%d k=%d", a.Clients(), a.Dim(), a.Round())
	}
	if got, want := a.Label(), "fed-alpha-normec(server=normalized,memory=all,local=gd1)"; got != want {
		t.Errorf("Label = %q, want %q", got, want)
	}
}

func TestLocalCheckBoundaries(t *testing.T) {
	one := parts{{a: 1, c: []float64{0}}}
	wantErr(t, "GD T=1", Local{Kind: GDSteps, Steps: 1}.Check(one), "")
	wantErr(t, "GD T=0", Local{Kind: GDSteps, Steps: 0}.Check(one), "0 local GD steps (need ≥ 1)")
	wantErr(t, "IG one component", Local{Kind: IncrementalGradient}.Check(one), "")
	wantErr(t, "IG no component", Local{Kind: IncrementalGradient}.Check(parts{}), "no components")
	wantErr(t, "unknown kind", Local{Kind: 7}.Check(one), "unknown local operator kind 7")
	for _, tc := range []struct {
		l    Local
		want string
	}{{Local{Kind: OneStep}, "gd1"}, {Local{Kind: GDSteps, Steps: 5}, "gd(T=5)"}, {Local{Kind: IncrementalGradient}, "ig"}, {Local{Kind: 9}, "local(9)"}} {
		if got := tc.l.String(); got != tc.want {
			t.Errorf("String = %q, want %q", got, tc.want)
		}
	}
	mustPanic(t, "Pseudo unknown kind", func() {
		Local{Kind: 7}.Pseudo(one, []float64{0}, 1, make([]float64, 1), NewWorkspace(1))
	})
	mustPanic(t, "Path unknown kind", func() { Local{Kind: 7}.Path(one, []float64{0}, 1) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// TestObjectivesAdapters: ModelObjective's components are the rows of its
// data; MeanObjective averages its parts and rejects bad parts.
func TestObjectivesAdapters(t *testing.T) {
	// LogReg with 1 feature and 2 classes, p = 0: scores 0, softmax ½, so
	// the gradient of example (x, y) is ((½ − [y=0])x, (½ − [y=1])x, ½ − [y=0], ½ − [y=1]).
	lr := model.NewLogReg(1, 2, model.CrossEntropy)
	o := &ModelObjective{Model: lr, Data: model.Batch{X: []float64{2, -4, 6}, Y: []int{0, 1, 1}, N: 3, D: 1}}
	if o.NumComponents() != 3 || o.NumParams() != 4 {
		t.Fatalf("components %d params %d", o.NumComponents(), o.NumParams())
	}
	b := o.Example(2)
	if b.N != 1 || b.D != 1 || len(b.X) != 1 || b.X[0] != 6 || b.Y[0] != 1 {
		t.Errorf("Example(2) = %+v", b)
	}
	// Rows of two features: Example(1) is the second pair.
	o2 := &ModelObjective{Model: model.NewLogReg(2, 2, model.CrossEntropy), Data: model.Batch{X: []float64{1, 2, 3, 4, 5, 6}, Y: []int{1, 0, 1}, N: 3, D: 2}}
	if b := o2.Example(1); b.N != 1 || b.D != 2 || len(b.X) != 2 || b.X[0] != 3 || b.X[1] != 4 || b.Y[0] != 0 {
		t.Errorf("Example(1) of 2-feature rows = %+v", b)
	}
	if b := (&ModelObjective{Model: lr, Data: model.Batch{N: 2, D: 0}}).Example(1); b.X != nil || b.Y != nil {
		t.Errorf("Example of a data-free batch = %+v", b)
	}
	g := make([]float64, 4)
	o.ComponentGrad(1, make([]float64, 4), g)
	nearVec(t, "component 1 gradient", g, []float64{-2, 2, 0.5, -0.5})
	f := o.Grad(make([]float64, 4), g)
	near(t, "loss at 0", f, math.Ln2)
	// Rows: (2, y=0) → (−1, 1, −½, ½); (−4, y=1) → (−2, 2, ½, −½);
	// (6, y=1) → (3, −3, ½, −½). Mean: (0, 0, 1/6, −1/6).
	nearVec(t, "full gradient", g, []float64{0, 0, 1.0 / 6, -1.0 / 6})

	q1, _ := quad.New(mat.NewSymDense(2, []float64{1, 0, 0, 1}), []float64{1, 0}, 0) // ½‖x‖² − x_0
	q2, _ := quad.New(mat.NewSymDense(2, []float64{3, 0, 0, 1}), []float64{0, 2}, 1) // 3/2 x_0² + ½x_1² − 2x_1 + 1
	mo := NewMeanObjective(q1, q2)
	x := []float64{1, 1}
	fv := mo.Grad(x, g[:2])
	// f_1(1,1) = 1 − 1 = 0, f_2(1,1) = 1.5 + 0.5 − 2 + 1 = 1 → mean 0.5;
	// ∇f_1 = (0, 1), ∇f_2 = (3, −1) → mean (1.5, 0).
	near(t, "MeanObjective value", fv, 0.5)
	nearVec(t, "MeanObjective gradient", g[:2], []float64{1.5, 0})
	mo.ComponentGrad(1, x, g[:2])
	nearVec(t, "MeanObjective component 1", g[:2], []float64{3, -1})
	if mo.NumComponents() != 2 || mo.NumParams() != 2 {
		t.Errorf("MeanObjective sizes %d, %d", mo.NumComponents(), mo.NumParams())
	}
	mustPanic(t, "empty MeanObjective", func() { NewMeanObjective() })
	q3, _ := quad.New(mat.NewSymDense(1, []float64{1}), []float64{0}, 0)
	mustPanic(t, "ragged MeanObjective", func() { NewMeanObjective(q1, q3) })
}

func TestPsiAndLabels(t *testing.T) {
	// Clipping: u = (3, 4) (norm 5) to C = 2 → (1.2, 1.6); C = 10 leaves u.
	u := []float64{3, 4}
	n := Psi{Kind: Clipping, C: 2}.Apply(u)
	near(t, "returned norm", n, 5)
	nearVec(t, "clipped", u, []float64{1.2, 1.6})
	u = []float64{3, 4}
	Psi{Kind: Clipping, C: 10}.Apply(u)
	nearVec(t, "not clipped", u, []float64{3, 4})
	u = []float64{3, 4}
	Psi{Kind: SmoothNormalization, Alpha: 5}.Apply(u)
	nearVec(t, "normalized", u, []float64{0.3, 0.4})
	mustPanic(t, "unknown bounding", func() { Psi{Kind: 4}.Apply(u) })
	if s := (Psi{Kind: Clipping, C: 2.5}).Sensitivity(); s != 2.5 {
		t.Errorf("clip sensitivity %v", s)
	}
	if s := (Psi{Kind: SmoothNormalization, Alpha: 7}).Sensitivity(); s != 1 {
		t.Errorf("norm sensitivity %v", s)
	}
	for _, tc := range []struct{ got, want string }{
		{Psi{Kind: Clipping, C: 2.5}.String(), "clip(C=2.5)"},
		{Psi{Kind: SmoothNormalization, Alpha: 0.01}.String(), "norm(α=0.01)"},
		{PseudoGradient.String(), "pseudo-gradient"},
		{ModelDelta.String(), "model-delta"},
		{SmoothNormalization.String(), "norm"},
		{Clipping.String(), "clip"},
		{Bounding(3).String(), "bounding(3)"},
		{NormalizedStep.String(), "normalized"},
		{PlainStep.String(), "unnormalized"},
		{ServerStep(4).String(), "server-step(4)"},
		{AllClients.String(), "all"},
		{ParticipantsOnly.String(), "participants"},
		{MemoryMode(5).String(), "memory(5)"},
		{AppendixA1(0.01, 0.1, 0.1, 0).Label(), "dp-fedavg(psi=norm(α=0.01),input=model-delta,local=gd1)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	f, err := NewFedAvg(AppendixA1(0.01, 0.1, 0.1, 0), []Objective{centred{a: 1, c: []float64{0}}}, []float64{1}, rng.New(1))
	if err != nil {
		t.Fatal(err)
	}
	if f.Label() != f.Config().Label() || f.Config().Beta != 0.1 {
		t.Errorf("FedAvg accessors")
	}
	var calls int
	cfg := AppendixA1(0.01, 0.1, 0.1, 0)
	cfg.OnRound = func(*FedAvg, RoundStats) { calls++ }
	f, _ = NewFedAvg(cfg, []Objective{centred{a: 1, c: []float64{0}}}, []float64{1}, rng.New(1))
	if st := f.Run(3); st.Round != 2 || calls != 3 {
		t.Errorf("Run(3): last round %d, OnRound calls %d", st.Round, calls)
	}
	// AlphaNormEC: one local GD step, full participation, γ = 1.
	c := AlphaNormEC(0.1, 0.2, 0.3, 0.4, PlainStep, Init{Kind: InitOffset, R: 1})
	if c.Alpha != 0.1 || c.Beta != 0.2 || c.Eta != 0.3 || c.Sigma != 0.4 || c.Gamma != 1 || c.P != 1 ||
		c.Local.Kind != OneStep || c.Server != PlainStep || c.Init.R != 1 {
		t.Errorf("AlphaNormEC config %+v", c)
	}
}

func TestNormScaleEdges(t *testing.T) {
	if NormScale(0, 0) != 0 || NormOfNorm(0, 0) != 0 {
		t.Error("Norm_0(0) must be 0")
	}
	near(t, "NormScale(1, 3)", NormScale(1, 3), 0.25)
	near(t, "NormOfNorm(1, 3)", NormOfNorm(1, 3), 0.75)
	// EFResidual(α = 1, β = 2, t = 3) = |1 − 2/4|·3 = 1.5; β = 6: |1 − 6/4|·3 = 1.5.
	near(t, "EFResidual", EFResidual(1, 2, 3), 1.5)
	near(t, "EFResidual overshoot", EFResidual(1, 6, 3), 1.5)
	mustPanic(t, "NormTo length mismatch", func() { NormTo(make([]float64, 2), 1, make([]float64, 3)) })
}

// TestNoiseFormulasByHand: σ = c·p·√(K ln(1/δ))/ε with K = 100,
// δ = e^{−4} (ln(1/δ) = 4), ε = 2: √400 = 20, so σ = 10·c·p.
func TestNoiseFormulasByHand(t *testing.T) {
	delta := math.Exp(-4)
	near(t, "ExperimentSigma", ExperimentSigma(0.5, 0.3, 100, 2, delta), 10*0.5*0.3)
	near(t, "TheorySigma", TheorySigma(3, 0.25, 100, 2, delta), 10*3*0.25)
	near(t, "TheoryConstant", TheoryConstant(7.5, 0.25, 100, 2, delta), 3)
	// B = 2(p−1)²/p + 2(1−p) + 2·noise/p at p = 0.5, noise = 3:
	// 2·0.25/0.5 + 1 + 12 = 14.
	near(t, "VarianceB", VarianceB(0.5, 3), 14)
	near(t, "VarianceB p=1", VarianceB(1, 3), 6)
}

func TestCheckPrivacyArgsBoundaries(t *testing.T) {
	for _, tc := range []struct {
		p          float64
		rounds     int
		eps, delta float64
		want       string
	}{
		{1, 1, 1, 0.5, ""},
		{math.Nextafter(1, 2), 1, 1, 0.5, "sampling probability"},
		{0, 1, 1, 0.5, "want 0 < p ≤ 1"},
		{0.5, 0, 1, 0.5, "0 rounds, want ≥ 1"},
		{0.5, 1, 0, 0.5, "ε = 0"},
		{0.5, 1, 1e-300, 0.5, ""},
		{0.5, 1, math.Inf(1), 0.5, "finite ε > 0"},
		{0.5, 1, 1, 0, "δ = 0"},
		{0.5, 1, 1, 1, "want 0 < δ < 1"},
		{0.5, 1, 1, math.Nextafter(1, 0), ""},
		{0.5, 1, 1, 1e-300, ""},
	} {
		wantErr(t, "checkPrivacyArgs", checkPrivacyArgs(tc.p, tc.rounds, tc.eps, tc.delta), tc.want)
	}
}

func TestClientEventShape(t *testing.T) {
	e := ClientEvent(2, 1, 5).(accountant.SelfComposed)
	if g, ok := e.Event.(accountant.Gaussian); !ok || g.Sigma != 2 || e.Count != 5 {
		t.Errorf("p = 1: event %#v, want 5 × Gaussian(2)", e)
	}
	e = ClientEvent(2, 0.25, 7).(accountant.SelfComposed)
	if s, ok := e.Event.(accountant.PoissonSampled); !ok || s.Q != 0.25 || e.Count != 7 || s.Event != (accountant.Gaussian{Sigma: 2}) {
		t.Errorf("p < 1: event %#v, want 7 × PoissonSampled(0.25, Gaussian(2))", e)
	}
}

// gaussDelta is the exact δ(ε) of the Gaussian mechanism with sensitivity
// 1 and noise s (μ = 1/s): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).
func gaussDelta(s, eps float64) float64 {
	mu := 1 / s
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return phi(-eps/mu+mu/2) - math.Exp(eps)*phi(-eps/mu-mu/2)
}

// epsOfCurve inverts a decreasing δ(ε) by bisection.
func epsOfCurve(curve func(float64) float64, delta float64) float64 {
	lo, hi := 0.0, 1.0
	for curve(hi) > delta {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if curve(mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// TestPrivacyCurvesIndependently recomputes ExactCompositionEpsilon and
// EpsilonVisibleParticipation from the Gaussian curve written out above
// (relative tolerance 1e-9: both sides solve δ(ε) = δ numerically).
func TestPrivacyCurvesIndependently(t *testing.T) {
	const delta = 1e-5
	for _, tc := range []struct {
		nb    accountant.Neighbouring
		scale float64
	}{{accountant.AddRemove, 1}, {accountant.ReplaceOne, 0.5}} {
		// K = 4 rounds of σ = 3: μ = √4/σ_eff.
		got, err := ExactCompositionEpsilon(3, 4, delta, tc.nb)
		if err != nil {
			t.Fatal(err)
		}
		want := epsOfCurve(func(e float64) float64 { return gaussDelta(3*tc.scale/2, e) }, delta)
		if !(math.Abs(got-want) <= 1e-9*want) {
			t.Errorf("%v: ExactCompositionEpsilon = %v, want %v", tc.nb, got, want)
		}
		// Visible participation, K = 3, p = 0.4, σ = 2: mixture over
		// n ~ Binomial(3, 0.4) of n-fold compositions (σ_eff/√n).
		w := []float64{0.6 * 0.6 * 0.6, 3 * 0.4 * 0.6 * 0.6, 3 * 0.4 * 0.4 * 0.6, 0.4 * 0.4 * 0.4}
		mix := func(e float64) float64 {
			var d float64
			for n := 1; n <= 3; n++ {
				d += w[n] * gaussDelta(2*tc.scale/math.Sqrt(float64(n)), e)
			}
			return d
		}
		got, err = EpsilonVisibleParticipation(2, 0.4, 3, delta, tc.nb)
		if err != nil {
			t.Fatal(err)
		}
		want = epsOfCurve(mix, delta)
		if !(math.Abs(got-want) <= 1e-9*want) {
			t.Errorf("%v: EpsilonVisibleParticipation = %v, want %v", tc.nb, got, want)
		}
	}
	// A curve that starts below δ: ε = 0.
	if e, err := EpsilonVisibleParticipation(100, 0.5, 2, 0.5, accountant.AddRemove); err != nil || e != 0 {
		t.Errorf("δ above δ(0): ε = %v (%v), want 0", e, err)
	}
	if e, err := EpsilonVisibleParticipation(0, 0.5, 2, 1e-5, accountant.AddRemove); err == nil || !math.IsInf(e, 1) || !strings.Contains(err.Error(), "σ = 0: want a finite σ > 0") {
		t.Errorf("σ = 0: ε = %v, err %v; want +Inf and an error", e, err)
	}
	if _, err := EpsilonVisibleParticipation(1, 0, 2, 1e-5, accountant.AddRemove); err == nil {
		t.Error("p = 0 accepted")
	}
	if e, err := EpsilonVisibleParticipation(1e-9, 1, 1, 1e-5, accountant.AddRemove); err == nil || !math.IsInf(e, 1) {
		t.Errorf("σ = 1e-9: ε = %v, err %v; want no ε below 1e15", e, err)
	}
}

func TestEpsilonIntervalPaths(t *testing.T) {
	// RDP reports no interval; PLD reports the default 1e-4 it used.
	e, used, err := EpsilonInterval(2, 1, 1, 1e-5, accountant.AddRemove, accountant.KindRDP, 0)
	if err != nil || used != 0 || !(e > 0) {
		t.Errorf("RDP: ε = %v, interval %v, err %v", e, used, err)
	}
	e, used, err = EpsilonInterval(2, 1, 1, 1e-5, accountant.AddRemove, accountant.KindPLD, 0)
	if err != nil || used != 1e-4 {
		t.Errorf("PLD: ε = %v, interval %v, err %v; want interval 1e-4", e, used, err)
	}
	// One round without sampling is the Gaussian mechanism: ε is its exact ε.
	want := epsOfCurve(func(x float64) float64 { return gaussDelta(2, x) }, 1e-5)
	if !(math.Abs(e-want) <= 1e-3*want) {
		t.Errorf("PLD ε = %v, exact Gaussian %v", e, want)
	}
	if _, _, err := EpsilonInterval(2, 0.5, 1, 1e-5, accountant.ReplaceOne, accountant.KindRDP, 0); !errors.Is(err, ErrNoBound) {
		t.Errorf("RDP replace-one sampled: %v, want ErrNoBound", err)
	}
	if _, _, err := EpsilonInterval(2, 1, 0, 1e-5, accountant.AddRemove, accountant.KindRDP, 0); err == nil {
		t.Error("0 rounds accepted")
	}
	if eps, err := Epsilon(2, 1, 1, 1e-5, accountant.AddRemove, accountant.KindRDP); err != nil || !(eps > want) {
		t.Errorf("RDP ε = %v (%v) should exceed the exact %v", eps, err, want)
	}
}

func TestCalibrationPaths(t *testing.T) {
	if _, err := CalibratedSigmaVisibleParticipation(0.5, 1, 0, 1e-5, accountant.AddRemove); err == nil {
		t.Error("ε = 0 accepted")
	}
	// No σ ≤ 1e6 reaches (ε, δ) = (1e-9, 1e-12) in one full-participation
	// round: δ(0) = 2Φ(1/(2σ)) − 1 ≈ 0.4/σ needs σ ≈ 4·10¹¹.
	if s, err := CalibratedSigmaVisibleParticipation(1, 1, 1e-9, 1e-12, accountant.AddRemove); err == nil || !math.IsNaN(s) {
		t.Errorf("unreachable target: σ = %v, err %v", s, err)
	}
	// One full-participation round: the calibrated σ is the Gaussian
	// mechanism's σ for (ε, δ) = (1, 1e-5), tight to 1e-9 relative.
	s, err := CalibratedSigmaVisibleParticipation(1, 1, 1, 1e-5, accountant.AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	if d := gaussDelta(s, 1); d > 1e-5*(1+1e-6) || gaussDelta(s*(1-1e-7), 1) <= 1e-5 {
		t.Errorf("σ = %v: δ(1) = %v, not the smallest σ meeting 1e-5", s, d)
	}
	if _, err := CalibratedSigma(0.5, 10, 1, 0, accountant.AddRemove, accountant.KindRDP); err == nil {
		t.Error("δ = 0 accepted")
	}
	if s, err := CalibratedSigma(0.5, 10, 1, 1e-5, accountant.ReplaceOne, accountant.KindRDP); !errors.Is(err, ErrNoBound) || !math.IsNaN(s) {
		t.Errorf("RDP replace-one sampled: σ = %v, err %v", s, err)
	}
}
