package normec

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// The paper, as the reports cite it: its title and public address (arXiv
// 2512.21521; an earlier version is an ICML 2025 workshop poster,
// https://openreview.net/forum?id=PdIjv8sD0M).
const (
	paperTitle = "First Provable Guarantees for Practical Private FL: Beyond Restrictive Assumptions"
	paperLink  = "https://arxiv.org/abs/2512.21521"
)

// verdictOrder lists the reading verdicts in the order findings name them.
var verdictOrder = []Verdict{Holds, Partly, Refuted, NotComparable, Inconclusive, NotRun}

// countVerdicts tallies readings by verdict.
func countVerdicts(rs []Reading) map[Verdict]int {
	out := map[Verdict]int{}
	for _, r := range rs {
		out[r.Verdict]++
	}
	return out
}

// verdictText renders counts as "holds 4, partly 2, …" (zero counts
// omitted; nothing when empty).
func verdictText(c map[Verdict]int) string {
	var parts []string
	for _, v := range verdictOrder {
		if c[v] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", v, c[v]))
		}
	}
	return strings.Join(parts, ", ")
}

// findings are the report's opening sentences; every number comes from the
// sections below.
func (w *reportWriter) findings(withChecks bool) []string {
	var out []string
	if n := len(w.primaryReadings); n > 0 {
		c := countVerdicts(w.primaryReadings)
		var off []string
		for _, r := range w.primaryReadings {
			if r.Verdict == Refuted {
				off = append(off, fmt.Sprintf("%s (Fig %s)", r.ID, r.Figure))
			}
		}
		s := fmt.Sprintf("The paper's %d readings of Figs 1–4, recomputed on **%s** (its own protocol — iid split, its noise formula — on our data and model), verdicts: %s", n, w.primary, verdictText(c))
		if len(off) > 0 {
			s += "; refuted: " + strings.Join(off, ", ")
		}
		out = append(out, s+".")
	}
	if len(w.combos) > 1 {
		total := map[Verdict]int{}
		settings := 0
		for _, cb := range w.combos {
			if cb == w.primary {
				continue
			}
			settings++
			for v, k := range countVerdicts(w.allReadings[cb]) {
				total[v] += k
			}
		}
		out = append(out, fmt.Sprintf("The same readings in the %d other settings that ran (other noise, label skew, models, protocol variants), verdicts: %s.", settings, verdictText(total)))
	}
	if n := sumVerdicts(w.robust); n > 0 {
		out = append(out, fmt.Sprintf("Appendix A.1's closing claim (normalized FedAvg may fail where Fed-α-NormEC stays robust), tested as \"label skew costs FedAvg more accuracy than Fed-α-NormEC\" on %d iid/label-skew pairs of settings, verdicts: %s.", n, verdictText(w.robust)))
	}
	if lo, hi := w.formulaEps[0], w.formulaEps[1]; !math.IsNaN(lo) {
		out = append(out, fmt.Sprintf("Privacy of the runs: the paper's noise formula buys ε between %s and %s at this scale's %d rounds (the tightest sound bound: amplified RDP with q = p, or the visible-participation exact ε where smaller, δ = %g), not the ε = %g the paper states.",
			fmtEps(lo), fmtEps(hi), w.Spec.Training.Rounds, w.Spec.Privacy.Delta, w.Spec.Privacy.Epsilon))
	}
	out = paper.AppendNonEmpty(out, w.auditFinding())
	if withChecks {
		out = append(out, report.ClaimsFinding(paperID, w.claimCounts))
	}
	return out
}

func sumVerdicts(c map[Verdict]int) int {
	n := 0
	for _, k := range c {
		n += k
	}
	return n
}

// formulaRow finds the formula-epsilon audit row of (p, β) under an
// accountant and a neighbouring relation.
func (w *reportWriter) formulaRow(p, beta float64, acct, nb string) (map[string]any, bool) {
	t, ok := report.AuditTable(w.auditTables, "formula-epsilon")
	if !ok {
		return nil, false
	}
	for _, r := range t.Rows {
		rp, ok1 := report.RowFloat(r, "p")
		rb, ok2 := report.RowFloat(r, "beta")
		if ok1 && ok2 && same(rp, p) && same(rb, beta) && r["accountant"] == acct && r["neighbouring"] == nb {
			return r, true
		}
	}
	return nil, false
}

// auditFinding states the audited ε of the paper's own setting (K = 300
// rounds) at its best β, and the one-round distinguisher's bound.
func (w *reportWriter) auditFinding() string {
	var parts []string
	for _, f := range w.privacyFigures() {
		parts = append(parts, fmt.Sprintf("%s: ε = %s (stated %g)", f.What, fmtEps(float64(f.Audited)), float64(f.Claimed)))
	}
	if t, ok := report.AuditTable(w.auditTables, "one-round-distinguisher"); ok {
		best := math.Inf(-1)
		for _, r := range t.Rows {
			if v, ok := report.RowFloat(r, "epsilon"); ok {
				best = math.Max(best, v)
			}
		}
		if !math.IsInf(best, -1) {
			parts = append(parts, fmt.Sprintf("a distinguishing game on one round of one client already certifies ε ≥ %.3g (95%% confidence)", best))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Privacy audit (`fedrepro audit --paper normec`, the paper's 300 rounds): " + strings.Join(parts, "; ") + "."
}

// tightestAmplified is the smallest sound upper bound on the ε of the
// formula noise at (p, β) when the server does not see who participates:
// the amplified RDP and PLD values, and the visible-participation exact ε
// (hiding participation is post-processing, so it bounds this case too).
// what names the bound that gave it.
func (w *reportWriter) tightestAmplified(p, beta float64) (what string, claimed, eps float64, ok bool) {
	eps = math.Inf(1)
	for _, acct := range []string{"rdp", "pld"} {
		r, found := w.formulaRow(p, beta, acct, "add-remove")
		if !found {
			continue
		}
		if c, okC := report.RowFloat(r, "epsilon_target"); okC {
			claimed, ok = c, true
		}
		if v, okV := report.RowFloat(r, "epsilon"); okV && v < eps {
			eps, what = v, "amplified ("+strings.ToUpper(acct)+")"
		}
		if v, okV := report.RowFloat(r, "epsilon_visible_participation"); okV && v < eps {
			eps, what = v, "bounded by the visible-participation exact ε"
		}
	}
	return what, claimed, eps, ok && !math.IsInf(eps, 1)
}

// privacyFigures are the stated ε beside the audited ε of the formula's
// noise at the paper's best β (0.01), in its amplified model at p = 1 and
// p = 0.25, and against a server that sees participation at p = 0.25.
func (w *reportWriter) privacyFigures() []report.PrivacyFigure {
	var out []report.PrivacyFigure
	add := func(what string, r map[string]any, col string) {
		claimed, ok1 := report.RowFloat(r, "epsilon_target")
		audited, ok2 := report.RowFloat(r, col)
		if ok1 && ok2 {
			out = append(out, report.PrivacyFigure{What: what, Claimed: report.JSONFloat(claimed), Audited: report.JSONFloat(audited)})
		}
	}
	for _, p := range []float64{1, paperPartialP} {
		if what, claimed, eps, ok := w.tightestAmplified(p, paperBestBeta); ok {
			out = append(out, report.PrivacyFigure{What: fmt.Sprintf("formula noise, p = %s, β = %s, hidden participation, %s", num(p), num(paperBestBeta), what),
				Claimed: report.JSONFloat(claimed), Audited: report.JSONFloat(eps)})
		}
	}
	if r, ok := w.formulaRow(paperPartialP, paperBestBeta, "rdp", "add-remove"); ok {
		add(fmt.Sprintf("formula noise, p = %s, β = %s, server sees who transmits", num(paperPartialP), num(paperBestBeta)), r, "epsilon_visible_participation")
	}
	return out
}

// headline is the summary's entry in the cross-paper index.
func (w *reportWriter) headline(results []*runner.Result) *report.Headline {
	runs, cpu := report.RunCost(results)
	h := &report.Headline{Title: paperTitle + " (Fed-α-NormEC)", Link: paperLink, Reproduced: w.scope(),
		Claims: w.claimCounts, Privacy: w.privacyFigures(), Runs: runs, CPUSeconds: cpu}
	if h.Claims == nil {
		h.Claims = map[string]int{}
	}
	if n := len(w.primaryReadings); n > 0 {
		h.Relations = append(h.Relations, report.Relation{Name: fmt.Sprintf("the paper's readings of Figs 1–4 (%s)", w.primary),
			Ours: verdictText(countVerdicts(w.primaryReadings)), Paper: fmt.Sprintf("%d stated", n)})
	}
	if n := sumVerdicts(w.robust); n > 0 {
		h.Relations = append(h.Relations, report.Relation{Name: "FedAvg fails where Fed-α-NormEC stays robust (App. A.1; label skew)",
			Ours: verdictText(w.robust), Paper: "stated"})
	}
	return h
}

// scope names what this scale reproduced.
func (w *reportWriter) scope() string {
	data, models := map[string]bool{}, map[string]bool{}
	for _, c := range w.combos {
		data[c.Dataset], models[c.Model] = true, true
	}
	var ds, ms []string
	for _, d := range orderDatasets {
		if data[d] {
			ds = append(ds, map[string]string{"fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10"}[d])
		}
	}
	for _, m := range orderModels {
		if models[m] {
			ms = append(ms, map[string]string{"logreg": "logistic regression", "mlp": "an MLP"}[m])
		}
	}
	return fmt.Sprintf("Figs 1–4 analogues (γ, β, p grid; FedAvg baseline) on %s with %s instead of CIFAR-10/ResNet20, in %d settings; ε of every run and of the paper's noise formula audited",
		strings.Join(ds, " and "), strings.Join(ms, " and "), len(w.combos))
}
