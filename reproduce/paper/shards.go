package paper

import (
	"fmt"
	"math"
	"sort"

	"github.com/fedrepro/fedrepro/reproduce/runner"
	"gonum.org/v1/gonum/stat"
)

// PlanCosts reads o.ShardPlan (nil without one) after checking that the
// file was made for this paper and scale and that this process plans the
// same runs.
func (p *Paper) PlanCosts(o Options) (*runner.ShardPlan, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	_, runs, err := p.plan(o)
	if err != nil {
		return nil, err
	}
	return p.shardPlan(o, runs)
}

func (p *Paper) shardPlan(o Options, runs []runner.Run) (*runner.ShardPlan, error) {
	if o.ShardPlan == "" {
		return nil, nil
	}
	sp, err := runner.ReadShardPlan(o.ShardPlan)
	if err != nil {
		return nil, err
	}
	if sp.Paper != p.Name || sp.Scale != o.Scale {
		return nil, fmt.Errorf("%s: a plan for %s/%s, not %s/%s", o.ShardPlan, sp.Paper, sp.Scale, p.Name, o.Scale)
	}
	if err := sp.Check(o.ShardPlan, runs); err != nil {
		return nil, err
	}
	return sp, nil
}

// ShardLoad is one shard's share of a partition.
type ShardLoad struct {
	Shard int          // 1-based
	Runs  []runner.Run // in plan order
	Cost  float64      // estimated, in model units or seconds (see Measured)
	// Measured counts the shard's runs whose cost is a measurement.
	Measured int
}

// ShardLoads returns the partition of the scale's runs (restricted to
// o.Experiments) into n shards that Execute uses, with measured the costs
// of earlier results (nil: the cost model alone).
func (p *Paper) ShardLoads(o Options, n int, measured map[string]float64) ([]ShardLoad, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	_, runs, err := p.plan(o)
	if err != nil {
		return nil, err
	}
	costs, err := runner.Costs(runs, p.Cost, measured)
	if err != nil {
		return nil, err
	}
	shards, loads := runner.Partition(runs, costs, n)
	hashes := map[string]bool{}
	for h := range measured {
		hashes[h] = true
	}
	out := make([]ShardLoad, n)
	for s, idx := range shards {
		out[s] = ShardLoad{Shard: s + 1, Cost: loads[s]}
		for _, k := range idx {
			out[s].Runs = append(out[s].Runs, runs[k])
			if h, _ := runs[k].ConfigHash(); hashes[h] {
				out[s].Measured++
			}
		}
	}
	return out, nil
}

// NewShardPlan records the measured costs of the results present in
// o.ResultsDir and the digest of the scale's plan, for `--shard-plan`.
func (p *Paper) NewShardPlan(o Options) (*runner.ShardPlan, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	_, runs, err := p.plan(o)
	if err != nil {
		return nil, err
	}
	d, err := runner.PlanDigest(runs)
	if err != nil {
		return nil, err
	}
	m, err := runner.MeasuredCosts(runs, o.ResultsDir)
	if err != nil {
		return nil, err
	}
	return &runner.ShardPlan{Paper: p.Name, Scale: o.Scale, Runs: len(runs), Digest: d, Measured: m}, nil
}

// CostFit says how well the paper's cost model predicts measured costs:
// over the distinct configurations of the scale that have a measurement,
// the correlation of log(model) with log(measured seconds), and the 10th
// and 90th percentiles of measured/model divided by their median (1, 1
// when one factor explains every measurement).
type CostFit struct {
	Configs int
	LogCorr float64
	Low, Hi float64
	SecPerU float64 // median seconds per model unit
}

// FitCosts compares the cost model with measured costs (config hash →
// seconds) on the runs of o's scale.
func (p *Paper) FitCosts(o Options, measured map[string]float64) (CostFit, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return CostFit{}, err
	}
	_, runs, err := p.plan(o)
	if err != nil {
		return CostFit{}, err
	}
	model, err := runner.Costs(runs, p.Cost, nil)
	if err != nil {
		return CostFit{}, err
	}
	seen := map[string]bool{}
	var lx, ly, ratio []float64
	for k, r := range runs {
		h, err := r.ConfigHash()
		if err != nil {
			return CostFit{}, err
		}
		s, ok := measured[h]
		if !ok || !(s > 0) || seen[h] {
			continue
		}
		seen[h] = true
		lx = append(lx, math.Log(model[k]))
		ly = append(ly, math.Log(s))
		ratio = append(ratio, s/model[k])
	}
	f := CostFit{Configs: len(lx)}
	if len(lx) < 2 {
		return f, nil
	}
	f.LogCorr = stat.Correlation(lx, ly, nil)
	sort.Float64s(ratio)
	f.SecPerU = stat.Quantile(0.5, stat.Empirical, ratio, nil)
	f.Low = stat.Quantile(0.1, stat.Empirical, ratio, nil) / f.SecPerU
	f.Hi = stat.Quantile(0.9, stat.Empirical, ratio, nil) / f.SecPerU
	return f, nil
}
