package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one curve: x against the mean over seeds, with a ±std band.
type Series struct {
	Name string
	X    []float64
	Mean []float64
	Std  []float64 // nil: no band
	// Dashed draws the line dashed (e.g. the baseline of a pair).
	Dashed bool
	// Color indexes plotutil's palette; pairs share a colour.
	Color int
}

// Figure is a line plot with optional std bands.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	LogY                  bool
	Width, Height         vg.Length // default 6in × 4in
	// Legend places the legend: "top-right" (default), "top-left",
	// "bottom-right", "bottom-left", or "none".
	Legend string
}

// Save writes base+".svg" and base+".png" atomically-enough (via temp and
// rename per file).
func (f *Figure) Save(base string) error {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	switch f.Legend {
	case "", "top-right":
		p.Legend.Top = true
	case "top-left":
		p.Legend.Top, p.Legend.Left = true, true
	case "bottom-right":
	case "bottom-left":
		p.Legend.Left = true
	case "none":
	default:
		return fmt.Errorf("figure %q: unknown legend position %q", f.Title, f.Legend)
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{}
	}
	for _, s := range f.Series {
		if len(s.X) != len(s.Mean) || (s.Std != nil && len(s.Std) != len(s.Mean)) {
			return fmt.Errorf("figure %q series %q: %d x values, %d means, %d stds", f.Title, s.Name, len(s.X), len(s.Mean), len(s.Std))
		}
		col := plotutil.Color(s.Color)
		if s.Std != nil {
			band := make(plotter.XYs, 0, 2*len(s.X))
			for i := range s.X {
				band = append(band, plotter.XY{X: s.X[i], Y: clampY(s.Mean[i]+s.Std[i], f.LogY)})
			}
			for i := len(s.X) - 1; i >= 0; i-- {
				band = append(band, plotter.XY{X: s.X[i], Y: clampY(s.Mean[i]-s.Std[i], f.LogY)})
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return err
			}
			r, g, b, _ := col.RGBA()
			poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 50}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		pts := make(plotter.XYs, len(s.X))
		for i := range s.X {
			pts[i] = plotter.XY{X: s.X[i], Y: clampY(s.Mean[i], f.LogY)}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("figure %q series %q: %w", f.Title, s.Name, err)
		}
		line.Color = col
		line.Width = vg.Points(1.5)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		if f.Legend != "none" {
			p.Legend.Add(s.Name, line)
		}
	}
	w, h := f.Width, f.Height
	if w == 0 {
		w = 6 * vg.Inch
	}
	if h == 0 {
		h = 4 * vg.Inch
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	for _, ext := range []string{".svg", ".png"} {
		tmp := base + ".tmp" + ext
		if err := p.Save(w, h, tmp); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("saving %s%s: %w", base, ext, err)
		}
		if err := os.Rename(tmp, base+ext); err != nil {
			return err
		}
	}
	return nil
}

// clampY keeps non-finite and (on log axes) non-positive values drawable.
func clampY(y float64, logY bool) float64 {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return 0
	}
	if logY && y <= 0 {
		return 1e-12
	}
	return y
}
