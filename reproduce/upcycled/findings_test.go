package upcycled

import (
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/golden"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// A table is judged by its fixed-hyper-parameter comparison on the released
// data in upstream mode, with the tuned one of the same data and mode beside
// it, whatever order the sections ran in.
func TestPrimaryOutcome(t *testing.T) {
	w := &reportWriter{outcomes: []tableOutcome{
		{table: "1", source: "generated", mode: "upstream", wins: 1},
		{table: "1", tuned: true, source: "released", mode: "upstream", wins: 2},
		{table: "1", source: "released", mode: "paper", wins: 3},
		{table: "1", source: "released", mode: "upstream", wins: 4},
		{table: "3", source: "generated", mode: "paper", wins: 5},
	}}
	m, tu := w.primary("1")
	if m == nil || m.wins != 4 || tu == nil || tu.wins != 2 {
		t.Errorf("table 1: primary %+v, tuned %+v", m, tu)
	}
	if m, tu := w.primary("3"); m == nil || m.wins != 5 || tu != nil {
		t.Errorf("table 3: primary %+v, tuned %+v", m, tu)
	}
	if m, _ := w.primary("5"); m != nil {
		t.Errorf("table 5: %+v", m)
	}
}

func TestAttribText(t *testing.T) {
	got := attribText(map[string]int{"both": 3, "authors' code": 2, "neither": 1})
	want := "of 6 cells, 3 agree with the paper and the released code, 2 agree with the released code only, 1 agree with neither"
	if got != want {
		t.Errorf("attribText = %q, want %q", got, want)
	}
	// Every verdict the attribution table writes has a reading.
	for _, v := range []string{"both", "paper", "paper only", "authors' code", "authors' code within noise (unstable)", "neither", "not the paper (code not run)"} {
		if s := attribText(map[string]int{v: 1}); !strings.HasPrefix(s, "of 1 cells, 1 ") {
			t.Errorf("verdict %q: %q", v, s)
		}
	}
}

// The data-gap sentence says the draw explains a gap only when the
// centralised reference moves with the tables (same sign, within 3 points);
// a planted reference that moves the other way is reported as unexplained.
func TestDataGapSentence(t *testing.T) {
	mk := func(ds string, flRel, flGen, refRel, refGen float64) dataGapRow {
		return dataGapRow{Dataset: ds, FLReleased: flRel, FLGen: flGen, FLCells: 14,
			Released: dataProfile{Centralised: refRel}, Gen: dataProfile{Centralised: refGen}}
	}
	rows := []dataGapRow{
		mk("syn_iid", 98, 99, 0.97, 0.976),          // no big gap: not listed
		mk("syn_0.5_0.5", 81.3, 91.4, 0.831, 0.943), // +10.1 vs +11.2
		mk("syn_1_1", 79.0, 91.0, 0.820, 0.936),     // +12.0 vs +11.6
	}
	s := dataGapSentence(rows)
	for _, want := range []string{"Syn(0.5,0.5) (tables +10.1, centralised reference +11.2 points)", "Syn(1,1) (tables +12.0, centralised reference +11.6 points)", "the gap is the data's"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Syn(iid)") {
		t.Errorf("a 1-point gap is listed:\n%s", s)
	}
	// Planted error: the reference moves the other way on one dataset.
	rows[2].Gen.Centralised = 0.70
	s = dataGapSentence(rows)
	if strings.Contains(s, "the gap is the data's") || !strings.Contains(s, "moves with them on Syn(0.5,0.5) only") {
		t.Errorf("a contrary reference still explains the gap:\n%s", s)
	}
	rows[1].Gen.Centralised = 0.70
	if s := dataGapSentence(rows); !strings.Contains(s, "does not explain") {
		t.Errorf("no row explained, sentence:\n%s", s)
	}
	if s := dataGapSentence(rows[:1]); !strings.HasPrefix(s, "No dataset") {
		t.Errorf("no gap above 5 points, sentence:\n%s", s)
	}
}

// The equal-ε sentence calls both arms destroyed only when no arm beats the
// constant predictor by more than 2 points, and quotes its own numbers.
func TestEqualEpsSentence(t *testing.T) {
	o := equalEpsOutcome{mode: "paper", eps: 1.59, delta: 1e-5, stdBase: 438.3, stdUp: 309.9, tau: 10, lower: 1, cells: 2,
		accLo: 55.1, accHi: 59.3, majority: 58.0, aboveMajority: 0, arms: 4}
	s := o.sentence()
	for _, want := range []string{"(1.59, 1e-05), paper mode", "438 (baseline) and 310 (Upcycled)", "in 1 of 2 cells", "55.1–59.3% against 58.0%", "destroys both arms"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence lacks %q:\n%s", want, s)
		}
	}
	// Planted error: an arm that learned must not be called destroyed.
	o.aboveMajority, o.accHi = 1, 90
	if s := o.sentence(); strings.Contains(s, "destroys") || !strings.Contains(s, "1 of 4 arms beat it") {
		t.Errorf("an arm at 90%% is called destroyed:\n%s", s)
	}
	o.aboveMajority = 4
	if s := o.sentence(); !strings.Contains(s, "every arm beats it") {
		t.Errorf("all arms learned:\n%s", s)
	}
}

// The private finding counts each implementation mode on its own: the two
// modes' counts appear separately and their pooled sum nowhere.
func TestPrivateFindingCountsModesSeparately(t *testing.T) {
	w := &reportWriter{private: []privateOutcome{
		{privacy: "output", mode: "paper", lower: 10, cells: 24},
		{privacy: "output", mode: "upstream", lower: 16, cells: 25},
		{privacy: "objective", mode: "paper", lower: 20, cells: 24},
		{privacy: "objective", mode: "upstream", lower: 18, cells: 24},
	}}
	s := w.privateFinding()
	for _, want := range []string{"10 of 24 output-perturbation cells in paper mode", "16 of 25 output-perturbation cells in upstream mode", "20 of 24 objective-perturbation cells in paper mode", "18 of 24 objective-perturbation cells in upstream mode"} {
		if !strings.Contains(s, want) {
			t.Errorf("finding lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "26 of 49") || strings.Contains(s, "38 of 48") {
		t.Errorf("finding pools the modes:\n%s", s)
	}
	// The ε both arms spend at least comes from the audit's rows of the
	// released mechanism (other sensitivities ignored).
	w.auditTables = []audit.Table{{ID: auditMechanismID, Rows: []audit.Row{
		{"std_mode": stdReleased, "variant": "baseline", "sensitivity": sensReleased, "eps_exact": 16762.0},
		{"std_mode": stdReleased, "variant": "upcycled", "sensitivity": sensReleased, "eps_exact": 20373.0},
		{"std_mode": "paper_sigma", "variant": "baseline", "sensitivity": sensReleased, "eps_exact": 418000.0},
		{"std_mode": stdReleased, "variant": "baseline", "sensitivity": sensPaperAddOne, "eps_exact": 3.5},
	}}}
	if s := w.privateFinding(); !strings.Contains(s, "spends ε ≥ 16762") {
		t.Errorf("least ε not from the released mechanism's rows:\n%s", s)
	}
	h := w.headline(nil)
	n := 0
	for _, r := range h.Relations {
		if strings.Contains(r.Name, "lower loss") {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d private relations in the headline, want one per mechanism and mode", n)
	}
}

// Cells of a generated draw carry Δ but no agreement mark and are not
// counted; the released data's are marked and counted. The planted check:
// the same numbers under the released source do get marks.
func TestGeneratedCellsAreNotMarked(t *testing.T) {
	nums, err := paper.LoadNumbersFS(golden.Papers, "upcycled")
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := nums.Table("1")
	exp := &Experiment{ExperimentHeader: paper.ExperimentHeader{Name: "table1", Table: "1"}, Privacy: "none", Model: "logreg", Datasets: []string{"syn_0.5_0.5"},
		Sources: []string{"released", "generated"}, Methods: []string{"fedavg"}, Modes: []string{"upstream"}}
	mk := func(acc ...float64) *group {
		g := &group{&paper.Group[RunConfig]{}}
		for i, a := range acc {
			g.Results = append(g.Results, &runner.Result{Run: runner.Run{Seed: uint64(i + 1)}, Final: runner.Metrics{"acc": a, "loss": 1}})
		}
		return g
	}
	for _, so := range []string{"generated", "released"} {
		w := &reportWriter{ReportWriter: paper.ReportWriter[Spec, map[gkey]*group]{Groups: map[gkey]*group{
			{"table1", so, "syn_0.5_0.5", "fedavg", "baseline", "upstream"}: mk(0.91, 0.915, 0.912, 0.918),
			{"table1", so, "syn_0.5_0.5", "fedavg", "upcycled", "upstream"}: mk(0.92, 0.921, 0.919, 0.925),
		}, Summary: &report.Summary{}}}
		doc := &report.Doc{}
		line, ok := w.fixedTable(doc, "1", pt, exp, so, "upstream", 1, 1)
		if !ok {
			t.Fatalf("%s: no table", so)
		}
		text := doc.String()
		marked := strings.ContainsAny(text, "✓≈✗")
		o := w.outcomes[0]
		switch so {
		case "generated":
			if marked || o.marks.compared != 0 || !strings.Contains(line, "different data") {
				t.Errorf("generated data marked (%d compared):\n%s", o.marks.compared, text)
			}
			if o.wins != 1 || o.cells != 1 {
				t.Errorf("generated data: wins %d/%d, want 1/1 (wins are still counted)", o.wins, o.cells)
			}
		case "released":
			if !marked || o.marks.compared != 2 {
				t.Errorf("released data not marked (%d compared):\n%s", o.marks.compared, text)
			}
		}
	}
}

// The calibrated noise really gives the target ε (within the calibration's
// precision, never above it), Upcycled's arm leaks in half the rounds and so
// needs √2 less noise, and upstream mode's σ is the square root of the std.
func TestCalibrateEqualEps(t *testing.T) {
	for _, tc := range []struct {
		eps  float64
		iter int
	}{{1.59, 80}, {100, 80}, {8, 7}} {
		b, err := CalibrateEqualEps(tc.eps, 1e-5, 10, tc.iter, false, "paper")
		if err != nil {
			t.Fatal(err)
		}
		u, err := CalibrateEqualEps(tc.eps, 1e-5, 10, tc.iter, true, "upstream")
		if err != nil {
			t.Fatal(err)
		}
		if b.Rounds != tc.iter || u.Rounds != (tc.iter+1)/2 {
			t.Errorf("rounds %d/%d for %d iterations", b.Rounds, u.Rounds, tc.iter)
		}
		for _, c := range []EqualEpsCalibration{b, u} {
			// Independent check: k compositions of the Gaussian mechanism
			// with multiplier z are one with z/√k.
			e, err := accountantGaussianEps(c.Multiplier/math.Sqrt(float64(c.Rounds)), 1e-5)
			if err != nil {
				t.Fatal(err)
			}
			if e > tc.eps*(1+1e-9) || e < tc.eps*(1-1e-3) {
				t.Errorf("ε %g at the calibrated noise, target %g", e, tc.eps)
			}
			if math.Abs(c.Std-20*c.Multiplier) > 1e-9*c.Std {
				t.Errorf("std %g, multiplier %g: sensitivity is not 2τ", c.Std, c.Multiplier)
			}
		}
		if b.Sigma != b.Std || math.Abs(u.Sigma*u.Sigma-u.Std) > 1e-9*u.Std {
			t.Errorf("σ readings: paper %g (std %g), upstream %g (std %g)", b.Sigma, b.Std, u.Sigma, u.Std)
		}
		want := math.Sqrt(float64(b.Rounds) / float64(u.Rounds))
		if r := b.Std / u.Std; math.Abs(r-want) > 2e-3*want {
			t.Errorf("std ratio %g, want √(k_b/k_u) = %g", r, want)
		}
	}
	if _, err := CalibrateEqualEps(1, 1e-5, 0, 80, false, "paper"); err == nil {
		t.Error("τ = 0 calibrated")
	}
}

// Every method of a figure gets its own colour: the palette has a colour
// per method of methodOrder, methodPanels numbers the methods drawn in
// order (baseline dashed and Upcycled solid in the same colour), and the
// panels are saved without a colour conflict.
func TestPanelColoursAreUnique(t *testing.T) {
	if len(report.Palette) < len(methodOrder) {
		t.Fatalf("palette of %d colours for %d methods", len(report.Palette), len(methodOrder))
	}
	g := &group{&paper.Group[RunConfig]{Results: []*runner.Result{{Rounds: []runner.Metrics{{"t": 0, "loss": 1}, {"t": 1, "loss": 0.5}}}}}}
	panels := methodPanels(func(m, v string) *group {
		if m == "fedavg" || m == "fedyogi" || m == "scaffold" {
			return g
		}
		return nil
	}, func(string) func(runner.Metrics) float64 { return func(m runner.Metrics) float64 { return m["t"] } })
	if len(panels) != 3 {
		t.Fatalf("%d panels, want 3", len(panels))
	}
	for i, p := range panels {
		if len(p.Series) != 2 || p.Series[0].Color != i || p.Series[1].Color != i || !p.Series[0].Dashed || p.Series[1].Dashed {
			t.Errorf("panel %d (%s): %+v", i, p.Title, p.Series)
		}
	}
	if err := savePanels("t", panels, t.TempDir()+"/f"); err != nil {
		t.Error(err)
	}
}

// The mode finding names the implementation whose cells agree more often
// with the printed ones, with its counts; a planted swap of the counts
// swaps the verdict.
func TestModeFinding(t *testing.T) {
	mc := func(agree, close, off int) markCounts {
		return markCounts{agree: agree, close: close, off: off, compared: agree + close + off}
	}
	w := &reportWriter{outcomes: []tableOutcome{
		{table: "1", source: "released", mode: "upstream", wins: 19, cells: 28, marks: mc(25, 6, 25)},
		{table: "1", source: "released", mode: "paper", wins: 13, cells: 28, marks: mc(5, 8, 43)},
		{table: "1", source: "generated", mode: "upstream", wins: 20, cells: 28},
		{table: "3", source: "released", mode: "upstream", wins: 20, cells: 28, marks: mc(28, 7, 21)},
	}}
	s := w.modeFinding()
	want := "Table 1's printed accuracies match the released code's loss (double softmax, upstream mode): within a point in 31 of 56 cells in upstream mode, 13 of 56 in paper mode (Upcycled beats its baseline in 19/28 and 13/28)"
	if !strings.Contains(s, want) || strings.Contains(s, "Table 3") {
		t.Errorf("mode finding:\n%s\nwant %q and no Table 3 (one mode only)", s, want)
	}
	w.outcomes[0].marks, w.outcomes[1].marks = w.outcomes[1].marks, w.outcomes[0].marks
	if s := w.modeFinding(); !strings.Contains(s, "match the published loss (paper mode): within a point in 13 of 56 cells in upstream mode, 31 of 56 in paper mode") {
		t.Errorf("swapped counts:\n%s", s)
	}
}
