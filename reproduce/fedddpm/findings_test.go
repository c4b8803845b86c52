package fedddpm

import (
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/golden"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// synthWriter is a report writer over a mixture setting "mix" with a
// tables experiment and a sensitivity variant of it, whose groups the
// tests fill with final FDs per seed.
func synthWriter(t *testing.T) *reportWriter {
	t.Helper()
	nums, err := paper.LoadNumbersFS(golden.Papers, "fedddpm")
	if err != nil {
		t.Fatal(err)
	}
	persist := true
	s := &Spec{SpecHeader: paper.SpecHeader{Seeds: []uint64{1, 2, 3}}, Settings: map[string]Setting{"mix": {Source: "mixture"}},
		Experiments: []Experiment{
			{ExperimentHeader: paper.ExperimentHeader{Name: "tables"}, Kind: "tables", Datasets: []string{"mix"}, Partitions: []string{"shard", "dir0.1"}, Participation: []float64{0.15},
				Methods: []string{"fedavg", "fedddpm", "fedddpm+"}},
			{ExperimentHeader: paper.ExperimentHeader{Name: "sens"}, Kind: "sensitivity", Datasets: []string{"mix"}, Partitions: []string{"shard"}, Participation: []float64{0.15},
				Methods: []string{"fedavg", "fedddpm", "fedddpm+"}, Override: Override{PersistOptimizer: &persist}},
		}}
	return &reportWriter{ReportWriter: paper.ReportWriter[Spec, map[gkey]*group]{Spec: s, Nums: nums, Groups: map[gkey]*group{}, Summary: &report.Summary{}}, src: newSources(""), totals: map[string]*relCount{}}
}

// put stores one group of final FDs (one seed each).
func (w *reportWriter) put(exp, part string, method string, fds ...float64) {
	g := &group{&paper.Group[RunConfig]{Config: RunConfig{Method: method}}}
	for i, v := range fds {
		g.Results = append(g.Results, &runner.Result{Run: runner.Run{Seed: uint64(i + 1)}, Final: runner.Metrics{"fd": v, "fired": 0}})
	}
	w.Groups[gkey{exp, "mix", part, pLabel(0.15), method}] = g
}

// TestBestFindingCountsClear: the opening sentence gives, beside "best in
// h of n", how many of those h leads are clear by the report's own test
// (beyond √(std₁² + std₂²)). One column has a clear lead, one a lead
// inside the seed spread: "2 of 2, 1 of them clear". Counting every lead
// as clear, or dropping the clause, fails.
func TestBestFindingCountsClear(t *testing.T) {
	w := synthWriter(t)
	// Shard: FedDDPM 0.5 ± 0.05 vs FedAvg 1.0 ± 0.1 — clear.
	w.put("tables", "shard", "fedavg", 0.9, 1.0, 1.1)
	w.put("tables", "shard", "fedddpm", 0.45, 0.5, 0.55)
	w.put("tables", "shard", "fedddpm+", 0.55, 0.6, 0.65)
	// Dir 0.1: FedDDPM 0.95 ± 0.1 vs FedAvg 1.0 ± 0.1 — best, not clear.
	w.put("tables", "dir0.1", "fedavg", 0.9, 1.0, 1.1)
	w.put("tables", "dir0.1", "fedddpm", 0.85, 0.95, 1.05)
	w.put("tables", "dir0.1", "fedddpm+", 0.87, 0.97, 1.07)
	e := &w.Spec.Experiments[0]
	w.relations(&report.Doc{}, e, "mix", w.Spec.Settings["mix"], []string{"shard/p0.15", "dir0.1/p0.15"}, nil)
	if got := *w.totals[relBest]; got != (relCount{hold: 2, clear: 1, total: 2}) {
		t.Fatalf("best: %+v, want 2 of 2, 1 clear", got)
	}
	f := w.findings()[0]
	if want := "**2 of 2** of our columns, 1 of them clear by the report's test"; !strings.Contains(f, want) {
		t.Errorf("finding lacks %q:\n%s", want, f)
	}
	if want := "both beat every baseline in 2 of 2, 1 of them clear"; !strings.Contains(f, want) {
		t.Errorf("finding lacks %q:\n%s", want, f)
	}
}

func TestClearText(t *testing.T) {
	for _, c := range []struct {
		o    relCount
		want string
	}{
		{relCount{hold: 5, clear: 0, total: 12}, "none of them clear"},
		{relCount{hold: 5, clear: 2, total: 12}, "2 of them clear"},
		{relCount{hold: 5, clear: 5, total: 12}, "5 of them clear"},
		{relCount{hold: 0, clear: 0, total: 12}, "none to be clear"},
	} {
		if got := clearText(&c.o); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}

func TestRobustOf(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		xs          []float64
		med, lo, hi float64
		n           int
		str         string
	}{
		{[]float64{190, 20, 25}, 25, 20, 190, 3, "25.00 [20.00–190.00]"},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4, 4, "2.500 [1.000–4.000]"},
		{[]float64{0.05}, 0.05, 0.05, 0.05, 1, "0.0500 [0.0500–0.0500]"},
		// A diverged seed sorts last: it widens the range, not the median.
		{[]float64{nan, 1, 2}, 2, 1, math.Inf(1), 3, "2.000 [1.000–+Inf]"},
	} {
		r := robustOf(c.xs)
		if r.Median != c.med || r.Min != c.lo || r.Max != c.hi || r.N != c.n || r.String() != c.str {
			t.Errorf("%v: %+v %q, want median %v [%v, %v] n %d %q", c.xs, r, r.String(), c.med, c.lo, c.hi, c.n, c.str)
		}
	}
	if r := robustOf(nil); r.N != 0 || !math.IsNaN(r.Median) || r.String() != "—" {
		t.Errorf("empty: %+v", r)
	}
	if !apart(robustOf([]float64{1, 2}), robustOf([]float64{3, 4})) || apart(robustOf([]float64{1, 3}), robustOf([]float64{3, 4})) {
		t.Error("apart: touching ranges are not apart, disjoint ones are")
	}
}

// TestSensitivityRobust: under the variant FedAvg has one outlying seed
// (20, 25, 190: mean 78, median 25). FedDDPM (24, 26, 28) beats it by
// mean only; FedDDPM+ (10, 12, 14) by mean, by median and with the seed
// ranges apart. The finding counts 1 of 2 by median (2 by mean, 1 apart)
// against 0 in the tables' runs, and the table shows median [range]. A
// count by mean passed off as the median, or a missing range, fails.
func TestSensitivityRobust(t *testing.T) {
	w := synthWriter(t)
	w.put("tables", "shard", "fedavg", 20, 25, 30)
	w.put("tables", "shard", "fedddpm", 30, 35, 40)
	w.put("tables", "shard", "fedddpm+", 40, 50, 60)
	w.put("sens", "shard", "fedavg", 20, 25, 190)
	w.put("sens", "shard", "fedddpm", 24, 26, 28)
	w.put("sens", "shard", "fedddpm+", 10, 12, 14)
	doc := &report.Doc{}
	w.sensitivity(doc)
	md := doc.String()
	for _, want := range []string{"78.33±96.74", "25.00 [20.00–190.00]", "26.00 [24.00–28.00]",
		"FedDDPM beats FedAvg: by mean tables 0/1 columns, variant 1/1; by median tables 0/1, variant 0/1; seed ranges apart tables 0/1, variant 0/1",
		"FedDDPM+ beats FedAvg: by mean tables 0/1 columns, variant 1/1; by median tables 0/1, variant 1/1; seed ranges apart tables 0/1, variant 1/1",
		"with 3 seeds the median equals a mean trimmed of the best and the worst seed"} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}
	want := "Sensitivity (1 variant of the setting, one change each): the proposed methods beat FedAvg in 1 of 2 method × column pairs under the variants by median FD over seeds, against 0 of 2 in the tables' runs of the same cells (by mean: 2 vs 0; with every seed below every FedAvg seed: 1 vs 0)."
	if got := w.sensitivityFinding(); got != want {
		t.Errorf("finding\n%s\nwant\n%s", got, want)
	}
}

// curveGroup is a group whose seeds record fd and loss at rounds 0, 2, 4:
// seed k's value at round r is base·(1 + 0.1·k)/(1 + r).
func curveGroup(method string, base float64) *group {
	g := &group{&paper.Group[RunConfig]{Config: RunConfig{Method: method}}}
	for k := 1; k <= 3; k++ {
		r := &runner.Result{Run: runner.Run{Seed: uint64(k)}}
		for _, round := range []float64{0, 2, 4} {
			v := base * (1 + 0.1*float64(k)) / (1 + round)
			r.Rounds = append(r.Rounds, runner.Metrics{"round": round, "fd": v, "loss": v})
		}
		g.Results = append(g.Results, r)
	}
	return g
}

// TestCurvePanels: Figs. 7 and 8 draw, for every method, the mean over
// seeds with its ±std band (the std of the seeds at each round), one
// panel per method beside FedAvg dashed; across the whole set a colour
// names one method (FedAvg may repeat, being the same series), and the
// report's palette check accepts it. Dropping the band, or giving two
// methods one colour, fails.
func TestCurvePanels(t *testing.T) {
	curves := map[string]report.Series{}
	for i, m := range tableMethods {
		c, ok := methodSeries(m, curveGroup(m, float64(10+i)), "fd")
		if !ok {
			t.Fatalf("%s: no curve", m)
		}
		want := report.Summarize([]float64{float64(10+i) * 1.1 / 3, float64(10+i) * 1.2 / 3, float64(10+i) * 1.3 / 3})
		if len(c.Std) != len(c.Mean) || math.Abs(c.Mean[1]-want.Mean) > 1e-12 || math.Abs(c.Std[1]-want.Std) > 1e-12 {
			t.Fatalf("%s: round 2 mean %v std %v, want %v ± %v", m, c.Mean, c.Std, want.Mean, want.Std)
		}
		curves[m] = c
	}
	if _, ok := methodSeries("fedavg", curveGroup("fedavg", 1), "no-such-metric"); ok {
		t.Error("a curve of an unrecorded metric")
	}
	ps := refPanels("t", "FD", true, tableMethods, curves)
	if ps == nil || len(ps.Panels) != len(tableMethods)-1 {
		t.Fatalf("panels: %+v", ps)
	}
	colourOf := map[int]string{}
	for i, f := range ps.Panels {
		m := tableMethods[i+1]
		if f.Title != methodLabel[m] || len(f.Series) != 2 || f.Series[0].Name != "FedAvg" || !f.Series[0].Dashed || f.Series[1].Name != methodLabel[m] || f.Series[1].Dashed {
			t.Errorf("panel %d: %q with %+v, want FedAvg dashed beside %s", i, f.Title, f.Series, m)
		}
		for _, s := range f.Series {
			if s.Std == nil {
				t.Errorf("panel %q: %s has no band", f.Title, s.Name)
			}
			if other, ok := colourOf[s.Color]; ok && other != s.Name {
				t.Errorf("colour %d names %s and %s", s.Color, other, s.Name)
			}
			colourOf[s.Color] = s.Name
		}
	}
	if err := ps.Save(t.TempDir() + "/fig"); err != nil {
		t.Errorf("the report's checks refuse the panels: %v", err)
	}
	// Without FedAvg each method still gets its panel; with nothing, no figure.
	delete(curves, "fedavg")
	if ps := refPanels("t", "FD", true, tableMethods, curves); ps == nil || len(ps.Panels) != len(tableMethods)-1 || len(ps.Panels[0].Series) != 1 {
		t.Errorf("without FedAvg: %+v", ps)
	}
	if ps := refPanels("t", "FD", true, tableMethods, nil); ps != nil {
		t.Errorf("panels from no curve: %+v", ps)
	}
}

// TestRobustWhy: the reason given for the median matches the seed count
// (a mean trimmed of the best and worst seed is the median only up to 4).
func TestRobustWhy(t *testing.T) {
	for n, want := range map[int]string{3: "with 3 seeds the median equals a mean trimmed", 4: "with 4 seeds the median equals a mean trimmed",
		5: "the median of 5 seeds is robust to up to 2 outlying seeds", 6: "the median of 6 seeds is robust to up to 2 outlying seeds"} {
		seeds := make([]uint64, n)
		s := &Spec{SpecHeader: paper.SpecHeader{Seeds: seeds}}
		if got := robustWhy(s, []*Experiment{{}}); !strings.HasPrefix(got, want) {
			t.Errorf("%d seeds: %q, want prefix %q", n, got, want)
		}
	}
}
