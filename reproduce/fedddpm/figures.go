package fedddpm

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	fa "github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func (w *reportWriter) fig7(doc *report.Doc) error {
	doc.H(2, "Fig. 7 analogue — FD vs rounds (%s participation)", "15%")
	doc.P("FD of a smaller sample (the curve's sample size) every few rounds: the mean over seeds with a ±std band (log axis; where mean − std ≤ 0 the band's lower edge stays on the mean). One panel per method, each beside FedAvg (dashed, the same in every panel), on shared axes. FedDDPM+'s curve ends at its corrected model and is held flat after it stops; until it stops FedDDPM+ runs exactly FedAvg's rounds with the same draws, so in its panel the two curves coincide until the stop. Paper: \"FedDDPM exhibits a more rapid decline in FID\". Counted below: curve points at which FedDDPM's mean FD is below FedAvg's.")
	var items []string
	var proxGap float64
	proxPts := 0
	for _, e := range w.experiments("tables") {
		if !e.Curves {
			continue
		}
		for _, ds := range e.Datasets {
			st := e.apply(w.Spec.Settings[ds])
			if !w.src.Available(st.Source) || st.Eval.CurveEvery <= 0 {
				continue
			}
			for _, part := range e.Partitions {
				p := e.Participation[0]
				curves := map[string]report.Series{}
				var fx, fm, dx, dm, px, prm []float64
				for _, m := range e.Methods {
					g := w.get(e.Name, ds, part, p, m)
					if g == nil {
						continue
					}
					c, ok := methodSeries(m, g, "fd")
					if !ok {
						continue
					}
					curves[m] = c
					xs, mean := c.X, c.Mean
					switch m {
					case "fedavg":
						fx, fm = xs, mean
					case "fedddpm":
						dx, dm = xs, mean
					case "fedprox":
						px, prm = xs, mean
					}
				}
				ps := refPanels(fmt.Sprintf("%s, %s, %s: FD vs round", datasetLabel[st.Source], part, pct(p)), "FD", true, e.Methods, curves)
				if ps == nil {
					continue
				}
				base := fmt.Sprintf("fig7_%s_%s", ds, part)
				if err := ps.Save(filepath.Join(w.Dir, "figures", base)); err != nil {
					return err
				}
				below, pts := 0, 0
				for i, x := range dx {
					for j, y := range fx {
						if x == y {
							pts++
							if dm[i] < fm[j] {
								below++
							}
						}
					}
				}
				for i, x := range px {
					for j, y := range fx {
						if x == y && fm[j] != 0 {
							proxGap = math.Max(proxGap, math.Abs(prm[i]-fm[j])/math.Abs(fm[j]))
							proxPts++
						}
					}
				}
				items = append(items, fmt.Sprintf("[%s, %s](figures/%s.png): FedDDPM below FedAvg at %d/%d curve points", ds, part, base, below, pts))
				w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "fig7", "dataset": ds, "partition": part, "participation": p,
					"metric": "FedDDPM below FedAvg (curve points)", "mean": float64(below), "n": pts})
			}
		}
	}
	if len(items) == 0 {
		doc.P("No curves were recorded at this scale.")
		return nil
	}
	doc.List(items...)
	if proxPts > 0 {
		doc.P("FedProx's mean FD differs from FedAvg's by at most %.1f%% (relative) over all %d shared curve points of these panels.", 100*proxGap, proxPts)
	}
	doc.Image("Fig. 7 analogue", strings.SplitN(strings.SplitN(items[0], "](", 2)[1], ")", 2)[0])
	return nil
}

// methodColor is a method's colour in every figure (an index of
// report.Palette): one colour per method, so a method looks the same in
// every panel and figure.
func methodColor(m string) int {
	for i, x := range allMethods {
		if x == m {
			return i
		}
	}
	return len(allMethods) // central training, drawn by no curve figure
}

// methodSeries is a method's curve of a per-round metric: the mean over
// seeds with its ±std band, in the method's colour, dashed for FedAvg
// (the reference of every panel). False when the metric was not recorded.
func methodSeries(m string, g *group, metric string) (report.Series, bool) {
	xs, mean, std := g.curve(metric, "round")
	if len(xs) == 0 {
		return report.Series{}, false
	}
	return report.Series{Name: methodLabel[m], X: xs, Mean: mean, Std: std, Color: methodColor(m), Dashed: m == "fedavg"}, true
}

// refPanels lays curves out as small multiples: one panel per method
// other than FedAvg, in the experiment's method order, each with FedAvg
// dashed as the common reference, on shared axes (nil when nothing ran).
// Fig. 7 needs it: in one panel six methods' curves overlap (FedDDPM+
// covers FedAvg until it stops, FedProx stays within a few percent of
// it); so does Fig. 8, whose bands overlap.
func refPanels(title, ylabel string, logY bool, methods []string, curves map[string]report.Series) *report.Panels {
	ref, hasRef := curves["fedavg"]
	panel := func(m string) report.Figure {
		return report.Figure{Title: methodLabel[m], XLabel: "round", YLabel: ylabel, LogY: logY}
	}
	ps := &report.Panels{Title: title, Cols: 3}
	for _, m := range methods {
		c, ok := curves[m]
		if !ok || m == "fedavg" {
			continue
		}
		f := panel(m)
		if hasRef {
			f.Series = append(f.Series, ref)
		}
		f.Series = append(f.Series, c)
		ps.Panels = append(ps.Panels, f)
	}
	if len(ps.Panels) == 0 && hasRef {
		f := panel("fedavg")
		f.Series = []report.Series{ref}
		ps.Panels = append(ps.Panels, f)
	}
	if len(ps.Panels) == 0 {
		return nil
	}
	ps.Cols = min(3, len(ps.Panels))
	return ps
}

func (w *reportWriter) fig8(doc *report.Doc) error {
	exps := w.experiments("fig8")
	if len(exps) == 0 {
		return nil
	}
	doc.H(2, "Fig. 8 analogue — auxiliary data on the clients (LocalAug) vs on the server (FedDDPM)")
	for _, e := range exps {
		for _, ds := range e.Datasets {
			st := e.apply(w.Spec.Settings[ds])
			if !w.src.Available(st.Source) {
				continue
			}
			part, p := e.Partitions[0], e.Participation[0]
			// A short title: Panels centres it over the grid and does not
			// wrap it, and a two-panel grid is narrow.
			title := fmt.Sprintf("%s, %d clients, %s, p = %g, |A| = %d", ds, st.Clients, part, p, st.AuxSize)
			curves := map[string]report.Series{}
			early := max(1, st.Rounds/5)
			earlyMean := map[string]float64{}
			tb := &report.Table{Header: []string{"method", fmt.Sprintf("mean loss, rounds 1–%d", early), "final loss", "final FD", "client grads", "server grads"}, Align: "lrrrrr"}
			for _, m := range e.Methods {
				g := w.get(e.Name, ds, part, p, m)
				if g == nil {
					continue
				}
				if c, ok := methodSeries(m, g, "loss"); ok {
					curves[m] = c
				}
				var earlyVals []float64
				for _, r := range g.Results {
					var s float64
					var k int
					for _, mt := range r.Rounds {
						if rd := mt["round"]; rd >= 1 && rd <= float64(early) {
							s += mt["loss"]
							k++
						}
					}
					if k > 0 {
						earlyVals = append(earlyVals, s/float64(k))
					}
				}
				es := report.Summarize(earlyVals)
				earlyMean[m] = es.Mean
				var finals []float64
				for _, r := range g.Results {
					if n := len(r.Rounds); n > 0 {
						finals = append(finals, r.Rounds[n-1]["loss"])
					}
				}
				fs := report.Summarize(finals)
				tb.Add(methodLabel[m], es.PM(4), fs.PM(4), pm(g.stats("fd")), kfmt(g.counter("client_sample_grads")), kfmt(g.counter("server_sample_grads")))
				w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "fig8", "dataset": ds, "partition": part, "participation": p, "method": m,
					"metric": "early_loss", "mean": es.Mean, "std": es.Std, "n": es.N,
					"compute": map[string]any{"client_sample_grads": g.counter("client_sample_grads"), "server_sample_grads": g.counter("server_sample_grads")}})
			}
			fig := refPanels(title, "held-out DDPM loss", false, e.Methods, curves)
			if fig == nil {
				continue
			}
			if d, ok := earlyMean["fedddpm"]; ok {
				lowest := 1.0
				for m, v := range earlyMean {
					if m != "fedddpm" && v <= d {
						lowest = 0
					}
				}
				w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "fig8", "dataset": ds, "metric": fmt.Sprintf("FedDDPM has the lowest mean held-out loss over rounds 1–%d", early),
					"mean": lowest, "n": 1, "paper_value": 1.0, "paper_n": 1})
			}
			base := fmt.Sprintf("fig8_%s", ds)
			if err := fig.Save(filepath.Join(w.Dir, "figures", base)); err != nil {
				return err
			}
			doc.H(3, "%s", datasetLabel[st.Source])
			doc.P("Loss = the DDPM loss of the global model on %d held-out real rows with fixed diffusion steps and noise, after every round (paper: \"training loss\", data not stated). Paper: \"FedDDPM achieves faster initial loss reduction\" than LocalAug, FedAvg and MoFedSAM. LocalAug trains every client on its data plus an even 1/N share of the same aux set. Figure: mean ± std over seeds, one panel per method beside FedAvg (dashed), shared axes.", st.Eval.LossRows)
			doc.Table(tb)
			doc.Image("Fig. 8 analogue, "+ds, "figures/"+base+".png")
		}
	}
	return nil
}

// samples writes the Figs. 4–6 analogue: one grid (images) or scatter
// (mixture) per method.
func (w *reportWriter) samples(doc *report.Doc) error {
	doc.H(2, "Figs. 4–6 analogue — samples of every method")
	var lines []string
	for _, e := range w.experiments("tables") {
		if !e.Grids {
			continue
		}
		for _, ds := range e.Datasets {
			st := e.apply(w.Spec.Settings[ds])
			if !w.src.Available(st.Source) {
				continue
			}
			part, p := e.Partitions[0], e.Participation[0]
			var links []string
			for _, m := range e.Methods {
				g := w.get(e.Name, ds, part, p, m)
				if g == nil {
					continue
				}
				var ex *Extra
				for _, r := range g.Results {
					if x, ok := extraOf(r); ok && x.GridN > 0 {
						ex = x
						break
					}
				}
				if ex == nil {
					continue
				}
				base := fmt.Sprintf("samples_%s_%s", ds, strings.ReplaceAll(m, "+", "plus"))
				path := filepath.Join(w.Dir, "figures", base+".png")
				link := fmt.Sprintf("[%s](figures/%s.png)", methodLabel[m], base)
				if len(ex.Shape) == 3 {
					cols := int(math.Ceil(math.Sqrt(float64(ex.GridN))))
					b, err := GridPNG(ex.Grid, ex.GridN, ex.Shape[0], ex.Shape[1], ex.Shape[2], cols, sampleScale(ex.Shape[2]), sampleScale(ex.Shape[2]))
					if err != nil {
						return err
					}
					if err := writePNG(path, b); err != nil {
						return err
					}
				} else {
					if err := w.scatter(filepath.Join(w.Dir, "figures", base), methodLabel[m], ex, st); err != nil {
						return err
					}
					link += fmt.Sprintf(" ([svg](figures/%s.svg))", base)
				}
				links = append(links, link)
			}
			// Real data for reference.
			if prep, err := w.src.prepare(st, w.Spec.GeneratorSeed); err == nil {
				n := st.Eval.GridSamples
				n = min(n, prep.train.N)
				ex := &Extra{Grid: prep.train.X[:n*prep.train.D], GridN: n, GridD: prep.train.D}
				base := fmt.Sprintf("samples_%s_real", ds)
				path := filepath.Join(w.Dir, "figures", base+".png")
				link := fmt.Sprintf("[real data](figures/%s.png)", base)
				if prep.image() {
					cols := int(math.Ceil(math.Sqrt(float64(n))))
					b, err := GridPNG(ex.Grid, n, prep.shape.C, prep.shape.H, prep.shape.W, cols, sampleScale(prep.shape.W), sampleScale(prep.shape.W))
					if err != nil {
						return err
					}
					if err := writePNG(path, b); err != nil {
						return err
					}
				} else {
					if err := w.scatter(filepath.Join(w.Dir, "figures", base), "training data", ex, st); err != nil {
						return err
					}
					link += fmt.Sprintf(" ([svg](figures/%s.svg))", base)
				}
				links = append(links, link)
			}
			if len(links) > 0 {
				lines = append(lines, fmt.Sprintf("%s, %s, %s (seed %d): %s", datasetLabel[st.Source], part, pct(p), w.Spec.seedsOf(e)[0], strings.Join(links, " · ")))
			}
		}
	}
	if len(lines) == 0 {
		doc.P("No samples were kept at this scale.")
		return nil
	}
	doc.P("The paper shows MNIST Shard 15%% (Fig. 4), CIFAR10 (Fig. 5) and CIFAR100 Dir 0.3 30%% (Fig. 6) grids and says the proposed methods' images look better; no number. Ours: the first samples of the final evaluation of the first seed, same sampler stream for every method.")
	doc.List(lines...)
	return nil
}

// scatter draws 2-D samples with the mixture's 3σ circles into base+".svg"
// and base+".png", with at least report.MinTicks labelled ticks per axis.
func (w *reportWriter) scatter(base, title string, ex *Extra, st Setting) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = "x₁", "x₂"
	p.X.Tick.Marker = report.LinearTicks{Min: report.MinTicks}
	p.Y.Tick.Marker = report.LinearTicks{Min: report.MinTicks}
	pts := make(plotter.XYs, ex.GridN)
	for i := range pts {
		pts[i] = plotter.XY{X: ex.Grid[i*ex.GridD], Y: ex.Grid[i*ex.GridD+1]}
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle.Radius = vg.Points(1.2)
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	s.GlyphStyle.Color = plotutil.Color(0)
	p.Add(s)
	if st.Mixture != nil {
		spec := fa.MixtureSpec{Components: st.Mixture.Components, Dim: 2, Layout: fa.Ring, Radius: st.Mixture.Radius, Std: st.Mixture.Std}
		if g, err := spec.Mixture(nil); err == nil {
			for _, mu := range g.Means {
				circ := make(plotter.XYs, 41)
				for k := range circ {
					a := 2 * math.Pi * float64(k) / 40
					circ[k] = plotter.XY{X: mu[0] + 3*st.Mixture.Std*math.Cos(a), Y: mu[1] + 3*st.Mixture.Std*math.Sin(a)}
				}
				l, err := plotter.NewLine(circ)
				if err != nil {
					return err
				}
				l.Color = color.RGBA{200, 0, 0, 255}
				p.Add(l)
			}
		}
	}
	lim := st.Mixture.Radius + 6*st.Mixture.Std
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -lim, lim, -lim, lim
	return report.SavePlot(p, 4*vg.Inch, 4*vg.Inch, base)
}
