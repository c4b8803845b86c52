// Package gate is fedrepro's regression gate: it compares fresh per-seed
// results with golden ones cell by cell and fails when a reproduced number
// moved.
//
// With at least MinSeeds seeds on both sides a cell fails only when the
// Mann–Whitney U test (golang.org/x/perf/benchmath, AssumeNothing) rejects
// "same distribution" at Alpha AND the median moved by more than the
// metric's practical threshold: seed noise alone cannot trip it, and a
// statistically detectable but negligible move does not either. With fewer
// seeds the test has no power (n = 3 per side cannot reach p < 0.05), so
// the gate falls back to the stated tolerance on the mean.
package gate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/fedrepro/fedrepro/reproduce/runner"
	"golang.org/x/perf/benchmath"
)

// MinSeeds is the smallest per-side sample for which the U test can reach
// p < 0.05 (benchmath's minimum p with 4 vs 4 is 0.0286).
const MinSeeds = 4

// Alpha is the significance level of the U test.
const Alpha = 0.05

// Metric names a gated metric of Result.Final and its practical threshold.
type Metric struct {
	Name string `json:"name"`
	// Threshold is the smallest absolute move of the median (or of the mean
	// with fewer than MinSeeds seeds) that counts as a regression.
	Threshold float64 `json:"threshold"`
}

// Cell is the golden record of one (experiment, cell, metric).
type Cell struct {
	Experiment string    `json:"experiment"`
	Cell       string    `json:"cell"`
	Metric     string    `json:"metric"`
	Seeds      []uint64  `json:"seeds"`
	Values     []float64 `json:"values"`
}

// File is golden/<paper>/<scale>/results.json.
type File struct {
	Paper   string   `json:"paper"`
	Scale   string   `json:"scale"`
	Metrics []Metric `json:"metrics"`
	Cells   []Cell   `json:"cells"`
}

// Collect groups results into golden cells for the given metrics, sorted
// by experiment, cell and metric, values in seed order. Non-finite values
// are stored as they are (they must match on both sides).
func Collect(paper, scale string, metrics []Metric, results []*runner.Result) (*File, error) {
	type key struct{ exp, cell, metric string }
	type pt struct {
		seed uint64
		v    float64
	}
	groups := map[key][]pt{}
	for _, r := range results {
		for _, m := range metrics {
			v, ok := r.Final[m.Name]
			if !ok {
				continue
			}
			k := key{r.Experiment, r.Cell, m.Name}
			groups[k] = append(groups[k], pt{r.Seed, v})
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("no result carries any of the gated metrics %v", metricNames(metrics))
	}
	f := &File{Paper: paper, Scale: scale, Metrics: metrics}
	for k, pts := range groups {
		sort.Slice(pts, func(i, j int) bool { return pts[i].seed < pts[j].seed })
		c := Cell{Experiment: k.exp, Cell: k.cell, Metric: k.metric}
		for _, p := range pts {
			c.Seeds = append(c.Seeds, p.seed)
			c.Values = append(c.Values, p.v)
		}
		f.Cells = append(f.Cells, c)
	}
	sort.Slice(f.Cells, func(i, j int) bool {
		a, b := f.Cells[i], f.Cells[j]
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if a.Cell != b.Cell {
			return a.Cell < b.Cell
		}
		return a.Metric < b.Metric
	})
	return f, nil
}

func metricNames(ms []Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// Write stores f as indented JSON (non-finite values as strings) atomically.
func Write(path string, f *File) error {
	type jcell struct {
		Experiment string         `json:"experiment"`
		Cell       string         `json:"cell"`
		Metric     string         `json:"metric"`
		Seeds      []uint64       `json:"seeds"`
		Values     runner.Metrics `json:"values"`
	}
	// Encode values through runner.Metrics so NaN/Inf survive; keyed by
	// seed for readability of diffs.
	out := struct {
		Paper   string   `json:"paper"`
		Scale   string   `json:"scale"`
		Metrics []Metric `json:"metrics"`
		Cells   []jcell  `json:"cells"`
	}{Paper: f.Paper, Scale: f.Scale, Metrics: f.Metrics}
	for _, c := range f.Cells {
		vals := runner.Metrics{}
		for i, s := range c.Seeds {
			vals[fmt.Sprintf("seed-%d", s)] = c.Values[i]
		}
		out.Cells = append(out.Cells, jcell{c.Experiment, c.Cell, c.Metric, c.Seeds, vals})
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	return runner.WriteFileAtomic(path, append(b, '\n'))
}

// Read loads a golden file written by Write.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var in struct {
		Paper   string   `json:"paper"`
		Scale   string   `json:"scale"`
		Metrics []Metric `json:"metrics"`
		Cells   []struct {
			Experiment string         `json:"experiment"`
			Cell       string         `json:"cell"`
			Metric     string         `json:"metric"`
			Seeds      []uint64       `json:"seeds"`
			Values     runner.Metrics `json:"values"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &File{Paper: in.Paper, Scale: in.Scale, Metrics: in.Metrics}
	for _, c := range in.Cells {
		cell := Cell{Experiment: c.Experiment, Cell: c.Cell, Metric: c.Metric, Seeds: c.Seeds}
		for _, s := range c.Seeds {
			v, ok := c.Values[fmt.Sprintf("seed-%d", s)]
			if !ok {
				return nil, fmt.Errorf("%s: cell %s/%s %s lacks seed %d", path, c.Experiment, c.Cell, c.Metric, s)
			}
			cell.Values = append(cell.Values, v)
		}
		f.Cells = append(f.Cells, cell)
	}
	return f, nil
}

// Finding is the comparison of one cell.
type Finding struct {
	Experiment, Cell, Metric string
	GoldenCenter, NewCenter  float64 // medians (U test) or means (fallback)
	Shift                    float64 // NewCenter − GoldenCenter
	Threshold                float64
	P                        float64 // U-test p-value; NaN for the fallback
	N1, N2                   int
	Test                     string // "mann-whitney" or "tolerance" or "missing"
	Failed                   bool
	Reason                   string
}

// String renders a finding as one line naming the cell, the shift and p.
func (f Finding) String() string {
	where := fmt.Sprintf("%s %s %s", f.Experiment, f.Cell, f.Metric)
	switch f.Test {
	case "missing":
		return where + ": " + f.Reason
	case "mann-whitney":
		return fmt.Sprintf("%s: median %.6g → %.6g (shift %+.4g, threshold %.4g), Mann–Whitney p = %.4f (n = %d, %d)%s",
			where, f.GoldenCenter, f.NewCenter, f.Shift, f.Threshold, f.P, f.N1, f.N2, suffix(f))
	default:
		return fmt.Sprintf("%s: mean %.6g → %.6g (shift %+.4g, tolerance %.4g; %d vs %d seeds, too few for a U test)%s",
			where, f.GoldenCenter, f.NewCenter, f.Shift, f.Threshold, f.N1, f.N2, suffix(f))
	}
}

func suffix(f Finding) string {
	if f.Failed {
		return " — REGRESSION: " + f.Reason
	}
	return ""
}

// Compare checks fresh results against the golden file. Every golden cell
// must be present in fresh, and every fresh cell of a gated metric must be
// in the golden file.
func Compare(golden *File, fresh *File) []Finding {
	thr := map[string]float64{}
	for _, m := range golden.Metrics {
		thr[m.Name] = m.Threshold
	}
	type key struct{ e, c, m string }
	newCells := map[key]Cell{}
	for _, c := range fresh.Cells {
		newCells[key{c.Experiment, c.Cell, c.Metric}] = c
	}
	var out []Finding
	seen := map[key]bool{}
	for _, g := range golden.Cells {
		k := key{g.Experiment, g.Cell, g.Metric}
		seen[k] = true
		n, ok := newCells[k]
		if !ok {
			out = append(out, Finding{Experiment: g.Experiment, Cell: g.Cell, Metric: g.Metric, Test: "missing", Failed: true,
				Reason: "in the golden results but not in the fresh ones"})
			continue
		}
		out = append(out, compareCell(g, n, thr[g.Metric]))
	}
	for _, c := range fresh.Cells {
		k := key{c.Experiment, c.Cell, c.Metric}
		if !seen[k] {
			out = append(out, Finding{Experiment: c.Experiment, Cell: c.Cell, Metric: c.Metric, Test: "missing", Failed: true,
				Reason: "not in the golden results (record it with `make golden`)"})
		}
	}
	return out
}

func compareCell(g, n Cell, threshold float64) Finding {
	f := Finding{Experiment: g.Experiment, Cell: g.Cell, Metric: g.Metric, Threshold: threshold, N1: len(g.Values), N2: len(n.Values), P: math.NaN()}
	gf, gnf := splitFinite(g.Values)
	nf, nnf := splitFinite(n.Values)
	if gnf != nnf {
		f.Test = "tolerance"
		f.Failed = true
		f.Reason = fmt.Sprintf("non-finite values changed: golden has %d, fresh has %d", gnf, nnf)
		return f
	}
	if len(gf) >= MinSeeds && len(nf) >= MinSeeds {
		f.Test = "mann-whitney"
		s1 := benchmath.NewSample(append([]float64(nil), gf...), &benchmath.DefaultThresholds)
		s2 := benchmath.NewSample(append([]float64(nil), nf...), &benchmath.DefaultThresholds)
		f.GoldenCenter = median(s1.Values)
		f.NewCenter = median(s2.Values)
		f.Shift = f.NewCenter - f.GoldenCenter
		f.P = benchmath.AssumeNothing.Compare(s1, s2).P
		if f.P < Alpha && math.Abs(f.Shift) > threshold {
			f.Failed = true
			f.Reason = fmt.Sprintf("p < %.2g and |shift| > %.4g", Alpha, threshold)
		}
		return f
	}
	f.Test = "tolerance"
	f.GoldenCenter = mean(gf)
	f.NewCenter = mean(nf)
	f.Shift = f.NewCenter - f.GoldenCenter
	if math.Abs(f.Shift) > threshold || (math.IsNaN(f.Shift) && len(gf)+len(nf) > 0) {
		f.Failed = true
		f.Reason = fmt.Sprintf("|shift| > %.4g", threshold)
	}
	return f
}

func splitFinite(xs []float64) (finite []float64, nonFinite int) {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			nonFinite++
			continue
		}
		finite = append(finite, x)
	}
	return finite, nonFinite
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Failed returns the findings that are regressions.
func Failed(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Failed {
			out = append(out, f)
		}
	}
	return out
}
