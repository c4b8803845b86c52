package paper

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Group is the results of one configuration over its seeds: what every
// paper's report aggregates into a table cell (mean ± std over seeds), a
// curve with a band, or a per-seed pairing of two arms. The results are in
// (cell, seed) order, so a statistic over them is the same whatever order
// the runner produced them in.
type Group[C any] struct {
	// Config is the configuration of the group's first result (a key
	// groups results whose configurations agree on what the report reads).
	Config  C
	Results []*runner.Result
}

// GroupBy decodes every result's configuration once (ConfigOf) and groups
// the results by key. A result whose configuration does not decode is an
// error naming it.
func GroupBy[C any, K comparable](results []*runner.Result, key func(r *runner.Result, c C) K) (map[K]*Group[C], error) {
	sorted := slices.Clone(results)
	slices.SortStableFunc(sorted, func(a, b *runner.Result) int {
		return cmp.Or(cmp.Compare(a.Experiment, b.Experiment), cmp.Compare(a.Cell, b.Cell), cmp.Compare(a.Seed, b.Seed))
	})
	out := map[K]*Group[C]{}
	for _, r := range sorted {
		c, err := ConfigOf[C](r)
		if err != nil {
			return nil, fmt.Errorf("grouping results: %w", err)
		}
		k := key(r, c)
		g := out[k]
		if g == nil {
			g = &Group[C]{Config: c}
			out[k] = g
		}
		g.Results = append(g.Results, r)
	}
	return out, nil
}

// GroupAs is GroupBy with every group wrapped by wrap in the paper's own
// group type: a paper gives its groups methods (its metrics, its pairings)
// through a struct embedding *Group[C], since methods cannot be added to
// Group[C] from another package.
func GroupAs[C any, K comparable, G any](results []*runner.Result, key func(r *runner.Result, c C) K, wrap func(*Group[C]) G) (map[K]G, error) {
	gs, err := GroupBy(results, key)
	if err != nil {
		return nil, err
	}
	out := make(map[K]G, len(gs))
	for k, g := range gs {
		out[k] = wrap(g)
	}
	return out, nil
}

// Seeds returns the group's seeds in order.
func (g *Group[C]) Seeds() []uint64 {
	out := make([]uint64, len(g.Results))
	for i, r := range g.Results {
		out[i] = r.Seed
	}
	return out
}

// Values returns field(r) for every result, in order.
func (g *Group[C]) Values(field func(*runner.Result) float64) []float64 {
	out := make([]float64, len(g.Results))
	for i, r := range g.Results {
		out[i] = field(r)
	}
	return out
}

// Finals returns a final metric over the seeds, in order; a result that
// does not record the metric is left out (a missing metric is not 0).
func (g *Group[C]) Finals(metric string) []float64 {
	var out []float64
	for _, r := range g.Results {
		if v, ok := r.Final[metric]; ok {
			out = append(out, v)
		}
	}
	return out
}

// Final summarises a final metric over the seeds.
func (g *Group[C]) Final(metric string) report.Stats { return report.Summarize(g.Finals(metric)) }

// Counter summarises a work counter over the seeds.
func (g *Group[C]) Counter(name string) report.Stats {
	return report.Summarize(g.Values(func(r *runner.Result) float64 { return float64(r.Counters[name]) }))
}

// CPU summarises the runs' own thread CPU time (robust to other load).
func (g *Group[C]) CPU() report.Stats {
	return report.Summarize(g.Values(func(r *runner.Result) float64 { return r.CPUSeconds }))
}

// Wall summarises the runs' wall time (depends on what else ran).
func (g *Group[C]) Wall() report.Stats {
	return report.Summarize(g.Values(func(r *runner.Result) float64 { return r.WallSeconds }))
}

// Curve returns, for a per-round value y recorded at the same rounds in
// every seed, x (read from the first seed's round) and the mean and
// sample std of y over seeds at each round; the curve stops at the
// shortest seed's last round. Metric(name) reads one metric as it is.
func (g *Group[C]) Curve(y, x func(runner.Metrics) float64) (xs, mean, std []float64) {
	if len(g.Results) == 0 {
		return
	}
	n := len(g.Results[0].Rounds)
	for _, r := range g.Results {
		n = min(n, len(r.Rounds))
	}
	vals := make([]float64, len(g.Results))
	for i := 0; i < n; i++ {
		for j, r := range g.Results {
			vals[j] = y(r.Rounds[i])
		}
		s := report.Summarize(vals)
		xs = append(xs, x(g.Results[0].Rounds[i]))
		mean = append(mean, s.Mean)
		std = append(std, s.Std)
	}
	return
}

// Seed returns the group's result of seed s (nil when it has none).
func (g *Group[C]) Seed(s uint64) *runner.Result {
	for _, r := range g.Results {
		if r.Seed == s {
			return r
		}
	}
	return nil
}

// Paired returns diff(a's result, b's result) for every seed both groups
// have, in a's seed order: the differences of two arms run on the same
// seeds (the same split, initial model and client draws), whose spread is
// the noise of the comparison rather than of either arm.
func Paired[C any](a, b *Group[C], diff func(ra, rb *runner.Result) float64) []float64 {
	var d []float64
	for _, ra := range a.Results {
		if rb := b.Seed(ra.Seed); rb != nil {
			d = append(d, diff(ra, rb))
		}
	}
	return d
}

// Metric reads one per-round metric (for Curve).
func Metric(name string) func(runner.Metrics) float64 {
	return func(m runner.Metrics) float64 { return m[name] }
}
