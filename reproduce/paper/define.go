package paper

import (
	"context"
	"fmt"
	"reflect"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// DefaultScales are the scales of a paper that names none: the smoke
// scale the golden gate runs, the default the committed report comes
// from, and the paper's own.
var DefaultScales = []string{"smoke", "default", "paper"}

// Definition is one paper's reproduction, typed by its spec S, its run
// configuration C (every runner.Run it plans carries a C) and its data
// source D (what finds and loads the data, once per process). The paper
// states what is its own; Define derives the rest — planning with notes,
// execution, description, scale defaults, config decoding, provenance —
// so that a paper package is its spec, data, run, report, cost model and
// findings, and nothing it would copy from another.
type Definition[S, C, D any] struct {
	Name  string
	Title string
	// Scales in increasing cost and the default one (DefaultScales and
	// "default" when empty).
	Scales       []string
	DefaultScale string
	// Specs is the paper's source of specs (embedded specs/<scale>.yaml or
	// --spec), decoded once per command.
	Specs Specs[S]
	// Data returns the paper's data source for o and the spec; nothing is
	// loaded until a run asks. DataAt stands in for it when the source
	// depends on --data-dir alone (Data is then DataAt(o.DataDir)).
	Data   func(o Options, s *S) D
	DataAt func(dataDir string) D
	// Plan expands the spec over the data present; NotRun says, one line
	// each ("not run: …"), what was left out for missing data, and Notes
	// any other note the plan gives the user for the options asked (either
	// nil: none). A paper that reads data says what is missing rather than
	// silently dropping it.
	Plan   func(s *S, d D) ([]runner.Run, error)
	NotRun func(s *S, d D) []string
	Notes  func(o Options, s *S, d D) []string
	// All expands the spec as if every dataset were present and Info
	// names and describes its experiments (for `fedrepro list`). Info may
	// be nil when S lists its experiments in a field Experiments whose
	// elements have string fields Name and Description, as every spec
	// does: Define then reads them (describeField).
	All  func(s *S) ([]runner.Run, error)
	Info func(s *S) []Experiment
	// Expand and Present stand in for Plan and All when the spec expands
	// over a one-name availability test (the dataset or source a run
	// reads): Plan is Expand over Present(d, name), All is Expand with
	// every name present. Left nil, they are the spec's method Plan and
	// the data source's method Available when the types have them
	// (Expander, Available). A paper whose test takes more (upcycled's
	// source and dataset) sets Plan and All itself.
	Expand  func(s *S, present func(name string) bool) ([]runner.Run, error)
	Present func(d D, name string) bool
	// Run executes one run: configuration c with the run's seed (Loading
	// builds it from a loader of the run's data and an executor of it).
	Run func(ctx context.Context, d D, c C, seed uint64) (*runner.Outcome, error)
	// Report writes reports/<paper>/ from the plan's spec and data and the
	// results of every planned run.
	Report func(o Options, s *S, d D, results []*runner.Result) error
	// Cost is the work proxy of a configuration (see Paper.Cost) and
	// CostRate its units per CPU second. Left nil, Cost is the
	// configuration's method Cost when C has one (Coster).
	Cost     func(c C) float64
	CostRate float64
	// Components lists every code path a spec can select; Uses those a
	// configuration takes (see Paper.Components). Left nil, Uses is the
	// configuration's method Uses when C has one (User).
	Components func() []string
	Uses       func(c C) []string
	Gates      []gate.Metric
	// Audits are the paper's privacy audits, and ClaimsAudit the title of
	// the "claims" audit of its claim files (claims/<paper>-….yaml through
	// the claim engine, claims.AuditEntry; empty: none). Define registers
	// them under the paper's name, the claims audit last: the order
	// `fedrepro audit`, the report and golden/<paper>/audits.json list
	// them in.
	Audits      []audit.Entry
	ClaimsAudit string
	// AuditData is the data folder of the paper's audits (nil: --data-dir).
	AuditData func(o Options) string
	// Datasets names the pinned datasets the paper reads
	// (reproduce/datasets), for provenance and `fedrepro data`.
	Datasets []string
}

// Define derives the registry entry of a typed definition. It panics (at
// registration, in init) on a definition that cannot plan, describe, run
// or report: one with neither Plan and All nor Expand and Present, or
// without Data, Info, Run or Report.
func Define[S, C, D any](d Definition[S, C, D]) *Paper {
	d.methodDefaults()
	RegisterAudits(d.Name, d.Audits)
	if d.ClaimsAudit != "" {
		audit.Register(claims.AuditEntry(d.Name, d.ClaimsAudit))
	}
	if d.Expand != nil && d.Present != nil {
		if d.Plan == nil {
			d.Plan = func(s *S, src D) ([]runner.Run, error) {
				return d.Expand(s, func(name string) bool { return d.Present(src, name) })
			}
		}
		if d.All == nil {
			d.All = func(s *S) ([]runner.Run, error) { return d.Expand(s, func(string) bool { return true }) }
		}
	}
	if d.Info == nil {
		d.Info = describeField[S]()
	}
	if d.Plan == nil || d.All == nil || d.Data == nil || d.Run == nil || d.Report == nil || d.Info == nil {
		panic(fmt.Sprintf("paper %q: a Definition needs Data, Plan and All (or Expand and Present), Info (or a spec field Experiments of named and described experiments), Run and Report", d.Name))
	}
	p := &Paper{
		Name: d.Name, Title: d.Title, Scales: d.Scales, DefaultScale: d.DefaultScale,
		Gates: d.Gates, CostRate: d.CostRate, AuditData: d.AuditData, Components: d.Components,
		SpecSource: d.Specs.Source, Datasets: d.Datasets,
	}
	if len(p.Scales) == 0 {
		p.Scales = DefaultScales
	}
	if p.DefaultScale == "" {
		p.DefaultScale = "default"
	}
	p.Plan = func(o Options) (*Planned, error) {
		s, err := d.Specs.For(o)
		if err != nil {
			return nil, err
		}
		src := d.Data(o, s)
		pl := &Planned{Spec: s, Data: src}
		var notes []string
		if d.NotRun != nil {
			notes = d.NotRun(s, src)
		}
		if d.Notes != nil {
			notes = append(notes, d.Notes(o, s, src)...)
		}
		for _, n := range notes {
			pl.Notes = append(pl.Notes, d.Name+": "+n)
		}
		if pl.Runs, err = d.Plan(s, src); err != nil {
			return nil, err
		}
		return pl, nil
	}
	p.Exec = func(o Options, pl *Planned) (runner.Func, error) {
		_, src, err := planOf[S, D](pl)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, r runner.Run) (*runner.Outcome, error) {
			c, err := configOf[C](r)
			if err != nil {
				return nil, err
			}
			return d.Run(ctx, src, c, r.Seed)
		}, nil
	}
	p.Report = func(o Options, pl *Planned, results []*runner.Result) error {
		s, src, err := planOf[S, D](pl)
		if err != nil {
			return err
		}
		return d.Report(o, s, src, results)
	}
	if d.Cost != nil {
		p.Cost = func(r runner.Run) float64 {
			c, err := configOf[C](r)
			if err != nil {
				return 1
			}
			return d.Cost(c)
		}
	}
	if d.Uses != nil {
		p.Uses = func(r runner.Run) []string {
			c, err := configOf[C](r)
			if err != nil {
				return []string{fmt.Sprintf("config:%T", r.Config)}
			}
			return d.Uses(c)
		}
	}
	p.Describe = func(scale string) ([]Experiment, error) {
		s, err := d.Specs.Load(scale)
		if err != nil {
			return nil, err
		}
		runs, err := d.All(s)
		if err != nil {
			return nil, err
		}
		return CountRuns(d.Info(s), runs), nil
	}
	return p
}

// Expander is a spec that expands into runs over a one-name availability
// test (Definition.Expand's default).
type Expander interface {
	Plan(present func(name string) bool) ([]runner.Run, error)
}

// Available is a data source that says whether the dataset (or source) a
// run reads is present (Definition.Present's default).
type Available interface{ Available(name string) bool }

// Coster is a configuration that states its work proxy
// (Definition.Cost's default).
type Coster interface{ Cost() float64 }

// User is a configuration that names the components it exercises
// (Definition.Uses's default).
type User interface{ Uses() []string }

// methodDefaults fills the fields a paper leaves nil from DataAt and from
// the methods its types have (Expander, Available, Coster, User), so that
// a paper states each of these once, on its own type, rather than wiring
// it again in its definition.
func (d *Definition[S, C, D]) methodDefaults() {
	if d.Data == nil && d.DataAt != nil {
		at := d.DataAt
		d.Data = func(o Options, _ *S) D { return at(o.DataDir) }
	}
	if _, ok := any(new(S)).(Expander); ok && d.Expand == nil {
		d.Expand = func(s *S, present func(string) bool) ([]runner.Run, error) {
			return any(s).(Expander).Plan(present)
		}
	}
	var src D
	if _, ok := any(src).(Available); ok && d.Present == nil {
		d.Present = func(src D, name string) bool { return any(src).(Available).Available(name) }
	}
	var c C
	if _, ok := any(c).(Coster); ok && d.Cost == nil {
		d.Cost = func(c C) float64 { return any(c).(Coster).Cost() }
	}
	if _, ok := any(c).(User); ok && d.Uses == nil {
		d.Uses = func(c C) []string { return any(c).(User).Uses() }
	}
}

// planOf returns a plan's spec and data source with their paper's types.
func planOf[S, D any](pl *Planned) (*S, D, error) {
	s, ok1 := pl.Spec.(*S)
	src, ok2 := pl.Data.(D)
	if !ok1 || !ok2 {
		var zero D
		return nil, zero, fmt.Errorf("a plan of spec %T and data %T, not this paper's", pl.Spec, pl.Data)
	}
	return s, src, nil
}

// configOf is a run's configuration as the paper's type: the value itself
// for a planned run, or decoded from the JSON it was stored as.
func configOf[C any](r runner.Run) (C, error) {
	if c, ok := r.Config.(C); ok {
		return c, nil
	}
	return ConfigOf[C](&runner.Result{Run: r})
}

// Loading is the Run of a paper whose runs read data: load finds the data
// a configuration names in the paper's data source (loaded once per
// process, as the source memoises it) and exec runs the configuration on
// them with the run's seed. A load error fails the run before it starts.
func Loading[D, C, X any](load func(d D, c C) (X, error), exec func(ctx context.Context, x X, c C, seed uint64) (*runner.Outcome, error)) func(context.Context, D, C, uint64) (*runner.Outcome, error) {
	return func(ctx context.Context, d D, c C, seed uint64) (*runner.Outcome, error) {
		x, err := load(d, c)
		if err != nil {
			return nil, err
		}
		return exec(ctx, x, c, seed)
	}
}

// describeField is the Info of a spec type S that lists its experiments in
// a slice field Experiments of structs with string fields Name and
// Description (as every paper's spec does): the experiments in spec
// order, named and described (Define counts their runs). It returns
// nil when S has no such field, and Define then refuses the definition.
func describeField[S any]() func(s *S) []Experiment {
	t := reflect.TypeFor[S]()
	if t.Kind() != reflect.Struct {
		return nil
	}
	f, ok := t.FieldByName("Experiments")
	if !ok || f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Struct {
		return nil
	}
	e := f.Type.Elem()
	for _, name := range []string{"Name", "Description"} {
		if g, ok := e.FieldByName(name); !ok || g.Type.Kind() != reflect.String {
			return nil
		}
	}
	return func(s *S) []Experiment {
		exps := reflect.ValueOf(s).Elem().FieldByIndex(f.Index)
		out := make([]Experiment, exps.Len())
		for i := range out {
			x := exps.Index(i)
			out[i] = Experiment{Name: x.FieldByName("Name").String(), Description: x.FieldByName("Description").String()}
		}
		return out
	}
}
