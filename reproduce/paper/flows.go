package paper

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// plan normalises nothing: it plans o (normalised by the caller) once and
// returns the plan with the runs restricted to o.Experiments. An empty
// plan is an error naming its first note.
func (p *Paper) plan(o Options) (*Planned, []runner.Run, error) {
	pl, err := p.Plan(o)
	if err != nil {
		return nil, nil, err
	}
	if len(pl.Runs) == 0 {
		first := ""
		if len(pl.Notes) > 0 {
			first = strings.TrimSpace(pl.Notes[0])
		}
		return nil, nil, fmt.Errorf("%s/%s plans no run: the spec has no experiment, or the data of every experiment is missing (%s)", p.Name, o.Scale, first)
	}
	runs, err := filterExperiments(pl.Runs, o.Experiments)
	if err != nil {
		return nil, nil, err
	}
	return pl, runs, nil
}

// sayNotes writes the plan's notes to o.Log.
func sayNotes(o Options, pl *Planned) {
	if o.Log != nil {
		io.WriteString(o.Log, pl.notes())
	}
}

// Execute plans the scale and runs what is missing (one shard of it).
func (p *Paper) Execute(ctx context.Context, o Options) ([]runner.Run, runner.Summary, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, runner.Summary{}, err
	}
	pl, runs, err := p.plan(o)
	if err != nil {
		return nil, runner.Summary{}, err
	}
	sayNotes(o, pl)
	sum, err := p.execute(ctx, o, pl, runs)
	return runs, sum, err
}

// execute runs the missing runs of one shard of a plan.
func (p *Paper) execute(ctx context.Context, o Options, pl *Planned, runs []runner.Run) (runner.Summary, error) {
	sp, err := p.shardPlan(o, runs)
	if err != nil {
		return runner.Summary{}, err
	}
	var measured map[string]float64
	if sp != nil {
		if sp.Shards > 0 && sp.Shards != o.Shards {
			return runner.Summary{}, fmt.Errorf("%s: a plan for %d shards, but this process runs shard %d/%d (a Slurm task resubmitted alone needs %s=%d)", o.ShardPlan, sp.Shards, o.Shard, o.Shards, runner.ShardCountEnv, sp.Shards)
		}
		measured = sp.Measured
	}
	fn, err := p.Exec(o, pl)
	if err != nil {
		return runner.Summary{}, err
	}
	return runner.Execute(ctx, runs, fn, runner.Options{
		Dir: o.ResultsDir, Workers: o.Workers, Shard: o.Shard, Shards: o.Shards, Force: o.Force, Progress: o.Progress,
		Cost: p.Cost, Measured: measured, Log: o.Log, Provenance: p.Provenance(o), Estimate: p.estimate,
	})
}

// Reproduce runs the scale (resuming) and, unless sharded, writes the
// report from all results. The spec is decoded and the scale planned once.
func (p *Paper) Reproduce(ctx context.Context, o Options) (runner.Summary, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return runner.Summary{}, err
	}
	// Answer bad input and unwritable folders before the first run; the
	// plan's notes are said once the command goes on.
	pl, runs, err := p.plan(o)
	if err != nil {
		return runner.Summary{}, err
	}
	dirs := []string{o.ResultsDir}
	if o.Shards <= 1 && len(o.Experiments) == 0 {
		dirs = append(dirs, ReportDir(o, p.Name))
	}
	if err := CheckWritable(dirs...); err != nil {
		return runner.Summary{}, err
	}
	sayNotes(o, pl)
	sum, err := p.execute(ctx, o, pl, runs)
	if err != nil {
		return sum, err
	}
	if o.Shards > 1 {
		o.Logf("shard %d/%d done (%d runs, %d reused); once every shard has finished, `fedrepro report --paper %s --scale %s` writes the report", o.Shard, o.Shards, sum.Ran, sum.Skipped, p.Name, o.Scale)
		return sum, nil
	}
	results, missing, rej := runner.Load(pl.Runs, o.ResultsDir)
	rej.Log(o.Log, "cannot use")
	if len(missing) > 0 {
		if len(o.Experiments) > 0 {
			o.Logf("ran experiments %v; the report needs every experiment of the scale (%d runs still missing), so it was not written", o.Experiments, len(missing))
			return sum, nil
		}
		return sum, fmt.Errorf("%w: %d of %d runs have no result (first: %s)", ErrIncomplete, len(missing), len(pl.Runs), missing[0].ID())
	}
	sum.ReportPath, err = p.writeReport(o, pl, results)
	return sum, err
}

// writeReport writes the scale's report and, for the default scale, the
// cross-paper index reports/README.md; it returns the report's path.
func (p *Paper) writeReport(o Options, pl *Planned, results []*runner.Result) (string, error) {
	o.Logf("%s/%s: writing the report from %d results …", p.Name, o.Scale, len(results))
	defer report.Begin(o.Log, filepath.Join(o.CacheDir, "report"), report.ProvenanceOf(results))()
	start := time.Now()
	if err := p.Report(o, pl, results); err != nil {
		return "", err
	}
	if err := pruneStale(filepath.Join(ReportDir(o, p.Name), "figures"), start); err != nil {
		return "", fmt.Errorf("removing figures this report no longer draws: %w", err)
	}
	if o.Scale == p.DefaultScale {
		if err := report.WriteIndex(o.ReportsDir); err != nil {
			return "", fmt.Errorf("the cross-paper index: %w", err)
		}
	}
	return filepath.Join(ReportDir(o, p.Name), "README.md"), nil
}

// CheckWritable fails early, before any run, when a folder the command
// will write cannot be created or written. It creates nothing: it probes
// the nearest folder that already exists on each path (a temporary file
// made and removed there), so a command refused later — a shard plan for
// another array, an interrupted start — leaves no empty folders behind.
// A path that runs through a file is refused.
func CheckWritable(dirs ...string) error {
	for _, d := range dirs {
		probe := filepath.Clean(d)
		for {
			fi, err := os.Stat(probe)
			if err == nil {
				if !fi.IsDir() {
					return fmt.Errorf("%s is not writable: %s is not a folder", d, probe)
				}
				break
			}
			if errors.Is(err, fs.ErrPermission) {
				return fmt.Errorf("%s is not writable: %w", d, err)
			}
			// Missing, or below a file (ENOTDIR): look one level up.
			parent := filepath.Dir(probe)
			if parent == probe {
				return fmt.Errorf("%s is not writable: no existing folder on its path", d)
			}
			probe = parent
		}
		f, err := os.CreateTemp(probe, ".fedrepro-write-check-*")
		if err != nil {
			return fmt.Errorf("%s is not writable: %w", d, err)
		}
		name := f.Name()
		f.Close()
		os.Remove(name)
	}
	return nil
}

// MergeSummary is what Merge found.
type MergeSummary struct {
	Runs    int          // planned runs of the scale
	Present int          // results found with the planned configuration
	Missing []runner.Run // planned runs without a usable result, in plan order
	// Stale counts the missing runs whose result file exists but cannot be
	// used (made for another configuration, or damaged: see the log).
	Stale int
	// Report is the path of the report written ("" when none was).
	Report string
}

// Merge writes the report of the scale from the results present in
// o.ResultsDir, and never runs anything: it does not even build the run
// function. When a planned run has no result (a shard failed, was
// cancelled, or never ran) it returns ErrIncomplete naming how many and the
// first few, and writes nothing.
func (p *Paper) Merge(o Options) (MergeSummary, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return MergeSummary{}, err
	}
	if len(o.Experiments) > 0 {
		return MergeSummary{}, fmt.Errorf("the report covers every experiment of the scale; drop --experiment")
	}
	pl, runs, err := p.plan(o)
	if err != nil {
		return MergeSummary{}, err
	}
	results, missing, rej := runner.Load(runs, o.ResultsDir)
	ms := MergeSummary{Runs: len(runs), Present: len(results), Missing: missing}
	for _, r := range missing {
		if _, err := os.Stat(r.Path(o.ResultsDir)); err == nil {
			ms.Stale++
		}
	}
	if len(missing) > 0 {
		stale := ""
		if ms.Stale > 0 {
			stale = fmt.Sprintf(", %d of them stored but unusable (%s)", ms.Stale, rej.String())
		}
		cells, ncells := runner.FormatCells(missing, 4)
		return ms, fmt.Errorf("%w: %d of %d runs of %s/%s (%d cells) have no result in %s%s: %s; nothing was written — rerun the shards that hold them (`fedrepro plan … --list` names them; a resubmitted shard skips finished runs)",
			ErrIncomplete, len(missing), len(runs), p.Name, o.Scale, ncells, o.ResultsDir, stale, cells)
	}
	sayNotes(o, pl)
	ms.Report, err = p.writeReport(o, pl, results)
	return ms, err
}

// filterExperiments keeps the runs of the named experiments; an unknown
// name is an error listing the known ones.
func filterExperiments(runs []runner.Run, names []string) ([]runner.Run, error) {
	if len(names) == 0 {
		return runs, nil
	}
	known := map[string]bool{}
	var order []string
	for _, r := range runs {
		if !known[r.Experiment] {
			known[r.Experiment] = true
			order = append(order, r.Experiment)
		}
	}
	want := map[string]bool{}
	for _, n := range names {
		if !known[n] {
			return nil, UsageError{fmt.Sprintf("unknown experiment %q (this scale has: %v)", n, order)}
		}
		want[n] = true
	}
	var out []runner.Run
	for _, r := range runs {
		if want[r.Experiment] {
			out = append(out, r)
		}
	}
	return out, nil
}

// staleMargin is how much older than the report's start a figure file must
// be to count as left over: file systems with coarse timestamps (FAT: 2 s)
// may date a file written during the report slightly before its start.
const staleMargin = 2 * time.Second

// pruneStale removes the regular files of dir last written more than
// staleMargin before start: the figures an earlier report drew and this
// one did not (a scale whose design dropped an experiment or a mode), which
// would otherwise sit beside the new report as if it had drawn them. Every
// figure is written whole by a rename (report.writeAtomic), so a figure
// this report drew is always newer than start. A missing dir is no error.
func pruneStale(dir string, start time.Time) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if info.ModTime().Before(start.Add(-staleMargin)) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
