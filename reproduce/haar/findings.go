package haar

import (
	"fmt"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// findings are the report's opening sentences; every number comes from the
// sections below.
func (w *reportWriter) findings() []string {
	st := w.wav
	var out []string
	if st.cells > 0 {
		out = append(out, calibrationFinding(st))
		if n := len(st.oursOverPaper); n > 0 {
			r := append([]float64(nil), st.oursOverPaper...)
			slices.Sort(r)
			med := r[n/2]
			size := "smaller than"
			switch {
			case med > 1:
				size = "larger than"
			case med == 1:
				size = "equal to"
			}
			out = append(out, fmt.Sprintf("Our gains are %s the paper's text-reported ones: median ratio ours/paper %.2f (range %.2f–%.2f over %d cells); the paper's models, hyper-parameters and absolute accuracies are unknown, so only the pattern is comparable.", size, med, r[0], r[n-1], n))
		}
	}
	for _, a := range st.alt {
		if a.cells > 0 {
			out = append(out, altFinding(a))
		}
	}
	if st.allCells > 0 {
		if st.minInflation > 1 {
			out = append(out, fmt.Sprintf("The ε this calibration really has (accountant on the mechanism's effective noise multiplier) exceeds the claimed one by a factor of at least **%.2g** in every one of the %d cells (all models): Lemma 2's claim of vanilla's ε does not hold for the mechanism as implemented from the paper's algorithms.", st.minInflation, st.allCells))
		} else {
			out = append(out, fmt.Sprintf("The ε this calibration really has (accountant on the mechanism's effective noise multiplier) is at most the claimed one in at least one of the %d cells (smallest ratio actual/claimed %.3g).", st.allCells, st.minInflation))
		}
		if st.matchCells > 0 || st.corrCells > 0 {
			var parts []string
			if st.matchCells > 0 {
				parts = append(parts, fmt.Sprintf("plain Gaussian noise with WAV's per-coordinate std lands within %.1f points of WAV in all %d cells", st.maxMatchGap, st.matchCells))
			}
			if st.corrCells > 0 {
				parts = append(parts, fmt.Sprintf("calibrated so that its ε really equals vanilla's, WAV is below vanilla in %d of %d cells", st.corrLoses, st.corrCells))
			}
			out = append(out, "Where WAV's gain comes from (all models): "+strings.Join(parts, "; ")+".")
		}
	}
	for _, r := range w.read {
		out = append(out, readingFinding(r))
	}
	if w.t3.rows > 0 {
		out = append(out, fmt.Sprintf("Table III (DP-SGD, DP-Adam, DP-AdaGrad): the gain of WAV's noise grows monotonically with σ in %d of %d optimizer rows (paper: %d of %d).", w.t3.grows, w.t3.rows, w.t3.paperGrows, w.t3.paperRows))
	}
	return paper.AppendNonEmpty(out, w.auditFinding(), report.ClaimsFinding("haar", w.claimCounts))
}

// calibrationFinding is the opening sentence: WAV against vanilla on the
// primary model, each of the paper's cells counted once.
func calibrationFinding(st wavStats) string {
	return fmt.Sprintf("At the paper's own calibration (σ_c = σ_Haar, Lemma 2) WAV beats vanilla DP at the same nominal σ in **%d of %d** of the paper's cells we ran (paper: a gain in %d of the %d it reports; each cell counted once), and its gain grows with σ in %d of %d dataset/level groups (paper: %d of %d).",
		st.wins, st.cells, st.paperWins, st.paperCells, st.grows, st.groups, st.pGrows, st.paperGroups)
}

// altFinding says how a second model on the same paper cells agrees.
func altFinding(a altStats) string {
	model := map[string]string{"logreg": "LogReg", "mlp": "MLP"}[a.model]
	if model == "" {
		model = a.model
	}
	s := fmt.Sprintf("The %s stand-in (%s, a second model on %d of the same paper cells, not counted above) has WAV ahead of vanilla in %d of %d", model, a.exp, a.cells, a.wins, a.cells)
	if a.paperCells > 0 {
		s += fmt.Sprintf("; the sign of its gain agrees with the paper's in %d of %d", a.paperAgr, a.paperCells)
	}
	return s + "."
}

// fitCounts are, per search region of the table3-fit audit, the dataset ×
// conversion fits that reproduce Table III's three ε to print precision,
// those within 5 %, and the fits' worst relative errors and (q, T).
type fitCounts struct {
	fits, consistent, within int
	minWorst, maxWorst       float64 // over the fits, each fit's worst |rel_error|
	withinAt                 []string
}

// table3FitCounts reads the table3-fit audit per region ("any" for rows of
// an audit without regions).
func table3FitCounts(t audit.Table) map[string]*fitCounts {
	type key struct{ region, ds, conv string }
	type acc struct {
		consistent, within bool
		worst              float64
		q                  float64
		steps              string
	}
	fits := map[key]*acc{}
	var keys []key
	for _, r := range t.Rows {
		reg := fmt.Sprint(r["region"])
		if r["region"] == nil {
			reg = "any"
		}
		k := key{reg, fmt.Sprint(r["dataset"]), fmt.Sprint(r["conversion"])}
		a := fits[k]
		if a == nil {
			a = &acc{consistent: true, within: true}
			fits[k] = a
			keys = append(keys, k)
		}
		a.consistent = a.consistent && r["consistent"] == true
		a.within = a.within && r["within_5pct"] == true
		if e, ok := report.RowFloat(r, "rel_error"); ok {
			a.worst = math.Max(a.worst, math.Abs(e))
		}
		if q, ok := report.RowFloat(r, "fit_q"); ok {
			a.q = q
		}
		a.steps = fmt.Sprint(r["fit_steps"])
	}
	out := map[string]*fitCounts{}
	for _, k := range keys {
		a := fits[k]
		c := out[k.region]
		if c == nil {
			c = &fitCounts{minWorst: math.Inf(1), maxWorst: math.Inf(-1)}
			out[k.region] = c
		}
		c.fits++
		if a.consistent {
			c.consistent++
		}
		if a.within {
			c.within++
			c.withinAt = append(c.withinAt, fmt.Sprintf("%s/%s q = %.3g, T = %s", k.ds, k.conv, a.q, a.steps))
		}
		c.minWorst, c.maxWorst = math.Min(c.minWorst, a.worst), math.Max(c.maxWorst, a.worst)
	}
	return out
}

// fitSentence is the Table III fit part of the audit finding.
func fitSentence(c map[string]*fitCounts) string {
	a := c["any"]
	if a == nil {
		return ""
	}
	s := fmt.Sprintf("one (q, T) per dataset reproduces Table III's three ε to print precision in %d of %d dataset × conversion fits anywhere (%d within 5 %%", a.consistent, a.fits, a.within)
	if len(a.withinAt) > 0 {
		s += ": " + strings.Join(a.withinAt, "; ")
	}
	s += ")"
	if p := c["plausible"]; p != nil {
		s += fmt.Sprintf(", and in %d of %d restricted to a plausible training configuration (1/600 ≤ q ≤ 0.1, 1 ≤ qT ≤ 15000 epochs; %d within 5 %%, worst errors %.1f–%.1f %%)", p.consistent, p.fits, p.within, 100*p.minWorst, 100*p.maxWorst)
		if p.within == 0 && a.within > 0 {
			s += ": the 5 % fits need a configuration outside that range"
		}
	}
	return s
}

// auditFinding summarises the Table III fit and the Lemma 2 game.
func (w *reportWriter) auditFinding() string {
	var parts []string
	if t, ok := report.AuditTable(w.auditTables, "table3-fit"); ok {
		if s := fitSentence(table3FitCounts(t)); s != "" {
			parts = append(parts, s)
		}
	}
	if t, ok := report.AuditTable(w.auditTables, "lemma2-comparison"); ok {
		exceed, rows := 0, 0
		lbMax := math.Inf(-1)
		for _, r := range t.Rows {
			if r["variant"] == "vanilla" {
				continue
			}
			rows++
			if r["exceeds_vanilla"] == true {
				exceed++
				if v, ok := report.RowFloat(r, "eps_lb"); ok {
					lbMax = math.Max(lbMax, v)
				}
			}
		}
		p := fmt.Sprintf("the distinguishing game finds %d of %d wavelet (variant, calibration, σ) rows measurably less private than vanilla", exceed, rows)
		if exceed > 0 {
			p += fmt.Sprintf(" (empirical ε up to %.3g at 95%% confidence)", lbMax)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Audits (`fedrepro audit --paper haar`): " + strings.Join(parts, "; ") + "."
}

// fmtEps prints an ε in the findings and tables: three significant
// digits, two from 1000 on.
var fmtEps = paper.EpsFormat{Large: 1000, LargeVerb: "%.2g", Verb: "%.3g"}.Format

// The paper, as the reports cite it: its title and public address (arXiv
// 2503.21154).
const (
	paperTitle = "Federated Learning with Differential Privacy: An Utility-Enhanced Approach"
	paperLink  = "https://arxiv.org/abs/2503.21154"
)

// headline is the summary's entry in the cross-paper index.
func (w *reportWriter) headline(results []*runner.Result) *report.Headline {
	runs, cpu := report.RunCost(results)
	st := w.wav
	h := &report.Headline{Title: paperTitle + " (Haar-wavelet DP-FL)", Link: paperLink, Reproduced: w.scope(),
		Claims: w.claimCounts, Privacy: st.privacy, Runs: runs, CPUSeconds: cpu}
	if st.cells > 0 {
		h.Relations = append(h.Relations,
			report.Relation{Name: fmt.Sprintf("WAV beats vanilla DP at Lemma 2's calibration (%s, each paper cell once)", w.primaryFigures()), Ours: fmt.Sprintf("%d/%d", st.wins, st.cells), Paper: fmt.Sprintf("%d/%d", st.paperWins, st.paperCells)},
			report.Relation{Name: "its gain grows with σ (dataset/level groups)", Ours: fmt.Sprintf("%d/%d", st.grows, st.groups), Paper: fmt.Sprintf("%d/%d", st.pGrows, st.paperGroups)})
	}
	if st.corrCells > 0 {
		h.Relations = append(h.Relations, report.Relation{Name: "WAV beats vanilla at truly equal ε (privacy-corrected)",
			Ours: fmt.Sprintf("%d/%d", st.corrCells-st.corrLoses, st.corrCells), Paper: "claimed (equal ε assumed)"})
	}
	if w.t3.rows > 0 {
		h.Relations = append(h.Relations, report.Relation{Name: "Table III: gain grows with σ (optimizer rows)",
			Ours: fmt.Sprintf("%d/%d", w.t3.grows, w.t3.rows), Paper: fmt.Sprintf("%d/%d", w.t3.paperGrows, w.t3.paperRows)})
	}
	return h
}

// primaryFigures names the paper figures of the primary figure runs.
func (w *reportWriter) primaryFigures() string {
	var ns []int
	for k, g := range w.Groups {
		if g.Config.Figure != "" {
			if n, ok := paperFigure(g.Config.Level, k.ds); ok {
				ns = append(ns, n)
			}
		}
	}
	return figList(ns)
}

// scope names what this scale reproduced: the paper's figures and tables
// of the runs actually present (a figure per level and dataset), on which
// data sets.
func (w *reportWriter) scope() string {
	var figs []int
	var tables, data []string
	seenF, seenT, seenD := map[int]bool{}, map[string]bool{}, map[string]bool{}
	for k, g := range w.Groups {
		if !seenD[k.ds] {
			seenD[k.ds] = true
			data = append(data, datasetLabel[k.ds])
		}
		if g.Config.Figure != "" {
			if n, ok := paperFigure(g.Config.Level, k.ds); ok && !seenF[n] {
				seenF[n] = true
				figs = append(figs, n)
			}
		}
		if t := g.Config.Table; t != "" && !seenT[t] {
			seenT[t] = true
			tables = append(tables, tableLabel(t))
		}
	}
	sort.Ints(figs)
	sort.Strings(tables)
	sort.Strings(data)
	var what []string
	if len(figs) > 0 {
		what = append(what, figList(figs))
	}
	what = append(what, tables...)
	return fmt.Sprintf("%s on %s (logistic regression and MLP stand in for the CNNs); ε of every run and Table III's ε audited", strings.Join(what, ", "), strings.Join(data, ", "))
}

// paperFigure is the number of the paper's figure for a privacy level and
// dataset: sample level Figs 7 (MNIST), 8 (Fashion-MNIST), 9 (CIFAR-10);
// user level Figs 10, 11, 12 (§6.3–6.4).
func paperFigure(level, ds string) (int, bool) {
	base := map[string]int{"sample": 7, "user": 10}[level]
	off, ok := map[string]int{"mnist": 0, "fashion_mnist": 1, "cifar10": 2}[ds]
	if base == 0 || !ok {
		return 0, false
	}
	return base + off, true
}

// figList names figure numbers for readers: "Fig 8", "Figs 8 and 11",
// "Figs 7, 8 and 9" (sorted, duplicates dropped).
func figList(ns []int) string {
	ns = slices.Compact(slices.Sorted(slices.Values(ns)))
	var s []string
	for _, n := range ns {
		s = append(s, fmt.Sprint(n))
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return "Fig " + s[0]
	}
	return "Figs " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func tableLabel(t string) string {
	if t == "" {
		return ""
	}
	return "Table " + t
}
