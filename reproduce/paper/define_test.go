package paper

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

type defSpec struct {
	SpecHeader `yaml:",inline"`
	Steps      []int    `yaml:"steps"`
	Missing    []string `yaml:"missing"`
}

type defConfig struct {
	Steps int `json:"steps"`
}

// defSource is a data source: it says which steps have "data".
type defSource struct{ absent map[int]bool }

// defPaper is a typed definition counting its spec decodes, and checking
// that execution and report see the plan's own spec and data source.
func defPaper(t *testing.T, decodes *atomic.Int64) *Paper {
	fsys := fstest.MapFS{"specs/smoke.yaml": {Data: []byte("paper: def\nscale: smoke\nseeds: [1, 2]\nsteps: [3, 5, 7]\nmissing: [\"7\"]\n")}}
	var planned *defSpec
	var src *defSource
	return Define(Definition[defSpec, defConfig, *defSource]{
		Name: "def", Title: "typed definition",
		Specs: Specs[defSpec]{FS: fsys, Dir: "reproduce/def", Validate: func(*defSpec) error { decodes.Add(1); return nil }},
		Data: func(_ Options, s *defSpec) *defSource {
			d := &defSource{absent: map[int]bool{}}
			for _, m := range s.Missing {
				var k int
				fmt.Sscan(m, &k)
				d.absent[k] = true
			}
			planned, src = s, d
			return d
		},
		Plan: func(s *defSpec, d *defSource) ([]runner.Run, error) {
			var runs []runner.Run
			for _, k := range s.Steps {
				for _, seed := range s.Seeds {
					if !d.absent[k] {
						runs = append(runs, runner.Run{Paper: "def", Scale: s.Scale, Experiment: "walk", Cell: fmt.Sprintf("steps=%d", k), Seed: seed, Config: defConfig{k}})
					}
				}
			}
			return runs, nil
		},
		NotRun: func(s *defSpec, d *defSource) []string {
			var out []string
			for k := range d.absent {
				out = append(out, fmt.Sprintf("not run: steps=%d (no data)", k))
			}
			return out
		},
		Notes: func(o Options, _ *defSpec, _ *defSource) []string {
			return []string{fmt.Sprintf("asked for scale %s", o.Scale)}
		},
		All:  func(s *defSpec) ([]runner.Run, error) { return nil, nil },
		Info: func(s *defSpec) []Experiment { return []Experiment{{Name: "walk"}} },
		Run: func(_ context.Context, d *defSource, c defConfig, seed uint64) (*runner.Outcome, error) {
			if d != src {
				t.Error("a run got another data source than the plan's")
			}
			return &runner.Outcome{Final: runner.Metrics{"x": float64(c.Steps * int(seed))}}, nil
		},
		Report: func(o Options, s *defSpec, d *defSource, results []*runner.Result) error {
			if s != planned || d != src {
				t.Error("the report got another spec or data source than the plan's")
			}
			return runner.WriteFileAtomic(filepath.Join(ReportDir(o, "def"), "README.md"), []byte(fmt.Sprintf("%d results\n", len(results))))
		},
		Cost:       func(c defConfig) float64 { return float64(c.Steps) },
		CostRate:   1,
		Components: func() []string { return []string{"walk"} },
		Uses:       func(c defConfig) []string { return []string{fmt.Sprintf("steps:%d", c.Steps)} },
	})
}

// A command decodes the spec once, says the plan's notes once (prefixed
// with the paper's name), and hands the plan's spec and data source to
// execution and report; the derived parts fill the scale defaults and
// read a stored result's configuration as the typed one.
func TestDefineOnePlanPerCommand(t *testing.T) {
	var decodes atomic.Int64
	p := defPaper(t, &decodes)
	if p.DefaultScale != "default" || len(p.Scales) != 3 {
		t.Fatalf("scales %v, default %q", p.Scales, p.DefaultScale)
	}
	var log bytes.Buffer
	o := Options{Scale: "smoke", ResultsDir: t.TempDir(), ReportsDir: t.TempDir(), Log: &log}
	sum, err := p.Reproduce(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if n := decodes.Load(); n != 1 {
		t.Errorf("reproduce decoded the spec %d times, want once", n)
	}
	if sum.Ran != 4 {
		t.Errorf("ran %d runs, want 4 (steps 7 has no data)", sum.Ran)
	}
	if c := strings.Count(log.String(), "def: not run: steps=7 (no data)\ndef: asked for scale smoke\n"); c != 1 {
		t.Errorf("the notes (NotRun's, then Notes') were said %d times, want once:\n%s", c, log.String())
	}
	b, err := os.ReadFile(filepath.Join(o.ReportsDir, "def", "README.md"))
	if err != nil || string(b) != "4 results\n" {
		t.Fatalf("report: %q, %v", b, err)
	}
	decodes.Store(0)
	if _, err := p.Merge(o); err != nil {
		t.Fatal(err)
	}
	if n := decodes.Load(); n != 1 {
		t.Errorf("merge decoded the spec %d times, want once", n)
	}
	checkStoredConfig(t, p, 5)
	if got := p.Uses(runner.Run{Config: "not a config"}); len(got) != 1 || !strings.HasPrefix(got[0], "config:") {
		t.Errorf("uses of a foreign configuration: %v", got)
	}
}

// checkStoredConfig checks the cost and components p derives for a
// stored configuration (decoded from JSON) of 5 steps: wantCost and
// "steps:5".
func checkStoredConfig(t *testing.T, p *Paper, wantCost float64) {
	t.Helper()
	stored := runner.Run{Paper: p.Name, Config: map[string]any{"steps": 5.0}}
	if got := p.Cost(stored); got != wantCost {
		t.Errorf("cost of a stored configuration: %g, want %g", got, wantCost)
	}
	if got := p.Uses(stored); len(got) != 1 || got[0] != "steps:5" {
		t.Errorf("uses of a stored configuration: %v, want [steps:5]", got)
	}
}

// plannedCells plans p with o and returns the planned runs' cells, space
// separated; a plan error fails the test.
func plannedCells(t *testing.T, p *Paper, o Options) string {
	t.Helper()
	pl, err := p.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, r := range pl.Runs {
		cells = append(cells, r.Cell)
	}
	return strings.Join(cells, " ")
}

// TestDefineExpandPresent checks the Plan and All that Define derives from
// Expand and Present: Plan keeps the names the data source has (step 5 is
// absent), All keeps every name (what `fedrepro list` counts); and that a
// definition with no way to plan is refused at registration, not at the
// first command.
func TestDefineExpandPresent(t *testing.T) {
	fsys := fstest.MapFS{"specs/smoke.yaml": {Data: []byte("paper: exp\nscale: smoke\nseeds: [1]\nsteps: [3, 5, 7]\n")}}
	def := Definition[defSpec, defConfig, *defSource]{
		Name:  "exp",
		Specs: Specs[defSpec]{FS: fsys, Dir: "reproduce/exp", Validate: func(*defSpec) error { return nil }},
		Data:  func(Options, *defSpec) *defSource { return &defSource{absent: map[int]bool{5: true}} },
		Expand: func(s *defSpec, present func(string) bool) ([]runner.Run, error) {
			var runs []runner.Run
			for _, k := range s.Steps {
				if present(fmt.Sprint(k)) {
					runs = append(runs, runner.Run{Paper: "exp", Experiment: "walk", Cell: fmt.Sprintf("steps=%d", k), Seed: 1, Config: defConfig{k}})
				}
			}
			return runs, nil
		},
		Present: func(d *defSource, name string) bool {
			var k int
			fmt.Sscan(name, &k)
			return !d.absent[k]
		},
		Info:   func(*defSpec) []Experiment { return []Experiment{{Name: "walk"}} },
		Run:    func(context.Context, *defSource, defConfig, uint64) (*runner.Outcome, error) { return nil, nil },
		Report: func(Options, *defSpec, *defSource, []*runner.Result) error { return nil },
	}
	p := Define(def)
	if got := plannedCells(t, p, Options{Scale: "smoke"}); got != "steps=3 steps=7" {
		t.Errorf("planned %q, want the present steps 3 and 7", got)
	}
	exps, err := p.Describe("smoke")
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 1 || exps[0].Runs != 3 {
		t.Errorf("described %+v, want walk with all 3 runs", exps)
	}
	def.Expand, def.Present = nil, nil
	defer func() {
		if recover() == nil {
			t.Error("a Definition without Plan/All or Expand/Present was accepted")
		}
	}()
	Define(def)
}

// infoSpec lists its experiments as every paper's spec does, so Define
// derives Info from the field; badInfoSpec's experiments have no
// Description, so a definition of it without Info is refused.
type infoSpec struct {
	SpecHeader  `yaml:",inline"`
	Experiments []struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Steps       []int  `yaml:"steps"`
	} `yaml:"experiments"`
}

type badInfoSpec struct {
	SpecHeader  `yaml:",inline"`
	Experiments []struct {
		Name string `yaml:"name"`
	} `yaml:"experiments"`
}

// TestDefineDerivedInfo checks the Info Define reads from a spec's
// Experiments field: every experiment in spec order, with its name,
// description and planned run count; and that a spec without a described
// Experiments field and no Info is refused at registration.
func TestDefineDerivedInfo(t *testing.T) {
	fsys := fstest.MapFS{"specs/smoke.yaml": {Data: []byte("paper: inf\nscale: smoke\nseeds: [1]\nexperiments:\n" +
		"  - {name: b, description: second listed first, steps: [1, 2]}\n  - {name: a, description: the other, steps: [3]}\n")}}
	p := Define(Definition[infoSpec, defConfig, *defSource]{
		Name:  "inf",
		Specs: Specs[infoSpec]{FS: fsys, Dir: "reproduce/inf", Validate: func(*infoSpec) error { return nil }},
		Data:  func(Options, *infoSpec) *defSource { return &defSource{} },
		Expand: func(s *infoSpec, present func(string) bool) ([]runner.Run, error) {
			var runs []runner.Run
			for _, e := range s.Experiments {
				for _, k := range e.Steps {
					runs = append(runs, runner.Run{Paper: "inf", Experiment: e.Name, Cell: fmt.Sprint(k), Seed: 1, Config: defConfig{k}})
				}
			}
			return runs, nil
		},
		Present: func(*defSource, string) bool { return true },
		Run:     func(context.Context, *defSource, defConfig, uint64) (*runner.Outcome, error) { return nil, nil },
		Report:  func(Options, *infoSpec, *defSource, []*runner.Result) error { return nil },
	})
	exps, err := p.Describe("smoke")
	if err != nil {
		t.Fatal(err)
	}
	want := []Experiment{{"b", "second listed first", 2}, {"a", "the other", 1}}
	if fmt.Sprint(exps) != fmt.Sprint(want) {
		t.Errorf("described %+v, want %+v", exps, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a spec whose experiments have no Description was accepted without Info")
		}
	}()
	Define(Definition[badInfoSpec, defConfig, *defSource]{
		Name:     "bad",
		Data:     func(Options, *badInfoSpec) *defSource { return &defSource{} },
		Plan:     func(*badInfoSpec, *defSource) ([]runner.Run, error) { return nil, nil },
		All:      func(*badInfoSpec) ([]runner.Run, error) { return nil, nil },
		Run:      func(context.Context, *defSource, defConfig, uint64) (*runner.Outcome, error) { return nil, nil },
		Report:   func(Options, *badInfoSpec, *defSource, []*runner.Result) error { return nil },
		Specs:    Specs[badInfoSpec]{Validate: func(*badInfoSpec) error { return nil }},
		Scales:   []string{"smoke"},
		NotRun:   func(*badInfoSpec, *defSource) []string { return nil },
		CostRate: 1,
	})
}

// TestLoading checks the Run that Loading builds: the executor gets what
// the loader found for the configuration, with the run's seed, and a
// loader error fails the run without executing it.
func TestLoading(t *testing.T) {
	var executed int
	run := Loading(func(d *defSource, c defConfig) (int, error) {
		if d.absent[c.Steps] {
			return 0, fmt.Errorf("steps=%d: no data", c.Steps)
		}
		return 10 * c.Steps, nil
	}, func(_ context.Context, x int, c defConfig, seed uint64) (*runner.Outcome, error) {
		executed++
		return &runner.Outcome{Final: runner.Metrics{"x": float64(x), "seed": float64(seed)}}, nil
	})
	src := &defSource{absent: map[int]bool{5: true}}
	for _, tc := range []struct {
		steps   int
		wantX   float64
		wantErr bool
	}{{3, 30, false}, {5, 0, true}, {7, 70, false}} {
		executed = 0
		out, err := run(context.Background(), src, defConfig{tc.steps}, 9)
		switch {
		case tc.wantErr && (err == nil || executed != 0):
			t.Errorf("steps=%d: err %v after %d executions, want the load error and none", tc.steps, err, executed)
		case !tc.wantErr && (err != nil || out.Final["x"] != tc.wantX || out.Final["seed"] != 9):
			t.Errorf("steps=%d: %+v, %v; want x=%g with seed 9", tc.steps, out, err, tc.wantX)
		}
	}
}

// methodSpec, methodSource and methodConfig carry the methods Define
// wires by default (Expander, Available, Coster, User).
type methodSpec struct {
	SpecHeader `yaml:",inline"`
	Steps      []int `yaml:"steps"`
}

func (s *methodSpec) Plan(present func(string) bool) ([]runner.Run, error) {
	var runs []runner.Run
	for _, k := range s.Steps {
		if present(fmt.Sprint(k)) {
			runs = append(runs, runner.Run{Paper: "met", Experiment: "walk", Cell: fmt.Sprintf("steps=%d", k), Seed: 1, Config: methodConfig{k}})
		}
	}
	return runs, nil
}

type methodSource struct{ dir string }

func (d *methodSource) Available(name string) bool { return name != "5" }

type methodConfig struct {
	Steps int `json:"steps"`
}

func (c methodConfig) Cost() float64  { return float64(10 * c.Steps) }
func (c methodConfig) Uses() []string { return []string{fmt.Sprintf("steps:%d", c.Steps)} }

// TestDefineMethodDefaults checks the parts Define takes from the types'
// methods when a definition leaves them nil: planning is the spec's Plan
// over the source's Available, the source is DataAt(--data-dir), and a
// stored configuration's cost and components are its Cost and Uses; a
// field the definition sets wins over the method.
func TestDefineMethodDefaults(t *testing.T) {
	fsys := fstest.MapFS{"specs/smoke.yaml": {Data: []byte("paper: met\nscale: smoke\nseeds: [1]\nsteps: [3, 5, 7]\n")}}
	var dirs []string
	def := Definition[methodSpec, methodConfig, *methodSource]{
		Name:   "met",
		Specs:  Specs[methodSpec]{FS: fsys, Dir: "reproduce/met", Validate: func(*methodSpec) error { return nil }},
		DataAt: func(dir string) *methodSource { dirs = append(dirs, dir); return &methodSource{dir} },
		Info:   func(*methodSpec) []Experiment { return []Experiment{{Name: "walk"}} },
		Run:    func(context.Context, *methodSource, methodConfig, uint64) (*runner.Outcome, error) { return nil, nil },
		Report: func(Options, *methodSpec, *methodSource, []*runner.Result) error { return nil },
	}
	p := Define(def)
	if got := plannedCells(t, p, Options{Scale: "smoke", DataDir: "/data"}); got != "steps=3 steps=7" {
		t.Errorf("planned %q, want the available steps 3 and 7", got)
	}
	if len(dirs) != 1 || dirs[0] != "/data" {
		t.Errorf("DataAt called with %q, want once with --data-dir", dirs)
	}
	checkStoredConfig(t, p, 50)
	def.Cost = func(methodConfig) float64 { return 1 }
	if got := Define(def).Cost(runner.Run{Config: map[string]any{"steps": 5.0}}); got != 1 {
		t.Errorf("cost %g with Cost set, want the definition's 1", got)
	}
}

// TestDefineRegistersAudits: a definition's audits are registered under
// its name in the order given, its claim-file audit last (the order
// `fedrepro audit` and audits.json list them).
func TestDefineRegistersAudits(t *testing.T) {
	fsys := fstest.MapFS{"specs/smoke.yaml": {Data: []byte("paper: aud\nscale: smoke\nseeds: [1]\nsteps: [3]\n")}}
	run := func(audit.Options) (audit.Table, error) { return audit.Table{}, nil }
	Define(Definition[methodSpec, methodConfig, *methodSource]{
		Name:        "define-audits-test",
		Specs:       Specs[methodSpec]{FS: fsys, Dir: "reproduce/aud", Validate: func(*methodSpec) error { return nil }},
		DataAt:      func(dir string) *methodSource { return &methodSource{dir} },
		Info:        func(*methodSpec) []Experiment { return []Experiment{{Name: "walk"}} },
		Run:         func(context.Context, *methodSource, methodConfig, uint64) (*runner.Outcome, error) { return nil, nil },
		Report:      func(Options, *methodSpec, *methodSource, []*runner.Result) error { return nil },
		Audits:      []audit.Entry{{ID: "b", Title: "B", Run: run}, {ID: "a", Title: "A", Run: run}},
		ClaimsAudit: "the claim files",
	})
	var got []string
	for _, e := range audit.Entries("define-audits-test") {
		got = append(got, e.ID+"="+e.Title)
	}
	if want := "b=B a=A claims=the claim files"; strings.Join(got, " ") != want {
		t.Errorf("registered %q, want %q", strings.Join(got, " "), want)
	}
}
