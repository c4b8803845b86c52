package fedddpm

// Behavioural checks aimed at mutants gremlins left alive (issue 12,
// item 5): boundaries of every validation, the apportionment rules, the
// data generator's exact draws, the trainers' loops and return values.

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
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

// TestAuxSizesByHand: frac = 0.1 of sizes (15, 14, 6) gives q = (1.5, 1.4,
// 0.6); floors (1, 1, 0); the total round(3.5) = 4 needs two more units,
// which go to the largest remainders 0.6 (client 2) and 0.5 (client 0):
// (2, 1, 1). frac = 0 gives zeros; a negative size or fraction is an error.
func TestAuxSizesByHand(t *testing.T) {
	got, err := AuxSizes([]int{15, 14, 6}, 0.1)
	if err != nil || !equalInts(got, []int{2, 1, 1}) {
		t.Errorf("AuxSizes(15,14,6; 0.1) = %v (%v), want [2 1 1]", got, err)
	}
	// Ties go to the lower index: (5, 5) at 0.1 → q = 0.5 each, total 1.
	got, _ = AuxSizes([]int{5, 5}, 0.1)
	if !equalInts(got, []int{1, 0}) {
		t.Errorf("tie: %v, want [1 0]", got)
	}
	got, err = AuxSizes([]int{3, 7}, 0)
	if err != nil || !equalInts(got, []int{0, 0}) {
		t.Errorf("frac 0: %v (%v)", got, err)
	}
	_, err = AuxSizes([]int{3}, -1e-300)
	wantErr(t, "negative fraction", err, "aux fraction must be ≥ 0")
	_, err = AuxSizes([]int{3, -1}, 0.1)
	wantErr(t, "negative size", err, "client 1 has negative size -1")
}

// TestApportionByHand: 10 over weights (1, 2, 2): q = (2, 4, 4), exact.
// 7 over (1, 1, 1): q = 7/3 each, floors 2, one extra unit to client 0.
// 5 over (0.1, 0.45, 0.45): q = (0.5, 2.25, 2.25), floors (0, 2, 2), the
// extra unit to the largest remainder 0.5 → (1, 2, 2).
func TestApportionByHand(t *testing.T) {
	for _, tc := range []struct {
		total int
		w     []float64
		want  []int
	}{
		{10, []float64{1, 2, 2}, []int{2, 4, 4}},
		{7, []float64{1, 1, 1}, []int{3, 2, 2}},
		{5, []float64{0.1, 0.45, 0.45}, []int{1, 2, 2}},
		{8, []float64{0.45, 0.45, 0.1}, []int{4, 3, 1}}, // q = (3.6, 3.6, 0.8): +1 to 0.8, +1 to first 0.6
		{0, []float64{1, 1}, []int{0, 0}},
		{3, []float64{0, 0}, []int{0, 0}},
	} {
		if got := Apportion(tc.total, tc.w); !equalInts(got, tc.want) {
			t.Errorf("Apportion(%d, %v) = %v, want %v", tc.total, tc.w, got, tc.want)
		}
	}
}

func TestMixtureSpecBoundaries(t *testing.T) {
	ok := MixtureSpec{Components: 1, Dim: 2, Layout: Ring, Radius: 1, Std: 0.1}
	for _, tc := range []struct {
		name string
		mut  func(*MixtureSpec)
		want string
	}{
		{"one component", func(s *MixtureSpec) {}, ""},
		{"no component", func(s *MixtureSpec) { s.Components = 0 }, "needs ≥ 1 component, got 0"},
		{"ring dim 1", func(s *MixtureSpec) { s.Dim = 1 }, "ring layout needs dimension ≥ 2"},
		{"grid dim 1", func(s *MixtureSpec) { s.Dim, s.Layout = 1, Grid }, "grid layout needs dimension ≥ 2"},
		{"random dim 1", func(s *MixtureSpec) { s.Dim, s.Layout = 1, Random }, ""},
		{"random dim 0", func(s *MixtureSpec) { s.Dim, s.Layout = 0, Random }, "(random ≥ 1), got 0"},
		{"std 0", func(s *MixtureSpec) { s.Std = 0 }, "positive radius and std"},
		{"radius 0", func(s *MixtureSpec) { s.Radius = 0 }, "positive radius and std"},
		{"bad layout", func(s *MixtureSpec) { s.Layout = 7 }, "unknown layout layout(7)"},
		{"weights", func(s *MixtureSpec) { s.Components, s.Weights = 2, []float64{0, 3} }, ""},
		{"weights count", func(s *MixtureSpec) { s.Weights = []float64{1, 1} }, "2 weights for 1 components"},
		{"negative weight", func(s *MixtureSpec) { s.Components, s.Weights = 2, []float64{-1e-300, 1} }, "negative mixture weight"},
		{"zero weights", func(s *MixtureSpec) { s.Weights = []float64{0} }, "weights sum to 0"},
	} {
		s := ok
		tc.mut(&s)
		_, err := s.Mixture(rng.Stream(1, "mix"))
		wantErr(t, tc.name, err, tc.want)
	}
	if _, err := (MixtureSpec{Components: 2, Dim: 2, Layout: Random, Radius: 1, Std: 1}).Mixture(nil); err == nil {
		t.Error("random layout without a stream accepted")
	}
	g, _ := MixtureSpec{Components: 2, Dim: 2, Layout: Ring, Radius: 1, Std: 0.1, Weights: []float64{1, 3}}.Mixture(nil)
	if g.Weights[0] != 0.25 || g.Weights[1] != 0.75 {
		t.Errorf("weights normalised to %v, want [0.25 0.75]", g.Weights)
	}
	// Grid of 4: 2 columns, 2 rows, spacing 2, centred: (−1, −1), (1, −1), (−1, 1), (1, 1).
	g, _ = MixtureSpec{Components: 4, Dim: 2, Layout: Grid, Radius: 2, Std: 0.1}.Mixture(nil)
	for k, want := range [][]float64{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}} {
		nearVec(t, "grid mean", g.Means[k], want)
	}
	for _, l := range []struct {
		l    Layout
		want string
	}{{Ring, "ring"}, {Grid, "grid"}, {Random, "random"}, {Layout(9), "layout(9)"}} {
		if l.l.String() != l.want {
			t.Errorf("Layout %d String = %q", int(l.l), l.l.String())
		}
	}
}

// TestGenerateExactDraws recomputes Generate's draws: component k gives
// Apportion(m, w)[k] rows of μ_k + s_k·N(0,1) coordinates (drawn component
// by component, row by row), then a permutation of the rows from the same
// stream puts row perm[to] at position to.
func TestGenerateExactDraws(t *testing.T) {
	g := &diffusion.GaussianMixture{Means: [][]float64{{1, 2}, {-3, 0}}, Stds: []float64{0.5, 2}, Weights: []float64{0.5, 0.5}}
	ds, err := Generate(g, 4, rng.Stream(9, "gen"))
	if err != nil {
		t.Fatal(err)
	}
	r := rng.Stream(9, "gen")
	var x [][]float64
	var y []int
	for k := 0; k < 2; k++ {
		for j := 0; j < 2; j++ {
			row := []float64{g.Means[k][0] + g.Stds[k]*r.NormFloat64(), g.Means[k][1] + g.Stds[k]*r.NormFloat64()}
			x, y = append(x, row), append(y, k)
		}
	}
	perm := make([]int, 4)
	rng.Perm(r, perm)
	for to, from := range perm {
		nearVec(t, "generated row", ds.Row(to), x[from])
		if ds.Y[to] != y[from] {
			t.Errorf("row %d label %d, want %d", to, ds.Y[to], y[from])
		}
	}
	if ds.N != 4 || ds.D != 2 || ds.Classes != 2 {
		t.Errorf("shape %d×%d, %d classes", ds.N, ds.D, ds.Classes)
	}
	if _, err := Generate(g, -1, r); err == nil {
		t.Error("negative size accepted")
	}
	if d, err := Generate(g, 0, r); err != nil || d.N != 0 {
		t.Errorf("size 0: %v, %v", d, err)
	}
	bad := &diffusion.GaussianMixture{Means: [][]float64{{0}}, Stds: []float64{0}, Weights: []float64{1}}
	if _, err := Generate(bad, 3, r); err == nil {
		t.Error("invalid mixture accepted")
	}
}

func TestQuickTestValidateBoundaries(t *testing.T) {
	for _, tc := range []struct {
		c    QuickTestConfig
		want string
	}{
		{QuickTestConfig{Gamma: 1, Threshold: 0}, ""},
		{QuickTestConfig{Gamma: math.Nextafter(1, 2), Threshold: 0}, "γ must lie in (0,1]"},
		{QuickTestConfig{Gamma: 0, Threshold: 0}, "γ must lie in (0,1], got 0"},
		{QuickTestConfig{Gamma: 1e-300, Threshold: 1}, ""},
		{QuickTestConfig{Gamma: 0.5, Threshold: -1e-300}, "threshold must be ≥ 0"},
		{QuickTestConfig{Gamma: 0.5, Threshold: math.NaN()}, "threshold must be ≥ 0"},
	} {
		wantErr(t, "QuickTestConfig", tc.c.Validate(), tc.want)
	}
	if p := PaperQuickTest(); p.Gamma != 0.4 || p.Threshold != 0.2 || p.TestSize != 500 {
		t.Errorf("PaperQuickTest = %+v", p)
	}
	_, err := NewStopRule(1, QuickTestConfig{Gamma: 1})
	wantErr(t, "every 1", err, "")
	_, err = NewStopRule(0, QuickTestConfig{Gamma: 1})
	wantErr(t, "every 0", err, "QuickTest period must be ≥ 1, got 0")
	_, err = NewStopRule(1, QuickTestConfig{Gamma: 2})
	wantErr(t, "bad config", err, "γ must lie")
	for _, tc := range []struct {
		p    NeverFired
		want string
	}{{CorrectAtEnd, "correct-at-end"}, {NoCorrection, "no-correction"}, {NeverFired(4), "never-fired(4)"}} {
		if tc.p.String() != tc.want {
			t.Errorf("NeverFired String = %q, want %q", tc.p.String(), tc.want)
		}
	}
}

// TestStopRuleSchedule: Every = 3 scores rounds 0, 3, 6, …; with
// threshold 0.5 and scores 10, 20, 20.4 it fires at round 6; afterwards it
// reports true without scoring.
func TestStopRuleSchedule(t *testing.T) {
	r, _ := NewStopRule(3, QuickTestConfig{Gamma: 1, Threshold: 0.5})
	scores := []float64{10, 20, 20.4}
	calls := 0
	score := func() float64 { calls++; return scores[calls-1] }
	var fired []int
	for tr := 0; tr < 10; tr++ {
		if r.Observe(tr, score) {
			fired = append(fired, tr)
		}
		if tr == 5 && r.Fired() {
			t.Fatal("fired before round 6")
		}
	}
	if calls != 3 || r.StopRound != 6 || !r.Fired() || !equalInts(r.Rounds, []int{0, 3, 6}) || !equalInts(fired, []int{6, 7, 8, 9}) {
		t.Errorf("calls %d, StopRound %d, rounds %v, fired %v", calls, r.StopRound, r.Rounds, fired)
	}
	if len(r.Scores) != 3 || r.Scores[2] != 20.4 {
		t.Errorf("scores %v", r.Scores)
	}
}

func TestOptValidateBoundaries(t *testing.T) {
	for _, tc := range []struct {
		o    Opt
		want string
	}{
		{Opt{Kind: "sgd", LR: 0.1, Momentum: 0}, ""},
		{Opt{Kind: "sgd", LR: 0.1, Momentum: -1e-300}, "momentum"},
		{Opt{Kind: "sgd", LR: 0.1, Momentum: math.Nextafter(1, 0)}, ""},
		{Opt{Kind: "sgd", LR: 0.1, Momentum: 1}, "outside [0,1)"},
		{Opt{LR: math.Inf(1)}, "learning rate +Inf"},
		{Opt{LR: 1e-300}, ""},
		{Opt{Kind: "rmsprop", LR: 1}, `optimizer "rmsprop"`},
	} {
		wantErr(t, tc.o.String(), tc.o.Validate(), tc.want)
	}
	if s := (Opt{LR: 0.002}).String(); s != "adam(0.002)" {
		t.Errorf("String = %q", s)
	}
	if s := (Opt{Kind: "sgd", LR: 0.1}).String(); s != "sgd(0.1)" {
		t.Errorf("String = %q", s)
	}
}

// TestTrainerEpochsByHand: the mean estimator on rows (0, 0), (4, −2)
// (mean (2, −1)) with SGD lr 0.25 and one full batch per epoch from
// w = (2, 3): losses are ½·mean‖w − x‖²: at (2, 3): ½·(4+9 + 4+25)/2 = 10.5;
// after the step w = (2, 2): ½·(4+4 + 4+16)/2 = 7. The mean loss is 8.75;
// the second step (g = (0, 3)) ends at (2, 1.25).
func TestTrainerEpochsByHand(t *testing.T) {
	var tr Trainer
	p := []float64{2, 3}
	var steps []int64
	var losses []float64
	w, mean := tr.Epochs(meanModel{2}, p, pinAux(), Opt{Kind: "sgd", LR: 0.25}.New(), 2, 4, rng.Stream(1), func(s int64, l float64) {
		steps, losses = append(steps, s), append(losses, l)
	})
	if w != (Work{Steps: 2, SampleGrads: 4}) || !(math.Abs(mean-8.75) <= pinTol) {
		t.Errorf("work %+v, mean loss %v; want 2 steps, 4 sample gradients, 8.75", w, mean)
	}
	if len(steps) != 2 || steps[1] != 2 || !(math.Abs(losses[0]-10.5) <= pinTol) || !(math.Abs(losses[1]-7) <= pinTol) {
		t.Errorf("after-step calls %v %v", steps, losses)
	}
	nearVec(t, "w after 2 epochs", p, []float64{2, 1.25})
	// Batches of 1 over 2 rows: 2 steps per epoch.
	w, _ = tr.Epochs(meanModel{2}, p, pinAux(), Opt{Kind: "sgd", LR: 0.25}.New(), 1, 1, rng.Stream(1), nil)
	if w != (Work{Steps: 2, SampleGrads: 2}) {
		t.Errorf("batch 1: work %+v", w)
	}
	// Batch 0 is treated as 1; zero epochs or an empty set do nothing.
	w, _ = tr.Epochs(meanModel{2}, p, pinAux(), Opt{Kind: "sgd", LR: 0.25}.New(), 1, 0, rng.Stream(1), nil)
	if w.Steps != 2 {
		t.Errorf("batch 0: work %+v", w)
	}
	if w, l := tr.Epochs(meanModel{2}, p, pinAux(), Opt{Kind: "sgd", LR: 1}.New(), 0, 2, rng.Stream(1), nil); w.Steps != 0 || !math.IsNaN(l) {
		t.Errorf("0 epochs: work %+v loss %v", w, l)
	}
	if w, _ := tr.Epochs(meanModel{2}, p, &data.Dataset{D: 2}, Opt{Kind: "sgd", LR: 1}.New(), 1, 2, rng.Stream(1), nil); w.Steps != 0 {
		t.Errorf("empty set: work %+v", w)
	}
}

// TestWarmupAndCentralByHand: warmup from w_0 = 0 with SGD ζ = 0.5, W = 2
// full-batch epochs gives each client ¾ of its mean (as in the round pin):
// (1.5, 0.75) and (−1.5, 3). TrainCentral on A with lr 0.25 for 3 epochs:
// (2, −1) + (¾)³·((0, 0) − (2, −1)) = (2, −1)·(1 − 27/64) = (74/64, −37/64).
func TestWarmupAndCentralByHand(t *testing.T) {
	ws, work, err := Warmup(meanModel{2}, pinClients(), []float64{0, 0}, WarmupConfig{Opt: pinSGD, Epochs: 2, Batch: 2}, rng.New(1))
	if err != nil {
		t.Fatal(err)
	}
	nearVec(t, "warmup client 0", ws[0], []float64{1.5, 0.75})
	nearVec(t, "warmup client 1", ws[1], []float64{-1.5, 3})
	if work != (Work{Steps: 4, SampleGrads: 6}) {
		t.Errorf("warmup work %+v", work)
	}
	for _, tc := range []struct {
		cfg  WarmupConfig
		init []float64
		want string
	}{
		{WarmupConfig{Opt: pinSGD, Epochs: 1, Batch: 1}, []float64{0, 0}, ""},
		{WarmupConfig{Opt: pinSGD, Epochs: 0, Batch: 1}, []float64{0, 0}, "≥ 1 epoch and batch ≥ 1, got 0 and 1"},
		{WarmupConfig{Opt: pinSGD, Epochs: 1, Batch: 0}, []float64{0, 0}, "got 1 and 0"},
		{WarmupConfig{Opt: Opt{LR: 0}, Epochs: 1, Batch: 1}, []float64{0, 0}, "learning rate"},
		{WarmupConfig{Opt: pinSGD, Epochs: 1, Batch: 1}, []float64{0}, "initial model has 1 parameters, the model needs 2"},
	} {
		_, _, err := Warmup(meanModel{2}, pinClients(), tc.init, tc.cfg, rng.New(1))
		wantErr(t, "warmup config", err, tc.want)
	}
	p := []float64{0, 0}
	var epochs []int
	work, err = TrainCentral(meanModel{2}, p, pinAux(), Opt{Kind: "sgd", LR: 0.25}, 3, 4, rng.New(1), func(e int) { epochs = append(epochs, e) })
	if err != nil {
		t.Fatal(err)
	}
	nearVec(t, "central", p, []float64{74.0 / 64, -37.0 / 64})
	if work != (Work{Steps: 3, SampleGrads: 6}) || !equalInts(epochs, []int{1, 2, 3}) {
		t.Errorf("central work %+v, epochs %v", work, epochs)
	}
	if _, err := TrainCentral(meanModel{2}, p, pinAux(), Opt{}, 1, 4, rng.New(1), nil); err == nil {
		t.Error("TrainCentral with lr 0 accepted")
	}
	if w, err := TrainCentral(meanModel{2}, p, pinAux(), pinSGD, 2, 4, rng.New(1), nil); err != nil || w.Steps != 2 {
		t.Errorf("TrainCentral without callback: %+v %v", w, err)
	}
}

func TestCorrectionAndPlusValidation(t *testing.T) {
	good := Correction{Model: meanModel{2}, Aux: pinAux(), Opt: pinSGD, Epochs: 1, Batch: 1}
	for _, tc := range []struct {
		name string
		mut  func(*Correction)
		want string
	}{
		{"good", func(c *Correction) {}, ""},
		{"no model", func(c *Correction) { c.Model = nil }, "needs a model and a non-empty auxiliary set"},
		{"no aux", func(c *Correction) { c.Aux = nil }, "non-empty auxiliary set"},
		{"empty aux", func(c *Correction) { c.Aux = &data.Dataset{D: 2} }, "non-empty auxiliary set"},
		{"epochs 0", func(c *Correction) { c.Epochs = 0 }, "≥ 1 epoch and batch ≥ 1, got 0 and 1"},
		{"batch 0", func(c *Correction) { c.Batch = 0 }, "got 1 and 0"},
		{"bad opt", func(c *Correction) { c.Opt = Opt{Kind: "x", LR: 1} }, `optimizer "x"`},
	} {
		c := good
		tc.mut(&c)
		_, err := NewFedDDPM(Base{Opt: pinSGD}, c)
		wantErr(t, "NewFedDDPM "+tc.name, err, tc.want)
		rule, _ := NewStopRule(1, PaperQuickTest())
		_, err = NewFedDDPMPlus(Base{Opt: pinSGD}, c, rule, func([]float64, *rand.Rand) float64 { return 0 }, CorrectAtEnd)
		wantErr(t, "NewFedDDPMPlus "+tc.name, err, tc.want)
	}
	_, err := NewFedDDPMPlus(Base{Opt: pinSGD}, good, nil, func([]float64, *rand.Rand) float64 { return 0 }, CorrectAtEnd)
	wantErr(t, "no rule", err, "needs a stop rule and a score")
	rule, _ := NewStopRule(1, PaperQuickTest())
	_, err = NewFedDDPMPlus(Base{Opt: pinSGD}, good, rule, nil, CorrectAtEnd)
	wantErr(t, "no score", err, "needs a stop rule and a score")
	for _, tc := range []struct {
		s    string
		w    Weighting
		want string
	}{{"", Uniform, ""}, {"uniform", Uniform, ""}, {"size", BySize, ""}, {"mean", 0, `unknown aggregation weighting "mean"`}} {
		w, err := ParseWeighting(tc.s)
		wantErr(t, "ParseWeighting "+tc.s, err, tc.want)
		if err == nil && w != tc.w {
			t.Errorf("ParseWeighting(%q) = %v", tc.s, w)
		}
	}
	if Weighting(5).String() != "weighting(5)" || BySize.String() != "size" || Uniform.String() != "uniform" {
		t.Error("Weighting strings")
	}
	names := map[string]string{(&FedAvg{}).Name(): "fedavg", (&FedProx{}).Name(): "fedprox", (&Scaffold{}).Name(): "scaffold",
		(&MoFedSAM{}).Name(): "mofedsam", (&FedDDPM{}).Name(): "fedddpm", (&FedDDPMPlus{}).Name(): "fedddpm+"}
	for got, want := range names {
		if got != want {
			t.Errorf("Name %q, want %q", got, want)
		}
	}
}

// TestBuildAuxErrors checks BuildAux's error conditions exactly.
func TestBuildAuxErrors(t *testing.T) {
	s, _ := diffusion.ScaledLinear(50)
	smp := diffusion.NewSampler(s, diffusion.VarBeta)
	g2 := (&diffusion.GaussianMixture{Means: [][]float64{{0, 0}}, Stds: []float64{1}, Weights: []float64{1}}).Optimal(s)
	g3 := (&diffusion.GaussianMixture{Means: [][]float64{{0, 0, 0}}, Stds: []float64{1}, Weights: []float64{1}}).Optimal(s)
	_, err := BuildAux([]diffusion.Predictor{g2}, []int{1, 2}, smp, rng.New(1))
	wantErr(t, "count", err, "1 models but 2 aux sizes")
	_, err = BuildAux(nil, nil, smp, rng.New(1))
	wantErr(t, "none", err, "no client models")
	_, err = BuildAux([]diffusion.Predictor{g2, g3}, []int{1, 1}, smp, rng.New(1))
	wantErr(t, "dimension", err, "client 1 model has dimension 3, want 2")
	_, err = BuildAux([]diffusion.Predictor{g2, g2}, []int{1, -1}, smp, rng.New(1))
	wantErr(t, "negative", err, "client 1 has negative aux size -1")
	a, err := BuildAux([]diffusion.Predictor{g2, g2}, []int{0, 2}, smp, rng.New(1))
	if err != nil || a.N != 2 || len(a.X) != 4 || a.Y[0] != 1 || a.Classes != 2 {
		t.Errorf("aux with an empty client: %+v, %v", a, err)
	}
}

// TestFeatureNetValidationAndArgmax: TrainFeatureNet's preconditions, and
// Classes' first-largest-logit rule checked on a hand-built network.
func TestFeatureNetValidationAndArgmax(t *testing.T) {
	train := &data.Dataset{X: []float64{0, 1, 1, 0}, Y: []int{0, 1}, N: 2, D: 2, Classes: 2}
	ok := FeatureNetConfig{Hidden: []int{2}, Epochs: 1, Batch: 1, LR: 0.01}
	for _, tc := range []struct {
		name string
		cfg  FeatureNetConfig
		ds   *data.Dataset
		want string
	}{
		{"ok", ok, train, ""},
		{"no hidden", FeatureNetConfig{Epochs: 1, Batch: 1, LR: 1}, train, "needs hidden layers"},
		{"epochs 0", FeatureNetConfig{Hidden: []int{2}, Batch: 1, LR: 1}, train, "needs hidden layers"},
		{"batch 0", FeatureNetConfig{Hidden: []int{2}, Epochs: 1, LR: 1}, train, "needs hidden layers"},
		{"lr 0", FeatureNetConfig{Hidden: []int{2}, Epochs: 1, Batch: 1}, train, "lr > 0"},
		{"no data", ok, nil, "needs labelled training data"},
		{"empty", ok, &data.Dataset{D: 2, Classes: 2}, "needs labelled training data"},
		{"one class", ok, &data.Dataset{X: []float64{0, 1}, Y: []int{0}, N: 1, D: 2, Classes: 1}, "needs labelled training data"},
	} {
		_, err := TrainFeatureNet(tc.ds, nil, tc.cfg, rng.New(1))
		wantErr(t, tc.name, err, tc.want)
	}
	f, _ := TrainFeatureNet(train, nil, ok, rng.New(1))
	if !math.IsNaN(f.TestAccuracy) {
		t.Errorf("no test set: accuracy %v, want NaN", f.TestAccuracy)
	}
	f, _ = TrainFeatureNet(train, &data.Dataset{D: 2, Classes: 2}, ok, rng.New(1))
	if !math.IsNaN(f.TestAccuracy) {
		t.Errorf("empty test set: accuracy %v, want NaN", f.TestAccuracy)
	}
	f, _ = TrainFeatureNet(train, train, ok, rng.New(1))
	if math.IsNaN(f.TestAccuracy) {
		t.Error("test set given but no accuracy")
	}
	// Hand-built 2 → 2 → 3 net: hidden h = ReLU(x) (identity weights, zero
	// bias), logits (h_0, h_1, h_0): x = (1, 0) ties classes 0 and 2 → 0;
	// x = (0, 1) → 1; x = (−1, −1) gives h = 0, all logits equal (bias 0) → 0.
	m := model.NewMLP([]int{2, 2, 3}, 0, model.CrossEntropy)
	p := make([]float64, m.NumParams())
	w1, _ := m.Layer(p, 0)
	copy(w1, []float64{1, 0, 0, 1})
	w2, _ := m.Layer(p, 1)
	copy(w2, []float64{1, 0, 0, 1, 1, 0})
	fn := &FeatureNet{Net: m, Params: p}
	if fn.Dim() != 2 {
		t.Errorf("Dim = %d", fn.Dim())
	}
	nearVec(t, "features", fn.Features([]float64{2, -3}, 1), []float64{2, 0})
	if got := fn.Classes([]float64{1, 0, 0, 1, -1, -1}, 3); !equalInts(got, []int{0, 1, 0}) {
		t.Errorf("Classes = %v, want [0 1 0]", got)
	}
}

// TestRunRoundsWithoutStopper: a method that never stops runs every
// round and calls after with 0-based indices.
func TestRunRoundsWithoutStopper(t *testing.T) {
	e := pinEngine(t, &FedAvg{Base{Opt: pinSGD}})
	var seen []int
	if n := RunRounds(e, &FedAvg{}, 3, func(t int) { seen = append(seen, t) }); n != 3 || !equalInts(seen, []int{0, 1, 2}) {
		t.Errorf("ran %d, after %v", n, seen)
	}
	if n := RunRounds(e, &FedAvg{}, 0, nil); n != 0 {
		t.Errorf("0 rounds ran %d", n)
	}
}

// TestStopRuleFiresAtRoundZero: a rule resumed from a saved state (State
// is exported) can fire at round 0; it then reports Fired and keeps
// returning true without scoring again.
func TestStopRuleFiresAtRoundZero(t *testing.T) {
	r, _ := NewStopRule(1, QuickTestConfig{Gamma: 0.5, Threshold: 0.1})
	r.State = QuickTestState{AvgScore: 10, Set: true}
	calls := 0
	score := func() float64 { calls++; return 10 }
	if !r.Observe(0, score) || !r.Fired() || r.StopRound != 0 {
		t.Fatalf("did not fire at round 0: %+v", r)
	}
	if !r.Observe(1, score) || calls != 1 {
		t.Errorf("after firing: %d score calls, want 1", calls)
	}
}

// TestTrainerReusesBuffers: a second Epochs call of the same shape
// allocates nothing (the Trainer keeps its buffers).
func TestTrainerReusesBuffers(t *testing.T) {
	var tr Trainer
	var m model.Differentiable = meanModel{2}
	opt := pinSGD.New()
	p := []float64{0, 0}
	aux := pinAux()
	r := rng.Stream(3)
	if n := testing.AllocsPerRun(1, func() { tr.Epochs(m, p, aux, opt, 1, 2, r, nil) }); n != 0 {
		t.Errorf("second Epochs call allocates %v times", n)
	}
}
