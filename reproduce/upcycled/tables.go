package upcycled

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
)

func (w *reportWriter) table2(doc *report.Doc) error {
	t, _ := w.Nums.Table("2")
	doc.H(2, "Table 2 — dataset statistics")
	doc.P("Samples = train + test (synthetic convention of Table 2), per-device mean and population std of those totals. Paper values from Table 2.")
	tb := &report.Table{Header: []string{"dataset", "source", "samples", "test", "devices", "mean", "stdev"}, Align: "llrrrrr"}
	for _, ds := range synDatasets {
		if c, ok := t.Lookup(map[string]string{"dataset": ds}, "samples"); ok {
			get := func(col string) string {
				v, _ := t.Lookup(map[string]string{"dataset": ds}, col)
				return fmt.Sprintf("%g", v.Mean)
			}
			tb.Add(dsLabel[ds], "paper", fmt.Sprintf("%g", c.Mean), get("test"), get("devices"), get("mean"), get("stdev"))
		}
		for _, so := range []string{"released", "generated"} {
			if !w.src.available(so, ds) {
				tb.Add(dsLabel[ds], so, "not run", "", "", "", "")
				continue
			}
			f, err := w.src.load(so, ds)
			if err != nil {
				return err
			}
			st := data.DeviceStats(f, data.CountTrainAndTest)
			tb.Add(dsLabel[ds], so, st.Samples, st.Test, st.Devices, fmt.Sprintf("%.0f", st.Mean), fmt.Sprintf("%.0f", st.Std))
			for name, v := range map[string]float64{"samples": float64(st.Samples), "test": float64(st.Test), "devices": float64(st.Devices), "mean": st.Mean, "stdev": st.Std} {
				cell := report.Cell{"table": "2", "dataset": ds, "data_source": so, "metric": name, "mean": v, "std": 0.0, "n": 1}
				if pc, ok := t.Lookup(map[string]string{"dataset": ds}, name); ok {
					cell["paper_mean"] = pc.Mean
				}
				w.Summary.Cells = append(w.Summary.Cells, cell)
			}
		}
	}
	doc.Table(tb)
	return nil
}

// tableExperiments returns the non-private logistic-regression
// experiments of a table: the fixed-hyper-parameter one and the tuned one
// (either may be nil).
func (w *reportWriter) tableExperiments(tableID string) (fixed, tuned *Experiment) {
	for i := range w.Spec.Experiments {
		e := &w.Spec.Experiments[i]
		if e.Table != tableID || e.Privacy != "none" || e.Model != "logreg" {
			continue
		}
		if e.Tune != nil {
			tuned = e
		} else {
			fixed = e
		}
	}
	return fixed, tuned
}

// comparableSource reports whether a data source's cells can be compared
// with the paper's: the authors' released data, and FEMNIST (the public
// LEAF data the paper used); not our generated draw.
func comparableSource(so string) bool { return so != "generated" }

func rowLabel(m, v string) string {
	if v == "upcycled" {
		return "Upcycled-" + methodLabel[m]
	}
	return methodLabel[m]
}

// paperWins counts the paper's cells (methods it prints × datasets of exp)
// where Upcycled beats its baseline.
func paperWins(pt *paper.Table, exp *Experiment) (wins, cells int) {
	for _, m := range paperMethods {
		for _, ds := range exp.Datasets {
			b, ok1 := pt.Lookup(map[string]string{"method": m, "variant": "baseline"}, ds)
			u, ok2 := pt.Lookup(map[string]string{"method": m, "variant": "upcycled"}, ds)
			if ok1 && ok2 && containsStr(exp.Methods, m) {
				cells++
				if u.Mean > b.Mean {
					wins++
				}
			}
		}
	}
	return wins, cells
}

// markCounts tallies agreement marks and remembers the largest gap.
type markCounts struct {
	agree, close, off, unstable, compared int
	worst                                 string  // the cell with the largest |Δ|
	worstDelta                            float64 // its Δ = ours − paper (points)
}

func (c *markCounts) add(label string, a Agreement) {
	c.compared++
	if c.worst == "" || math.Abs(a.Delta) > math.Abs(c.worstDelta) {
		c.worst, c.worstDelta = label, a.Delta
	}
	switch a.Mark {
	case "✓":
		c.agree++
	case "≈":
		c.close++
	default:
		c.off++
	}
	if a.Unstable {
		c.unstable++
	}
}

func (c markCounts) String() string {
	return fmt.Sprintf("%d ✓, %d ≈, %d ✗ of %d cells compared with the paper (%d unstable ⚠)", c.agree, c.close, c.off, c.compared, c.unstable)
}

func (w *reportWriter) criterion(doc *report.Doc) {
	doc.H(2, "How Tables 1 and 3 are compared")
	doc.P("Each cell: ours mean±std over seeds / the paper's mean±std / Δ = ours − paper in percentage points, then a mark. %s", CriterionText())
	doc.P("Whose gap: for every cell of the released data (upstream mode), the attribution table says whether our value agrees (✓ or ≈) with the paper, with the authors' released code run with the same hyper-parameters (golden/upcycled/upstream.yaml, where it was run), with both, or with neither. Where ours agrees with the released code but not with the paper, the paper's number is not what its own code gives at these hyper-parameters.")
}

// accuracyTable writes Table 1 or 3: the fixed-hyper-parameter table for
// every data source and mode that ran, the authors'-code attribution, and
// the tuned table beside it.
func (w *reportWriter) accuracyTable(doc *report.Doc, tableID string) error {
	pt, _ := w.Nums.Table(tableID)
	exp, tuned := w.tableExperiments(tableID)
	if exp == nil && tuned == nil {
		return nil
	}
	if exp == nil {
		exp = tuned
	}
	stragglers := map[string]string{"1": "90%", "3": "30%"}[tableID]
	doc.H(2, "Table %s — non-private accuracy, %s stragglers (synthetic columns)", tableID, stragglers)
	pw, pc := paperWins(pt, exp)
	var summaryLines []string
	if exp.Tune == nil {
		doc.P("Fixed hyper-parameters: the (lr, c) of the upstream client-file comments for FedAvg, FedAvgM and FedDyn, FedAvg's for the others (each run records `tuned_from`). Baseline %d iterations, Upcycled %d; %g of clients per round, E = %d, batch %d, momentum %g. FedDyn rows are the released code's FedDyn (the comparison with the paper); the FedDyn (Acar et al.) rows beside them are the published algorithm, with Δ against the same printed FedDyn value and no mark (not counted).",
			exp.Iterations, exp.UpcycledIterations, exp.Frac, exp.Epochs, exp.Batch, exp.Momentum)
		for _, so := range exp.Sources {
			for _, mode := range exp.Modes {
				if line, ok := w.fixedTable(doc, tableID, pt, exp, so, mode, pw, pc); ok {
					summaryLines = append(summaryLines, line)
				}
			}
		}
		if err := w.dataGap(doc, tableID, exp); err != nil {
			return err
		}
		w.attribution(doc, tableID, pt, exp)
	}
	if tuned != nil {
		tpw, tpc := paperWins(pt, tuned)
		if line, ok := w.tunedTable(doc, tableID, pt, tuned, exp, tpw, tpc); ok {
			summaryLines = append(summaryLines, line)
		}
	}
	if len(summaryLines) > 0 {
		doc.P("**Claim \"Upcycled improves its baseline\" (Table %s, synthetic columns):** paper %d/%d.", tableID, pw, pc)
		doc.List(summaryLines...)
	}
	return nil
}

// cellText formats ours against the paper's value and records the cell.
func (w *reportWriter) compareCell(cell report.Cell, ours report.Stats, p paper.Cell, counted bool, c *markCounts) string {
	cell["paper_mean"], cell["paper_std"] = p.Mean, p.Std
	if !counted {
		return fmt.Sprintf("%s / %.2f±%.2f / %+.2f", ours.PM(2), p.Mean, p.Std, ours.Mean-p.Mean)
	}
	a := Agree(ours, p.Mean, p.Std, PaperRuns)
	c.add(fmt.Sprintf("%s on %s", rowLabel(cell["method"].(string), cell["variant"].(string)), dsLabel[cell["dataset"].(string)]), a)
	cell["agreement"], cell["agrees_with_paper"], cell["unstable"] = a.Mark, a.Agrees(), a.Unstable
	return fmt.Sprintf("%s / %.2f±%.2f / %+.2f %s", ours.PM(2), p.Mean, p.Std, a.Delta, a)
}

// fixedTable writes one source × mode of the fixed-hyper-parameter table.
func (w *reportWriter) fixedTable(doc *report.Doc, tableID string, pt *paper.Table, exp *Experiment, so, mode string, pw, pc int) (string, bool) {
	tb := &report.Table{Header: []string{"method"}, Align: "l"}
	for _, ds := range exp.Datasets {
		tb.Header = append(tb.Header, dsLabel[ds])
		tb.Align += "l"
	}
	var c markCounts
	var wins, cells int
	any := false
	// Only the authors' data can be compared with the paper's cells: a
	// generated draw is different data (see dataGap), so its Δ carries no
	// mark and nothing is counted.
	comparable := comparableSource(so)
	for _, m := range methodOrder {
		if !containsStr(exp.Methods, m) {
			continue
		}
		counted := m != feddynAcar && comparable
		ref := m
		if m == feddynAcar {
			ref = "feddyn"
		}
		for _, v := range variants {
			row := []string{rowLabel(m, v)}
			for _, ds := range exp.Datasets {
				g := w.get(exp.Name, so, ds, m, v, mode)
				if g == nil {
					row = append(row, "not run")
					continue
				}
				any = true
				ours := g.Final("acc").Scaled(100)
				cell := report.Cell{"table": tableID, "dataset": ds, "method": m, "variant": v, "data_source": so, "mode": mode,
					"metric": "accuracy_pct", "mean": ours.Mean, "std": ours.Std, "n": ours.N, "experiment": exp.Name}
				txt := ours.PM(2)
				if p, ok := pt.Lookup(map[string]string{"method": ref, "variant": v}, ds); ok {
					txt = w.compareCell(cell, ours, p, counted, &c)
				}
				if !comparable {
					cell["comparison"] = "not comparable: different data"
				}
				row = append(row, txt)
				w.Summary.Cells = append(w.Summary.Cells, cell)
				if loss := g.Final("loss"); loss.N > 0 {
					w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": tableID, "dataset": ds, "method": m, "variant": v, "data_source": so, "mode": mode,
						"metric": "test_loss", "mean": loss.Mean, "std": loss.Std, "n": loss.N, "experiment": exp.Name})
				}
			}
			tb.Rows = append(tb.Rows, row)
		}
		if m == feddynAcar {
			continue
		}
		c, wn := w.upcycledWins(exp, so, m, mode)
		cells, wins = cells+c, wins+wn
	}
	if !any {
		return "", false
	}
	doc.H(3, "Table %s, %s data, %s mode", tableID, so, mode)
	doc.Table(tb)
	w.outcomes = append(w.outcomes, tableOutcome{table: tableID, tuned: false, source: so, mode: mode, wins: wins, cells: cells, paperWins: pw, paperCells: pc, marks: c})
	marks := c.String()
	if !comparable {
		marks = "not compared with the paper's cells: different data (Δ shown without marks; see the data comparison below)"
	}
	line := fmt.Sprintf("fixed hyper-parameters, %s data, %s mode: Upcycled beats its baseline in **%d/%d** cells (paper: %d/%d); %s.", so, mode, wins, cells, pw, pc, marks)
	doc.P("%s", line)
	w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": tableID, "experiment": exp.Name, "data_source": so, "mode": mode, "metric": "upcycled_wins",
		"mean": float64(wins), "std": 0.0, "n": cells, "paper_mean": float64(pw), "paper_n": pc})
	return line, true
}

// attribution writes, for the released data in upstream mode, whose number
// each cell agrees with: the paper's, the released code's, both or neither.
func (w *reportWriter) attribution(doc *report.Doc, tableID string, pt *paper.Table, exp *Experiment) {
	if !containsStr(exp.Sources, "released") || !containsStr(exp.Modes, "upstream") {
		return
	}
	if exp.Iterations != 80 || exp.UpcycledIterations != 160 || exp.Epochs != 10 || exp.Batch != 32 || exp.Frac != 0.3 {
		doc.P("Whose gap: the attribution to the paper or the released code is made at the paper's setting (80/160 iterations, E = 10, batch 32, 30%% of clients), which the released code was run at; this scale runs %d/%d iterations with E = %d, so it is not attributed here.", exp.Iterations, exp.UpcycledIterations, exp.Epochs)
		return
	}
	tb := &report.Table{Header: []string{"cell", "ours", "paper", "authors' code", "agrees with"}, Align: "lrrrl"}
	counts := map[string]int{}
	for _, m := range paperMethods {
		for _, v := range variants {
			for _, ds := range exp.Datasets {
				g := w.get(exp.Name, "released", ds, m, v, "upstream")
				p, ok := pt.Lookup(map[string]string{"method": m, "variant": v}, ds)
				if g == nil || !ok {
					continue
				}
				ours := g.Final("acc").Scaled(100)
				ap := Agree(ours, p.Mean, p.Std, PaperRuns)
				codeTxt, verdict := "not run", ""
				var ac *Agreement
				if u, ok := w.up.Best(tableID, ds, m, v); ok {
					a := Agree(ours, u.Mean, u.StdOrNaN(), u.Seeds)
					ac = &a
					codeTxt = fmt.Sprintf("%.2f", u.Mean)
					if u.Std != nil {
						codeTxt = fmt.Sprintf("%.2f±%.2f", u.Mean, *u.Std)
					}
					if u.Seeds > 0 {
						codeTxt += fmt.Sprintf(" (%s)", plural(u.Seeds, "seed"))
					}
					codeTxt += fmt.Sprintf(" %+.2f %s", a.Delta, a)
				}
				switch {
				case ap.Agrees() && ac != nil && ac.Agrees():
					verdict = "both"
				case ap.Agrees():
					verdict = "paper"
					if ac != nil {
						verdict = "paper only"
					}
				case ac != nil && ac.Agrees():
					verdict = "authors' code"
				case ac != nil && ac.Unstable && ac.WithinNoise() && !ap.WithinNoise():
					verdict = "authors' code within noise (unstable)"
				case ac != nil:
					verdict = "neither"
				default:
					verdict = "not the paper (code not run)"
				}
				counts[verdict]++
				w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": tableID, "experiment": exp.Name, "dataset": ds, "method": m, "variant": v,
					"data_source": "released", "mode": "upstream", "metric": "attribution", "agrees_with": verdict, "mean": ours.Mean, "std": ours.Std, "n": ours.N})
				tb.Add(fmt.Sprintf("%s %s", rowLabel(m, v), dsLabel[ds]), ours.PM(2), fmt.Sprintf("%.2f±%.2f %+.2f %s", p.Mean, p.Std, ap.Delta, ap), codeTxt, verdict)
			}
		}
	}
	if len(tb.Rows) == 0 {
		return
	}
	doc.H(3, "Table %s — whose gap is it (released data, upstream mode)", tableID)
	w.attrib[tableID] = counts
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	doc.P("Agreement of each cell with the paper and, where the released code was run with the same hyper-parameters, with that code (same criterion; Δ = ours − reference). %s.", strings.Join(parts, "; "))
	doc.Table(tb)
	var srcs []string
	for _, r := range w.up.Runs {
		srcs = append(srcs, fmt.Sprintf("%s — %s", r.By, r.How))
	}
	doc.P("Authors'-code numbers (%s): %s.", w.up.Code, strings.Join(srcs, "; "))
}

// tunedTable writes the tuned table beside the fixed one: each cell shows
// the tuned result, the fixed result for contrast, the paper's value, and
// the selected (lr, c).
func (w *reportWriter) tunedTable(doc *report.Doc, tableID string, pt *paper.Table, exp, fixed *Experiment, pw, pc int) (string, bool) {
	so, mode := exp.Sources[0], exp.Modes[0]
	tb := &report.Table{Header: []string{"method"}, Align: "l"}
	for _, ds := range exp.Datasets {
		tb.Header = append(tb.Header, dsLabel[ds])
		tb.Align += "l"
	}
	var c markCounts
	var wins, cells int
	any := false
	for _, m := range methodOrder {
		if !containsStr(exp.Methods, m) {
			continue
		}
		for _, v := range variants {
			row := []string{rowLabel(m, v)}
			for _, ds := range exp.Datasets {
				g := w.get(exp.Name, so, ds, m, v, mode)
				if g == nil {
					row = append(row, "not run")
					continue
				}
				any = true
				ours := g.Final("acc").Scaled(100)
				lr, coef := g.selected()
				cell := report.Cell{"table": tableID, "dataset": ds, "method": m, "variant": v, "data_source": so, "mode": mode,
					"metric": "accuracy_pct", "mean": ours.Mean, "std": ours.Std, "n": ours.N, "experiment": exp.Name, "lr": lr}
				sel := fmt.Sprintf("lr %g", lr)
				if v == "upcycled" {
					cell["coef"] = coef
					sel += fmt.Sprintf(", c %g", coef)
				}
				txt := ours.PM(2)
				if p, ok := pt.Lookup(map[string]string{"method": m, "variant": v}, ds); ok {
					txt = w.compareCell(cell, ours, p, true, &c)
				}
				if fixed != nil && fixed != exp {
					if f := w.get(fixed.Name, so, ds, m, v, mode); f != nil {
						txt += fmt.Sprintf(" (fixed %.2f)", f.Final("acc").Scaled(100).Mean)
					}
				}
				row = append(row, txt+" · "+sel)
				w.Summary.Cells = append(w.Summary.Cells, cell)
			}
			tb.Rows = append(tb.Rows, row)
		}
		c, wn := w.upcycledWins(exp, so, m, mode)
		cells, wins = cells+c, wins+wn
	}
	if !any {
		return "", false
	}
	t := exp.Tune
	doc.H(3, "Table %s, tuned: grid search on a validation split (%s data, %s mode)", tableID, so, mode)
	how := fmt.Sprintf("Every method, dataset and variant selects its learning rate from %v (and Upcycled its c from %v, jointly with lr)", t.LRs, t.Cs)
	if t.SharedLR {
		how = fmt.Sprintf("Every baseline selects its learning rate from %v; its Upcycled variant takes the same learning rate (as the upstream client files pair one lr with both variants) and selects its c from %v", t.LRs, t.Cs)
	}
	doc.P("%s by the final validation accuracy the table reports, on a validation split of %.0f%% of each client's training data (fixed per client, never the test set), averaged over %d search seed(s) %v; the selected configuration is then trained on the full training data over the %d seeds shown. Baseline %d iterations, Upcycled %d. Cells: tuned mean±std / paper / Δ mark (fixed: the fixed-hyper-parameter mean of the table above) · selected values.",
		how, 100*t.ValFrac, len(t.Seeds), t.Seeds, len(w.seedsOf(exp)), exp.Iterations, exp.UpcycledIterations)
	doc.Table(tb)
	w.outcomes = append(w.outcomes, tableOutcome{table: tableID, tuned: true, source: so, mode: mode, wins: wins, cells: cells, paperWins: pw, paperCells: pc, marks: c})
	line := fmt.Sprintf("tuned, %s data, %s mode: Upcycled beats its baseline in **%d/%d** cells (paper: %d/%d); %s.", so, mode, wins, cells, pw, pc, c)
	doc.P("%s", line)
	w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": tableID, "experiment": exp.Name, "data_source": so, "mode": mode, "metric": "upcycled_wins",
		"mean": float64(wins), "std": 0.0, "n": cells, "paper_mean": float64(pw), "paper_n": pc})
	return line, true
}

// seedsOf returns an experiment's seeds.
func (w *reportWriter) seedsOf(e *Experiment) []uint64 {
	return w.Spec.SeedsOf(&e.ExperimentHeader)
}

// selected returns a tuned group's selected lr and c (the same for every
// seed: the search is deterministic; NaN if the seeds disagree).
func (g *group) selected() (lr, c float64) {
	lrs, cs := g.Finals("lr"), g.Finals("coef")
	if len(lrs) == 0 {
		return math.NaN(), math.NaN()
	}
	lr, c = lrs[0], cs[0]
	for i := range lrs {
		if lrs[i] != lr || cs[i] != c {
			return math.NaN(), math.NaN()
		}
	}
	return lr, c
}

// upcycledWins counts, over exp's datasets, the cells of method m where
// both arms ran (cells) and where Upcycled's mean accuracy is above its
// baseline's (wins).
func (w *reportWriter) upcycledWins(exp *Experiment, so, m, mode string) (cells, wins int) {
	for _, ds := range exp.Datasets {
		b, u := w.get(exp.Name, so, ds, m, "baseline", mode), w.get(exp.Name, so, ds, m, "upcycled", mode)
		if b != nil && u != nil {
			cells++
			if u.Final("acc").Mean > b.Final("acc").Mean {
				wins++
			}
		}
	}
	return cells, wins
}
