package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one curve: x against the mean over seeds, with a ±std band.
// A non-finite mean (a diverged run) is drawn as a gap, and the first
// point of each gap is marked with a cross labelled in the legend.
type Series struct {
	Name string
	X    []float64
	Mean []float64
	Std  []float64 // nil: no band
	// Dashed draws the line dashed (e.g. the baseline of a pair).
	Dashed bool
	// Color indexes Palette. Within one figure (or one Panels) a colour
	// names one thing: two series may share it only as a pair, one solid
	// and one dashed (a method and its baseline).
	Color int
}

// Palette is the figures' colours: ten hues that stay apart from each
// other (the Tableau 10 set). A figure that needs more than ten distinct
// curves is unreadable as one panel and must be split into Panels.
var Palette = []color.Color{
	color.NRGBA{0x1f, 0x77, 0xb4, 0xff}, // blue
	color.NRGBA{0xff, 0x7f, 0x0e, 0xff}, // orange
	color.NRGBA{0x2c, 0xa0, 0x2c, 0xff}, // green
	color.NRGBA{0xd6, 0x27, 0x28, 0xff}, // red
	color.NRGBA{0x94, 0x67, 0xbd, 0xff}, // purple
	color.NRGBA{0x8c, 0x56, 0x4b, 0xff}, // brown
	color.NRGBA{0xe3, 0x77, 0xc2, 0xff}, // pink
	color.NRGBA{0x7f, 0x7f, 0x7f, 0xff}, // grey
	color.NRGBA{0xbc, 0xbd, 0x22, 0xff}, // olive
	color.NRGBA{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// checkColors refuses a set of series in which a colour stands for two
// things: an index outside Palette (it would wrap onto another series'
// colour), or two series with the same colour and the same line style.
// Series with the same name are the same thing (small multiples repeat
// a baseline in every panel) and may repeat their colour.
func checkColors(title string, series []Series) error {
	type key struct {
		color  int
		dashed bool
	}
	seen := map[key]string{}
	for _, s := range series {
		if s.Color < 0 || s.Color >= len(Palette) {
			return fmt.Errorf("figure %q series %q: colour %d outside the %d-colour palette (split the figure into panels)", title, s.Name, s.Color, len(Palette))
		}
		k := key{s.Color, s.Dashed}
		if other, ok := seen[k]; ok && other != s.Name {
			return fmt.Errorf("figure %q: series %q and %q share colour %d and line style", title, other, s.Name, s.Color)
		}
		seen[k] = s.Name
	}
	return nil
}

// Figure is a line plot with optional std bands. Its legend is drawn
// beside the data, never over it; both axes carry at least MinTicks
// labelled ticks, on log axes too, whatever the range.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	LogY                  bool
	Width, Height         vg.Length // of the data area and axes; default 6in × 4in
	// Legend is "right" (default: a column to the right of the plot) or
	// "none". The older positions ("top-right", …) are read as "right":
	// a legend inside the data area hides curves.
	Legend string
}

// MinTicks is the fewest labelled ticks an axis of a figure gets.
const MinTicks = 5

// PNGDPI is the resolution of the PNG copies (the SVG copies are vector).
const PNGDPI = 150

// legendItem is one legend line: a series' name and its line sample.
type legendItem struct {
	name  string
	thumb plot.Thumbnailer
}

// newLegend lays items out as the column drawn beside the data; a name
// already present (a baseline repeated in every panel) is listed once.
func newLegend(items []legendItem) *plot.Legend {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(2) // long names in a tall column must not touch
	seen := map[string]bool{}
	for _, it := range items {
		if !seen[it.name] {
			seen[it.name] = true
			leg.Add(it.name, it.thumb)
		}
	}
	return &leg
}

// build makes the plot and the legend lines of the figure.
func (f *Figure) build() (*plot.Plot, []legendItem, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.X.Tick.Marker = LinearTicks{Min: MinTicks}
	p.Y.Tick.Marker = LinearTicks{Min: MinTicks}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = LogTicks{Min: MinTicks}
	}
	switch f.Legend {
	case "", "right", "top-right", "top-left", "bottom-right", "bottom-left", "none":
	default:
		return nil, nil, fmt.Errorf("figure %q: unknown legend position %q", f.Title, f.Legend)
	}
	if err := checkColors(f.Title, f.Series); err != nil {
		return nil, nil, err
	}
	var leg []legendItem
	for _, s := range f.Series {
		if len(s.X) != len(s.Mean) || (s.Std != nil && len(s.Std) != len(s.Mean)) {
			return nil, nil, fmt.Errorf("figure %q series %q: %d x values, %d means, %d stds", f.Title, s.Name, len(s.X), len(s.Mean), len(s.Std))
		}
		col := Palette[s.Color]
		segs := finiteSegments(s, f.LogY)
		if s.Std != nil {
			for _, seg := range segs {
				band := make(plotter.XYs, 0, 2*len(seg))
				for _, i := range seg {
					band = append(band, plotter.XY{X: s.X[i], Y: bandEdge(s.Mean[i], s.Mean[i]+s.Std[i], f.LogY)})
				}
				for k := len(seg) - 1; k >= 0; k-- {
					i := seg[k]
					band = append(band, plotter.XY{X: s.X[i], Y: bandEdge(s.Mean[i], s.Mean[i]-s.Std[i], f.LogY)})
				}
				if len(seg) < 2 {
					continue
				}
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return nil, nil, err
				}
				r, g, b, _ := col.RGBA()
				poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 50}
				poly.LineStyle.Width = 0
				p.Add(poly)
			}
		}
		var thumb plot.Thumbnailer
		for _, seg := range segs {
			pts := make(plotter.XYs, len(seg))
			for k, i := range seg {
				pts[k] = plotter.XY{X: s.X[i], Y: s.Mean[i]}
			}
			line, err := plotter.NewLine(pts)
			if err != nil {
				return nil, nil, fmt.Errorf("figure %q series %q: %w", f.Title, s.Name, err)
			}
			line.Color = col
			line.Width = vg.Points(1.5)
			if s.Dashed {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(line)
			if len(seg) == 1 { // an isolated point: show it
				sc, _ := plotter.NewScatter(pts)
				sc.Color = col
				sc.Shape = draw.CircleGlyph{}
				p.Add(sc)
			}
			thumb = line
		}
		name := s.Name
		if xs := divergedAt(s, f.LogY); len(xs) > 0 {
			pts := make(plotter.XYs, len(xs))
			for k, x := range xs {
				pts[k] = plotter.XY{X: x.x, Y: x.y}
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, nil, err
			}
			sc.Color = col
			sc.Shape = draw.CrossGlyph{}
			sc.Radius = vg.Points(4)
			p.Add(sc)
			name += fmt.Sprintf(" (× diverged at %s)", strconv.FormatFloat(xs[0].x, 'g', 6, 64))
			if thumb == nil {
				thumb = sc
			}
		}
		if thumb != nil && f.Legend != "none" {
			leg = append(leg, legendItem{name, thumb})
		}
	}
	return p, leg, nil
}

type xy struct{ x, y float64 }

// finiteSegments splits a series into runs of consecutive drawable points
// (finite, and positive on a log axis), as index lists.
func finiteSegments(s Series, logY bool) [][]int {
	var out [][]int
	var cur []int
	for i := range s.X {
		if drawable(s.Mean[i], logY) && !math.IsNaN(s.X[i]) {
			cur = append(cur, i)
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// divergedAt returns, for each start of a gap of non-finite values, the x
// where the curve diverged, placed at the last finite y before it (or the
// first after it when the curve starts diverged).
func divergedAt(s Series, logY bool) []xy {
	var out []xy
	for i := range s.X {
		if !math.IsNaN(s.Mean[i]) && !math.IsInf(s.Mean[i], 0) {
			continue
		}
		if i > 0 && (math.IsNaN(s.Mean[i-1]) || math.IsInf(s.Mean[i-1], 0)) {
			continue
		}
		y := math.NaN()
		for j := i - 1; j >= 0 && math.IsNaN(y); j-- {
			if drawable(s.Mean[j], logY) {
				y = s.Mean[j]
			}
		}
		for j := i + 1; j < len(s.X) && math.IsNaN(y); j++ {
			if drawable(s.Mean[j], logY) {
				y = s.Mean[j]
			}
		}
		if math.IsNaN(y) {
			y = 1
		}
		out = append(out, xy{s.X[i], y})
	}
	return out
}

func drawable(y float64, logY bool) bool {
	return !math.IsNaN(y) && !math.IsInf(y, 0) && (!logY || y > 0)
}

// bandEdge is a band's edge y, or the mean itself where the edge cannot
// be drawn (non-finite, or not positive on a log axis): the band then
// collapses on that side instead of stretching the axis.
func bandEdge(mean, y float64, logY bool) float64 {
	if !drawable(y, logY) {
		return mean
	}
	return y
}

// Save writes base+".svg" and base+".png" (via a temporary file and a
// rename each).
func (f *Figure) Save(base string) error {
	p, items, err := f.build()
	if err != nil {
		return err
	}
	leg := newLegend(items)
	w, h := f.Width, f.Height
	if w == 0 {
		w = 6 * vg.Inch
	}
	if h == 0 {
		h = 4 * vg.Inch
	}
	legW := vg.Length(0)
	if f.Legend != "none" {
		r := leg.Rectangle(draw.Canvas{})
		if lw := r.Max.X - r.Min.X; lw > 0 {
			legW = lw + vg.Points(12)
		}
	}
	render := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
		if legW > 0 {
			lc := draw.Crop(dc, w, 0, 0, -vg.Points(24))
			lc.Min.X += vg.Points(6)
			leg.Draw(lc)
		}
	}
	return saveRendered(base, w+legW, h, render)
}

// saveRendered draws render on a w × h SVG canvas and a PNG one at PNGDPI
// and writes them as base+".svg" and base+".png", each atomically.
func saveRendered(base string, w, h vg.Length, render func(vg.CanvasSizer)) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	svg := vgsvg.New(w, h)
	render(svg)
	if err := writeAtomic(base+".svg", svg); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
	render(img)
	return writeAtomic(base+".png", vgimg.PngCanvas{Canvas: img})
}

// SavePlot writes a plot built by the caller (a scatter, an image grid)
// as base+".svg" and base+".png" at PNGDPI, each atomically, like
// Figure.Save: w × h is the whole canvas.
func SavePlot(p *plot.Plot, w, h vg.Length, base string) error {
	return saveRendered(base, w, h, func(c vg.CanvasSizer) { p.Draw(draw.New(c)) })
}

func writeAtomic(path string, c io.WriterTo) error {
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

// LinearTicks labels at least Min ticks at "nice" values (1, 2, 2.5 or 5
// times a power of ten), with minor ticks between them.
type LinearTicks struct{ Min int }

// Ticks implements plot.Ticker.
func (t LinearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 6, 64)}}
	}
	want := t.Min
	if want < 2 {
		want = 2
	}
	step := niceStep((max - min) / float64(want-1))
	for count(min, max, step) < t.Min {
		step = smallerNice(step)
	}
	dec := decimals(step)
	var ticks []plot.Tick
	first := math.Ceil(min/step-1e-9) * step
	for v := first; v <= max+step*1e-9; v += step {
		x := math.Round(v/step) * step
		if x == 0 {
			x = 0
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', dec, 64)})
		if m := x + step/2; m < max {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

func count(min, max, step float64) int {
	return int(math.Floor(max/step+1e-9)-math.Ceil(min/step-1e-9)) + 1
}

// niceStep rounds x up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// smallerNice returns the next smaller nice step.
func smallerNice(s float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(s)+1e-12))
	m := s / p
	switch {
	case m > 5+1e-9:
		return 5 * p
	case m > 2.5+1e-9:
		return 2.5 * p
	case m > 2+1e-9:
		return 2 * p
	case m > 1+1e-9:
		return p
	}
	return 0.5 * p
}

// decimals is the number of decimals that print every multiple of step.
func decimals(step float64) int {
	d := 0
	for d < 15 && math.Abs(step*math.Pow(10, float64(d))-math.Round(step*math.Pow(10, float64(d)))) > 1e-6*step*math.Pow(10, float64(d)) {
		d++
	}
	return d
}

// LogTicks labels a log axis readably on any range: powers of ten (with
// 2× and 5× multiples labelled too when fewer than Min powers fall in the
// range), and nice linear ticks when the range spans less than a decade.
type LogTicks struct{ Min int }

// Ticks implements plot.Ticker.
func (t LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return LinearTicks{Min: t.Min}.Ticks(min, max)
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	var cands [][]float64 // label sets, coarse to fine
	cands = append(cands, []float64{1}, []float64{1, 2, 5}, []float64{1, 2, 3, 5, 7})
	var best []plot.Tick
	for _, mult := range cands {
		var ticks []plot.Tick
		labelled := 0
		for e := lo; e <= hi; e++ {
			p := math.Pow(10, e)
			for m := 1.0; m < 10; m++ {
				v := m * p
				if v < min*(1-1e-12) || v > max*(1+1e-12) {
					continue
				}
				tk := plot.Tick{Value: v}
				for _, lm := range mult {
					if m == lm {
						tk.Label = strconv.FormatFloat(v, 'g', 6, 64)
						labelled++
					}
				}
				ticks = append(ticks, tk)
			}
		}
		best = ticks
		if labelled >= t.Min {
			return ticks
		}
	}
	// Less than a decade: linear nice ticks read well on a log axis.
	lin := LinearTicks{Min: t.Min}.Ticks(min, max)
	var out []plot.Tick
	for _, tk := range lin {
		if tk.Value > 0 {
			out = append(out, tk)
		}
	}
	if labelledCount(out) >= labelledCount(best) {
		return out
	}
	return best
}

func labelledCount(ts []plot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}
