// Package paper is the registry through which each paper's reproduction
// plugs into the CLI: a Paper says which runs a scale needs (Plan), how to
// execute one (Exec), how to turn results into reports/<paper>/ (Report),
// and which final metrics the golden gate watches (Gates).
//
// Reproduce, Merge, Compare and UpdateGolden are the generic flows behind
// `fedrepro reproduce`, `fedrepro report`, `fedrepro compare` and
// `make golden`; ShardLoads is behind `fedrepro plan`.
package paper

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/internal/buildinfo"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"gonum.org/v1/gonum/stat"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Options are the user's choices for one invocation.
type Options struct {
	Scale   string
	Workers int
	Shard   int // 1-based; with Shards ≤ 1 everything runs
	Shards  int
	// ShardPlan is a runner.ShardPlan file (`fedrepro plan --out`): the
	// measured costs every task of an array balances with, and the digest
	// of the plan they must all share ("" = the cost model alone).
	ShardPlan  string
	DataDir    string // user-supplied datasets ("" = defaults)
	SharedDir  string // the project's ../shared (released upstream data)
	CacheDir   string // downloaded data (reproduce/datasets; default .cache)
	ResultsDir string // default "results"
	ReportsDir string // default "reports"
	Force      bool
	// SpecFile replaces the embedded spec of the scale with a user's YAML
	// (decoded strictly: unknown keys are errors naming file and line).
	SpecFile string
	// Experiments restricts the runs to these experiments (nil: all).
	Experiments []string
	Progress    io.Writer // nil = quiet
	Log         io.Writer // notes for the user (skipped datasets, …); nil = discard
}

// Logf writes a note to o.Log when set.
func (o Options) Logf(format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", a...)
	}
}

// Experiment describes one experiment of a scale for `fedrepro list`.
type Experiment struct {
	Name        string
	Description string
	Runs        int
}

// Paper is one paper's reproduction.
type Paper struct {
	Name  string
	Title string
	// Scales in increasing cost; the second is the default when present.
	Scales       []string
	DefaultScale string
	// Plan returns every run of o.Scale (before sharding).
	Plan func(o Options) ([]runner.Run, error)
	// Exec prepares (loads data once) and returns the run function.
	Exec func(o Options) (runner.Func, error)
	// Report writes reports/<paper>/ from the results of every planned run.
	Report func(o Options, results []*runner.Result) error
	// Gates are the final metrics the golden gate compares.
	Gates []gate.Metric
	// CostRate converts Cost to CPU seconds: model units per CPU-second,
	// measured on the development machine (0: no time estimate).
	CostRate float64
	// Cost estimates a run's relative cost from its configuration (the
	// paper's work proxy, e.g. rounds × clients × epochs × examples ×
	// parameters); shards are balanced by it. nil counts runs as equal.
	Cost runner.CostFunc
	// Describe lists the experiments of a scale.
	Describe func(scale string) ([]Experiment, error)
	// AuditData returns the data folder the paper's audits read (nil: the
	// user's --data-dir).
	AuditData func(o Options) string
	// Components lists every method, mode, mechanism and optimizer the
	// paper's code registers ("method:wav", "optimizer:adam", …), derived
	// from its registries rather than typed twice; Uses names the ones a
	// planned run exercises. The smoke scale must exercise them all (the
	// golden gate cannot see a code path no smoke run takes), which
	// gatetest.Coverage checks.
	Components func() []string
	Uses       func(r runner.Run) []string
	// SpecSource returns the spec o selects (Specs.Source), whose SHA-256
	// every result and report records.
	SpecSource func(o Options) (string, []byte, error)
}

// estimate predicts the CPU seconds of runs from the cost model (0 when
// the paper has no rate).
func (p *Paper) estimate(runs []runner.Run) float64 {
	if p.Cost == nil || !(p.CostRate > 0) {
		return 0
	}
	var s float64
	for _, r := range runs {
		s += p.Cost(r)
	}
	return s / p.CostRate
}

// Provenance is what every result and report of o records: the build
// (module, commit, Go, platform), the SHA-256 of the spec, and the pin
// digest of each dataset the paper reads.
func (p *Paper) Provenance(o Options) *runner.Provenance {
	bi := buildinfo.Get()
	pv := &runner.Provenance{Module: bi.Module, Version: bi.Version, Commit: bi.Commit, Dirty: bi.Dirty, GoVersion: bi.GoVersion, Platform: bi.Platform}
	if p.SpecSource != nil {
		if _, b, err := p.SpecSource(o); err == nil {
			h := sha256.Sum256(b)
			pv.SpecSHA256 = hex.EncodeToString(h[:])
		}
	}
	for _, d := range datasets.UsedBy(p.Name) {
		if pv.Data == nil {
			pv.Data = map[string]string{}
		}
		pv.Data[d] = datasets.PinDigest(d)
	}
	return pv
}

// Uncovered returns the components that no run of o.Scale exercises.
func (p *Paper) Uncovered(o Options) ([]string, error) {
	if p.Components == nil || p.Uses == nil {
		return nil, fmt.Errorf("paper %s declares no components", p.Name)
	}
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	runs, err := p.Plan(o)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, r := range runs {
		for _, c := range p.Uses(r) {
			used[c] = true
		}
	}
	var out []string
	for _, c := range p.Components() {
		if !used[c] {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out, nil
}

// AuditOptions are the options of the paper's audits in its report and in
// its golden gate: the seed every recorded verdict uses, full trial counts,
// and the paper's audit data. One function serves both, so the gate checks
// exactly the numbers the report prints (and computes them once).
func AuditOptions(name string, o Options) audit.Options {
	ao := audit.Options{Seed: proofs.DefaultSeed, DataDir: o.DataDir}
	if p, ok := Lookup(name); ok && p.AuditData != nil {
		ao.DataDir = p.AuditData(o)
	}
	return ao
}

var (
	mu     sync.Mutex
	papers = map[string]*Paper{}
)

// Register adds a paper; duplicates panic.
func Register(p *Paper) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := papers[p.Name]; dup {
		panic("paper: duplicate " + p.Name)
	}
	papers[p.Name] = p
}

// Lookup finds a registered paper.
func Lookup(name string) (*Paper, bool) {
	mu.Lock()
	defer mu.Unlock()
	p, ok := papers[name]
	return p, ok
}

// Names lists the registered papers, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(papers))
	for n := range papers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Normalize fills defaults and validates the scale.
func (p *Paper) Normalize(o Options) (Options, error) {
	if o.Scale == "" {
		o.Scale = p.DefaultScale
	}
	ok := false
	for _, s := range p.Scales {
		ok = ok || s == o.Scale
	}
	if !ok {
		return o, UsageError{fmt.Sprintf("paper %s has no scale %q (scales: %v)", p.Name, o.Scale, p.Scales)}
	}
	if o.ResultsDir == "" {
		o.ResultsDir = "results"
	}
	if o.ReportsDir == "" {
		o.ReportsDir = "reports"
	}
	if o.CacheDir == "" {
		o.CacheDir = datasets.DefaultCache()
	}
	if o.Shards < 1 {
		o.Shard, o.Shards = 1, 1
	}
	return o, nil
}

// ErrIncomplete is returned when results are missing for a report.
var ErrIncomplete = errors.New("results incomplete")

// planned returns the runs of o's scale, restricted to o.Experiments.
func (p *Paper) planned(o Options) ([]runner.Run, error) {
	runs, notes, err := p.plannedNotes(o)
	if err == nil && o.Log != nil {
		io.WriteString(o.Log, notes)
	}
	return runs, err
}

// plannedNotes is planned returning the plan's notes ("not run: …")
// instead of writing them, for commands that say them only on success.
func (p *Paper) plannedNotes(o Options) ([]runner.Run, string, error) {
	var notes bytes.Buffer
	q := o
	q.Log = &notes
	runs, err := p.Plan(q)
	if err != nil {
		return nil, "", err
	}
	if len(runs) == 0 {
		return nil, "", fmt.Errorf("%s/%s plans no run: the spec has no experiment, or the data of every experiment is missing (%s)", p.Name, o.Scale, strings.TrimSpace(strings.SplitN(notes.String(), "\n", 2)[0]))
	}
	if runs, err = filterExperiments(runs, o.Experiments); err != nil {
		return nil, "", err
	}
	return runs, notes.String(), nil
}

// UsageError is an error caused by how fedrepro was called (an unknown
// experiment, scale or paper): the CLI exits 2 on it.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// PlanCosts reads o.ShardPlan (nil without one) after checking that the
// file was made for this paper and scale and that this process plans the
// same runs.
func (p *Paper) PlanCosts(o Options) (*runner.ShardPlan, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	runs, err := p.planned(o)
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

// Execute plans the scale and runs what is missing (one shard of it).
func (p *Paper) Execute(ctx context.Context, o Options) ([]runner.Run, runner.Summary, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, runner.Summary{}, err
	}
	runs, err := p.planned(o)
	if err != nil {
		return nil, runner.Summary{}, err
	}
	sp, err := p.shardPlan(o, runs)
	if err != nil {
		return nil, runner.Summary{}, err
	}
	var measured map[string]float64
	if sp != nil {
		if sp.Shards > 0 && sp.Shards != o.Shards {
			return nil, runner.Summary{}, fmt.Errorf("%s: a plan for %d shards, but this process runs shard %d/%d (a Slurm task resubmitted alone needs %s=%d)", o.ShardPlan, sp.Shards, o.Shard, o.Shards, runner.ShardCountEnv, sp.Shards)
		}
		measured = sp.Measured
	}
	fn, err := p.Exec(o)
	if err != nil {
		return nil, runner.Summary{}, err
	}
	sum, err := runner.Execute(ctx, runs, fn, runner.Options{
		Dir: o.ResultsDir, Workers: o.Workers, Shard: o.Shard, Shards: o.Shards, Force: o.Force, Progress: o.Progress,
		Cost: p.Cost, Measured: measured, Log: o.Log, Provenance: p.Provenance(o), Estimate: p.estimate,
	})
	return runs, sum, err
}

// Reproduce runs the scale (resuming) and, unless sharded, writes the
// report from all results.
func (p *Paper) Reproduce(ctx context.Context, o Options) (runner.Summary, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return runner.Summary{}, err
	}
	// Answer bad input and unwritable folders before the first run (the
	// plan's notes are said by Execute, once the command goes on).
	if _, _, err := p.plannedNotes(o); err != nil {
		return runner.Summary{}, err
	}
	dirs := []string{o.ResultsDir}
	if o.Shards <= 1 && len(o.Experiments) == 0 {
		dirs = append(dirs, ReportDir(o, p.Name))
	}
	if err := CheckWritable(dirs...); err != nil {
		return runner.Summary{}, err
	}
	_, sum, err := p.Execute(ctx, o)
	if err != nil {
		return sum, err
	}
	quiet := o
	quiet.Log = nil // its notes were said when the runs were planned
	runs, err := p.Plan(quiet)
	if err != nil {
		return sum, err
	}
	if o.Shards > 1 {
		o.Logf("shard %d/%d done (%d runs, %d reused); once every shard has finished, `fedrepro report --paper %s --scale %s` writes the report", o.Shard, o.Shards, sum.Ran, sum.Skipped, p.Name, o.Scale)
		return sum, nil
	}
	results, missing, rej := runner.Load(runs, o.ResultsDir)
	rej.Log(o.Log, "cannot use")
	if len(missing) > 0 {
		if len(o.Experiments) > 0 {
			o.Logf("ran experiments %v; the report needs every experiment of the scale (%d runs still missing), so it was not written", o.Experiments, len(missing))
			return sum, nil
		}
		return sum, fmt.Errorf("%w: %d of %d runs have no result (first: %s)", ErrIncomplete, len(missing), len(runs), missing[0].ID())
	}
	sum.ReportPath, err = p.writeReport(o, results)
	return sum, err
}

// ReportDir is where a scale's report goes: reports/<paper>/ for the
// paper's default scale (the committed report), reports/<paper>/<scale>/
// for any other, so a smoke or paper-scale run never overwrites it.
func ReportDir(o Options, name string) string {
	if p, ok := Lookup(name); ok && o.Scale != "" && o.Scale != p.DefaultScale {
		return filepath.Join(o.ReportsDir, name, o.Scale)
	}
	return filepath.Join(o.ReportsDir, name)
}

// writeReport writes the scale's report and, for the default scale, the
// cross-paper index reports/README.md; it returns the report's path.
func (p *Paper) writeReport(o Options, results []*runner.Result) (string, error) {
	o.Logf("%s/%s: writing the report from %d results …", p.Name, o.Scale, len(results))
	defer report.Begin(o.Log, filepath.Join(o.CacheDir, "report"), report.ProvenanceOf(results))()
	if err := p.Report(o, results); err != nil {
		return "", err
	}
	if o.Scale == p.DefaultScale {
		if err := report.WriteIndex(o.ReportsDir); err != nil {
			return "", fmt.Errorf("the cross-paper index: %w", err)
		}
	}
	return filepath.Join(ReportDir(o, p.Name), "README.md"), nil
}

// CheckWritable fails early, before any run, when a folder the command
// will write cannot be created or written.
func CheckWritable(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("%s is not writable: %w", d, err)
		}
		f, err := os.CreateTemp(d, ".fedrepro-write-check-*")
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
	runs, notes, err := p.plannedNotes(o)
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
	if o.Log != nil {
		io.WriteString(o.Log, notes)
	}
	ms.Report, err = p.writeReport(o, results)
	return ms, err
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
	runs, err := p.planned(o)
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
	runs, err := p.planned(o)
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

// GoldenPath is golden/<paper>/<scale>/results.json under root.
func GoldenPath(root, paper, scale string) string {
	return filepath.Join(root, paper, scale, "results.json")
}

// Fresh snapshots the gated values of the scale's results, running what is
// missing first when run is true.
func (p *Paper) Fresh(ctx context.Context, o Options, run bool) (*gate.Snapshot, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	runs, notes, err := p.plannedNotes(o)
	if err != nil {
		return nil, err
	}
	if run {
		if _, _, err := p.Execute(ctx, o); err != nil {
			return nil, err
		}
	}
	results, missing, rej := runner.Load(runs, o.ResultsDir)
	if rej.Count() > 0 {
		return nil, fmt.Errorf("%w: %d stored results of %s/%s cannot be used: %s", ErrIncomplete, rej.Count(), p.Name, o.Scale, rej.String())
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %d of %d runs of %s/%s have no result in %s (first: %s)", ErrIncomplete, len(missing), len(runs), p.Name, o.Scale, o.ResultsDir, missing[0].ID())
	}
	if o.Log != nil {
		io.WriteString(o.Log, notes)
	}
	return gate.Collect(p.Name, o.Scale, p.Gates, results)
}

// Comparison is a scale's results set against a golden snapshot: the
// exact tier's differences (what CI gates on) and the review tier's rows.
type Comparison struct {
	Golden, Fresh *gate.Snapshot
	// RelTol is the exact tier's tolerance (0: bit for bit) and TolNote
	// says why.
	RelTol  float64
	TolNote string
	Diffs   []gate.Diff
}

// Review returns the review tier's rows (paired by seed).
func (c *Comparison) Review() []gate.ReviewRow { return gate.Review(c.Golden, c.Fresh) }

// ReadGolden reads the snapshot at path, or golden/<paper>/<scale>/results.json
// when path is a directory (the golden root).
func (p *Paper) ReadGolden(path, scale string) (*gate.Snapshot, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = GoldenPath(path, p.Name, scale)
	}
	g, err := gate.Read(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no golden results for %s/%s at %s (record them with `make golden PAPER=%s SCALE=%s`)", p.Name, scale, file, p.Name, scale)
		}
		return nil, err
	}
	if g.Paper != p.Name || g.Scale != scale {
		return nil, fmt.Errorf("%s holds the golden of %s/%s, not %s/%s", file, g.Paper, g.Scale, p.Name, scale)
	}
	return g, nil
}

// Compare checks the scale's results against the golden snapshot at
// golden (a file, or the golden root directory).
func (p *Paper) Compare(ctx context.Context, o Options, golden string, run bool) (*Comparison, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return nil, err
	}
	g, err := p.ReadGolden(golden, o.Scale)
	if err != nil {
		return nil, err
	}
	fresh, err := p.Fresh(ctx, o, run)
	if err != nil {
		return nil, err
	}
	tol, note := gate.Tolerance(g)
	return &Comparison{Golden: g, Fresh: fresh, RelTol: tol, TolNote: note, Diffs: gate.Exact(g, fresh, tol)}, nil
}

// UpdateGolden snapshots the scale's results (running what is missing) and
// rewrites golden/<paper>/<scale>/results.json under goldenRoot. When a
// previous golden exists it returns the review of old against new, for the
// reviewer of the change.
func (p *Paper) UpdateGolden(ctx context.Context, o Options, goldenRoot string) (string, []gate.ReviewRow, error) {
	o, err := p.Normalize(o)
	if err != nil {
		return "", nil, err
	}
	fresh, err := p.Fresh(ctx, o, true)
	if err != nil {
		return "", nil, err
	}
	path := GoldenPath(goldenRoot, p.Name, o.Scale)
	var review []gate.ReviewRow
	if old, err := gate.Read(path); err == nil {
		review = gate.Review(old, fresh)
	}
	return path, review, gate.Write(path, fresh)
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
	runs, err := p.planned(o)
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
