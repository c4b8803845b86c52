package haar

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	goldenfs "github.com/fedrepro/fedrepro/golden"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// synth builds a reportWriter over synthetic results: for each entry the
// final accuracy (fraction) per seed and extra final metrics.
type synthRun struct {
	exp, level, model, method, figure, noisePer string
	sigma                                       float64
	acc                                         []float64
	final                                       runner.Metrics
}

func synthWriter(t *testing.T, exps []Experiment, runs []synthRun) *reportWriter {
	t.Helper()
	nums, err := paper.LoadNumbersFS(goldenfs.Papers, "haar")
	if err != nil {
		t.Fatal(err)
	}
	w := &reportWriter{ReportWriter: paper.ReportWriter[Spec, map[gkey]*group]{Spec: &Spec{Experiments: exps, Delta: 1e-5}, Nums: nums, Groups: map[gkey]*group{},
		Summary: &report.Summary{}}}
	for _, r := range runs {
		k := gkey{r.exp, "fashion_mnist", "sgd", r.method, r.sigma}
		g := &group{&paper.Group[RunConfig]{Config: RunConfig{Experiment: r.exp, Figure: r.figure, Level: r.level, Dataset: "fashion_mnist", Method: r.method, Sigma: r.sigma,
			Optimizer: "sgd", Model: r.model, Lot: 25, NoisePer: r.noisePer}}}
		for i, a := range r.acc {
			seed := uint64(i + 1)
			f := runner.Metrics{"acc": a, "eps": 10, "eps_claimed": 1}
			for m, v := range r.final {
				f[m] = v
			}
			g.Results = append(g.Results, &runner.Result{Run: runner.Run{Seed: seed}, Final: f})
		}
		w.Groups[k] = g
	}
	return w
}

// figExperiments are a primary LogReg experiment per level and an MLP
// stand-in on the same sample-level cells, on Fashion-MNIST.
func figExperiments() []Experiment {
	sig := []float64{1, 1.5, 3}
	return []Experiment{
		{ExperimentHeader: paper.ExperimentHeader{Name: "sample_level", Figure: "7-9"}, Level: "sample", Model: "logreg", Datasets: []string{"fashion_mnist"}, Sigmas: sig, Lot: 25},
		{ExperimentHeader: paper.ExperimentHeader{Name: "user_level", Figure: "10-12"}, Level: "user", Model: "logreg", Datasets: []string{"fashion_mnist"}, Sigmas: sig},
		{ExperimentHeader: paper.ExperimentHeader{Name: "sample_level_mlp", Figure: "7-9"}, Level: "sample", Model: "mlp", Datasets: []string{"fashion_mnist"}, Sigmas: sig, Lot: 25},
	}
}

// gainRuns are vanilla at 50 % and WAV at 50 % + gain points, 4 seeds.
func gainRuns(e Experiment, gains []float64) []synthRun {
	var out []synthRun
	for i, s := range e.Sigmas {
		g := gains[i] / 100
		out = append(out,
			synthRun{exp: e.Name, level: e.Level, model: e.Model, figure: e.Figure, method: "vanilla", sigma: s, acc: []float64{0.5, 0.51, 0.49, 0.5}},
			synthRun{exp: e.Name, level: e.Level, model: e.Model, figure: e.Figure, method: "wav", sigma: s, acc: []float64{0.5 + g, 0.51 + g, 0.49 + g, 0.5 + g}})
	}
	return out
}

var numRE = regexp.MustCompile(`-?\d+(\.\d+)?`)

// ints are the integers of a sentence, in order.
func ints(s string) []int {
	var out []int
	for _, m := range numRE.FindAllString(s, -1) {
		if n, err := strconv.Atoi(m); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// checkCalibration recomputes the opening sentence's counts from the
// groups, independently of wavComparison: for each of the paper's cells
// (level, σ) on Fashion-MNIST, the primary (first) experiment's WAV −
// vanilla gain; and it checks the sentence's eight counts.
func checkCalibration(w *reportWriter, sentence string) error {
	primary := map[string]string{}
	for _, e := range w.Spec.Experiments {
		if primary[e.Level] == "" {
			primary[e.Level] = e.Name
		}
	}
	var cells, wins, pCells, pWins, groups, grows, pGroups, pGrows int
	for _, e := range w.Spec.Experiments {
		if primary[e.Level] != e.Name {
			continue
		}
		var gs, ps []float64
		for _, s := range e.Sigmas {
			v, wv := w.get(e.Name, "fashion_mnist", "sgd", "vanilla", s), w.get(e.Name, "fashion_mnist", "sgd", "wav", s)
			d := wv.final("acc") - v.final("acc")
			cells++
			if d > 0 {
				wins++
			}
			gs = append(gs, d)
			if p, ok := w.paperGain(e.Level, "vanilla", "fashion_mnist", s); ok {
				pCells++
				if p > 0 {
					pWins++
				}
				ps = append(ps, p)
			}
		}
		groups++
		if increasing(gs) {
			grows++
		}
		pGroups++
		if increasing(ps) {
			pGrows++
		}
	}
	want := []int{wins, cells, pWins, pCells, grows, groups, pGrows, pGroups}
	got := ints(strings.SplitN(sentence, "Lemma 2)", 2)[1])
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("sentence counts %v, recomputed %v: %q", got, want, sentence)
	}
	return nil
}

// The opening sentence counts each paper cell once (the MLP stand-in is
// not counted against the paper a second time), and says separately how
// the MLP agrees; a planted flipped comparison is caught.
func TestCalibrationFinding(t *testing.T) {
	exps := figExperiments()
	var runs []synthRun
	runs = append(runs, gainRuns(exps[0], []float64{1, 2, 3})...)  // wins 3, grows
	runs = append(runs, gainRuns(exps[1], []float64{1, -1, 2})...) // wins 2, does not grow
	runs = append(runs, gainRuns(exps[2], []float64{-1, 1, 1})...) // MLP: wins 2
	w := synthWriter(t, exps, runs)
	w.wavComparison(&report.Doc{})
	st := w.wav
	if st.cells != 6 || st.paperCells != 6 {
		t.Fatalf("cells %d, paper cells %d: want 6 and 6 (each paper cell once)", st.cells, st.paperCells)
	}
	s := calibrationFinding(st)
	if err := checkCalibration(w, s); err != nil {
		t.Error(err)
	}
	if len(st.alt) != 1 {
		t.Fatalf("alt %+v", st.alt)
	}
	a := st.alt[0]
	if got, want := altFinding(a), "The MLP stand-in (sample_level_mlp, a second model on 3 of the same paper cells, not counted above) has WAV ahead of vanilla in 2 of 3; the sign of its gain agrees with the paper's in 2 of 3."; got != want {
		t.Errorf("altFinding = %q, want %q", got, want)
	}
	// Planted error: the comparison flipped (WAV "wins" where it loses).
	bad := st
	bad.wins = bad.cells - bad.wins
	if err := checkCalibration(w, calibrationFinding(bad)); err == nil {
		t.Error("a flipped win count passed the check")
	}
	// Planted error: the MLP cells counted against the paper again.
	bad = st
	bad.paperCells += a.paperCells
	bad.paperWins += a.paperCells
	if err := checkCalibration(w, calibrationFinding(bad)); err == nil {
		t.Error("paper cells counted twice passed the check")
	}
}

// The privacy figure carries the paper's stated ε (Table III's header,
// 1.64 at σ = 3 on Fashion-MNIST) at the sample level and NaN ("no ε
// stated") at the user level, never fedrepro's nominal ε.
func TestPrivacyFigure(t *testing.T) {
	exps := figExperiments()
	var runs []synthRun
	for _, e := range exps[:2] {
		runs = append(runs, gainRuns(e, []float64{1, 2, 3})...)
	}
	w := synthWriter(t, exps[:2], runs)
	for _, g := range w.Groups {
		for _, r := range g.Results {
			r.Final["eps_claimed"] = 1.482
		}
	}
	w.wavComparison(&report.Doc{})
	if len(w.wav.privacy) != 2 {
		t.Fatalf("privacy %+v", w.wav.privacy)
	}
	pe, ok := w.paperEps("fashion_mnist", 3)
	if !ok || pe != 1.64 {
		t.Fatalf("paper ε at σ = 3: %v %v", pe, ok)
	}
	for _, c := range []struct {
		i       int
		claimed float64
		text    string
	}{{0, pe, "σ = 3 — paper's Table III ε"}, {1, math.NaN(), "σ = 3 — paper states no ε"}} {
		p := w.wav.privacy[c.i]
		got := float64(p.Claimed)
		if !(got == c.claimed || math.IsNaN(got) && math.IsNaN(c.claimed)) || !strings.Contains(p.What, c.text) {
			t.Errorf("privacy[%d] = %+v, want claimed %v and %q", c.i, p, c.claimed, c.text)
		}
		if got == 1.482 {
			t.Errorf("privacy[%d] passes fedrepro's nominal ε off as the paper's", c.i)
		}
		if !strings.Contains(p.What, "fedrepro nominal 1.48") {
			t.Errorf("privacy[%d] lost the nominal ε: %q", c.i, p.What)
		}
	}
}

// The scope names the paper's figures of the runs present, not Figs 7–12.
func TestScopeFigures(t *testing.T) {
	exps := figExperiments()
	exps = append(exps, Experiment{ExperimentHeader: paper.ExperimentHeader{Name: "table3", Table: "III"}, Level: "sample", Model: "logreg"})
	var runs []synthRun
	for _, e := range exps[:3] {
		runs = append(runs, gainRuns(e, []float64{1, 2, 3})...)
	}
	runs = append(runs, synthRun{exp: "table3", level: "sample", model: "logreg", method: "wav", sigma: 1, acc: []float64{0.5}})
	w := synthWriter(t, exps, runs)
	w.Groups[gkey{"table3", "fashion_mnist", "sgd", "wav", 1}].Config.Table = "III"
	if got := w.scope(); !strings.HasPrefix(got, "Figs 8 and 11, Table III on Fashion-MNIST") {
		t.Errorf("scope = %q", got)
	}
	for _, c := range []struct {
		ns   []int
		want string
	}{{nil, ""}, {[]int{8}, "Fig 8"}, {[]int{11, 8, 8}, "Figs 8 and 11"}, {[]int{9, 7, 8}, "Figs 7, 8 and 9"}} {
		if got := figList(c.ns); got != c.want {
			t.Errorf("figList(%v) = %q, want %q", c.ns, got, c.want)
		}
	}
	for _, c := range []struct {
		level, ds string
		want      int
	}{{"sample", "mnist", 7}, {"sample", "fashion_mnist", 8}, {"sample", "cifar10", 9}, {"user", "mnist", 10}, {"user", "fashion_mnist", 11}, {"user", "cifar10", 12}} {
		if got, ok := paperFigure(c.level, c.ds); !ok || got != c.want {
			t.Errorf("paperFigure(%s, %s) = %d", c.level, c.ds, got)
		}
	}
}

// readingRuns: per-lot vanilla and WAV in sample_level, per-example WAV in
// sample_level_per_example, with noise std ×√25 = 5.
func readingRuns(lotGain, exGain []float64) ([]Experiment, []synthRun) {
	sig := []float64{1, 3}
	base := Experiment{ExperimentHeader: paper.ExperimentHeader{Name: "sample_level", Figure: "7-9"}, Level: "sample", Model: "logreg", Datasets: []string{"fashion_mnist"}, Sigmas: sig, Lot: 25}
	ex := Experiment{ExperimentHeader: paper.ExperimentHeader{Name: "sample_level_per_example"}, Level: "sample", Model: "logreg", Datasets: []string{"fashion_mnist"}, Sigmas: sig, Lot: 25, NoisePer: noisePerExample}
	var runs []synthRun
	for i, s := range sig {
		runs = append(runs,
			synthRun{exp: base.Name, level: "sample", model: "logreg", figure: base.Figure, method: "vanilla", sigma: s, acc: []float64{0.5, 0.5, 0.5, 0.5}, final: runner.Metrics{"noise_std": 0.1}},
			synthRun{exp: base.Name, level: "sample", model: "logreg", figure: base.Figure, method: "wav", sigma: s, acc: []float64{0.5 + lotGain[i]/100, 0.5 + lotGain[i]/100, 0.5 + lotGain[i]/100, 0.5 + lotGain[i]/100}, final: runner.Metrics{"noise_std": 0.01 * s, "eps": 100 * s}},
			synthRun{exp: ex.Name, level: "sample", model: "logreg", method: "wav", noisePer: noisePerExample, sigma: s, acc: []float64{0.5 + exGain[i]/100, 0.5 + exGain[i]/100, 0.5 + exGain[i]/100, 0.5 + exGain[i]/100}, final: runner.Metrics{"noise_std": 0.05 * s, "eps": 20 * s}})
	}
	return []Experiment{base, ex}, runs
}

// checkReading recomputes the readings sentence's counts: cells where the
// per-example gain is below the per-lot one, and where it is positive.
func checkReading(w *reportWriter, sentence string) error {
	var below, wins, cells int
	for _, s := range []float64{1, 3} {
		v := w.get("sample_level", "fashion_mnist", "sgd", "vanilla", s)
		l := w.get("sample_level", "fashion_mnist", "sgd", "wav", s)
		x := w.get("sample_level_per_example", "fashion_mnist", "sgd", "wav", s)
		gl, gx := l.final("acc")-v.final("acc"), x.final("acc")-v.final("acc")
		cells++
		if gx < gl {
			below++
		}
		if gx > 0 {
			wins++
		}
	}
	want := fmt.Sprintf("below the per-lot gain in %d of %d cells; WAV still ahead of vanilla in %d of %d", below, cells, wins, cells)
	if !strings.Contains(sentence, want) {
		return fmt.Errorf("%q lacks %q", sentence, want)
	}
	if !strings.Contains(sentence, "the noise std is 5 times") || !strings.Contains(sentence, "√L = 5") {
		return fmt.Errorf("%q: noise ratio not 5 = √25", sentence)
	}
	return nil
}

func TestReadingFinding(t *testing.T) {
	exps, runs := readingRuns([]float64{2, 4}, []float64{1, -1})
	w := synthWriter(t, exps, runs)
	w.readings(&report.Doc{})
	if len(w.read) != 1 {
		t.Fatalf("readings %+v", w.read)
	}
	st := w.read[0]
	s := readingFinding(st)
	if err := checkReading(w, s); err != nil {
		t.Error(err)
	}
	if !strings.Contains(s, "is 20, 60 against 100, 300 per lot") {
		t.Errorf("ε lists: %q", s)
	}
	// Planted error: the per-example/per-lot comparison flipped.
	bad := st
	bad.exBelowLot = bad.cells - bad.exBelowLot
	if err := checkReading(w, readingFinding(bad)); err == nil {
		t.Error("a flipped comparison passed the check")
	}
}

// fitRows builds table3-fit rows: per region, dataset and conversion, three
// σ rows sharing (q, T) and verdict flags.
func fitRows(spec map[string][][2]bool) audit.Table {
	var t audit.Table
	for _, reg := range []string{"any", "plausible"} {
		for i, f := range spec[reg] {
			for _, s := range Sigmas {
				t.Rows = append(t.Rows, audit.Row{"region": reg, "dataset": fmt.Sprintf("D%d", i), "conversion": "improved", "sigma": s,
					"fit_q": 0.5, "fit_steps": 2, "rel_error": 0.01 * float64(i+1) * map[bool]float64{true: 1, false: 10}[f[1]],
					"consistent": f[0], "within_5pct": f[1]})
			}
		}
	}
	return t
}

func TestFitSentence(t *testing.T) {
	tab := fitRows(map[string][][2]bool{
		"any":       {{false, true}, {false, false}},
		"plausible": {{false, false}, {false, false}},
	})
	s := fitSentence(table3FitCounts(tab))
	for _, want := range []string{"in 0 of 2 dataset × conversion fits anywhere (1 within 5 %: D0/improved q = 0.5, T = 2)",
		"and in 0 of 2 restricted to a plausible training configuration", "0 within 5 %, worst errors 10.0–20.0 %",
		"the 5 % fits need a configuration outside that range"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	// Planted error: a plausible fit flipped to within 5 %: the sentence
	// must no longer say the 5 % fits lie outside the range.
	tab = fitRows(map[string][][2]bool{
		"any":       {{false, true}, {false, false}},
		"plausible": {{false, true}, {false, false}},
	})
	if s := fitSentence(table3FitCounts(tab)); strings.Contains(s, "outside that range") || !strings.Contains(s, "1 within 5 %, worst") {
		t.Errorf("with a plausible 5 %% fit: %q", s)
	}
}

// The per-example mechanism: its noise law is B draws (σ·√B), its
// multiplier μ_lot·√b and its noise std √L times the per-lot one; the
// binomial quantile is the largest b with P(X < b) ≤ tail.
func TestPerExampleAccounting(t *testing.T) {
	for _, c := range []struct {
		n    int
		q    float64
		tail float64
		want int
	}{{10, 0.5, 1.5 / 1024, 1}, {10, 0.5, 0.9 / 1024, 0}, {10, 0.5, 12.0 / 1024, 2}, {0, 0.5, 0.1, 0}, {5, 1, 0.1, 5}} {
		if got := binomialLowerQuantile(c.n, c.q, c.tail); got != c.want {
			t.Errorf("binomialLowerQuantile(%d, %g, %g) = %d, want %d", c.n, c.q, c.tail, got, c.want)
		}
	}
	var g gaussMech
	p := newPerExample(&g, 500, 0.05, 400, 1e-5)
	// P(X < b) ≤ δ/(2T) < P(X < b+1), the pmf by its recursion.
	tail := 1e-5 / (2 * 400)
	pk, below := math.Pow(0.95, 499), 0.0
	for k := 0; k < p.others; k++ {
		below += pk
		pk *= float64(499-k) / float64(k+1) * 0.05 / 0.95
	}
	if !(below <= tail && below+pk > tail) {
		t.Errorf("b = %d for Binomial(499, 0.05): P(X < b) = %g, P(X ≤ b) = %g, tail %g", p.others, below, below+pk, tail)
	}
	if got, want := p.Multiplier(2, 10), 2*math.Sqrt(float64(p.others)); math.Abs(got-want) > 1e-12 {
		t.Errorf("multiplier %v, want %v", got, want)
	}
	if got := p.PerCoordinateStd(2, 10); math.Abs(got-2*5) > 1e-12 {
		t.Errorf("noise std %v, want 10 (√25 × 2)", got)
	}
	p.Lot(make([]float64, 3), make([][]float64, 9), 1, 2, 25, nil)
	if g.lastSigma != 6 {
		t.Errorf("a lot of 9 drew at σ %v, want 2·√9 = 6", g.lastSigma)
	}
}

// gaussMech is a stand-in mechanism whose multiplier and std are σ and
// which records the σ its Lot was asked for.
type gaussMech struct{ lastSigma float64 }

func (*gaussMech) Name() string                                           { return "test" }
func (*gaussMech) Norm(v []float64) float64                               { return 0 }
func (*gaussMech) Clip(v []float64, c float64) float64                    { return 1 }
func (*gaussMech) Release(v []float64, sens, sigma float64, r *rand.Rand) {}
func (*gaussMech) Multiplier(sigma float64, n int) float64                { return sigma }
func (*gaussMech) PerCoordinateStd(sigma float64, n int) float64          { return sigma }
func (g *gaussMech) Lot(dst []float64, grads [][]float64, c, sigma, denom float64, r *rand.Rand) {
	g.lastSigma = sigma
}
