// Package upcycled regenerates the tables, figures, claims and privacy
// audit of Upcycled-FL (Yin et al., TMLR 2024): `make reproduce
// PAPER=upcycled`. Experiments are described by the YAML specs embedded from
// specs/<scale>.yaml; this package expands them into runs, executes one run
// (data, model, baseline, Upcycled schedule, privacy hook, evaluation), and
// writes reports/upcycled/.
package upcycled

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

//go:embed specs/*.yaml
var specFS embed.FS

// Spec is specs/<scale>.yaml.
type Spec struct {
	paper.SpecHeader `yaml:",inline"`
	GeneratorSeed    uint64       `yaml:"generator_seed"`
	Experiments      []Experiment `yaml:"experiments"`
	// Tuning holds the tuned (lr, c) per setting → method → dataset; a
	// method missing from a setting uses that setting's "default" entry.
	Tuning map[string]map[string]map[string]Tuned `yaml:"tuning"`
}

// Tuned is a learning rate and Upcycled coefficient c.
type Tuned struct {
	LR   float64 `yaml:"lr"`
	C    float64 `yaml:"c"`
	From string  `yaml:"from"` // provenance ("upstream client/avg.py comment", "assumed: FedAvg's")
}

// Experiment is one family of runs.
type Experiment struct {
	paper.ExperimentHeader `yaml:",inline"`
	Privacy                string   `yaml:"privacy"` // none | output | objective
	Setting                string   `yaml:"setting"` // tuning block: nonprivate | output | objective
	Datasets               []string `yaml:"datasets"`
	Sources                []string `yaml:"sources"` // released | generated | leaf
	Methods                []string `yaml:"methods"`
	Modes                  []string `yaml:"modes"` // paper | upstream

	Iterations         int     `yaml:"iterations"`          // baseline iterations T
	UpcycledIterations int     `yaml:"upcycled_iterations"` // 2T (non-private) or T (private)
	Frac               float64 `yaml:"frac"`
	Stragglers         float64 `yaml:"stragglers"`
	Epochs             int     `yaml:"epochs"`
	Batch              int     `yaml:"batch"`
	Momentum           float64 `yaml:"momentum"`
	Mu                 float64 `yaml:"mu"` // FedProx μ

	Tau   float64            `yaml:"tau"`   // output perturbation clip
	Sigma map[string]float64 `yaml:"sigma"` // per variant: baseline, upcycled
	Alpha map[string]float64 `yaml:"alpha"` // per variant
	// TargetEps, when set (output perturbation only), replaces Sigma: each
	// variant's noise is calibrated so that the mechanism as run is
	// (TargetEps, TargetDelta)-DP (equal ε for both arms; equaleps.go).
	TargetEps   float64 `yaml:"target_eps"`
	TargetDelta float64 `yaml:"target_delta"`
	// ModesBySource overrides Modes for a data source (e.g. the paper mode
	// of Tables 1 and 3 on the released data only).
	ModesBySource map[string][]string `yaml:"modes_by_source"`

	Model  string `yaml:"model"`  // logreg | mlp
	Hidden int    `yaml:"hidden"` // MLP hidden width (FEMNIST: 196)
	// EvalEvery evaluates every k-th iteration (and the last). Default:
	// every iteration for the runs whose loss curves a figure draws (an
	// experiment with a figure, its first data source), else only the
	// final model, which is all a table reads.
	EvalEvery int `yaml:"eval_every"`
	// Tune, when set, makes every run select its learning rate (and c)
	// by a grid search on a validation split first (tune.go); the
	// setting's tuned values are then not used.
	Tune *TuneConfig `yaml:"tune"`
}

// RunConfig is the full configuration of one run (stored in its result).
type RunConfig struct {
	Experiment    string    `json:"experiment"`
	Table         string    `json:"table,omitempty"`
	Figure        string    `json:"figure,omitempty"`
	Dataset       string    `json:"dataset"`
	Source        string    `json:"source"`
	Method        string    `json:"method"`
	Variant       string    `json:"variant"` // baseline | upcycled
	Mode          string    `json:"mode"`    // paper | upstream
	Privacy       string    `json:"privacy"`
	Iterations    int       `json:"iterations"`
	Coef          float64   `json:"coef"`
	LR            float64   `json:"lr"`
	TunedFrom     string    `json:"tuned_from"`
	Momentum      float64   `json:"momentum"`
	Epochs        int       `json:"epochs"`
	Batch         int       `json:"batch"`
	Frac          float64   `json:"frac"`
	Stragglers    float64   `json:"stragglers"`
	Tau           float64   `json:"tau,omitempty"`
	Sigma         float64   `json:"sigma,omitempty"`
	Alpha         float64   `json:"alpha,omitempty"`
	Params        fl.Params `json:"params"`
	Model         string    `json:"model"`
	Hidden        int       `json:"hidden,omitempty"`
	GeneratorSeed uint64    `json:"generator_seed"`
	EvalEvery     int       `json:"eval_every"`
	// Tune is the grid of a tuned run (nil: LR and Coef are fixed).
	Tune *TuneConfig `json:"tune,omitempty"`
	// BaselineIterations is the baseline's T of a tuned Upcycled run whose
	// grid shares its baseline's learning rate (TuneConfig.SharedLR).
	BaselineIterations int `json:"baseline_iterations,omitempty"`
	// TargetEps and TargetDelta record the (ε, δ) an equal-ε run's noise
	// was calibrated to (Sigma then holds the calibrated value).
	TargetEps   float64 `json:"target_eps,omitempty"`
	TargetDelta float64 `json:"target_delta,omitempty"`
	// SearchShare is the share of its cell's grid search a tuned run is
	// charged in Cost: 1/(reported seeds), since a process searches a cell
	// once for all its seeds (0 reads as 1). Planning only: not part of
	// the configuration (neither hashed nor stored).
	SearchShare float64 `json:"-" yaml:"-"`
}

var variants = []string{"baseline", "upcycled"}

// specs loads this paper's specs (embedded, or the user's --spec file).
var specs = paper.Specs[Spec]{FS: specFS, Dir: "reproduce/upcycled", Validate: (*Spec).validate}

var knownDatasets = map[string]bool{"syn_iid": true, "syn_0_0": true, "syn_0.5_0.5": true, "syn_1_1": true, "femnist": true}

func (s *Spec) validate() error {
	if err := s.Check("upcycled"); err != nil {
		return err
	}
	return paper.CheckExperiments(s.Experiments, func(e *Experiment) error { return e.validate(s) })
}

func (e *Experiment) validate(s *Spec) error {
	switch e.Privacy {
	case "none", "output", "objective":
	default:
		return fmt.Errorf("privacy %q (want none, output or objective)", e.Privacy)
	}
	if _, ok := s.Tuning[e.Setting]; !ok {
		return fmt.Errorf("no tuning block %q", e.Setting)
	}
	for _, d := range e.Datasets {
		if !knownDatasets[d] {
			return fmt.Errorf("unknown dataset %q", d)
		}
	}
	for _, src := range e.Sources {
		if src != "released" && src != "generated" && src != "leaf" {
			return fmt.Errorf("unknown data source %q", src)
		}
	}
	for _, m := range e.Methods {
		name, params := algorithmOf(m, fl.Params{Mu: math.Max(e.Mu, 1)}, "upstream")
		if _, err := fl.NewAlgorithm(name, params); err != nil {
			return fmt.Errorf("method %q: %w", m, err)
		}
	}
	for _, m := range e.Modes {
		if m != "paper" && m != "upstream" {
			return fmt.Errorf("unknown mode %q", m)
		}
	}
	switch {
	case e.Iterations < 1 || e.UpcycledIterations < 1:
		return fmt.Errorf("iterations %d/%d, want ≥ 1", e.Iterations, e.UpcycledIterations)
	case !(e.Frac > 0 && e.Frac <= 1):
		return fmt.Errorf("frac %g outside (0,1]", e.Frac)
	case e.Stragglers < 0 || e.Stragglers > 1:
		return fmt.Errorf("stragglers %g outside [0,1]", e.Stragglers)
	case e.Epochs < 1:
		return fmt.Errorf("epochs %d, want ≥ 1", e.Epochs)
	case e.Batch < 1:
		return fmt.Errorf("batch %d, want ≥ 1", e.Batch)
	case e.Momentum < 0 || e.Momentum >= 1:
		return fmt.Errorf("momentum %g outside [0,1)", e.Momentum)
	}
	for src, ms := range e.ModesBySource {
		if !containsStr(e.Sources, src) {
			return fmt.Errorf("modes_by_source: source %q not in sources", src)
		}
		for _, m := range ms {
			if !containsStr(e.Modes, m) {
				return fmt.Errorf("modes_by_source: mode %q of %s not in modes", m, src)
			}
		}
	}
	if e.TargetEps != 0 {
		if e.Privacy != "output" {
			return fmt.Errorf("target_eps needs output perturbation, not %q", e.Privacy)
		}
		if !(e.TargetEps > 0) || math.IsInf(e.TargetEps, 0) || !(e.TargetDelta > 0 && e.TargetDelta < 1) {
			return fmt.Errorf("target (ε, δ) = (%g, %g): want ε > 0 finite and δ in (0,1)", e.TargetEps, e.TargetDelta)
		}
		if !(e.Tau > 0) {
			return fmt.Errorf("target_eps needs tau > 0")
		}
	}
	for _, v := range variants {
		if e.Privacy == "output" && e.TargetEps == 0 && !(e.Sigma[v] >= 0 && e.Tau > 0) {
			return fmt.Errorf("output perturbation needs tau > 0 and sigma ≥ 0 for %s", v)
		}
		if e.Privacy == "objective" && !(e.Alpha[v] > 0) {
			return fmt.Errorf("objective perturbation needs alpha > 0 for %s", v)
		}
	}
	if e.Model != "logreg" && e.Model != "mlp" {
		return fmt.Errorf("model %q (want logreg or mlp)", e.Model)
	}
	if e.EvalEvery < 0 {
		return fmt.Errorf("eval_every %d, want ≥ 0", e.EvalEvery)
	}
	if e.Tune != nil {
		if err := e.Tune.validate(); err != nil {
			return err
		}
		if len(e.Tune.Cs) == 0 {
			return errors.New("tune: no coefficients cs for the Upcycled runs")
		}
	}
	return nil
}

// feddynAcar is the spec's name for FedDyn in Acar et al.'s form (fl's
// feddyn with DynMode paper); "feddyn" is the released code's form.
const feddynAcar = "feddyn_acar"

// algorithmOf maps a spec method to the fl baseline name and its
// parameters for a run mode: feddyn_acar is fl's feddyn in paper mode, and
// upstream-mode pFedMe releases (perturbs) its personalised model too.
func algorithmOf(method string, p fl.Params, mode string) (string, fl.Params) {
	switch method {
	case feddynAcar:
		p.DynMode = fl.DynPaper
		return "feddyn", p
	case "pfedme":
		p.PFedMeReleasePersonal = mode == "upstream"
	}
	return method, p
}

// tuningFallback is the method whose tuned values a method without its own
// entry takes before the setting's default (Acar-form FedDyn runs at the
// released FedDyn's values).
var tuningFallback = map[string]string{feddynAcar: "feddyn"}

// tuned returns (lr, c) for a setting, method and dataset.
func (s *Spec) tuned(setting, method, dataset string) (Tuned, error) {
	block := s.Tuning[setting]
	cands := []string{method}
	if f, ok := tuningFallback[method]; ok {
		cands = append(cands, f)
	}
	for _, m := range append(cands, "default") {
		if byDS, ok := block[m]; ok {
			if t, ok := byDS[dataset]; ok {
				if t.From == "" && m == "default" {
					t.From = "default entry"
				}
				return t, nil
			}
		}
	}
	return Tuned{}, fmt.Errorf("no tuned (lr, c) for %s/%s/%s", setting, method, dataset)
}

// Plan expands the spec into runs; available says which (source, dataset)
// pairs can be loaded (others are skipped and reported as not run). A
// tuned experiment's runs come seed by seed (every cell's first seed, then
// every cell's second, …), so that parallel workers start on different
// cells' grid searches instead of waiting for the same one.
func (s *Spec) Plan(available func(source, dataset string) bool) ([]runner.Run, error) {
	var runs []runner.Run
	for _, e := range s.Experiments {
		seeds := s.SeedsOf(&e.ExperimentHeader)
		var exp []runner.Run
		for si, src := range e.Sources {
			modes := e.Modes
			if ms, ok := e.ModesBySource[src]; ok {
				modes = ms
			}
			for _, ds := range e.Datasets {
				if !available(src, ds) {
					continue
				}
				for _, m := range e.Methods {
					t := Tuned{From: "grid search on a validation split"}
					if e.Tune == nil {
						var err error
						if t, err = s.tuned(e.Setting, m, ds); err != nil {
							return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
						}
					}
					for _, mode := range modes {
						for _, v := range variants {
							cfg := RunConfig{
								Experiment: e.Name, Table: e.Table, Figure: e.Figure,
								Dataset: ds, Source: src, Method: m, Variant: v, Mode: mode, Privacy: e.Privacy,
								Iterations: e.Iterations, LR: t.LR, TunedFrom: t.From,
								Momentum: e.Momentum, Epochs: e.Epochs, Batch: e.Batch, Frac: e.Frac, Stragglers: e.Stragglers,
								Model: e.Model, Hidden: e.Hidden,
								GeneratorSeed: s.GeneratorSeed, Tune: e.Tune,
							}
							mu := 0.0
							if m == "fedprox" {
								mu = e.Mu
							}
							_, cfg.Params = algorithmOf(m, fl.Params{Mu: mu}.WithDefaults(), mode)
							if v == "upcycled" {
								cfg.Iterations, cfg.Coef = e.UpcycledIterations, t.C
								if e.Tune != nil && e.Tune.SharedLR {
									cfg.BaselineIterations = e.Iterations
								}
							}
							if e.Tune != nil {
								cfg.SearchShare = 1 / float64(len(seeds))
							}
							cfg.EvalEvery = e.EvalEvery
							if cfg.EvalEvery == 0 {
								cfg.EvalEvery = cfg.Iterations // final model only
								if e.Figure != "" && si == 0 {
									cfg.EvalEvery = 1 // a figure draws this run's curve
								}
							}
							switch e.Privacy {
							case "output":
								cfg.Tau, cfg.Sigma = e.Tau, e.Sigma[v]
								if e.TargetEps > 0 {
									c, err := CalibrateEqualEps(e.TargetEps, e.TargetDelta, e.Tau, cfg.Iterations, v == "upcycled", mode)
									if err != nil {
										return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
									}
									cfg.Sigma, cfg.TargetEps, cfg.TargetDelta = c.Sigma, e.TargetEps, e.TargetDelta
								}
							case "objective":
								cfg.Alpha = e.Alpha[v]
							}
							for _, seed := range seeds {
								exp = append(exp, runner.Run{
									Paper: "upcycled", Scale: s.Scale, Experiment: e.Name,
									Cell: fmt.Sprintf("%s/%s/%s/%s/%s", src, ds, m, v, mode), Seed: seed, Config: cfg,
								})
							}
						}
					}
				}
			}
		}
		if e.Tune != nil {
			rank := map[uint64]int{}
			for i, sd := range seeds {
				rank[sd] = i
			}
			sort.SliceStable(exp, func(i, j int) bool { return rank[exp[i].Seed] < rank[exp[j].Seed] })
		}
		runs = append(runs, exp...)
	}
	return runs, nil
}
