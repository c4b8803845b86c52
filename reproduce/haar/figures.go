package haar

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/report"
)

// figureExperiment writes an experiment's accuracy table, gains against the
// paper, qualitative claims and accuracy curves.
func (w *reportWriter) figureExperiment(doc *report.Doc, e *Experiment) error {
	var ran, missing []int
	for _, ds := range e.Datasets {
		if n, ok := paperFigure(e.Level, ds); ok {
			if w.sets.Available(ds) {
				ran = append(ran, n)
			} else {
				missing = append(missing, n)
			}
		}
	}
	what := fmt.Sprintf("%s (%s-level DP)", figList(ran), e.Level)
	if len(ran) == 0 {
		what = fmt.Sprintf("no figure (%s-level DP)", e.Level)
	}
	if len(missing) > 0 {
		what += fmt.Sprintf("; %s not run (no data)", figList(missing))
	}
	doc.H(2, "%s — %s", e.Name, what)
	doc.P("%s. Final test accuracy (%%) after %d rounds, mean ± std over seeds; ε actual / claimed at δ = %g under each σ column.", e.Description, e.Rounds, w.Spec.Delta)
	for _, ds := range e.Datasets {
		if !w.sets.Available(ds) {
			doc.P("**%s**: not run: %s not found at %s.", datasetLabel[ds], datasetLabel[ds], w.sets.where(ds))
			continue
		}
		opt := "sgd"
		tb := &report.Table{Header: []string{"method"}, Align: "l"}
		for _, s := range e.Sigmas {
			tb.Header = append(tb.Header, "σ = "+sigmaLabel(s))
			tb.Align += "r"
		}
		for _, m := range methodOrder {
			if !slices.Contains(e.Methods, m) {
				continue
			}
			row := []string{methodLabel(m, e.Level)}
			for _, s := range e.Sigmas {
				g := w.get(e.Name, ds, opt, m, s)
				if g == nil {
					row = append(row, "—")
					continue
				}
				st := g.acc()
				txt := st.PM(2)
				if m != "nonprivate" {
					txt += fmt.Sprintf(" (ε %s", fmtEps(g.final("eps")))
					if c := g.final("eps_claimed"); math.Abs(c-g.final("eps")) > 1e-6*c {
						txt += fmt.Sprintf(" / %s", fmtEps(c))
					}
					txt += ")"
				}
				row = append(row, txt)
				if m != "nonprivate" || s == e.Sigmas[0] { // one cell for the σ-free run
					w.accuracyCell(e, ds, opt, m, s, g, st)
				}
			}
			tb.Rows = append(tb.Rows, row)
		}
		doc.H(3, "%s", datasetLabel[ds])
		doc.Table(tb)
		w.gains(doc, e, ds)
		if err := w.curves(doc, e, ds); err != nil {
			return err
		}
	}
	return nil
}

func (w *reportWriter) accuracyCell(e *Experiment, ds, opt, m string, s float64, g *group, st report.Stats) {
	cell := report.Cell{"experiment": e.Name, "dataset": ds, "level": e.Level, "method": m, "sigma": g.Config.Sigma, "optimizer": opt,
		"model": e.Model, "metric": "accuracy_pct", "mean": st.Mean, "std": st.Std, "n": st.N,
		"epsilon": g.final("eps"), "epsilon_claimed": g.final("eps_claimed")}
	if e.Figure != "" {
		cell["figure"] = e.Figure
	}
	if e.Table != "" {
		cell["table"] = e.Table
	}
	if m != "nonprivate" {
		cell["noise_multiplier_effective"] = g.final("multiplier")
		cell["clip"] = g.final("clip")
	}
	w.Summary.Cells = append(w.Summary.Cells, cell)
}

// gains compares our gains with the paper's text-reported ones and counts
// the paper's qualitative claims.
func (w *reportWriter) gains(doc *report.Doc, e *Experiment, ds string) {
	opt := "sgd"
	tb := &report.Table{Header: []string{"σ", "WAV − vanilla (pts)", "relative", "paper", "WAV − Dyn† (pts)", "paper", "corrected WAV − vanilla", "WAV − matched Gaussian"}, Align: "rrrrrrrr"}
	type trip struct{ van, dyn, wav, np float64 }
	var rows []trip
	var gainsV []float64
	any := false
	for _, s := range e.Sigmas {
		v, wv := w.get(e.Name, ds, opt, "vanilla", s), w.get(e.Name, ds, opt, "wav", s)
		if v == nil || wv == nil {
			continue
		}
		any = true
		gv := paired(wv, v)
		gainsV = append(gainsV, gv.Mean)
		rel := 100 * (wv.acc().Mean/v.acc().Mean - 1)
		pv, dv := "—", "—"
		if p, ok := w.paperGain(e.Level, "vanilla", ds, s); ok {
			pv = fmt.Sprintf("%+.2f", p)
		}
		cell := report.Cell{"experiment": e.Name, "figure": e.Figure, "dataset": ds, "level": e.Level, "method": "wav", "sigma": s, "optimizer": opt, "model": e.Model,
			"metric": "gain_vs_vanilla_pts", "mean": gv.Mean, "std": gv.Std, "n": gv.N, "relative_pct": rel, "epsilon": wv.final("eps"), "epsilon_claimed": wv.final("eps_claimed")}
		if p, ok := w.paperGain(e.Level, "vanilla", ds, s); ok {
			cell["paper_value"] = p
		}
		w.Summary.Cells = append(w.Summary.Cells, cell)
		gd := "—"
		t := trip{van: v.acc().Mean, wav: wv.acc().Mean, dyn: math.NaN(), np: math.NaN()}
		if d := w.get(e.Name, ds, opt, "dyn", s); d != nil {
			st := paired(wv, d)
			gd = st.PM(2)
			t.dyn = d.acc().Mean
			cell := report.Cell{"experiment": e.Name, "figure": e.Figure, "dataset": ds, "level": e.Level, "method": "wav", "sigma": s, "optimizer": opt, "model": e.Model,
				"metric": "gain_vs_dyn_pts", "mean": st.Mean, "std": st.Std, "n": st.N, "epsilon": wv.final("eps"), "epsilon_claimed": wv.final("eps_claimed")}
			if p, ok := w.paperGain(e.Level, "dyn", ds, s); ok {
				cell["paper_value"] = p
				dv = fmt.Sprintf("%+.2f", p)
			}
			w.Summary.Cells = append(w.Summary.Cells, cell)
		}
		if np := w.get(e.Name, ds, opt, "nonprivate", s); np != nil {
			t.np = np.acc().Mean
		}
		rows = append(rows, t)
		cg, mg := "—", "—"
		if c := w.get(e.Name, ds, opt, "wav_corrected", s); c != nil {
			st := paired(c, v)
			cg = st.PM(2)
			w.Summary.Cells = append(w.Summary.Cells, report.Cell{"experiment": e.Name, "figure": e.Figure, "dataset": ds, "level": e.Level, "method": "wav_corrected", "sigma": s, "optimizer": opt, "model": e.Model,
				"metric": "gain_vs_vanilla_pts", "mean": st.Mean, "std": st.Std, "n": st.N, "epsilon": c.final("eps"), "epsilon_claimed": c.final("eps_claimed")})
		}
		if g := w.get(e.Name, ds, opt, "gauss_matched", s); g != nil {
			mg = paired(wv, g).PM(2)
		}
		tb.Add(sigmaLabel(s), gv.PM(2), fmt.Sprintf("%+.1f%%", rel), pv, gd, dv, cg, mg)
	}
	if !any {
		return
	}
	doc.P("Gains in percentage points (mean ± std of per-seed paired differences), the relative gain of the means, and the paper's text-reported gains for %s (unit unstated).", datasetLabel[ds])
	doc.Table(tb)
	// Qualitative claims (spec §6.5).
	var order, orderN, above, aboveN int
	for _, t := range rows {
		if !math.IsNaN(t.dyn) {
			orderN++
			if t.wav > t.dyn && t.dyn > t.van {
				order++
			}
		}
		if !math.IsNaN(t.np) {
			aboveN++
			if t.np >= t.wav {
				above++
			}
		}
	}
	grows := len(gainsV) > 1
	for i := 1; i < len(gainsV); i++ {
		grows = grows && gainsV[i] > gainsV[i-1]
	}
	var claims []string
	if orderN > 0 {
		claims = append(claims, fmt.Sprintf("(a) WAV > Dyn† > vanilla: **%d/%d** σ (paper: every cell)", order, orderN))
	}
	claims = append(claims, fmt.Sprintf("(b) gain over vanilla grows with σ: **%s** (gains %s; paper: yes in every group)", yesNo(grows), fmtList(gainsV)))
	if aboveN > 0 {
		claims = append(claims, fmt.Sprintf("(c) non-private ≥ WAV: **%d/%d** σ", above, aboveN))
	}
	doc.List(claims...)
	w.Summary.Cells = append(w.Summary.Cells, report.Cell{"experiment": e.Name, "figure": e.Figure, "dataset": ds, "level": e.Level, "optimizer": opt, "model": e.Model,
		"metric": "claim_order_wav_dyn_vanilla", "mean": float64(order), "std": 0.0, "n": orderN},
		report.Cell{"experiment": e.Name, "figure": e.Figure, "dataset": ds, "level": e.Level, "optimizer": opt, "model": e.Model,
			"metric": "claim_gain_grows_with_sigma", "mean": b2f(grows), "std": 0.0, "n": 1, "paper_value": 1.0})
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func fmtList(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%+.1f", x))
	}
	return strings.Join(s, ", ")
}

// curves draws the accuracy curves of every method, one figure per σ.
func (w *reportWriter) curves(doc *report.Doc, e *Experiment, ds string) error {
	var links []string
	var first string
	for _, s := range e.Sigmas {
		fig := &report.Figure{Title: fmt.Sprintf("%s, %s, σ = %s", e.Name, datasetLabel[ds], sigmaLabel(s)), XLabel: "round", YLabel: "test accuracy (%)"}
		for ci, m := range methodOrder {
			g := w.get(e.Name, ds, "sgd", m, s)
			if g == nil {
				continue
			}
			xs, mean, std := g.curve()
			fig.Series = append(fig.Series, report.Series{Name: shortLabel(m), X: xs, Mean: mean, Std: std, Dashed: m == "nonprivate" || m == "gauss_matched", Color: ci})
		}
		if len(fig.Series) == 0 {
			continue
		}
		base := fmt.Sprintf("%s_%s_sigma%s", e.Name, ds, sigmaLabel(s))
		if err := fig.Save(filepath.Join(w.Dir, "figures", base)); err != nil {
			return err
		}
		if first == "" || s == e.Sigmas[len(e.Sigmas)-1] {
			first = base
		}
		links = append(links, fmt.Sprintf("[σ = %s](figures/%s.png) ([svg](figures/%s.svg))", sigmaLabel(s), base, base))
	}
	if len(links) > 0 {
		doc.P("Accuracy curves (mean ± std band over seeds): %s.", strings.Join(links, " · "))
		doc.Image(fmt.Sprintf("%s %s accuracy curves", e.Name, datasetLabel[ds]), "figures/"+first+".png")
	}
	return nil
}

func shortLabel(m string) string {
	return map[string]string{"nonprivate": "non-private", "vanilla": "vanilla", "dyn": "Dyn†", "wav": "WAV (Lemma 2)",
		"wav_literal": "WAV (σ_c = σ)", "wav_corrected": "WAV corrected", "gauss_matched": "Gaussian, WAV's std"}[m]
}
