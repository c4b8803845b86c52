package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func init() {
	register(command{Name: "reproduce", Summary: "run a paper's experiments (resuming) and write reports/<paper>/", Run: cmdReproduce})
}

// commonFlags are shared by reproduce and compare.
type commonFlags struct {
	paper, scale, shard, shardPlan, dataDir, sharedDir, results, reports, spec, experiments string
	cacheDir                                                                                string
	workers                                                                                 int
	force, jsonOut, quiet                                                                   bool
	// compare: the command compares results; it takes no shard, shard
	// plan, experiment filter or reports folder.
	compare bool
}

func (c *commonFlags) bind(fsName string, stderr io.Writer, withReports bool) *flagSet {
	fs := newFlagSet(fsName, stderr)
	fs.StringVar(&c.paper, "paper", "", required+"paper: "+fmt.Sprint(knownPapers))
	fs.StringVar(&c.scale, "scale", "", "scale: smoke, default or paper (default: the paper's default)")
	fs.IntVar(&c.workers, "workers", 0, "parallel runs (default: all cores)")
	if !c.compare {
		fs.StringVar(&c.shard, "shard", "", "run only shard i/n (1-based, e.g. 2/8) of a cost-balanced partition, or `auto`: the shard of this Slurm array task (SLURM_ARRAY_TASK_*) or Kubernetes Indexed Job pod (JOB_COMPLETION_INDEX with "+runner.ShardCountEnv+")")
		fs.StringVar(&c.shardPlan, "shard-plan", "", "plan file written by `fedrepro plan --out` (measured costs all shards balance with)")
	}
	fs.StringVar(&c.dataDir, "data-dir", "", "directory with user-supplied datasets (MNIST, CIFAR, FEMNIST, upstream data/)")
	fs.StringVar(&c.sharedDir, "shared-dir", defaultShared(), "the project's shared/ folder (released upstream data)")
	fs.StringVar(&c.results, "results", "results", "results directory")
	if withReports {
		fs.StringVar(&c.reports, "reports", "reports", "reports directory")
	}
	fs.StringVar(&c.cacheDir, "cache-dir", datasets.DefaultCache(), "cache folder (downloaded data; git ignores .cache)")
	fs.BoolVar(&c.force, "force", false, "rerun runs whose results exist")
	fs.StringVar(&c.spec, "spec", "", "YAML spec replacing the scale's built-in one (see reproduce/<paper>/specs/)")
	if !c.compare {
		fs.StringVar(&c.experiments, "experiment", "", "comma-separated experiments to run (default: all of the scale)")
	}
	fs.BoolVar(&c.jsonOut, "json", false, "print a JSON summary instead of text")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress lines on stderr")
	return &flagSet{fs}
}

func defaultShared() string {
	if s := os.Getenv("FEDREPRO_SHARED"); s != "" {
		return s
	}
	return "../shared"
}

func (c *commonFlags) options(stderr io.Writer) (*paper.Paper, paper.Options, error) {
	if err := checkPaper(c.paper); err != nil {
		return nil, paper.Options{}, err
	}
	p, ok := paper.Lookup(c.paper)
	if !ok {
		return nil, paper.Options{}, fmt.Errorf("paper %s has no reproduction yet", c.paper)
	}
	if c.workers < 0 {
		return nil, paper.Options{}, usagef("--workers %d: must be ≥ 0", c.workers)
	}
	i, n, source, err := runner.ResolveShard(c.shard, os.Getenv)
	if err != nil {
		return nil, paper.Options{}, usageError{err.Error()}
	}
	if c.shard == "auto" {
		fmt.Fprintf(stderr, "shard %d/%d from %s\n", i, n, source)
	}
	if err := checkDataDir(c.dataDir); err != nil {
		return nil, paper.Options{}, err
	}
	log := &onceWriter{w: stderr}
	o := paper.Options{
		Scale: c.scale, Workers: c.workers, Shard: i, Shards: n, ShardPlan: c.shardPlan,
		DataDir: c.dataDir, SharedDir: c.sharedDir, CacheDir: c.cacheDir, ResultsDir: c.results, ReportsDir: c.reports,
		Force: c.force, Log: log, SpecFile: c.spec,
	}
	if c.experiments != "" {
		o.Experiments = strings.Split(c.experiments, ",")
	}
	if !c.quiet {
		o.Progress = stderr
	}
	if o, err = p.Normalize(o); err != nil {
		return nil, o, usageError{err.Error()}
	}
	return p, o, nil
}

// checkDataDir rejects a --data-dir that is not a directory: an explicit
// data folder is authoritative, so a typo must not silently fall back to
// the default data.
func checkDataDir(d string) error {
	if d == "" {
		return nil
	}
	st, err := os.Stat(d)
	if err != nil {
		return usagef("--data-dir %s: %v", d, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return usagef("--data-dir %s is not a directory", d)
	}
	return nil
}

// onceWriter drops a line identical to one it already wrote (a note such as
// "not run: …" comes from every planning of the scale; it is said once).
type onceWriter struct {
	w    io.Writer
	mu   sync.Mutex
	seen map[string]bool
}

func (o *onceWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		if strings.HasSuffix(line, "\n") {
			if o.seen[line] {
				continue
			}
			o.seen[line] = true
		}
		if _, err := io.WriteString(o.w, line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// reproduceFlags defines the flags of `fedrepro reproduce`.
func reproduceFlags(stderr io.Writer) (*commonFlags, *flagSet, *bool) {
	c := new(commonFlags)
	fs := c.bind("reproduce", stderr, true)
	noRun := fs.Bool("no-run", false, "run nothing: write the report from the results present, or fail listing the missing runs (as `fedrepro report`)")
	return c, fs, noRun
}

func cmdReproduce(args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	c, fs, noRun := reproduceFlags(stderr)
	if err := parseFlags(fs.FlagSet, args); err != nil {
		return err
	}
	if *noRun {
		if c.shard != "" || c.force || c.experiments != "" || c.workers != 0 || c.shardPlan != "" {
			return usagef("--no-run only writes the report: it takes no --shard, --shard-plan, --force, --experiment or --workers")
		}
		return mergeReport(c.merge(), stdout, stderr)
	}
	p, o, err := c.options(stderr)
	if err != nil {
		return err
	}
	ctx, cancel := interruptible()
	defer cancel()
	sum, err := p.Reproduce(ctx, o)
	if err != nil {
		return err
	}
	if c.jsonOut {
		return writeJSON(stdout, map[string]any{
			"paper": p.Name, "scale": o.Scale, "runs": sum.Total, "ran": sum.Ran, "reused": sum.Skipped,
			"failed": sum.Failed, "seconds": time.Since(start).Seconds(), "run_seconds": sum.Elapsed.Seconds(), "shard": fmt.Sprintf("%d/%d", o.Shard, o.Shards),
			"report": sum.ReportPath,
		})
	}
	fmt.Fprintf(stdout, "%s/%s: %d runs (%d ran, %d reused) in %.1fs (runs %.1fs)\n", p.Name, o.Scale, sum.Total, sum.Ran, sum.Skipped, time.Since(start).Seconds(), sum.Elapsed.Seconds())
	if sum.ReportPath != "" {
		fmt.Fprintf(stdout, "report: %s\n", sum.ReportPath)
	}
	return nil
}
