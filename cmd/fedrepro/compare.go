package main

import (
	"fmt"
	"io"
	"math"

	"github.com/fedrepro/fedrepro/reproduce/gate"
)

func init() {
	register(command{Name: "compare", Summary: "gate a scale's results against golden/<paper>/<scale> (exit 1 on a regression)", Run: cmdCompare})
}

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	var c commonFlags
	fs := c.bind("compare", stderr, false)
	golden := fs.String("golden", "golden", "golden directory")
	noRun := fs.Bool("no-run", false, "do not run missing results; fail instead")
	update := fs.Bool("update", false, "rewrite golden/<paper>/<scale>/results.json from the results (running what is missing) instead of comparing")
	if err := parseFlags(fs.FlagSet, args); err != nil {
		return err
	}
	p, o, err := c.options(stderr)
	if err != nil {
		return err
	}
	ctx, cancel := interruptible()
	defer cancel()
	if *update {
		if *noRun {
			return usagef("--update with --no-run: the golden file is written from a complete set of results, so missing runs must run; drop --no-run")
		}
		path, err := p.UpdateGolden(ctx, o, *golden)
		if err != nil {
			return err
		}
		if c.jsonOut {
			return writeJSON(stdout, map[string]any{"paper": p.Name, "scale": o.Scale, "golden": path})
		}
		fmt.Fprintf(stdout, "wrote %s (review the diff like code)\n", path)
		return nil
	}
	findings, err := p.Compare(ctx, o, *golden, !*noRun)
	if err != nil {
		return err
	}
	failed := gate.Failed(findings)
	if c.jsonOut {
		rows := make([]map[string]any, 0, len(findings))
		for _, f := range findings {
			row := map[string]any{
				"experiment": f.Experiment, "cell": f.Cell, "metric": f.Metric, "test": f.Test,
				"golden": finiteOrNil(f.GoldenCenter), "fresh": finiteOrNil(f.NewCenter), "shift": finiteOrNil(f.Shift),
				"threshold": f.Threshold, "p_value": finiteOrNil(f.P), "n_golden": f.N1, "n_fresh": f.N2,
				"regression": f.Failed, "reason": f.Reason,
			}
			rows = append(rows, row)
		}
		if err := writeJSON(stdout, map[string]any{"paper": p.Name, "scale": o.Scale, "cells": rows, "regressions": len(failed)}); err != nil {
			return err
		}
	} else {
		for _, f := range failed {
			fmt.Fprintln(stdout, f.String())
		}
		fmt.Fprintf(stdout, "%s/%s: %d cells compared, %d regressions\n", p.Name, o.Scale, len(findings), len(failed))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d regressions; first: %s", len(failed), failed[0].String())
	}
	return nil
}

func finiteOrNil(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}
