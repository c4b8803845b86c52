package upcycled

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fedrepro/fedrepro/reproduce/report"
)

// Small multiples: one panel per method (its baseline dashed, its Upcycled
// solid), every panel on the same axes, so that twelve or sixteen curves
// with their ±std bands stay readable.

// methodPalette gives each method of a figure its own colour (the
// Okabe–Ito palette, distinguishable under the common colour-vision
// deficiencies, plus a grey): a series' Color indexes it, and there are as
// many colours as methodOrder has methods, so no two methods of a figure
// share one.
var methodPalette = []color.NRGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
	{120, 120, 120, 255}, // grey
}

// panelColor returns the colour of palette index i (an error beyond it:
// reusing a colour would make two methods look alike).
func panelColor(i int) (color.NRGBA, error) {
	if i < 0 || i >= len(methodPalette) {
		return color.NRGBA{}, fmt.Errorf("colour %d: the palette has %d colours", i, len(methodPalette))
	}
	return methodPalette[i], nil
}

// sharedRange returns the x and y ranges covering every finite mean ± std
// point of every panel.
func sharedRange(panels []report.Figure) (x0, x1, y0, y1 float64) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, p := range panels {
		for _, s := range p.Series {
			for i, x := range s.X {
				m := s.Mean[i]
				if math.IsNaN(m) || math.IsInf(m, 0) || math.IsNaN(x) {
					continue
				}
				lo, hi := m, m
				if s.Std != nil && !math.IsNaN(s.Std[i]) && !math.IsInf(s.Std[i], 0) {
					lo, hi = m-s.Std[i], m+s.Std[i]
				}
				x0, x1 = math.Min(x0, x), math.Max(x1, x)
				y0, y1 = math.Min(y0, lo), math.Max(y1, hi)
			}
		}
	}
	if y0 > y1 { // nothing finite
		return 0, 1, 0, 1
	}
	if y0 == y1 {
		y0, y1 = y0-0.5, y1+0.5
	}
	pad := 0.03 * (y1 - y0) // a curve starting at the top stays visible
	return x0, x1, y0 - pad, y1 + pad
}

// panelPlot draws one panel on the shared ranges.
func panelPlot(p report.Figure, x0, x1, y0, y1 float64) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text, pl.Y.Label.Text = p.XLabel, p.YLabel
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = x0, x1, y0, y1
	pl.X.Tick.Marker = report.LinearTicks{Min: 4}
	pl.Y.Tick.Marker = report.LinearTicks{Min: 4}
	for _, s := range p.Series {
		col, err := panelColor(s.Color)
		if err != nil {
			return nil, err
		}
		var seg plotter.XYs
		var segs []plotter.XYs
		var lo, hi []plotter.XYs
		var l, h plotter.XYs
		for i, x := range s.X {
			m := s.Mean[i]
			if math.IsNaN(m) || math.IsInf(m, 0) {
				if len(seg) > 0 {
					segs, lo, hi = append(segs, seg), append(lo, l), append(hi, h)
					seg, l, h = nil, nil, nil
				}
				continue
			}
			seg = append(seg, plotter.XY{X: x, Y: m})
			d := 0.0
			if s.Std != nil && !math.IsNaN(s.Std[i]) && !math.IsInf(s.Std[i], 0) {
				d = s.Std[i]
			}
			l, h = append(l, plotter.XY{X: x, Y: m - d}), append(h, plotter.XY{X: x, Y: m + d})
		}
		if len(seg) > 0 {
			segs, lo, hi = append(segs, seg), append(lo, l), append(hi, h)
		}
		for k, sg := range segs {
			if s.Std != nil && len(sg) > 1 {
				band := append(plotter.XYs{}, hi[k]...)
				for j := len(lo[k]) - 1; j >= 0; j-- {
					band = append(band, lo[k][j])
				}
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return nil, err
				}
				poly.Color = color.NRGBA{R: col.R, G: col.G, B: col.B, A: 45}
				poly.LineStyle.Width = 0
				pl.Add(poly)
			}
			line, err := plotter.NewLine(sg)
			if err != nil {
				return nil, fmt.Errorf("panel %q series %q: %w", p.Title, s.Name, err)
			}
			line.Color, line.Width = col, vg.Points(1.5)
			if s.Dashed {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			pl.Add(line)
		}
	}
	return pl, nil
}

// savePanels writes the panels of one figure as a grid (at most four
// columns) under a title line saying how to read them, as base+".svg" and
// base+".png" (150 dpi).
func savePanels(title string, panels []report.Figure, base string) error {
	if len(panels) == 0 {
		return fmt.Errorf("figure %q: no panels", title)
	}
	x0, x1, y0, y1 := sharedRange(panels)
	cols := min(len(panels), 4)
	if len(panels) == 6 || len(panels) == 5 {
		cols = 3
	}
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	for i, p := range panels {
		pl, err := panelPlot(p, x0, x1, y0, y1)
		if err != nil {
			return err
		}
		grid[i/cols][i%cols] = pl
	}
	w, h := vg.Length(cols)*2.9*vg.Inch, vg.Length(rows)*2.4*vg.Inch+0.45*vg.Inch
	head := vg.Points(30)
	render := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		st := text.Style{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler}
		st.Font.Size = vg.Points(12)
		st.XAlign, st.YAlign = draw.XCenter, draw.YTop
		dc.FillText(st, vg.Point{X: w / 2, Y: h - vg.Points(4)}, title+" — dashed: baseline, solid: Upcycled; band: ±1 std over seeds")
		body := draw.Crop(dc, 0, 0, 0, -head)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(8)}
		cs := plot.Align(grid, tiles, body)
		for r := range grid {
			for c := range grid[r] {
				if grid[r][c] != nil {
					grid[r][c].Draw(cs[r][c])
				}
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	svg := vgsvg.New(w, h)
	render(svg)
	if err := writeFile(base+".svg", svg); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(report.PNGDPI))
	render(img)
	return writeFile(base+".png", vgimg.PngCanvas{Canvas: img})
}

// writeFile writes a canvas to path through a temporary file and a rename.
func writeFile(path string, c interface {
	WriteTo(w io.Writer) (int64, error)
}) error {
	tmp := path + ".tmp"
	fh, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = c.WriteTo(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}
