package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

func labels(ts []plot.Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestTicks(t *testing.T) {
	cases := []struct {
		name     string
		ticker   plot.Ticker
		min, max float64
		want     []string
	}{
		// FedDDPM's Fig. 7 case: a log axis spanning less than a decade
		// once showed the single label "1e+02".
		{"log, under a decade", LogTicks{Min: 5}, 80, 150, []string{"80", "90", "100", "110", "120", "130", "140", "150"}},
		{"log, three decades", LogTicks{Min: 5}, 0.01, 20, []string{"0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "20"}},
		{"log, six decades", LogTicks{Min: 5}, 1e-3, 1e3, []string{"0.001", "0.01", "0.1", "1", "10", "100", "1000"}},
		{"linear, accuracy", LinearTicks{Min: 5}, 0.4, 0.9, []string{"0.4", "0.5", "0.6", "0.7", "0.8", "0.9"}},
		{"linear, rounds", LinearTicks{Min: 5}, 0, 24, []string{"0", "5", "10", "15", "20"}},
		{"linear, narrow", LinearTicks{Min: 5}, 0.912, 0.918, []string{"0.912", "0.913", "0.914", "0.915", "0.916", "0.917", "0.918"}},
	}
	for _, c := range cases {
		got := labels(c.ticker.Ticks(c.min, c.max))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s [%g, %g]: labels %v, want %v", c.name, c.min, c.max, got, c.want)
		}
		if len(got) < MinTicks {
			t.Errorf("%s: %d labelled ticks, want ≥ %d", c.name, len(got), MinTicks)
		}
	}
}

// A diverged run (NaN) is a gap with a cross and a legend note, never a
// zero; the SVG and PNG both appear; the legend sits beside the data.
func TestFigureKinds(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	cases := []struct {
		name string
		fig  Figure
		want []string // strings the SVG must hold
		segs []int    // drawable segment lengths of the first series
	}{
		{"linear with band", Figure{Title: "acc", XLabel: "round", YLabel: "accuracy",
			Series: []Series{{Name: "FedAvg", X: x, Mean: []float64{0.1, 0.5, 0.6, 0.7, 0.75, 0.8}, Std: []float64{0, .05, .05, .04, .03, .02}}}},
			[]string{"FedAvg", "0.2", "0.4", "0.6", "round"}, []int{6}},
		{"log, under a decade", Figure{Title: "FD", LogY: true,
			Series: []Series{{Name: "FedDDPM", X: x, Mean: []float64{150, 130, 110, 100, 90, 85}}}},
			[]string{"FedDDPM", "90", "100", "120", "140"}, []int{6}},
		{"diverged run", Figure{Title: "loss", LogY: true,
			Series: []Series{{Name: "Scaffold", X: x, Mean: []float64{2, 1.5, math.NaN(), math.Inf(1), 3, 2.5}},
				{Name: "FedAvg", X: x, Mean: []float64{2, 1.5, 1.2, 1, 0.9, 0.8}, Color: 1}}},
			[]string{"Scaffold (× diverged at 2)", "FedAvg"}, []int{2, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []int
			for _, s := range finiteSegments(c.fig.Series[0], c.fig.LogY) {
				got = append(got, len(s))
			}
			if !reflect.DeepEqual(got, c.segs) {
				t.Errorf("segments %v, want %v", got, c.segs)
			}
			base := filepath.Join(t.TempDir(), "fig")
			if err := c.fig.Save(base); err != nil {
				t.Fatal(err)
			}
			svg, err := os.ReadFile(base + ".svg")
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(svg), w) {
					t.Errorf("SVG lacks %q", w)
				}
			}
			if st, err := os.Stat(base + ".png"); err != nil || st.Size() == 0 {
				t.Errorf("PNG missing: %v", err)
			}
			p, items, err := c.fig.build()
			if err != nil {
				t.Fatal(err)
			}
			inside, beside := p.Legend.Rectangle(draw.Canvas{}), newLegend(items).Rectangle(draw.Canvas{})
			if inside.Max.Y-inside.Min.Y != 0 || beside.Max.Y-beside.Min.Y <= 0 {
				t.Errorf("legend heights: %v inside the plot, %v beside it; want 0 and > 0", inside.Max.Y-inside.Min.Y, beside.Max.Y-beside.Min.Y)
			}
		})
	}
	// The divergence marker sits at the last finite value before the gap.
	d := divergedAt(Series{X: x, Mean: []float64{2, 1.5, math.NaN(), math.NaN(), 3, math.NaN()}}, false)
	if want := []xy{{2, 1.5}, {5, 3}}; !reflect.DeepEqual(d, want) {
		t.Errorf("divergedAt = %v, want %v", d, want)
	}
}

// A heatmap labels every cell and every row and column; a NaN cell is
// grey and labelled "—".
func TestHeatmap(t *testing.T) {
	h := &Heatmap{Title: "best acc", XLabel: "γ", YLabel: "β", XTicks: []string{"0.01", "0.1", "1"}, YTicks: []string{"0.1", "1"},
		Z: [][]float64{{0.61, 0.72, math.NaN()}, {0.55, 0.8, 0.4}}}
	base := filepath.Join(t.TempDir(), "hm")
	if err := h.Save(base); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"0.61", "0.72", "0.8", "—", "0.01", "γ", "β", "fill:#C8C8C8"} {
		if !strings.Contains(string(svg), w) {
			t.Errorf("heatmap SVG lacks %q", w)
		}
	}
	if _, err := os.Stat(base + ".png"); err != nil {
		t.Error(err)
	}
	if err := (&Heatmap{Z: [][]float64{{1}}, XTicks: []string{"a", "b"}, YTicks: []string{"c"}}).Save(base); err == nil {
		t.Error("a heatmap with more ticks than columns was accepted")
	}
}

// A colour names one thing in a figure: two different series may share
// it only as a solid/dashed pair, and an index past the palette (which
// plotutil would wrap onto the first colours: FedAvg and FedYogi once
// shared red) is refused.
func TestColorsUnique(t *testing.T) {
	x := []float64{0, 1}
	y := []float64{1, 2}
	s := func(name string, c int, dashed bool) Series {
		return Series{Name: name, X: x, Mean: y, Color: c, Dashed: dashed}
	}
	cases := []struct {
		name   string
		series []Series
		ok     bool
	}{
		{"distinct", []Series{s("a", 0, false), s("b", 1, false)}, true},
		{"pair solid+dashed", []Series{s("Upcycled", 2, false), s("FedAvg", 2, true)}, true},
		{"two solid share", []Series{s("FedAvg", 0, false), s("FedYogi", 0, false)}, false},
		{"two dashed share", []Series{s("p=0.5", 3, true), s("p=0.25", 3, true)}, false},
		{"wraps past palette", []Series{s("a", len(Palette), false)}, false},
		{"negative", []Series{s("a", -1, false)}, false},
		{"same name repeated", []Series{s("baseline", 4, true), s("baseline", 4, true)}, true},
	}
	for _, c := range cases {
		err := checkColors("f", c.series)
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok %v", c.name, err, c.ok)
		}
		_, _, berr := (&Figure{Title: "f", Series: c.series}).build()
		if (berr == nil) != c.ok {
			t.Errorf("%s: Figure.build err = %v, want ok %v", c.name, berr, c.ok)
		}
	}
	for i := range Palette {
		for j := range i {
			if Palette[i] == Palette[j] {
				t.Errorf("palette colours %d and %d are equal", i, j)
			}
		}
	}
}

// Small multiples share their axes (the union of every panel's data),
// label only the outer axes, list a repeated baseline once in the
// legend, and refuse a colour clash across panels.
func TestPanels(t *testing.T) {
	x := []float64{0, 1, 2}
	base := Series{Name: "FedAvg", X: x, Mean: []float64{3, 2, 1}, Color: 0, Dashed: true}
	ps := &Panels{Title: "loss by method", Cols: 2, Panels: []Figure{
		{Title: "FedProx", XLabel: "round", YLabel: "loss", Series: []Series{{Name: "Upcycled-FedProx", X: x, Mean: []float64{2, 1, 0.5}, Std: []float64{.1, .1, .1}, Color: 1}, base}},
		{Title: "FedAvg", XLabel: "round", YLabel: "loss", Series: []Series{{Name: "Upcycled-FedAvg", X: x, Mean: []float64{9, 8, 7}, Color: 2}, base}},
		{Title: "Scaffold", XLabel: "round", YLabel: "loss", Series: []Series{{Name: "Upcycled-Scaffold", X: []float64{0, 5}, Mean: []float64{4, 4}, Color: 3}, base}},
	}}
	plots, items, err := ps.build()
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range plots {
		if p.X.Min != 0 || p.X.Max != 5 || p.Y.Min > 0.4 || p.Y.Max != 9 {
			t.Errorf("panel %d axes x [%g, %g] y [%g, %g], want x [0, 5] and y ⊇ [0.4, 9] shared", i, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
		}
	}
	// 2 columns, 2 rows: y labels on panels 0 and 2; x labels on the
	// bottom panel of each column (2, and 1 whose column has no row 2).
	for i, want := range []struct{ x, y bool }{{false, true}, {true, false}, {true, true}} {
		if got := (struct{ x, y bool }{plots[i].X.Label.Text != "", plots[i].Y.Label.Text != ""}); got != want {
			t.Errorf("panel %d labels (x, y) = %v, want %v", i, got, want)
		}
	}
	leg := newLegend(items)
	names := map[string]int{}
	for _, it := range items {
		names[it.name]++
	}
	if r := leg.Rectangle(draw.Canvas{}); names["FedAvg"] != 3 || r.Max.Y-r.Min.Y <= 0 {
		t.Errorf("legend items %v, legend height %v", names, r.Max.Y-r.Min.Y)
	}
	out := filepath.Join(t.TempDir(), "panels")
	if err := ps.Save(out); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(out + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	// "FedAvg" is drawn twice: the second panel's title and one legend
	// line (the baseline repeated in three panels is listed once).
	if n := strings.Count(string(svg), ">FedAvg<"); n != 2 {
		t.Errorf("FedAvg drawn %d times in the SVG, want 2", n)
	}
	for _, w := range []string{"loss by method", "Upcycled-Scaffold", "Scaffold"} {
		if !strings.Contains(string(svg), w) {
			t.Errorf("SVG lacks %q", w)
		}
	}
	clash := *ps
	clash.Panels = append([]Figure{}, ps.Panels...)
	clash.Panels[2].Series = []Series{{Name: "Upcycled-Scaffold", X: x, Mean: x, Color: 1}}
	if _, _, err := clash.build(); err == nil {
		t.Error("two names sharing a solid colour across panels were accepted")
	}
	mixed := *ps
	mixed.Panels = []Figure{ps.Panels[0], {Title: "log", LogY: true, Series: ps.Panels[1].Series}}
	if _, _, err := mixed.build(); err == nil {
		t.Error("panels with different y scales were accepted")
	}
}

// benchPanels is a small-multiples figure the size of Upcycled-FL's
// Fig. 2–6 (eight panels of two 80-point curves with bands, a legend).
func benchPanels() *Panels {
	var figs []Figure
	x := make([]float64, 80)
	for i := range x {
		x[i] = float64(i + 1)
	}
	for k := range 8 {
		up, base := make([]float64, 80), make([]float64, 80)
		sd := make([]float64, 80)
		for i := range x {
			up[i] = 0.5 + 0.3*(1-1/float64(i+k+1))
			base[i] = 0.45 + 0.3*(1-1/float64(i+2))
			sd[i] = 0.02
		}
		figs = append(figs, Figure{Title: fmt.Sprintf("method %d", k), XLabel: "round", YLabel: "accuracy", Series: []Series{
			{Name: fmt.Sprintf("Upcycled-%d", k), X: x, Mean: up, Std: sd, Color: k + 1},
			{Name: "baseline", X: x, Mean: base, Color: 0, Dashed: true}}})
	}
	return &Panels{Title: "accuracy by method", Cols: 4, Panels: figs}
}

// BenchmarkSavePanels: one Upcycled-FL-sized small-multiples figure, SVG
// and PNG (the report's figures are 32 of these: about 6 CPU-s, 60 % of
// it the PNG's filtering and deflate).
func BenchmarkSavePanels(b *testing.B) {
	out := filepath.Join(b.TempDir(), "fig")
	ps := benchPanels()
	for b.Loop() {
		if err := ps.Save(out); err != nil {
			b.Fatal(err)
		}
	}
}
