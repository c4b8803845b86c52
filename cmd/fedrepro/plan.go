package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func init() {
	register(command{Name: "plan", Summary: "show how a scale's runs split into N cost-balanced shards; --out freezes measured costs for a job array", Run: cmdPlan})
}

func cmdPlan(args []string, stdout, stderr io.Writer) error {
	var c commonFlags
	fs := c.bind("plan", stderr, false)
	shards := fs.Int("shards", 0, "number of shards (array tasks)")
	out := fs.String("out", "", "write a plan file for `reproduce --shard-plan`: the plan's digest and the measured CPU seconds of the results in --results")
	list := fs.Bool("list", false, "list each shard's runs")
	if err := parseFlags(fs.FlagSet, args); err != nil {
		return err
	}
	switch {
	case !flagGiven(fs.FlagSet, "shards"):
		return usagef("--shards is required: the number of shards (array tasks), ≥ 1")
	case *shards < 1:
		return usagef("--shards %d: want ≥ 1", *shards)
	}
	if c.shard != "" || c.force || c.workers != 0 {
		return usagef("plan runs nothing: it takes no --shard, --force or --workers")
	}
	if *out != "" && c.shardPlan != "" {
		return usagef("--out writes a new plan file; --shard-plan reads one: give one of them")
	}
	p, o, err := c.options(stderr)
	if err != nil {
		return err
	}
	var measured map[string]float64
	if *out != "" {
		sp, err := p.NewShardPlan(o)
		if err != nil {
			return err
		}
		sp.Shards = *shards
		if err := runner.WriteShardPlan(*out, sp); err != nil {
			return err
		}
		measured = sp.Measured
		o.Log = nil // the plan's notes (data not found, …) were printed once
	} else if o.ShardPlan != "" {
		sp, err := p.PlanCosts(o)
		if err != nil {
			return err
		}
		if sp.Shards > 0 && sp.Shards != *shards {
			return fmt.Errorf("%s: a plan for %d shards, not %d", o.ShardPlan, sp.Shards, *shards)
		}
		measured = sp.Measured
		o.Log = nil
	}
	loads, err := p.ShardLoads(o, *shards, measured)
	if err != nil {
		return err
	}
	o.Log = nil
	fit, err := p.FitCosts(o, measured)
	if err != nil {
		return err
	}
	unit := "model units (" + p.Name + "'s cost model; only ratios matter)"
	if len(measured) > 0 {
		unit = "estimated CPU seconds (measured costs, the cost model scaled to them elsewhere)"
	}
	var total, worst float64
	nruns, nmeasured := 0, 0
	for _, l := range loads {
		total += l.Cost
		worst = math.Max(worst, l.Cost)
		nruns += len(l.Runs)
		nmeasured += l.Measured
	}
	mean := total / float64(len(loads))
	ratio := worst / mean
	if c.jsonOut {
		rows := make([]map[string]any, 0, len(loads))
		for _, l := range loads {
			row := map[string]any{"shard": l.Shard, "runs": len(l.Runs), "cost": l.Cost, "share": l.Cost / mean, "measured": l.Measured}
			if *list {
				ids := make([]string, 0, len(l.Runs))
				for _, r := range l.Runs {
					ids = append(ids, r.ID())
				}
				row["run_ids"] = ids
			}
			rows = append(rows, row)
		}
		return writeJSON(stdout, map[string]any{"paper": p.Name, "scale": o.Scale, "shards": *shards, "runs": nruns,
			"measured": nmeasured, "unit": unit, "fit": map[string]any{"configs": fit.Configs, "log_corr": fit.LogCorr, "p10": fit.Low, "p90": fit.Hi, "seconds_per_unit": fit.SecPerU}, "total_cost": total, "max_over_mean": ratio, "plan_file": *out, "loads": rows})
	}
	fmt.Fprintf(stdout, "%s/%s: %d runs in %d shards (%d with measured costs); cost in %s\n", p.Name, o.Scale, nruns, *shards, nmeasured, unit)
	fmt.Fprintf(stdout, "%6s %6s %12s %7s\n", "shard", "runs", "est. cost", "share")
	for _, l := range loads {
		fmt.Fprintf(stdout, "%6d %6d %12.4g %7.3f\n", l.Shard, len(l.Runs), l.Cost, l.Cost/mean)
		if *list {
			for _, r := range l.Runs {
				fmt.Fprintf(stdout, "         %s\n", r.ID())
			}
		}
	}
	fmt.Fprintf(stdout, "max/mean %.3f\n", ratio)
	if fit.Configs >= 2 {
		fmt.Fprintf(stdout, "cost model vs %d measured configurations: log-log correlation %.3f; measured/model within ×%.2f–×%.2f of its median (10th–90th percentile)\n", fit.Configs, fit.LogCorr, fit.Low, fit.Hi)
	}
	if *out != "" {
		fmt.Fprintf(stdout, "wrote %s (pass it to every task: reproduce --shard auto --shard-plan %s)\n", *out, strings.ReplaceAll(*out, " ", "\\ "))
	}
	return nil
}

// flagGiven reports whether name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
