package main

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

func init() {
	register(command{
		Name:    "compare",
		Summary: "compare a scale's results with a golden: the exact gate (exit 1 when any value moved) and the paired review table",
		Description: "Compares the results of a scale (running what is missing, unless --no-run) with a golden snapshot, in two tiers. " +
			"The exact tier is what CI gates on: every final metric, curve checkpoint, counter and extra value of every run must equal the golden's, " +
			"bit for bit on the platform the golden was recorded on (relative 1e-9 elsewhere); any difference prints one table and exits 1. " +
			"The review tier is for a change meant to move numbers: for every cell and headline metric, the golden and fresh means over seeds, Δ, " +
			"the paired per-seed differences, a paired t-test p-value, the smallest shift the seeds could detect, and a verdict " +
			"(unchanged, within noise, shifted), the most severe first. --update re-records the golden and prints the review of old against new. " +
			"Without --scale, compare uses the smoke scale (what CI gates).",
		Examples: []string{
			"fedrepro compare --paper haar --scale smoke",
			"git show HEAD~1:golden/upcycled/default/results.json > /tmp/old.json && fedrepro compare --paper upcycled --scale default --no-run --golden /tmp/old.json",
		},
		Run: cmdCompare,
	})
}

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	c := commonFlags{compare: true}
	fs := c.bind("compare", stderr, false)
	golden := fs.String("golden", "golden", "golden root directory, or one golden results.json (e.g. an old one to review a change against)")
	// --results (commonFlags) may also name a snapshot file: then two
	// snapshots are compared (e.g. an old golden against a re-recorded one).
	// compare's own default scale is smoke (what CI gates), not the paper's.
	fs.Lookup("scale").Usage = "scale: smoke, default or paper (default: smoke, what CI gates)"
	noRun := fs.Bool("no-run", false, "do not run missing results; fail instead")
	update := fs.Bool("update", false, "rewrite golden/<paper>/<scale>/results.json from the results (running what is missing) and print the review of old against new")
	if err := parseFlags(fs.FlagSet, args); err != nil {
		return err
	}
	if c.scale == "" {
		c.scale = "smoke"
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
		path, review, err := p.UpdateGolden(ctx, o, *golden)
		if err != nil {
			return err
		}
		if c.jsonOut {
			return writeJSON(stdout, map[string]any{"paper": p.Name, "scale": o.Scale, "golden": path, "review": reviewJSON(review)})
		}
		if review != nil {
			fmt.Fprintf(stdout, "review of the previous golden against the new one (%s):\n%s\n", gate.ReviewCounts(review), gate.ReviewTable(review))
		}
		fmt.Fprintf(stdout, "wrote %s (review the table above and the diff like code)\n", path)
		return nil
	}
	var cmp *paper.Comparison
	if st, err := os.Stat(o.ResultsDir); err == nil && !st.IsDir() {
		// --results names a snapshot file (e.g. a re-recorded golden): compare
		// the two snapshots without any results.
		cmp, err = compareSnapshots(p, o, *golden, o.ResultsDir)
		if err != nil {
			return err
		}
	} else if cmp, err = p.Compare(ctx, o, *golden, !*noRun); err != nil {
		return err
	}
	review := cmp.Review()
	if c.jsonOut {
		diffs := make([]map[string]any, 0, len(cmp.Diffs))
		for _, d := range cmp.Diffs {
			diffs = append(diffs, map[string]any{
				"experiment": d.Experiment, "cell": d.Cell, "seed": d.Seed, "key": d.Key,
				"golden": finiteOrNil(d.Golden), "fresh": finiteOrNil(d.Fresh), "rel_change": finiteOrNil(d.RelChange()), "note": d.Note,
			})
		}
		if err := writeJSON(stdout, map[string]any{
			"paper": p.Name, "scale": o.Scale, "tolerance": cmp.RelTol, "tolerance_note": cmp.TolNote,
			"runs": len(cmp.Golden.Runs), "differences": len(cmp.Diffs), "diffs": diffs, "review": reviewJSON(review),
		}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "review, paired by seed (%s):\n%s\n", gate.ReviewCounts(review), gate.ReviewTable(review))
		if len(cmp.Diffs) > 0 {
			fmt.Fprintf(stdout, "exact gate (%s): %s\n%s", cmp.TolNote, gate.Summary(cmp.Diffs, cmp.Golden), gate.Table(cmp.Diffs, 40))
		} else {
			fmt.Fprintf(stdout, "exact gate (%s): %d runs, every value equal to the golden\n", cmp.TolNote, len(cmp.Golden.Runs))
		}
	}
	if len(cmp.Diffs) > 0 {
		return fmt.Errorf("%s/%s: %s", p.Name, o.Scale, gate.Summary(cmp.Diffs, cmp.Golden))
	}
	return nil
}

// compareSnapshots compares two snapshot files: golden (a file or the
// golden root) against fresh.
func compareSnapshots(p *paper.Paper, o paper.Options, golden, fresh string) (*paper.Comparison, error) {
	g, err := p.ReadGolden(golden, o.Scale)
	if err != nil {
		return nil, err
	}
	f, err := gate.Read(fresh)
	if err != nil {
		return nil, err
	}
	tol, note := gate.Tolerance(g)
	return &paper.Comparison{Golden: g, Fresh: f, RelTol: tol, TolNote: note, Diffs: gate.Exact(g, f, tol)}, nil
}

func reviewJSON(rows []gate.ReviewRow) []map[string]any {
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		out = append(out, map[string]any{
			"experiment": r.Experiment, "cell": r.Cell, "metric": r.Metric, "n": r.N,
			"golden": finiteOrNil(r.Golden), "fresh": finiteOrNil(r.Fresh), "delta": finiteOrNil(r.Delta),
			"diff_sd": finiteOrNil(r.DiffSD), "diff_min": finiteOrNil(r.DiffMin), "diff_max": finiteOrNil(r.DiffMax),
			"seed_sd": finiteOrNil(r.SeedSD), "p_value": finiteOrNil(r.P), "mde": finiteOrNil(r.MDE),
			"mde_unpaired": finiteOrNil(r.MDEUnpair), "threshold": r.Threshold, "non_finite": r.NonFinite, "verdict": r.Verdict,
		})
	}
	return out
}

func finiteOrNil(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}
