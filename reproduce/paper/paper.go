// Package paper is the registry through which each paper's reproduction
// plugs into the CLI. A paper states a typed Definition — its specs, data
// source, run function, report, cost model, components and gates — and
// registers Define(def); the generic code derives planning, execution,
// description, scale defaults and the flows Reproduce, Merge, Compare and
// UpdateGolden behind `fedrepro reproduce`, `fedrepro report`,
// `fedrepro compare` and `make golden` (ShardLoads is behind `fedrepro
// plan`). Callers never list the papers: Names is the registry's list.
package paper

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/internal/buildinfo"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
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

// Paper is one paper's reproduction as the generic flows see it. A paper
// package does not fill it by hand: it states a typed Definition and
// registers Define(def), which derives every field from it.
type Paper struct {
	Name  string
	Title string
	// Scales in increasing cost; DefaultScale is the one a bare command runs.
	Scales       []string
	DefaultScale string
	// Plan decodes the spec o selects and plans every run of o.Scale over
	// the data present (before --experiment and sharding). A command plans
	// once: the same Planned serves execution and report.
	Plan func(o Options) (*Planned, error)
	// Exec prepares the run function of a plan (data are loaded lazily,
	// once per process, by the plan's data source).
	Exec func(o Options, pl *Planned) (runner.Func, error)
	// Report writes reports/<paper>/ from the results of every planned run.
	Report func(o Options, pl *Planned, results []*runner.Result) error
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
	// Datasets names the pinned datasets the paper reads
	// (reproduce/datasets), whose digests results record.
	Datasets []string
}

// Planned is one command's plan of a scale: the decoded spec, the paper's
// data source for it, every run over the data present, and the notes
// ("<paper>: not run: …") that say what was left out and why.
type Planned struct {
	Runs  []runner.Run
	Notes []string
	Spec  any
	Data  any
}

// notes returns the plan's notes as log lines.
func (pl *Planned) notes() string {
	var b strings.Builder
	for _, n := range pl.Notes {
		b.WriteString(n + "\n")
	}
	return b.String()
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
	for _, d := range p.Datasets {
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
	pl, err := p.Plan(o)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, r := range pl.Runs {
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

// Register adds a paper (as database/sql's Register adds a driver: a paper
// package calls it in init, and importing the package is all a command
// needs); duplicates panic. Its datasets are recorded with
// reproduce/datasets, which lists the papers that read each.
func Register(p *Paper) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := papers[p.Name]; dup {
		panic("paper: duplicate " + p.Name)
	}
	papers[p.Name] = p
	datasets.Use(p.Name, p.Datasets...)
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

// UsageError is an error caused by how fedrepro was called (an unknown
// experiment, scale or paper): the CLI exits 2 on it.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// ReportDir is where a scale's report goes: reports/<paper>/ for the
// paper's default scale (the committed report), reports/<paper>/<scale>/
// for any other, so a smoke or paper-scale run never overwrites it.
func ReportDir(o Options, name string) string {
	if p, ok := Lookup(name); ok && o.Scale != "" && o.Scale != p.DefaultScale {
		return filepath.Join(o.ReportsDir, name, o.Scale)
	}
	return filepath.Join(o.ReportsDir, name)
}
