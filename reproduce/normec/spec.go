package normec

// This file is the experiment side of the package: `fedrepro reproduce
// --paper normec` runs the Fashion-MNIST analogue of the paper's Figs 1–4
// (CIFAR-10 too when the user supplies it). Experiments are described by
// the YAML specs embedded from specs/<scale>.yaml (decoded strictly), or a
// user's file given with --spec; Plan expands them into one run per
// (dataset, model, split, method, noise, p, β, γ, seed).

import (
	"embed"
	"fmt"
	"math"
	"strconv"
	"strings"

	alg "github.com/fedrepro/fedrepro/algorithms/normec"

	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

//go:embed specs/*.yaml
var specFS embed.FS

// Spec is specs/<scale>.yaml.
type Spec struct {
	paper.SpecHeader `yaml:",inline"`
	// Privacy is the (ε, δ) the paper targets; the noise formulas and the
	// calibration use it.
	Privacy Privacy `yaml:"privacy"`
	// Training holds what every run shares.
	Training Training `yaml:"training"`
	// Data holds the per-dataset preprocessing, by dataset name
	// (fashion-mnist, cifar10).
	Data map[string]DataConf `yaml:"data"`
	// Experiments are the sweeps; two experiments may not plan the same
	// configuration.
	Experiments []Experiment `yaml:"experiments"`
	// Notes are the scale's deliberate reductions, printed in the report.
	Notes []string `yaml:"notes"`
}

// Privacy is the paper's target (ε, δ).
type Privacy struct {
	Epsilon float64 `yaml:"epsilon" json:"epsilon"`
	Delta   float64 `yaml:"delta" json:"delta"`
}

// Training is the protocol every run shares (Section 6 / Appendix A).
type Training struct {
	// Rounds is the number of communication rounds (the paper: 300); the
	// noise formula's K and the accountant's compositions.
	Rounds int `yaml:"rounds" json:"rounds"`
	// Clients is M (the paper: 20).
	Clients int `yaml:"clients" json:"clients"`
	// Batch is the local minibatch size (the paper: 32).
	Batch int `yaml:"batch" json:"batch"`
	// LocalSteps is the number of local steps T of the client operator,
	// each on a fresh minibatch (1: T_i(x) = x − γ·∇f_i(x; batch), the
	// paper's FedAvg baseline operator and our reading of its experiments).
	LocalSteps int `yaml:"local_steps" json:"local_steps"`
	// Alpha is the smoothing α of Norm_α (the paper: 0.01).
	Alpha float64 `yaml:"alpha" json:"alpha"`
	// Memory is "all" (Algorithm 1: every client updates v_i every round)
	// or "participants".
	Memory string `yaml:"memory" json:"memory"`
	// ShardsPerClient is the label-skew split's shards per client
	// (2: every client holds at most two labels).
	ShardsPerClient int `yaml:"shards_per_client" json:"shards_per_client"`
	// EvalEvery evaluates the global model every k rounds (and at 0 and
	// the last round).
	EvalEvery int `yaml:"eval_every" json:"eval_every"`
}

// DataConf is one dataset's preprocessing.
type DataConf struct {
	// Pool is the number of 2×2 average-pooling steps applied to the
	// images (0: 28×28; 1: 14×14; CIFAR-10 32×32×3 → 16×16×3).
	Pool int `yaml:"pool" json:"pool"`
	// PerClient caps each client's training examples (0: all its share
	// of the training set, 3000 for Fashion-MNIST with 20 clients).
	PerClient int `yaml:"per_client" json:"per_client"`
	// Test is the number of test examples evaluated (a fixed subset;
	// 0: the whole test set).
	Test int `yaml:"test" json:"test"`
	// TrainEval is the number of the run's training examples on which the
	// training loss is evaluated (a per-seed subset; 0: all).
	TrainEval int `yaml:"train_eval" json:"train_eval"`
}

// Experiment is one sweep: the cartesian product of its lists.
type Experiment struct {
	paper.ExperimentHeader `yaml:",inline"`
	// Method is "normec" (Fed-α-NormEC, Algorithm 1 with the plain server
	// step of Appendix A) or "fedavg" (the Appendix A.1 baseline).
	Method   string   `yaml:"method"`
	Datasets []string `yaml:"datasets"`
	// Models: logreg (multinomial logistic regression) or mlp (one hidden
	// ReLU layer of Hidden units).
	Models []string `yaml:"models"`
	Hidden int      `yaml:"hidden"`
	// Splits: iid (the paper's) or label-skew (label shards).
	Splits []string `yaml:"splits"`
	// Noises: none, formula (p·β·√(K ln(1/δ))/ε, the paper's), calibrated
	// (σ for a true (ε, δ) under Poisson amplification, RDP),
	// calibrated-visible (σ for a true (ε, δ) against a server that sees
	// who transmitted).
	Noises []string  `yaml:"noises"`
	Ps     []float64 `yaml:"ps"`
	Betas  []float64 `yaml:"betas"`
	Gammas []float64 `yaml:"gammas"`
	// Gate marks the experiment's runs as gated: their final accuracy and
	// training loss are also recorded as gate_acc and gate_train_loss,
	// the metrics the golden gate compares (use ≥ 4 seeds).
	Gate bool `yaml:"gate"`
	// Memory and LocalSteps, when set, replace training.memory and
	// training.local_steps for this experiment's runs (a variant of the
	// protocol; its cells are labelled by Variant).
	Memory     string `yaml:"memory"`
	LocalSteps int    `yaml:"local_steps"`
}

// RunConfig is the full configuration of one run (stored in its result;
// its hash decides whether a stored result is reused).
type RunConfig struct {
	Experiment string   `json:"experiment"`
	Dataset    string   `json:"dataset"`
	Data       DataConf `json:"data"`
	Model      string   `json:"model"`
	Hidden     int      `json:"hidden,omitempty"`
	Split      string   `json:"split"`
	Training   Training `json:"training"`
	Method     string   `json:"method"`
	Noise      string   `json:"noise"`
	// Sigma is the per-coordinate noise std added to every transmitted
	// normalized message (norm ≤ 1).
	Sigma float64 `json:"sigma"`
	// P, Beta, Gamma: participation probability, EF step β (FedAvg: the
	// message scale), step size γ. The server step is η = γ for both
	// methods (x − γ·v̂ for Fed-α-NormEC; FedAvg's eq. (2) with η = γ).
	P       float64 `json:"p"`
	Beta    float64 `json:"beta"`
	Gamma   float64 `json:"gamma"`
	Privacy Privacy `json:"privacy"`
	Gate    bool    `json:"gate,omitempty"`
}

// Known names: the registry of the reproduction's code paths, read by
// validation, execution and the coverage list (components).
var (
	knownDatasets = []string{"fashion-mnist", "cifar10"}
	knownModels   = []string{"logreg", "mlp"}
	knownSplits   = []string{"iid", "label-skew"}
	knownNoises   = []string{"none", "formula", "calibrated", "calibrated-visible"}
	knownMethods  = []string{"normec", "fedavg"}
	// memoryModes are Fed-α-NormEC's memory updates, named by their
	// String ("all": Algorithm 1; "participants").
	memoryModes = []alg.MemoryMode{alg.AllClients, alg.ParticipantsOnly}
	// localKinds name the local operators the experiments build:
	// local_steps = 1 is one step on a minibatch, more are GD steps.
	localKinds = []struct {
		kind alg.LocalKind
		name string
	}{{alg.OneStep, "one-step"}, {alg.GDSteps, "gd-steps"}}
	// participation names Fed-α-NormEC's two regimes: Bernoulli(p)
	// sampling with 1/p reweighting (p < 1) and every client (p = 1).
	participation = []string{"p<1", "p=1"}
)

// parseMemory reads a memory mode by name.
func parseMemory(s string) (alg.MemoryMode, error) {
	var names []string
	for _, m := range memoryModes {
		if m.String() == s {
			return m, nil
		}
		names = append(names, m.String())
	}
	return 0, fmt.Errorf("memory %q (want one of %v)", s, names)
}

// localOperator is the local operator of a run with steps local steps
// (each of γ/steps on a fresh minibatch), and its name in localKinds.
func localOperator(steps int) (alg.Local, string) {
	l := alg.Local{Kind: alg.OneStep}
	if steps > 1 {
		l = alg.Local{Kind: alg.GDSteps, Steps: steps}
	}
	for _, k := range localKinds {
		if k.kind == l.Kind {
			return l, k.name
		}
	}
	panic(fmt.Sprintf("normec: local kind %d has no name", l.Kind))
}

// participationOf names p's regime.
func participationOf(p float64) string {
	if p < 1 {
		return participation[0]
	}
	return participation[1]
}

// Variant names how a run's protocol departs from Algorithm 1's defaults
// (every client updates its memory, one local step): "" for none, else
// e.g. "memory=participants" or "T=3", joined by commas. Cell labels and
// report settings carry it, so a variant never shares a cell with the
// default protocol.
func Variant(c RunConfig) string {
	var parts []string
	if m := c.Training.Memory; m != "" && m != alg.AllClients.String() {
		parts = append(parts, "memory="+m)
	}
	if c.Training.LocalSteps > 1 {
		parts = append(parts, "T="+strconv.Itoa(c.Training.LocalSteps))
	}
	return strings.Join(parts, ",")
}

// specs loads this paper's specs (embedded, or the user's --spec file).
var specs = paper.Specs[Spec]{FS: specFS, Dir: "reproduce/normec", Validate: (*Spec).validate}

func contains[T comparable](xs []T, x T) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func (s *Spec) validate() error {
	if err := s.Check(paperID); err != nil {
		return err
	}
	if !(s.Privacy.Epsilon > 0) || math.IsInf(s.Privacy.Epsilon, 0) || !(s.Privacy.Delta > 0 && s.Privacy.Delta < 1) {
		return fmt.Errorf("privacy: ε = %v, δ = %v (want ε > 0, 0 < δ < 1)", s.Privacy.Epsilon, s.Privacy.Delta)
	}
	t := s.Training
	switch {
	case t.Rounds < 1:
		return fmt.Errorf("training.rounds %d, want ≥ 1", t.Rounds)
	case t.Clients < 1:
		return fmt.Errorf("training.clients %d, want ≥ 1", t.Clients)
	case t.Batch < 1:
		return fmt.Errorf("training.batch %d, want ≥ 1", t.Batch)
	case t.LocalSteps < 1:
		return fmt.Errorf("training.local_steps %d, want ≥ 1", t.LocalSteps)
	case !(t.Alpha >= 0) || math.IsInf(t.Alpha, 0):
		return fmt.Errorf("training.alpha %v, want a finite α ≥ 0", t.Alpha)
	case t.ShardsPerClient < 1:
		return fmt.Errorf("training.shards_per_client %d, want ≥ 1", t.ShardsPerClient)
	case t.EvalEvery < 1:
		return fmt.Errorf("training.eval_every %d, want ≥ 1", t.EvalEvery)
	}
	if _, err := parseMemory(t.Memory); err != nil {
		return fmt.Errorf("training.%w", err)
	}
	for name, d := range s.Data {
		if !contains(knownDatasets, name) {
			return fmt.Errorf("data: unknown dataset %q (known: %v)", name, knownDatasets)
		}
		if d.Pool < 0 || d.Pool > 2 || d.PerClient < 0 || d.Test < 0 || d.TrainEval < 0 {
			return fmt.Errorf("data.%s: pool %d (want 0–2), per_client %d, test %d, train_eval %d (want ≥ 0)", name, d.Pool, d.PerClient, d.Test, d.TrainEval)
		}
		if d.PerClient > 0 && d.PerClient < t.Batch {
			return fmt.Errorf("data.%s: per_client %d is below the batch size %d", name, d.PerClient, t.Batch)
		}
	}
	if err := paper.CheckExperiments(s.Experiments, func(e *Experiment) error { return e.validate(s) }); err != nil {
		return err
	}
	// Two experiments planning the same configuration would run it twice
	// and make the report ambiguous.
	seen := map[string]string{}
	runs, err := s.Plan(func(string) bool { return true })
	if err != nil {
		return err
	}
	for _, r := range runs {
		k := r.Cell + "/" + strconv.FormatUint(r.Seed, 10)
		if prev, ok := seen[k]; ok && prev != r.Experiment {
			return fmt.Errorf("experiments %s and %s both plan %s", prev, r.Experiment, k)
		}
		seen[k] = r.Experiment
	}
	return nil
}

func (e *Experiment) validate(s *Spec) error {
	if e.Name == "" || !labelOK(e.Name) {
		return fmt.Errorf("name %q is not a path-safe label", e.Name)
	}
	if !contains(knownMethods, e.Method) {
		return fmt.Errorf("method %q (want normec or fedavg)", e.Method)
	}
	lists := []struct {
		name  string
		got   []string
		known []string
	}{{"datasets", e.Datasets, knownDatasets}, {"models", e.Models, knownModels}, {"splits", e.Splits, knownSplits}, {"noises", e.Noises, knownNoises}}
	for _, l := range lists {
		if len(l.got) == 0 {
			return fmt.Errorf("no %s", l.name)
		}
		for _, v := range l.got {
			if !contains(l.known, v) {
				return fmt.Errorf("%s: unknown %q (known: %v)", l.name, v, l.known)
			}
		}
	}
	for _, d := range e.Datasets {
		if _, ok := s.Data[d]; !ok {
			return fmt.Errorf("dataset %s has no data: entry", d)
		}
	}
	if e.Memory != "" {
		if _, err := parseMemory(e.Memory); err != nil {
			return err
		}
		if e.Method != "normec" {
			return fmt.Errorf("memory applies to Fed-α-NormEC only, not %s", e.Method)
		}
	}
	if e.LocalSteps < 0 {
		return fmt.Errorf("local_steps %d, want ≥ 1 (or unset)", e.LocalSteps)
	}
	if contains(e.Models, "mlp") && e.Hidden < 1 {
		return fmt.Errorf("model mlp needs hidden ≥ 1")
	}
	if len(e.Ps) == 0 || len(e.Betas) == 0 || len(e.Gammas) == 0 {
		return fmt.Errorf("ps, betas and gammas must be non-empty")
	}
	for _, p := range e.Ps {
		if !(p > 0 && p <= 1) {
			return fmt.Errorf("p = %v outside (0, 1]", p)
		}
		if e.Method == "fedavg" && p != 1 {
			return fmt.Errorf("the FedAvg baseline runs with p = 1 (Appendix A.1), got %v", p)
		}
	}
	for _, v := range append(append([]float64{}, e.Betas...), e.Gammas...) {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("β and γ must be finite and > 0, got %v", v)
		}
	}
	return nil
}

func labelOK(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '=' || c == '+') {
			return false
		}
	}
	return true
}

// num formats a grid value for a cell label ("0.01", "1").
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// CellLabel is the result path of a configuration:
// dataset/model/split/method/noise/p=…/beta=…/gamma=…, followed by
// /Variant(c) when the protocol departs from Algorithm 1's defaults.
func CellLabel(c RunConfig) string {
	l := fmt.Sprintf("%s/%s/%s/%s/%s/p=%s/beta=%s/gamma=%s", c.Dataset, c.Model, c.Split, c.Method, c.Noise, num(c.P), num(c.Beta), num(c.Gamma))
	if v := Variant(c); v != "" {
		l += "/" + v
	}
	return l
}

// training is the spec's training protocol with the experiment's
// overrides.
func (e *Experiment) training(t Training) Training {
	if e.Memory != "" {
		t.Memory = e.Memory
	}
	if e.LocalSteps > 0 {
		t.LocalSteps = e.LocalSteps
	}
	return t
}

// Plan expands the spec into runs over the datasets available says are
// present (the others are reported as not run). σ is resolved here, so
// that it is part of each run's configuration hash.
func (s *Spec) Plan(available func(dataset string) bool) ([]runner.Run, error) {
	var runs []runner.Run
	for _, e := range s.Experiments {
		seeds := s.SeedsOf(&e.ExperimentHeader)
		for _, ds := range e.Datasets {
			if !available(ds) {
				continue
			}
			for _, m := range e.Models {
				for _, sp := range e.Splits {
					for _, nz := range e.Noises {
						for _, p := range e.Ps {
							for _, b := range e.Betas {
								sigma, err := NoiseSigma(nz, p, b, s.Training.Rounds, s.Privacy)
								if err != nil {
									return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
								}
								for _, g := range e.Gammas {
									cfg := RunConfig{
										Experiment: e.Name, Dataset: ds, Data: s.Data[ds], Model: m, Split: sp,
										Training: e.training(s.Training), Method: e.Method, Noise: nz, Sigma: sigma,
										P: p, Beta: b, Gamma: g, Privacy: s.Privacy, Gate: e.Gate,
									}
									if m == "mlp" {
										cfg.Hidden = e.Hidden
									}
									for _, seed := range seeds {
										runs = append(runs, runner.Run{Paper: paperID, Scale: s.Scale, Experiment: e.Name,
											Cell: CellLabel(cfg), Seed: seed, Config: cfg})
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return runs, nil
}
