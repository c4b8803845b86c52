package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

func init() {
	register(command{Name: "report", Summary: "write reports/<paper>/ from the results present; never runs (the merge step after shards)", Run: cmdReport})
}

// mergeFlags are the inputs of the merge: what decides the plan (scale,
// spec, data availability) and where results and reports live.
type mergeFlags struct {
	paper, scale, dataDir, sharedDir, results, reports, spec, cacheDir string
	jsonOut                                                            bool
}

func (c *commonFlags) merge() mergeFlags {
	return mergeFlags{paper: c.paper, scale: c.scale, dataDir: c.dataDir, sharedDir: c.sharedDir,
		results: c.results, reports: c.reports, spec: c.spec, cacheDir: c.cacheDir, jsonOut: c.jsonOut}
}

// reportFlags defines the flags of `fedrepro report`.
func reportFlags(m *mergeFlags, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("report", stderr)
	fs.StringVar(&m.paper, "paper", "", required+"paper: "+fmt.Sprint(knownPapers))
	fs.StringVar(&m.scale, "scale", "", "scale: smoke, default or paper (default: the paper's default)")
	fs.StringVar(&m.dataDir, "data-dir", "", "directory with user-supplied datasets (decides which runs are planned; use the shards' value)")
	fs.StringVar(&m.sharedDir, "shared-dir", defaultShared(), "the project's shared/ folder (released upstream data)")
	fs.StringVar(&m.results, "results", "results", "results directory (the shards' shared storage)")
	fs.StringVar(&m.reports, "reports", "reports", "reports directory")
	fs.StringVar(&m.spec, "spec", "", "YAML spec replacing the scale's built-in one (use the shards' value)")
	fs.StringVar(&m.cacheDir, "cache-dir", datasets.DefaultCache(), "cache folder (claims and audits of the report, downloaded data)")
	fs.BoolVar(&m.jsonOut, "json", false, "print a JSON summary instead of text")
	return fs
}

func cmdReport(args []string, stdout, stderr io.Writer) error {
	var m mergeFlags
	if err := parseFlags(reportFlags(&m, stderr), args); err != nil {
		return err
	}
	return mergeReport(m, stdout, stderr)
}

// mergeReport writes the report from the results present, or fails listing
// what is missing; it never executes a run.
func mergeReport(m mergeFlags, stdout, stderr io.Writer) error {
	if err := checkPaper(m.paper); err != nil {
		return err
	}
	if err := checkDataDir(m.dataDir); err != nil {
		return err
	}
	p, ok := paper.Lookup(m.paper)
	if !ok {
		return fmt.Errorf("paper %s has no reproduction yet", m.paper)
	}
	o, err := p.Normalize(paper.Options{Scale: m.scale, DataDir: m.dataDir, SharedDir: m.sharedDir,
		ResultsDir: m.results, ReportsDir: m.reports, SpecFile: m.spec, CacheDir: m.cacheDir, Log: &onceWriter{w: stderr}})
	if err != nil {
		return usageError{err.Error()}
	}
	ms, err := p.Merge(o)
	if err != nil && !errors.Is(err, paper.ErrIncomplete) {
		return err
	}
	rp := ms.Report
	if m.jsonOut {
		missing := make([]string, 0, len(ms.Missing))
		for _, r := range ms.Missing {
			missing = append(missing, r.ID())
		}
		if jerr := writeJSON(stdout, map[string]any{"paper": p.Name, "scale": o.Scale, "runs": ms.Runs, "present": ms.Present,
			"missing": len(ms.Missing), "stale": ms.Stale, "missing_runs": missing, "report": rp}); jerr != nil {
			return jerr
		}
	} else if err == nil {
		fmt.Fprintf(stdout, "%s/%s: report of %d results: %s\n", p.Name, o.Scale, ms.Present, rp)
	}
	return err
}
