package paper

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// LoadSpec reads a paper's spec for o.Scale: the user's file when
// o.SpecFile is set, else specs/<scale>.yaml from fsys (the paper package's
// embedded specs; dir names it in errors, e.g. "reproduce/haar"). The YAML
// is decoded strictly, then validated, and its scale must equal o.Scale
// because results are stored per scale.
func LoadSpec[S any](fsys fs.FS, dir string, o Options, validate func(*S) error, scaleOf func(*S) string) (*S, error) {
	name, b, err := specBytes(fsys, dir, o)
	if err != nil {
		return nil, err
	}
	return DecodeSpec(name, b, o.Scale, validate, scaleOf)
}

// DecodeSpec is LoadSpec's decoding step for bytes already read (name is
// used in errors).
func DecodeSpec[S any](name string, b []byte, scale string, validate func(*S) error, scaleOf func(*S) string) (*S, error) {
	s := new(S)
	if err := runner.DecodeStrict(name, b, s); err != nil {
		return nil, err
	}
	if err := runner.CheckLimits(name, b); err != nil {
		return nil, err
	}
	if err := validate(s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if got := scaleOf(s); got != scale {
		return nil, fmt.Errorf("%s: scale %q, but --scale is %q (results are stored per scale)", name, got, scale)
	}
	return s, nil
}

func specBytes(fsys fs.FS, dir string, o Options) (string, []byte, error) {
	if o.SpecFile != "" {
		b, err := os.ReadFile(o.SpecFile)
		return o.SpecFile, b, err
	}
	name := "specs/" + o.Scale + ".yaml"
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", nil, fmt.Errorf("%s: no spec for scale %q", dir, o.Scale)
	}
	return dir + "/" + name, b, nil
}

// ConfigOf returns a result's configuration as the paper's config type:
// the value itself for a result made in this process, or decoded from the
// JSON it was stored as.
func ConfigOf[C any](r *runner.Result) (C, error) {
	if c, ok := r.Config.(C); ok {
		return c, nil
	}
	var c C
	b, err := json.Marshal(r.Config)
	if err != nil {
		return c, fmt.Errorf("result %s: %w", r.ID(), err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("result %s: %w", r.ID(), err)
	}
	return c, nil
}

// CountRuns fills each experiment's Runs with the number of runs planned
// for it (for `fedrepro list`).
func CountRuns(exps []Experiment, runs []runner.Run) []Experiment {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Experiment]++
	}
	out := make([]Experiment, len(exps))
	for i, e := range exps {
		e.Runs = count[e.Name]
		out[i] = e
	}
	return out
}

// SpecHeader opens every paper's spec (embedded inline in its Spec type):
// whose spec it is, its scale (results are stored per scale, so it must be
// the scale asked for), what it is for, and the seeds every configuration
// runs with.
type SpecHeader struct {
	Paper       string   `yaml:"paper"`
	Scale       string   `yaml:"scale"`
	Description string   `yaml:"description"`
	Seeds       []uint64 `yaml:"seeds"`
}

// Check is the header's own validation, the first thing every paper's
// spec validation checks: the spec is the named paper's (a spec of another
// paper would plan runs under the wrong results folder) and names at least
// one seed (with none, every configuration plans no run and the report has
// nothing to average).
func (h *SpecHeader) Check(paper string) error {
	if h.Paper != paper {
		return fmt.Errorf("paper %q, want %s", h.Paper, paper)
	}
	if len(h.Seeds) == 0 {
		return fmt.Errorf("no seeds")
	}
	return nil
}

// ExperimentHeader opens every experiment of every paper's spec (embedded
// inline in its Experiment type): its name (unique in the spec: results are
// stored and grouped under it), what it is for, the paper's table or figure
// it reproduces (empty: none), and the seeds that replace the spec's for its
// runs (empty: the spec's).
type ExperimentHeader struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Table       string   `yaml:"table"`
	Figure      string   `yaml:"figure"`
	Seeds       []uint64 `yaml:"seeds"`
}

// Header returns the experiment's header (CheckExperiments reads it
// through the paper's Experiment type, which embeds it).
func (e *ExperimentHeader) Header() *ExperimentHeader { return e }

// SeedsOf returns the seeds an experiment runs with: its own when it names
// any, else the spec's.
func (h *SpecHeader) SeedsOf(e *ExperimentHeader) []uint64 {
	if len(e.Seeds) > 0 {
		return e.Seeds
	}
	return h.Seeds
}

// CheckExperiments is the experiment half of every paper's spec
// validation, in spec order: no two experiments share a name (their
// results would mix), and each passes the paper's own check, whose error
// is prefixed with the experiment's name.
func CheckExperiments[E any, P interface {
	*E
	Header() *ExperimentHeader
}](exps []E, check func(P) error) error {
	names := map[string]bool{}
	for i := range exps {
		e := P(&exps[i])
		name := e.Header().Name
		if names[name] {
			return fmt.Errorf("experiment %q defined twice", name)
		}
		names[name] = true
		if err := check(e); err != nil {
			return fmt.Errorf("experiment %s: %w", name, err)
		}
	}
	return nil
}

// SpecScale returns the spec's scale (Specs uses it when a paper gives no
// ScaleOf).
func (h *SpecHeader) SpecScale() string { return h.Scale }

// scaleOf is ScaleOf, or the spec's SpecHeader.
func scaleOf[S any](f func(*S) string) func(*S) string {
	if f != nil {
		return f
	}
	return func(s *S) string {
		if h, ok := any(s).(interface{ SpecScale() string }); ok {
			return h.SpecScale()
		}
		return ""
	}
}

// Specs is one paper's source of specs: its embedded specs/<scale>.yaml
// (FS, named Dir in errors, e.g. "reproduce/haar"), or the user's --spec
// file, decoded strictly, validated, and checked to be of the asked scale.
// A paper declares one value and calls For, Load and Decode on it.
type Specs[S any] struct {
	FS       fs.FS
	Dir      string
	Validate func(*S) error
	// ScaleOf returns a spec's scale (nil: the spec's SpecHeader).
	ScaleOf func(*S) string
}

// Source returns the name and bytes of the spec o selects (for provenance).
func (l Specs[S]) Source(o Options) (string, []byte, error) { return specBytes(l.FS, l.Dir, o) }

// For returns the spec of o.Scale (o.SpecFile when set).
func (l Specs[S]) For(o Options) (*S, error) {
	return LoadSpec(l.FS, l.Dir, o, l.Validate, scaleOf(l.ScaleOf))
}

// Load returns the embedded spec of a scale.
func (l Specs[S]) Load(scale string) (*S, error) { return l.For(Options{Scale: scale}) }

// Decode decodes and validates spec bytes (tests feed it edited specs).
func (l Specs[S]) Decode(name string, b []byte, scale string) (*S, error) {
	return DecodeSpec(name, b, scale, l.Validate, scaleOf(l.ScaleOf))
}
