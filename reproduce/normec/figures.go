package normec

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/report"
)

func betaColor(b float64) int {
	switch {
	case same(b, 0.001):
		return 0
	case same(b, 0.01):
		return 1
	case same(b, 0.1):
		return 2
	}
	return 3 + int(math.Abs(math.Log10(b)))
}

func pColor(p float64) int {
	switch {
	case same(p, 0.25):
		return 0
	case same(p, 0.5):
		return 1
	case same(p, 1):
		return 2
	}
	return 3
}

// figures draws Figs 1–4 for every combo and adds their summary cells.
func (w *reportWriter) figures(doc *report.Doc) error {
	doc.H(2, "Figures 1–4 (analogues)")
	doc.P("Mean ± std over seeds; γ tuned per (method, p, β). Fig 1: Fed-α-NormEC per round, p = 1 solid, p = 0.25 dashed, one colour per β. Fig 2: Fed-α-NormEC at β = 0.01 against total client→server transmissions (dotted: the 65/70 target of the Fig 2 reading). Fig 3: Fed-α-NormEC (solid) against FedAvg (dashed) at p = 1, one colour per β. Fig 4: FedAvg's highest test accuracy over β × γ. Training-loss axes are logarithmic when the curves span more than a factor 20.")
	links := &report.Table{Header: []string{"setting", "Fig 1 accuracy", "Fig 1 training loss", "Fig 2", "Fig 3 accuracy", "Fig 3 training loss", "Fig 4"}, Align: "lcccccc"}
	for _, c := range w.combos {
		files, err := w.comboFigures(w.Groups[c])
		if err != nil {
			return err
		}
		row := []string{c.String()}
		for _, k := range []string{"fig1_acc", "fig1_loss", "fig2", "fig3_acc", "fig3_loss", "fig4"} {
			if f, ok := files[k]; ok {
				row = append(row, fmt.Sprintf("[png](figures/%s.png) · [svg](figures/%s.svg)", f, f))
			} else {
				row = append(row, "—")
			}
		}
		links.Rows = append(links.Rows, row)
		if c == w.primary {
			for _, k := range []string{"fig1_acc", "fig1_loss", "fig2", "fig3_acc", "fig3_loss", "fig4"} {
				if f, ok := files[k]; ok {
					doc.Image(fmt.Sprintf("%s, %s", k, c), "figures/"+f+".png")
				}
			}
			w.fig4Table(doc, w.Groups[c])
		}
	}
	doc.H(3, "All settings")
	doc.Table(links)
	return nil
}

func (w *reportWriter) fig4Table(doc *report.Doc, g *Grid) {
	betas, gammas := g.Values("fedavg", betaOf), g.Values("fedavg", gammaOf)
	if len(betas) == 0 {
		return
	}
	doc.P("Fig 4 values (%s): FedAvg's highest test accuracy (mean ± std over seeds), rows β, columns γ; βγ = 0.001 marked *.", g.Combo)
	hdr := []string{"β \\ γ"}
	for _, gm := range gammas {
		hdr = append(hdr, num(gm))
	}
	tb := &report.Table{Header: hdr, Align: "l" + strings.Repeat("r", len(gammas))}
	for _, b := range betas {
		row := []string{num(b)}
		for _, gm := range gammas {
			grp := g.Get("fedavg", 1, b, gm)
			if grp == nil {
				row = append(row, "—")
				continue
			}
			s := grp.Final("best_acc")
			mark := ""
			if same(b*gm, diagonalProduct) {
				mark = "*"
			}
			row = append(row, fmt.Sprintf("%.1f±%.1f%s", 100*s.Mean, 100*s.Std, mark))
		}
		tb.Rows = append(tb.Rows, row)
	}
	doc.Table(tb)
}

// wideRange reports whether the series' means span more than a factor 20
// (then a log axis shows them better).
func wideRange(ss []report.Series) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range s.Mean {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return hi > 20*lo
}

// comboFigures saves one combo's figures and returns their base names.
func (w *reportWriter) comboFigures(g *Grid) (map[string]string, error) {
	files := map[string]string{}
	save := func(key string, f *report.Figure) error {
		if len(f.Series) == 0 {
			return nil
		}
		name := key + "_" + g.Combo.Slug()
		files[key] = name
		return f.Save(filepath.Join(w.Dir, "figures", name))
	}
	title := func(fig string) string { return fmt.Sprintf("Fig %s analogue — %s", fig, g.Combo) }
	pct := func(m []float64) []float64 {
		out := make([]float64, len(m))
		for i, v := range m {
			out[i] = 100 * v
		}
		return out
	}
	// Fig 1.
	f1a := &report.Figure{Title: title("1"), XLabel: "communication round", YLabel: "test accuracy (%)", Legend: "bottom-right"}
	f1l := &report.Figure{Title: title("1"), XLabel: "communication round", YLabel: "training loss"}
	for _, p := range []float64{1, paperPartialP} {
		for _, b := range g.Values("normec", betaOf) {
			gamma, grp := g.Tuned("normec", p, b)
			if grp == nil {
				continue
			}
			w.addFinal("1", grp, "acc", "train_loss", "loss")
			name := fmt.Sprintf("β=%s p=%s (γ=%s)", num(b), num(p), num(gamma))
			x, m, s := meanCurve(grp, "round", "acc")
			f1a.Series = append(f1a.Series, report.Series{Name: name, X: x, Mean: pct(m), Std: pct(s), Dashed: p != 1, Color: betaColor(b)})
			x, m, s = meanCurve(grp, "round", "train_loss")
			f1l.Series = append(f1l.Series, report.Series{Name: name, X: x, Mean: m, Std: s, Dashed: p != 1, Color: betaColor(b)})
		}
	}
	if err := save("fig1_acc", f1a); err != nil {
		return nil, err
	}
	f1l.LogY = wideRange(f1l.Series)
	if err := save("fig1_loss", f1l); err != nil {
		return nil, err
	}
	// Fig 2.
	f2 := &report.Figure{Title: title("2") + ", β = 0.01", XLabel: "total client→server transmissions", YLabel: "test accuracy (%)", Legend: "bottom-right"}
	target, haveTarget := fig2Target(g)
	var maxX float64
	for _, p := range g.Values("normec", pOf) {
		gamma, grp := g.Tuned("normec", p, paperBestBeta)
		if grp == nil {
			continue
		}
		w.addFinal("2", grp, "acc", "transmissions")
		if haveTarget {
			st := report.Stats{Mean: TransmissionsTo(grp, target), N: len(grp.Results)}
			cell := w.cell("2", grp, "transmissions_to_target", st)
			cell["target_acc"] = target
			w.Summary.Cells = append(w.Summary.Cells, cell)
		}
		x, m, s := meanCurve(grp, "transmissions", "acc")
		if len(x) > 0 {
			maxX = math.Max(maxX, x[len(x)-1])
		}
		f2.Series = append(f2.Series, report.Series{Name: fmt.Sprintf("p=%s (γ=%s)", num(p), num(gamma)), X: x, Mean: pct(m), Std: pct(s), Color: pColor(p)})
	}
	if haveTarget && len(f2.Series) > 0 {
		f2.Series = append(f2.Series, report.Series{Name: fmt.Sprintf("target %.1f%%", 100*target), X: []float64{0, maxX}, Mean: []float64{100 * target, 100 * target}, Dashed: true, Color: 6})
	}
	if err := save("fig2", f2); err != nil {
		return nil, err
	}
	// Fig 3.
	f3a := &report.Figure{Title: title("3") + ", p = 1", XLabel: "communication round", YLabel: "test accuracy (%)", Legend: "bottom-right"}
	f3l := &report.Figure{Title: title("3") + ", p = 1", XLabel: "communication round", YLabel: "training loss"}
	for _, method := range []string{"normec", "fedavg"} {
		for _, b := range g.Values(method, betaOf) {
			gamma, grp := g.Tuned(method, 1, b)
			if grp == nil {
				continue
			}
			w.addFinal("3", grp, "acc", "train_loss", "loss")
			short := map[string]string{"normec": "EC", "fedavg": "FedAvg"}[method]
			name := fmt.Sprintf("%s β=%s (γ=%s)", short, num(b), num(gamma))
			x, m, s := meanCurve(grp, "round", "acc")
			f3a.Series = append(f3a.Series, report.Series{Name: name, X: x, Mean: pct(m), Std: pct(s), Dashed: method == "fedavg", Color: betaColor(b)})
			x, m, s = meanCurve(grp, "round", "train_loss")
			f3l.Series = append(f3l.Series, report.Series{Name: name, X: x, Mean: m, Std: s, Dashed: method == "fedavg", Color: betaColor(b)})
		}
	}
	if err := save("fig3_acc", f3a); err != nil {
		return nil, err
	}
	f3l.LogY = wideRange(f3l.Series)
	if err := save("fig3_loss", f3l); err != nil {
		return nil, err
	}
	// Fig 4.
	betas, gammas := g.Values("fedavg", betaOf), g.Values("fedavg", gammaOf)
	if len(betas) > 0 && len(gammas) > 0 {
		hm := &report.Heatmap{Title: fmt.Sprintf("Fig 4 analogue — FedAvg best test accuracy (%%)\n%s", g.Combo), XLabel: "γ", YLabel: "β",
			Label: func(v float64) string { return fmt.Sprintf("%.1f", v) }}
		for _, gm := range gammas {
			hm.XTicks = append(hm.XTicks, num(gm))
		}
		for _, b := range betas {
			hm.YTicks = append(hm.YTicks, num(b))
			row := make([]float64, len(gammas))
			for j, gm := range gammas {
				row[j] = math.NaN()
				if grp := g.Get("fedavg", 1, b, gm); grp != nil {
					row[j] = 100 * grp.Final("best_acc").Mean
					w.addFinal("4", grp, "best_acc")
				}
			}
			hm.Z = append(hm.Z, row)
		}
		name := "fig4_" + g.Combo.Slug()
		if err := hm.Save(filepath.Join(w.Dir, "figures", name)); err != nil {
			return nil, err
		}
		files["fig4"] = name
	}
	return files, nil
}
