package fedddpm

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Columns of Tables I–III in the paper's order, as our cell labels.
var (
	partitions   = []string{"shard", "dir0.1", "dir0.3"}
	participants = []float64{0.15, 0.3}
	datasetLabel = map[string]string{"mixture": "Gaussian mixture (10 modes, 2-D)", "fmnist": "Fashion-MNIST 7×7", "mnist": "MNIST", "cifar10": "CIFAR-10", "cifar100": "CIFAR-100"}
	// analogue maps a source to the paper's table it stands in for.
	analogue = map[string]struct{ table, dataset, name string }{
		"mixture": {"I", "mnist", "Table I (MNIST)"}, "fmnist": {"I", "mnist", "Table I (MNIST)"}, "mnist": {"I", "mnist", "Table I (MNIST)"},
		"cifar10": {"II", "cifar10", "Table II (CIFAR10)"}, "cifar100": {"III", "cifar100", "Table III (CIFAR100)"},
	}
	proposed = []string{"fedddpm", "fedddpm+"}
	baseline = []string{"fedavg", "fedprox", "scaffold", "mofedsam"}
)

func columnKey(part string, p float64) string { return part + "/" + pLabel(p) }

// partLabel prints a partition as the paper does ("Shard", "Dir 0.1").
func partLabel(part string) string {
	if a, ok := strings.CutPrefix(part, "dir"); ok {
		return "Dir " + a
	}
	return strings.ToUpper(part[:1]) + part[1:]
}

// colLabel prints a column ("Shard 15%").
func colLabel(col string) string {
	part, p := splitCol(col)
	return partLabel(part) + " " + pct(p)
}

// group is the results of one configuration over its seeds, in seed
// order (paper.Group), with this report's readings: a final metric some
// seeds lack is left out rather than read as 0, and curves extend a run
// that stopped early flat to the longest one.
type group struct{ *paper.Group[RunConfig] }

func newGroup(g *paper.Group[RunConfig]) *group { return &group{g} }

type gkey struct {
	exp, ds, part, p, method string
}

func (g *group) stats(metric string) report.Stats { return g.Final(metric) }

func (g *group) counter(name string) float64 {
	var s float64
	for _, r := range g.Results {
		s += float64(r.Counters[name])
	}
	return s / float64(max(len(g.Results), 1))
}

// curve returns x, mean and std of a per-round metric over seeds; each
// seed's curve is extended flat (last value) to the longest one, so a
// FedDDPM+ run that stopped early keeps its final model.
func (g *group) curve(metric, xname string) (xs, mean, std []float64) {
	type pt struct{ x, y float64 }
	var per [][]pt
	grid := map[float64]bool{}
	for _, r := range g.Results {
		var c []pt
		for _, m := range r.Rounds {
			y, ok := m[metric]
			if !ok {
				continue
			}
			x := m[xname]
			if n := len(c); n > 0 && c[n-1].x == x {
				c[n-1].y = y // a corrected model at the same round replaces the raw one
				continue
			}
			c = append(c, pt{x, y})
			grid[x] = true
		}
		if len(c) > 0 {
			per = append(per, c)
		}
	}
	for x := range grid {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	for _, x := range xs {
		var vals []float64
		for _, c := range per {
			v := c[0].y
			for _, p := range c {
				if p.x <= x {
					v = p.y
				}
			}
			vals = append(vals, v)
		}
		s := report.Summarize(vals)
		mean = append(mean, s.Mean)
		std = append(std, s.Std)
	}
	return xs, mean, std
}

func groupResults(results []*runner.Result) (map[gkey]*group, error) {
	return paper.GroupAs(results, func(r *runner.Result, c RunConfig) gkey {
		return gkey{r.Experiment, c.Dataset, c.Partition, pLabel(c.Participation), c.Method}
	}, newGroup)
}

type reportWriter struct {
	paper.ReportWriter[Spec, map[gkey]*group]
	src *sources
	// relations accumulates our counts over every dataset for the
	// closing summary.
	totals map[string]*relCount

	// What the sections computed, for the findings and the headline.
	paperTotals map[string]*relCount // the paper's counts over Tables I–III
	t4          []t4Outcome
	quick       quickOutcome
	claimCounts map[string]int
}

func writeReport(o paper.Options, s *Spec, src *sources, results []*runner.Result) error {
	base, err := paper.OpenReport(o, "fedddpm", s, results, groupResults,
		report.SeedStatsNote,
		"metric fd: Fréchet distance to the training set — raw coordinates for the Gaussian mixture, the feature space of our classifier for images ('FD in our feature space', not Inception FID); lower is better",
		"compute fields are means over seeds of per-example gradient evaluations: client (FL local training), server (training on the auxiliary set), warmup (every client's local model before FL); sampling_forwards counts denoiser evaluations spent generating the aux set and QuickTest samples",
		"paper_value is the paper's number in the analogous column (Table I for the mixture, Fashion-MNIST and MNIST; II for CIFAR-10; III for CIFAR-100): Inception FID on different data, comparable in rank only",
	)
	if err != nil {
		return err
	}
	w := &reportWriter{ReportWriter: base, src: src, totals: map[string]*relCount{}}
	doc := &report.Doc{}
	w.header(doc)
	w.settings(doc)
	for _, e := range w.experiments("tables") {
		for _, ds := range e.Datasets {
			if err := w.fidTable(doc, e, ds); err != nil {
				return err
			}
		}
	}
	w.relationsSummary(doc)
	w.stopRounds(doc)
	w.table4(doc)
	w.sensitivity(doc)
	if err := w.fig7(doc); err != nil {
		return err
	}
	if err := w.fig8(doc); err != nil {
		return err
	}
	if err := w.samples(doc); err != nil {
		return err
	}
	w.claims(doc)
	w.decisions(doc)
	w.notReproduced(doc)
	return w.Finish(doc, w.findings(), w.headline(results), "table", "dataset", "partition", "participation", "method", "metric")
}

func (w *reportWriter) experiments(kind string) []*Experiment {
	var out []*Experiment
	for i := range w.Spec.Experiments {
		if w.Spec.Experiments[i].Kind == kind {
			out = append(out, &w.Spec.Experiments[i])
		}
	}
	return out
}

func (w *reportWriter) get(exp, ds, part string, p float64, method string) *group {
	return w.Groups[gkey{exp, ds, part, pLabel(p), method}]
}

func (w *reportWriter) header(doc *report.Doc) {
	doc.H(1, "FedDDPM / FedDDPM+ — reproduction report (%s scale)", w.Opts.Scale)
	doc.P("Paper: Peng, Wang, Chen, Rao, Shen, *%s* (%s). Generated by `fedrepro reproduce --paper fedddpm --scale %s`; every number below is computed from the run results in `results/fedddpm/%s/` and also stored in `summary.json`. Spec: %s.", paperTitle, paperLink, w.Opts.Scale, w.Opts.Scale, w.Spec.Description)
	var runs, seeds int
	for _, g := range w.Groups {
		runs += len(g.Results)
		seeds = max(seeds, len(g.Results))
	}
	doc.P("%d runs in %d configurations, up to %d seeds each. No public code exists for this paper; the algorithms are implemented from the listings in `algorithms/fedddpm` (FedDDPM = Alg. 1, FedDDPM+ = Alg. 2 with QuickTest = Alg. 3) and the baselines from their original papers.", runs, len(w.Groups), seeds)
	doc.P("**This is a scaled-down reproduction.** The paper trains U-Net DDPMs (500/1000 diffusion steps) on MNIST, CIFAR-10 and CIFAR-100 with 100 clients for 400–600 rounds and scores them with Inception FID — GPU-days per table. Here the same algorithms train MLP denoisers on CPUs: on a 10-component Gaussian mixture in 2-D (FD in raw coordinates, plus MMD² and mode coverage) and on Fashion-MNIST pooled to 7×7 (FD in the feature space of a small classifier trained on the real training images — **\"FD in our feature space\", never FID**), with fewer clients, rounds and diffusion steps. The paper's numbers are printed beside ours for orientation only; what can be compared is the *relations* between methods (rankings, the effect of α and p, FedDDPM+ vs FedDDPM), which are counted over our columns below, beside the paper's counts.")
}

func kfmt(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func (w *reportWriter) settings(doc *report.Doc) {
	doc.H(2, "Settings: ours vs the paper's")
	tb := &report.Table{Header: []string{"", "paper (MNIST / CIFAR)"}, Align: "ll"}
	var names []string
	for _, e := range w.experiments("tables") {
		for _, ds := range e.Datasets {
			if w.src.Available(w.Spec.Settings[ds].Source) && !contains(names, ds) {
				names = append(names, ds)
			}
		}
	}
	for _, n := range names {
		tb.Header = append(tb.Header, n)
		tb.Align += "l"
	}
	row := func(label, paperVal string, f func(st Setting) string) {
		r := []string{label, paperVal}
		for _, n := range names {
			r = append(r, f(w.Spec.Settings[n]))
		}
		tb.Rows = append(tb.Rows, r)
	}
	row("data", "MNIST 60k 28×28 / CIFAR 50k 32×32", func(st Setting) string {
		if st.Source == "mixture" {
			return fmt.Sprintf("%d points, ring of %d modes, σ = %g", st.TrainSize, st.Mixture.Components, st.Mixture.Std)
		}
		side := map[string]int{"fmnist": 28, "mnist": 28, "cifar10": 32, "cifar100": 32}[st.Source] >> st.Pool
		return fmt.Sprintf("%d images (class-stratified), %d×%d", st.TrainSize, side, side)
	})
	row("denoiser", "U-Net (≈35.7M params for CIFAR)", func(st Setting) string {
		return fmt.Sprintf("MLP %v, time emb. %d, SiLU", st.Denoiser.Hidden, st.Denoiser.TimeDim)
	})
	row("diffusion steps", "500 / 1000", func(st Setting) string { return fmt.Sprintf("%d (scaled linear β)", st.Denoiser.Steps) })
	row("clients N, rounds T", "100, 400 / 600", func(st Setting) string { return fmt.Sprintf("%d, %d", st.Clients, st.Rounds) })
	row("K local epochs, batch B", "3, 128 / 5, 64", func(st Setting) string { return fmt.Sprintf("%d, %d", st.LocalEpochs, st.Batch) })
	row("optimizer, ζ, η", "not stated; 2·10⁻⁴, 5·10⁻⁵", func(st Setting) string {
		return fmt.Sprintf("%s, %g, %g", orDefault(st.Optimizer, "adam"), st.ClientLR, st.ServerLR)
	})
	row("E (FedDDPM), E (FedDDPM+)", "1, 20 / 5, 30", func(st Setting) string {
		return fmt.Sprintf("%d, %d (at %g)", st.ServerEpochs, st.PlusEpochs, st.PlusLR)
	})
	row("warmup epochs", "200 / 400, 600", func(st Setting) string { return fmt.Sprint(st.WarmupEpochs) })
	row("|A_i|", "0.1·m_i", func(st Setting) string { return fmt.Sprintf("%g·m_i", st.AuxFraction) })
	row("server/client work per round", "0.1·N/K = 3.3 / 2", func(st Setting) string {
		return fmt.Sprintf("%.2g", st.AuxFraction*float64(st.Clients)*float64(st.ServerEpochs)/float64(st.LocalEpochs))
	})
	row("QuickTest every, threshold, size, γ", "10, 0.2 FID, 500, 0.4", func(st Setting) string {
		q := st.QuickTest
		return fmt.Sprintf("%d, %g, %d, %g", q.Every, q.Threshold, q.TestSize, q.Gamma)
	})
	row("FedProx μ; MoFedSAM ρ, α; SCAFFOLD η_g", "not stated", func(st Setting) string {
		return fmt.Sprintf("%g; %g, %g; %g", st.FedProxMu, st.MoFedSAMRho, st.MoFedSAMAlpha, st.ScaffoldLR)
	})
	row("score", "Inception FID vs training set", func(st Setting) string {
		if st.Source == "mixture" {
			return fmt.Sprintf("FD (raw 2-D) of %d samples vs training set; MMD²; mode TV", st.Eval.Samples)
		}
		return fmt.Sprintf("FD in our feature space (MLP %v, last hidden layer) of %d samples vs training set; class TV", st.FeatureNet.Hidden, st.Eval.Samples)
	})
	doc.Table(tb)
	doc.List(
		w.thresholdNote(names),
		"Every method starts from the same random w_0 and, at equal p, sees the same client selections; FedDDPM, FedDDPM+ and LocalAug share each (partition, seed)'s warmed-up local models and auxiliary set.",
		"Images are scaled to [−1, 1]; generated images are clipped to [−1, 1] before scoring (as saving them as images would).",
	)
	for _, n := range names {
		st := w.Spec.Settings[n]
		if st.Source == "mixture" {
			continue
		}
		if prep, err := w.src.prepare(st, w.Spec.GeneratorSeed); err == nil {
			doc.P("Feature classifier for %s (MLP %v on the real training images, seeded): test accuracy %.1f%%; FD of %d real test images to the training set (the floor of this metric at that sample size): %.3f.",
				n, st.FeatureNet.Hidden, 100*prep.feat.TestAccuracy, prep.test.N, prep.fd(prep.test.X, prep.test.N))
		}
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// cellStats returns the FD stats of one method in one column.
func (w *reportWriter) cellStats(exp, ds, part string, p float64, m string) (report.Stats, *group) {
	g := w.get(exp, ds, part, p, m)
	if g == nil {
		return report.Stats{}, nil
	}
	return g.stats("fd"), g
}

// paperTable returns the paper's FID of (method, column) in the table
// analogous to a source.
func (w *reportWriter) paperFID(src, method, col string) (float64, bool) {
	a, ok := analogue[src]
	if !ok {
		return 0, false
	}
	t, ok := w.Nums.Table(a.table)
	if !ok {
		return 0, false
	}
	c, ok := t.Lookup(map[string]string{"method": method}, col)
	return c.Mean, ok
}

func (r *relCount) add(holds, clear bool) {
	r.total++
	if holds {
		r.hold++
		if clear {
			r.clear++
		}
	}
}
