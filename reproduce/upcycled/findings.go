package upcycled

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// The paper, as the reports cite it: its title and public address (arXiv
// 2310.06341, "Accepted by Transactions on Machine Learning Research").
const (
	paperTitle = "Federated Learning with Reduced Information Leakage and Computation"
	paperLink  = "https://arxiv.org/abs/2310.06341"
)

// tableOutcome is one Table 1/3 comparison the report wrote: how often
// Upcycled beats its baseline, beside the paper's count, and how our
// cells compare with the printed ones.
type tableOutcome struct {
	table                              string
	tuned                              bool
	source, mode                       string
	wins, cells, paperWins, paperCells int
	marks                              markCounts
}

// privateOutcome counts, for one private experiment and mode, the cells
// where private Upcycled ends with a lower test loss than its baseline.
type privateOutcome struct {
	privacy, mode string
	lower, cells  int
}

// primary returns the outcome a table is judged by — fixed
// hyper-parameters on the released data in upstream mode (the authors'
// data and code), else the first fixed one, else the first — and the tuned
// one of the same data and mode when it ran.
func (w *reportWriter) primary(table string) (main, tuned *tableOutcome) {
	var cands []*tableOutcome
	for i := range w.outcomes {
		if w.outcomes[i].table == table {
			cands = append(cands, &w.outcomes[i])
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	rank := func(o *tableOutcome) int {
		r := 0
		if o.tuned {
			r += 4
		}
		if o.source != "released" {
			r += 2
		}
		if o.mode != "upstream" {
			r++
		}
		return r
	}
	main = cands[0]
	for _, o := range cands {
		if rank(o) < rank(main) {
			main = o
		}
	}
	for _, o := range cands {
		if o.tuned && o != main && o.source == main.source && o.mode == main.mode {
			tuned = o
		}
	}
	return main, tuned
}

var (
	stragglers   = map[string]string{"1": "90%", "3": "30%"}
	variantLabel = map[string]string{"baseline": "baseline", "upcycled": "Upcycled"}
)

// findings are the report's opening sentences, every number from the
// sections above.
func (w *reportWriter) findings() []string {
	var out []string
	var rest []string
	shown := map[*tableOutcome]bool{}
	for _, t := range []string{"1", "3"} {
		m, tu := w.primary(t)
		if m == nil {
			continue
		}
		shown[m] = true
		hp := "fixed hyper-parameters"
		if m.tuned {
			hp = "tuned hyper-parameters"
		}
		s := fmt.Sprintf("Table %s (%s stragglers), %s data, %s mode, %s: Upcycled beats its baseline in **%d of %d** cells (paper: %d of %d)",
			t, stragglers[t], m.source, m.mode, hp, m.wins, m.cells, m.paperWins, m.paperCells)
		if tu != nil {
			shown[tu] = true
			s += fmt.Sprintf(", tuned by grid search in %d of %d (paper: %d of %d)", tu.wins, tu.cells, tu.paperWins, tu.paperCells)
		}
		if c := m.marks; c.compared > 0 {
			s += fmt.Sprintf("; of the %d printed accuracies (both variants) ours agree with %d (✓), are close to %d (≈) and differ by more than a point from %d (✗), the largest gap being %s at %+.2f points",
				c.compared, c.agree, c.close, c.off, c.worst, c.worstDelta)
		}
		if a := w.attrib[t]; len(a) > 0 {
			s += "; whose gap (released data): " + attribText(a)
		}
		out = append(out, s+".")
	}
	for i := range w.outcomes {
		o := &w.outcomes[i]
		if shown[o] {
			continue
		}
		hp := "fixed"
		if o.tuned {
			hp = "tuned"
		}
		r := fmt.Sprintf("Table %s %s data %s mode %s %d/%d (paper %d/%d", o.table, o.source, o.mode, hp, o.wins, o.cells, o.paperWins, o.paperCells)
		if c := o.marks; c.compared > 0 {
			r += fmt.Sprintf("; printed accuracies: %d ✓, %d ≈, %d ✗ of %d", c.agree, c.close, c.off, c.compared)
		} else if !comparableSource(o.source) {
			r += "; different data, not compared"
		}
		rest = append(rest, r+")")
	}
	if len(rest) > 0 {
		out = append(out, "Upcycled's wins over its baseline in the other settings: "+strings.Join(rest, "; ")+".")
	}
	out = paper.AppendNonEmpty(out, w.modeFinding())
	for _, g := range w.dataGaps {
		out = append(out, fmt.Sprintf("Generated data (Table %s; a fresh draw, not the paper's data, so not marked against it): %s", g.table, g.sentence))
	}
	out = paper.AppendNonEmpty(out, w.privateFinding())
	if len(w.cpuRatios) > 0 {
		lo, hi := minMax(w.cpuRatios)
		s := fmt.Sprintf("Cost (Table 5, Syn(iid), output perturbation, equal iterations): Upcycled's CPU time is %.2f–%.2f× its baseline's over %d methods", lo, hi, len(w.cpuRatios))
		if len(w.paperTimeRatios) > 0 {
			plo, phi := minMax(w.paperTimeRatios)
			s += fmt.Sprintf(" (the paper's time ratios: %.2f–%.2f)", plo, phi)
		}
		out = append(out, s+".")
	}
	return paper.AppendNonEmpty(out, w.privacyFinding(), report.ClaimsFinding("upcycled", w.claimCounts))
}

// modeFinding says, per table run in both modes on the released data with
// fixed hyper-parameters, which implementation the printed accuracies
// match: the released code's loss (upstream mode) or the published one
// (paper mode), counted as cells within a point (✓ or ≈).
func (w *reportWriter) modeFinding() string {
	var parts []string
	for _, t := range []string{"1", "3"} {
		var up, pp *tableOutcome
		for i := range w.outcomes {
			o := &w.outcomes[i]
			if o.table != t || o.tuned || o.source != "released" || o.marks.compared == 0 {
				continue
			}
			switch o.mode {
			case "upstream":
				up = o
			case "paper":
				pp = o
			}
		}
		if up == nil || pp == nil {
			continue
		}
		a, b := up.marks.agree+up.marks.close, pp.marks.agree+pp.marks.close
		which := "the released code's loss (double softmax, upstream mode)"
		switch {
		case b > a:
			which = "the published loss (paper mode)"
		case a == b:
			which = "both implementations equally"
		}
		parts = append(parts, fmt.Sprintf("Table %s's printed accuracies match %s: within a point in %d of %d cells in upstream mode, %d of %d in paper mode (Upcycled beats its baseline in %d/%d and %d/%d)",
			t, which, a, up.marks.compared, b, pp.marks.compared, up.wins, up.cells, pp.wins, pp.cells))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Both implementations on the released data, fixed hyper-parameters: " + strings.Join(parts, "; ") + "."
}

// attribOrder names the attribution verdicts in reading order.
var attribOrder = []struct{ key, text string }{
	{"both", "agree with the paper and the released code"},
	{"paper", "agree with the paper"},
	{"paper only", "agree with the paper only"},
	{"authors' code", "agree with the released code only"},
	{"authors' code within noise (unstable)", "are within the released code's noise"},
	{"neither", "agree with neither"},
	{"not the paper (code not run)", "disagree with the paper (released code not run)"},
}

func attribText(a map[string]int) string {
	n := 0
	for _, v := range a {
		n += v
	}
	var parts []string
	for _, k := range attribOrder {
		if a[k.key] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", a[k.key], k.text))
		}
	}
	return fmt.Sprintf("of %d cells, %s", n, strings.Join(parts, ", "))
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// privateKey names one private count: a mechanism in one implementation
// mode (the modes are the same cells run two ways, never pooled).
type privateKey struct{ privacy, mode string }

// privateTotals sums the private comparison per mechanism and mode, in the
// order the report met them.
func (w *reportWriter) privateTotals() (keys []privateKey, lower, cells map[privateKey]int) {
	lower, cells = map[privateKey]int{}, map[privateKey]int{}
	for _, p := range w.private {
		k := privateKey{p.privacy, p.mode}
		if cells[k] == 0 {
			keys = append(keys, k)
		}
		lower[k] += p.lower
		cells[k] += p.cells
	}
	return keys, lower, cells
}

func (w *reportWriter) privateFinding() string {
	keys, lower, cells := w.privateTotals()
	if len(keys) == 0 {
		return ""
	}
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d of %d %s-perturbation cells in %s mode", lower[k], cells[k], k.privacy, k.mode))
	}
	s := fmt.Sprintf("Private runs at the paper's noise (Figs 3–4, final test loss, each implementation mode counted on its own): Upcycled ends below its baseline in %s; the paper states that private Upcycled attains a lower loss", strings.Join(parts, ", "))
	if e, ok := w.leastMechanismEps(); ok {
		s += fmt.Sprintf(", but at these noise levels every arm in either mode spends ε ≥ %s (audit `%s`, the released mechanism at δ = 10⁻⁵), so these are comparisons of non-private arms", fmtEps(e), auditMechanismID)
	}
	s += "."
	for _, o := range w.eqEps {
		s += " " + o.sentence()
	}
	return s
}

// leastMechanismEps is the smallest ε of the op-mechanism audit over both
// noise readings (σ and σ²) and both arms, under the released mechanism's
// sensitivity (the clipped model, replace-one): what the as-run private
// figures spend at least.
func (w *reportWriter) leastMechanismEps() (float64, bool) {
	t, ok := report.AuditTable(w.auditTables, auditMechanismID)
	if !ok {
		return 0, false
	}
	least, found := math.Inf(1), false
	for _, r := range t.Rows {
		if r["sensitivity"] != sensReleased {
			continue
		}
		if e, ok := report.RowFloat(r, "eps_exact"); ok {
			least, found = math.Min(least, e), true
		}
	}
	return least, found
}

// mechanismRow finds the op-mechanism audit row of a variant under a
// noise-std reading and a sensitivity model.
func mechanismRow(t audit.Table, stdMode, variant, sensitivity string) (audit.Row, bool) {
	for _, r := range t.Rows {
		if r["std_mode"] == stdMode && r["variant"] == variant && r["sensitivity"] == sensitivity {
			return r, true
		}
	}
	return nil, false
}

// Readings of the op-mechanism audit: the mechanism as the released code
// runs it (noise std σ², the clipped model's 2τ sensitivity) and the
// paper's own sensitivity model.
const (
	stdReleased      = "upstream_sigma_squared"
	sensReleased     = "2tau_clipped_model_replace_one"
	sensPaperAddOne  = "tau_over_D_paper_add_one"
	auditMechanismID = "op-mechanism"
)

// privacyFigures are the printed ε̄ of Fig. 3 beside the ε the audit
// computes for the mechanism as released.
func (w *reportWriter) privacyFigures() []report.PrivacyFigure {
	t, ok := report.AuditTable(w.auditTables, auditMechanismID)
	if !ok {
		return nil
	}
	var out []report.PrivacyFigure
	for _, v := range variants {
		r, ok := mechanismRow(t, stdReleased, v, sensReleased)
		if !ok {
			continue
		}
		claimed, ok1 := report.RowFloat(r, "eps_published")
		audited, ok2 := report.RowFloat(r, "eps_exact")
		std, _ := report.RowFloat(r, "noise_std")
		if ok1 && ok2 {
			out = append(out, report.PrivacyFigure{What: fmt.Sprintf("Fig. 3 output perturbation, %s (noise std %.3g), as released", variantLabel[v], std),
				Claimed: report.JSONFloat(claimed), Audited: report.JSONFloat(audited)})
		}
	}
	return out
}

func (w *reportWriter) privacyFinding() string {
	t, ok := report.AuditTable(w.auditTables, auditMechanismID)
	if !ok {
		return ""
	}
	var rel, own, printed []string
	var tau, delta float64
	for _, v := range variants {
		r, ok := mechanismRow(t, stdReleased, v, sensReleased)
		p, ok2 := mechanismRow(t, stdReleased, v, sensPaperAddOne)
		if !ok || !ok2 {
			continue
		}
		e, _ := report.RowFloat(r, "eps_exact")
		pe, _ := report.RowFloat(p, "eps_exact")
		pub, _ := report.RowFloat(r, "eps_published")
		tau, _ = report.RowFloat(r, "tau")
		delta, _ = report.RowFloat(r, "delta")
		rel = append(rel, fmt.Sprintf("%s (%s)", fmtEps(e), variantLabel[v]))
		own = append(own, fmtEps(pe))
		printed = append(printed, fmtEps(pub))
	}
	if len(rel) == 0 {
		return ""
	}
	return fmt.Sprintf("Privacy (audit `%s`): as the released code runs output perturbation — the whole trained model clipped to τ = %g, so one example moves it by up to 2τ, and noise std σ² — it is (ε, %g)-DP only for ε ≈ %s, against the printed ε̄ %s; even the paper's own sensitivity model (τ/|D|) gives %s.",
		auditMechanismID, tau, delta, strings.Join(rel, " and "), strings.Join(printed, " and "), strings.Join(own, " and "))
}

// headline is the summary's entry in the cross-paper index.
func (w *reportWriter) headline(results []*runner.Result) *report.Headline {
	runs, cpu := report.RunCost(results)
	h := &report.Headline{Title: paperTitle + " (Upcycled-FL)", Link: paperLink, Reproduced: w.scope(),
		Claims: w.claimCounts, Privacy: w.privacyFigures(), Runs: runs, CPUSeconds: cpu}
	for _, t := range []string{"1", "3"} {
		m, tu := w.primary(t)
		for _, o := range []*tableOutcome{m, tu} {
			if o == nil {
				continue
			}
			hp := "fixed hyper-parameters"
			if o.tuned {
				hp = "tuned"
			}
			h.Relations = append(h.Relations, report.Relation{
				Name: fmt.Sprintf("Upcycled beats its baseline, Table %s (%s data, %s)", t, o.source, hp),
				Ours: fmt.Sprintf("%d/%d", o.wins, o.cells), Paper: fmt.Sprintf("%d/%d", o.paperWins, o.paperCells)})
		}
	}
	keys, lower, cells := w.privateTotals()
	for _, k := range keys {
		h.Relations = append(h.Relations, report.Relation{Name: fmt.Sprintf("private Upcycled ends with a lower loss (%s perturbation, %s mode, ε ≈ 10⁴)", k.privacy, k.mode),
			Ours: fmt.Sprintf("%d/%d", lower[k], cells[k]), Paper: "stated, no count"})
	}
	for _, o := range w.eqEps {
		h.Relations = append(h.Relations, report.Relation{Name: fmt.Sprintf("private Upcycled ends with a lower loss at equal ε = %s (output perturbation, %s mode)", fmtEps(o.eps), o.mode),
			Ours: fmt.Sprintf("%d/%d", o.lower, o.cells), Paper: "stated, no count"})
	}
	return h
}

// scope names the paper's tables and figures this scale reproduced and the
// data they ran on.
func (w *reportWriter) scope() string {
	tables, figs, srcs := map[string]bool{"2": true}, map[string]bool{}, map[string]bool{}
	for k, g := range w.Groups {
		for _, e := range w.Spec.Experiments {
			if e.Name != k.exp {
				continue
			}
			if e.Table != "" {
				tables[e.Table] = true
			}
			if e.Figure != "" {
				figs[e.Figure] = true
			}
		}
		srcs[g.Config.Source] = true
	}
	if len(w.cpuRatios) > 0 {
		tables["5"] = true
	}
	label := map[string]string{"released": "the released synthetic data", "generated": "regenerated synthetic data", "leaf": "FEMNIST"}
	var ds []string
	for _, s := range []string{"released", "generated", "leaf"} {
		if srcs[s] {
			ds = append(ds, label[s])
		}
	}
	and := strings.Join(ds, ", ")
	if n := len(ds); n > 1 {
		and = strings.Join(ds[:n-1], ", ") + " and " + ds[n-1]
	}
	return fmt.Sprintf("Tables %s and Figs %s on %s; private ε audited", joinKeys(tables), joinKeys(figs), and)
}

func joinKeys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	ks = slices.Compact(ks)
	return strings.Join(ks, ", ")
}

// fmtEps prints an ε: whole numbers from 1000 on, else three significant
// digits.
func fmtEps(e float64) string {
	switch {
	case math.IsInf(e, 1):
		return "∞"
	case e >= 1000:
		return fmt.Sprintf("%.0f", e)
	}
	return fmt.Sprintf("%.3g", e)
}
