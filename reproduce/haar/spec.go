package haar

// Experiments of the Haar-wavelet DP-FL reproduction: the YAML specs
// embedded from specs/<scale>.yaml and their expansion into runs.

import (
	"embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

//go:embed specs/*.yaml
var specFS embed.FS

// Spec is specs/<scale>.yaml.
type Spec struct {
	paper.SpecHeader `yaml:",inline"`
	Delta            float64 `yaml:"delta"`
	// AuditSize is the size of the privacy audits the report runs: "" or
	// "full" (the published searches and game budgets, as `fedrepro audit
	// --paper haar`), or "quick" (as `audit --quick`: coarser fit search,
	// a tenth of the empirical budget). Quick is for specs that test the
	// pipeline (kill and resume, shard and merge), not for findings; the
	// report says which size it ran.
	AuditSize   string       `yaml:"audit_size"`
	Experiments []Experiment `yaml:"experiments"`
}

// DataSpec says how a dataset is cut for an experiment.
type DataSpec struct {
	// Pool is the number of 2×2 average-pooling passes (1: 28×28 → 14×14).
	Pool int `yaml:"pool"`
	// Public is the number of training examples held out as the public
	// proxy set of the median clipping rule (no client holds them).
	Public int `yaml:"public"`
	// Clients is the number of clients N; ClientSize their (equal) number
	// of examples (0: the remaining training set divided equally).
	Clients    int `yaml:"clients"`
	ClientSize int `yaml:"client_size"`
	// Test caps the test examples evaluated (0: the whole test set).
	Test int `yaml:"test"`
}

// DynSpec is the decay of the dynamic baselines (dpfl.Decay): σ and C
// shrink by RhoSigma and RhoC over the run.
type DynSpec struct {
	RhoSigma float64 `yaml:"rho_sigma"`
	RhoC     float64 `yaml:"rho_c"`
}

// Experiment is one family of runs.
type Experiment struct {
	// Figure and Table (in the header) name what it reproduces ("7-9",
	// "10-12"; "III").
	paper.ExperimentHeader `yaml:",inline"`
	// Level is sample (DP-SGD on each client) or user (DP-FedAvg).
	Level      string    `yaml:"level"`
	Datasets   []string  `yaml:"datasets"`
	Methods    []string  `yaml:"methods"`
	Sigmas     []float64 `yaml:"sigmas"`
	Optimizers []string  `yaml:"optimizers"`

	Data   DataSpec `yaml:"data"`
	Model  string   `yaml:"model"`  // logreg | mlp
	Hidden int      `yaml:"hidden"` // MLP hidden width
	Rounds int      `yaml:"rounds"`
	Epochs int      `yaml:"epochs"`
	// Lot is DP-SGD's expected lot size L (sample level).
	Lot float64 `yaml:"lot"`
	// Batch is the local mini-batch size of non-private local training
	// (user level).
	Batch int `yaml:"batch"`
	// Frac is the share of clients selected per round (sample level,
	// uniform without replacement); Q the Bernoulli participation
	// probability q_c (user level).
	Frac float64 `yaml:"frac"`
	Q    float64 `yaml:"q"`
	// LR is the local learning rate per optimizer (sgd, adam, adagrad).
	LR       map[string]float64 `yaml:"lr"`
	Momentum float64            `yaml:"momentum"`
	Dyn      DynSpec            `yaml:"dyn"`
	// WavDomain is where WAV clips (coefficient: Algorithm 1 as printed;
	// gradient: Algorithm 2's parameter-domain clip); CorrectedDomain the
	// same for the privacy-corrected WAV.
	WavDomain       string `yaml:"wav_domain"`
	CorrectedDomain string `yaml:"corrected_domain"`
	// NoisePer is Algorithm 1's reading for the wavelet mechanisms at the
	// sample level: lot (one draw per lot, the default) or example (one
	// draw per example inside the lot loop, as printed); see noiseper.go.
	NoisePer  string `yaml:"noise_per"`
	EvalEvery int    `yaml:"eval_every"`
}

// Methods the experiments know, in report order.
var methodOrder = []string{"nonprivate", "vanilla", "dyn", "wav", "wav_literal", "wav_corrected", "gauss_matched"}

// RunConfig is the full configuration of one run (stored in its result).
type RunConfig struct {
	Experiment      string   `json:"experiment"`
	Figure          string   `json:"figure,omitempty"`
	Table           string   `json:"table,omitempty"`
	Level           string   `json:"level"`
	Dataset         string   `json:"dataset"`
	Method          string   `json:"method"`
	Sigma           float64  `json:"sigma"`
	Optimizer       string   `json:"optimizer"`
	Data            DataSpec `json:"data"`
	Model           string   `json:"model"`
	Hidden          int      `json:"hidden,omitempty"`
	Rounds          int      `json:"rounds"`
	Epochs          int      `json:"epochs"`
	Lot             float64  `json:"lot,omitempty"`
	Batch           int      `json:"batch,omitempty"`
	Frac            float64  `json:"frac,omitempty"`
	Q               float64  `json:"q,omitempty"`
	LR              float64  `json:"lr"`
	Momentum        float64  `json:"momentum"`
	Dyn             DynSpec  `json:"dyn"`
	WavDomain       string   `json:"wav_domain"`
	CorrectedDomain string   `json:"corrected_domain"`
	Delta           float64  `json:"delta"`
	// NoisePer is "example" for Algorithm 1's per-example reading and empty
	// for the default per-lot one (empty, not "lot", so that the runs
	// recorded before the option existed keep their configuration hash).
	NoisePer  string `json:"noise_per,omitempty"`
	EvalEvery int    `json:"eval_every"`
}

// specs loads this paper's specs (embedded, or the user's --spec file).
var specs = paper.Specs[Spec]{FS: specFS, Dir: "reproduce/haar", Validate: (*Spec).validate}

// The names a spec may use. They are the registry of the reproduction's
// code paths: validation, execution and the coverage list (components)
// all read them, so a name is never typed twice.
var (
	knownDatasets   = map[string]bool{"fashion_mnist": true, "mnist": true, "cifar10": true}
	knownMethods    = map[string]bool{}
	knownOptimizers = []string{"sgd", "adam", "adagrad"}
	// levels: sample (DP-SGD on each client, Algorithm 1) or user
	// (DP-FedAvg, Algorithm 2).
	levels = []string{"sample", "user"}
	// knownModels are the classifiers newModel builds.
	knownModels = []string{"logreg", "mlp"}
	// clipDomains are where a wavelet mechanism clips.
	clipDomains = map[string]haar.ClipDomain{"coefficient": haar.CoefficientDomain, "gradient": haar.GradientDomain}
)

func init() {
	for _, m := range methodOrder {
		knownMethods[m] = true
	}
}

func parseDomain(s string) (haar.ClipDomain, error) {
	if d, ok := clipDomains[s]; ok {
		return d, nil
	}
	return 0, fmt.Errorf("clip domain %q (want one of %v)", s, slices.Sorted(maps.Keys(clipDomains)))
}

// clipDomainOf is the clipping domain of the wavelet mechanism a run's
// method uses — for gauss_matched, that of the WAV run whose noise it
// matches — and "" for the methods without one.
func clipDomainOf(cfg RunConfig) string {
	switch cfg.Method {
	case "wav", "wav_literal", "gauss_matched":
		return cfg.WavDomain
	case "wav_corrected":
		return cfg.CorrectedDomain
	}
	return ""
}

func (s *Spec) validate() error {
	if err := s.Check("haar"); err != nil {
		return err
	}
	if !(s.Delta > 0 && s.Delta < 1) {
		return fmt.Errorf("delta %g outside (0,1)", s.Delta)
	}
	if s.AuditSize != "" && s.AuditSize != "full" && s.AuditSize != "quick" {
		return fmt.Errorf("audit_size %q (want full or quick)", s.AuditSize)
	}
	return paper.CheckExperiments(s.Experiments, (*Experiment).validate)
}

func (e *Experiment) validate() error {
	if e.Name == "" {
		return fmt.Errorf("no name")
	}
	if !slices.Contains(levels, e.Level) {
		return fmt.Errorf("level %q (want one of %v)", e.Level, levels)
	}
	if len(e.Datasets) == 0 || len(e.Methods) == 0 || len(e.Optimizers) == 0 {
		return fmt.Errorf("needs datasets, methods and optimizers")
	}
	for _, d := range e.Datasets {
		if !knownDatasets[d] {
			return fmt.Errorf("unknown dataset %q (want fashion_mnist, mnist or cifar10)", d)
		}
	}
	private := false
	for _, m := range e.Methods {
		if !knownMethods[m] {
			return fmt.Errorf("unknown method %q", m)
		}
		private = private || m != "nonprivate"
	}
	if private && len(e.Sigmas) == 0 {
		return fmt.Errorf("private methods need sigmas")
	}
	for _, s := range e.Sigmas {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("sigma %g, want > 0", s)
		}
	}
	for _, o := range e.Optimizers {
		if !slices.Contains(knownOptimizers, o) {
			return fmt.Errorf("unknown optimizer %q (want one of %v)", o, knownOptimizers)
		}
		if !(e.LR[o] > 0) {
			return fmt.Errorf("no learning rate for optimizer %s", o)
		}
		if o != "sgd" && e.Level == "user" {
			return fmt.Errorf("optimizer %s: the user level trains locally with SGD only", o)
		}
	}
	d := e.Data
	switch {
	case d.Pool < 0 || d.Pool > 2:
		return fmt.Errorf("data.pool %d outside 0..2", d.Pool)
	case d.Public < 1:
		return fmt.Errorf("data.public %d: the median clip needs a public set", d.Public)
	case d.Clients < 1 || d.ClientSize < 0 || d.Test < 0:
		return fmt.Errorf("data: %d clients of %d examples, test %d", d.Clients, d.ClientSize, d.Test)
	case !slices.Contains(knownModels, e.Model):
		return fmt.Errorf("model %q (want one of %v)", e.Model, knownModels)
	case e.Model == "mlp" && e.Hidden < 1:
		return fmt.Errorf("mlp needs hidden ≥ 1")
	case e.Rounds < 1 || e.Epochs < 1:
		return fmt.Errorf("rounds %d, epochs %d: want ≥ 1", e.Rounds, e.Epochs)
	case e.Momentum < 0 || e.Momentum >= 1:
		return fmt.Errorf("momentum %g outside [0,1)", e.Momentum)
	case e.Dyn.RhoSigma < 1 || e.Dyn.RhoC < 1:
		return fmt.Errorf("dyn: rho_sigma %g and rho_c %g must be ≥ 1 (decay)", e.Dyn.RhoSigma, e.Dyn.RhoC)
	}
	if e.Level == "sample" {
		if !(e.Lot >= 1) || !(e.Frac > 0 && e.Frac <= 1) {
			return fmt.Errorf("sample level needs lot ≥ 1 and frac in (0,1]")
		}
	} else if e.Batch < 1 || !(e.Q > 0 && e.Q <= 1) {
		return fmt.Errorf("user level needs batch ≥ 1 and q in (0,1]")
	}
	if _, err := parseDomain(e.WavDomain); err != nil {
		return fmt.Errorf("wav_domain: %w", err)
	}
	if _, err := parseDomain(e.CorrectedDomain); err != nil {
		return fmt.Errorf("corrected_domain: %w", err)
	}
	if e.NoisePer != "" && !slices.Contains(noisePerReadings, e.NoisePer) {
		return fmt.Errorf("noise_per %q (want one of %v)", e.NoisePer, noisePerReadings)
	}
	if e.NoisePer == noisePerExample && e.Level != "sample" {
		return fmt.Errorf("noise_per example is Algorithm 1's (sample level) reading; level %s releases one aggregate", e.Level)
	}
	return nil
}

// perExampleNoise reports whether a run's mechanism draws noise per example
// (Algorithm 1 as printed): the wavelet methods, and the Gaussian control
// matched to them, of a noise_per: example experiment.
func perExampleNoise(cfg RunConfig) bool {
	if cfg.NoisePer != noisePerExample {
		return false
	}
	switch cfg.Method {
	case "wav", "wav_literal", "wav_corrected", "gauss_matched":
		return true
	}
	return false
}

// noisePerOf is the reading a run uses ("lot" or "example").
func noisePerOf(cfg RunConfig) string {
	if cfg.NoisePer == noisePerExample {
		return noisePerExample
	}
	return noisePerLot
}

// sigmaLabel formats σ for a cell label ("1", "1.5", "3").
func sigmaLabel(s float64) string { return strconv.FormatFloat(s, 'g', -1, 64) }

// Plan expands the spec into runs over the datasets that are available.
// The non-private method has no σ: it runs once per optimizer, with σ = 0.
func (s *Spec) Plan(available func(dataset string) bool) ([]runner.Run, error) {
	var runs []runner.Run
	for _, e := range s.Experiments {
		seeds := s.SeedsOf(&e.ExperimentHeader)
		for _, ds := range e.Datasets {
			if !available(ds) {
				continue
			}
			for _, opt := range e.Optimizers {
				for _, m := range e.Methods {
					sigmas := e.Sigmas
					if m == "nonprivate" {
						sigmas = []float64{0}
					}
					for _, sigma := range sigmas {
						cfg := RunConfig{
							Experiment: e.Name, Figure: e.Figure, Table: e.Table, Level: e.Level,
							Dataset: ds, Method: m, Sigma: sigma, Optimizer: opt, Data: e.Data,
							Model: e.Model, Hidden: e.Hidden, Rounds: e.Rounds, Epochs: e.Epochs,
							Lot: e.Lot, Batch: e.Batch, Frac: e.Frac, Q: e.Q, LR: e.LR[opt], Momentum: e.Momentum,
							Dyn: e.Dyn, WavDomain: e.WavDomain, CorrectedDomain: e.CorrectedDomain,
							Delta: s.Delta, EvalEvery: max(e.EvalEvery, 1),
						}
						if e.NoisePer == noisePerExample {
							cfg.NoisePer = noisePerExample
						}
						cell := fmt.Sprintf("%s/%s/%s/sigma-%s", ds, opt, m, sigmaLabel(sigma))
						for _, seed := range seeds {
							runs = append(runs, runner.Run{Paper: "haar", Scale: s.Scale, Experiment: e.Name, Cell: cell, Seed: seed, Config: cfg})
						}
					}
				}
			}
		}
	}
	return runs, nil
}
