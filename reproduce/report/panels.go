package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Panels is a set of small multiples: one Figure per panel, laid out in a
// grid, all panels on the same axes so that heights can be compared
// across panels at a glance, and one legend beside the grid.
//
// Use it where curves overlap in one panel (more than a few bands, or
// pairs that cross): each panel then holds one method, or one method and
// its baseline. Colours follow the Figure rule across the whole set: one
// colour per name, a pair only as solid and dashed.
type Panels struct {
	Title string
	// Panels are drawn row by row; each one's Title names it. Their
	// XLabel/YLabel are shown on the outer panels only (left column,
	// bottom row), as the axes are shared. LogY must agree across panels.
	Panels []Figure
	// Cols is the number of panels per row (default: 3, or fewer panels).
	Cols int
	// PanelWidth × PanelHeight is one panel's size (default 3in × 2.4in).
	PanelWidth, PanelHeight vg.Length
}

// build returns the panels' plots, sharing one x range and one y range
// (the union of every panel's data), and their legend lines.
func (ps *Panels) build() ([]*plot.Plot, []legendItem, error) {
	if len(ps.Panels) == 0 {
		return nil, nil, fmt.Errorf("panels %q: no panel", ps.Title)
	}
	var all []Series
	for _, f := range ps.Panels {
		all = append(all, f.Series...)
		if f.LogY != ps.Panels[0].LogY {
			return nil, nil, fmt.Errorf("panels %q: panel %q has LogY %v, the first %v (shared axes need one scale)", ps.Title, f.Title, f.LogY, ps.Panels[0].LogY)
		}
	}
	if err := checkColors(ps.Title, all); err != nil {
		return nil, nil, err
	}
	plots := make([]*plot.Plot, len(ps.Panels))
	var items []legendItem
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range ps.Panels {
		f := ps.Panels[i]
		f.Legend = "right"
		p, leg, err := f.build()
		if err != nil {
			return nil, nil, err
		}
		plots[i] = p
		items = append(items, leg...)
		if len(f.Series) > 0 { // an empty panel has no range of its own
			xmin, xmax = math.Min(xmin, p.X.Min), math.Max(xmax, p.X.Max)
			ymin, ymax = math.Min(ymin, p.Y.Min), math.Max(ymax, p.Y.Max)
		}
	}
	if !(xmin <= xmax && ymin <= ymax) {
		return nil, nil, fmt.Errorf("panels %q: no drawable point in any panel", ps.Title)
	}
	cols, rows := ps.grid()
	for i, p := range plots {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
		if i%cols != 0 {
			p.Y.Label.Text = ""
		}
		if i/cols != rows-1 && i+cols < len(plots) {
			p.X.Label.Text = ""
		}
	}
	return plots, items, nil
}

func (ps *Panels) grid() (cols, rows int) {
	cols = ps.Cols
	if cols <= 0 {
		cols = 3
	}
	cols = min(cols, len(ps.Panels))
	return cols, (len(ps.Panels) + cols - 1) / cols
}

// Save writes base+".svg" and base+".png" (each atomically, as
// Figure.Save): the grid of panels under the title, the legend to the
// right.
func (ps *Panels) Save(base string) error {
	plots, items, err := ps.build()
	if err != nil {
		return err
	}
	leg := newLegend(items)
	cols, rows := ps.grid()
	pw, ph := ps.PanelWidth, ps.PanelHeight
	if pw == 0 {
		pw = 3 * vg.Inch
	}
	if ph == 0 {
		ph = 2.4 * vg.Inch
	}
	titleH := vg.Length(0)
	if ps.Title != "" {
		titleH = vg.Points(22)
	}
	legW := vg.Length(0)
	if r := leg.Rectangle(draw.Canvas{}); r.Max.X-r.Min.X > 0 {
		legW = r.Max.X - r.Min.X + vg.Points(12)
	}
	w, h := vg.Length(cols)*pw+legW, vg.Length(rows)*ph+titleH
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(plots) {
				grid[r][c] = plots[i]
			}
		}
	}
	render := func(cv vg.CanvasSizer) {
		dc := draw.New(cv)
		if titleH > 0 {
			sty := plot.New().Title.TextStyle
			sty.Font.Size = vg.Points(13)
			sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
			dc.FillText(sty, vg.Point{X: (w - legW) / 2, Y: h - vg.Points(4)}, ps.Title)
		}
		body := draw.Crop(dc, 0, -legW, 0, -titleH)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
		canvases := plot.Align(grid, tiles, body)
		for r := range grid {
			for c, p := range grid[r] {
				if p != nil {
					p.Draw(canvases[r][c])
				}
			}
		}
		if legW > 0 {
			lc := draw.Crop(dc, w-legW, 0, 0, -titleH-vg.Points(24))
			lc.Min.X += vg.Points(6)
			leg.Draw(lc)
		}
	}
	return saveRendered(base, w, h, render)
}
