package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Heatmap is a labelled grid of values (e.g. NormEC's Fig 4: FedAvg's best
// accuracy over β × γ). Every cell carries its value as text; a NaN cell
// (a diverged or missing run) is grey and labelled "—", never coloured as
// if it had the lowest value.
type Heatmap struct {
	Title, XLabel, YLabel string
	// XTicks label the columns, YTicks the rows (bottom to top).
	XTicks, YTicks []string
	// Z[r][c] is the value of row r, column c; NaN cells are grey, "—".
	Z [][]float64
	// Label formats a cell's value (default %.3g).
	Label func(float64) string
}

// heatGrid is Heatmap.Z as a plotter.GridXYZ over cell indices.
type heatGrid struct{ z [][]float64 }

func (g heatGrid) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g heatGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g heatGrid) X(c int) float64    { return float64(c) }
func (g heatGrid) Y(r int) float64    { return float64(r) }

// Save writes base+".svg" and base+".png" (each via a temporary file and
// a rename).
func (h *Heatmap) Save(base string) error {
	if len(h.Z) == 0 || len(h.Z[0]) == 0 || len(h.YTicks) != len(h.Z) || len(h.XTicks) != len(h.Z[0]) {
		return fmt.Errorf("heatmap %q: %d×%d values for %d×%d ticks", h.Title, len(h.Z), lenRow(h.Z), len(h.YTicks), len(h.XTicks))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range h.Z {
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	if hi == lo {
		hi = lo + 1e-9
	}
	p := plot.New()
	p.Title.Text = h.Title
	p.X.Label.Text = h.XLabel
	p.Y.Label.Text = h.YLabel
	hm := plotter.NewHeatMap(heatGrid{h.Z}, palette.Heat(64, 1))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.Gray{Y: 200}
	p.Add(hm)
	format := h.Label
	if format == nil {
		format = func(v float64) string { return fmt.Sprintf("%.3g", v) }
	}
	var xys plotter.XYs
	var labels []string
	for r, row := range h.Z {
		for c, v := range row {
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(r)})
			if math.IsNaN(v) {
				labels = append(labels, "—")
			} else {
				labels = append(labels, format(v))
			}
		}
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign = draw.XCenter
		lab.TextStyle[i].YAlign = draw.YCenter
	}
	p.Add(lab)
	ticks := func(names []string) plot.ConstantTicks {
		t := make(plot.ConstantTicks, len(names))
		for i, n := range names {
			t[i] = plot.Tick{Value: float64(i), Label: n}
		}
		return t
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks(h.XTicks), ticks(h.YTicks)
	p.X.Min, p.X.Max = -0.5, float64(len(h.XTicks))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(h.YTicks))-0.5
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	w, ht := 6*vg.Inch, 4.5*vg.Inch
	svg := vgsvg.New(w, ht)
	p.Draw(draw.New(svg))
	if err := writeAtomic(base+".svg", svg); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(w, ht), vgimg.UseDPI(PNGDPI))
	p.Draw(draw.New(img))
	return writeAtomic(base+".png", vgimg.PngCanvas{Canvas: img})
}

func lenRow(z [][]float64) int {
	if len(z) == 0 {
		return 0
	}
	return len(z[0])
}
