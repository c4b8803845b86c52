// Package fedddpm reproduces FedDDPM / FedDDPM+ (Peng, Wang, Chen, Rao,
// Shen, "Federated Learning for Diffusion Models"): `fedrepro reproduce
// --paper fedddpm`. The paper trains U-Net DDPMs on MNIST and CIFAR with
// Inception FID, which takes GPU-days; this package runs the same
// algorithms (algorithms/fedddpm) with MLP denoisers on a 10-component
// Gaussian mixture and on reduced-resolution Fashion-MNIST (and on MNIST,
// CIFAR-10 and CIFAR-100 when the user supplies them), measures Fréchet
// distances in raw space or in the feature space of a small classifier,
// and writes reports/fedddpm/: Tables I–IV analogues with the compute each
// score cost, the paper's qualitative relations counted over our columns,
// Figs. 4–8 analogues, the claims table and what was scaled down.
//
// Experiments are described by the YAML specs embedded from
// specs/<scale>.yaml (decoded strictly).
package fedddpm

import (
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	fa "github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

//go:embed specs/*.yaml
var specFS embed.FS

// Spec is specs/<scale>.yaml.
type Spec struct {
	paper.SpecHeader `yaml:",inline"`
	GeneratorSeed    uint64 `yaml:"generator_seed"`
	// Settings are the per-dataset training settings, by name (the name
	// labels results: "mixture", "fmnist", …).
	Settings    map[string]Setting `yaml:"settings"`
	Experiments []Experiment       `yaml:"experiments"`
}

// Setting is everything one dataset's runs share.
type Setting struct {
	// Source is the data: mixture (generated), fmnist (installed), mnist,
	// cifar10, cifar100 (from --data-dir).
	Source string `yaml:"source" json:"source"`
	// TrainSize m is the number of training rows used (a class-stratified
	// subset of the training split for images; the generated size for the
	// mixture).
	TrainSize int `yaml:"train_size" json:"train_size"`
	// Pool is the number of 2×2 average-pooling steps (28 → 14 → 7).
	Pool int `yaml:"pool" json:"pool"`
	// Mixture describes the Gaussian mixture (source mixture only).
	Mixture *MixtureConf `yaml:"mixture" json:"mixture,omitempty"`
	// Denoiser is the MLP ε_w.
	Denoiser DenoiserConf `yaml:"denoiser" json:"denoiser"`

	Clients      int     `yaml:"clients" json:"clients"`             // N
	Rounds       int     `yaml:"rounds" json:"rounds"`               // T
	LocalEpochs  int     `yaml:"local_epochs" json:"local_epochs"`   // K (epochs)
	Batch        int     `yaml:"batch" json:"batch"`                 // B
	Optimizer    string  `yaml:"optimizer" json:"optimizer"`         // adam | sgd
	ClientLR     float64 `yaml:"client_lr" json:"client_lr"`         // ζ
	ServerLR     float64 `yaml:"server_lr" json:"server_lr"`         // η (FedDDPM, every round)
	ServerEpochs int     `yaml:"server_epochs" json:"server_epochs"` // E (FedDDPM)
	PlusEpochs   int     `yaml:"plus_epochs" json:"plus_epochs"`     // E (FedDDPM+, one shot)
	PlusLR       float64 `yaml:"plus_lr" json:"plus_lr"`             // FedDDPM+ correction step (ζ by the listing)
	Persist      bool    `yaml:"persist_optimizer" json:"persist_optimizer,omitempty"`
	Weights      string  `yaml:"weights" json:"weights"` // uniform (Eq. 9) | size
	WarmupEpochs int     `yaml:"warmup_epochs" json:"warmup_epochs"`
	AuxFraction  float64 `yaml:"aux_fraction" json:"aux_fraction"` // |A_i| = frac·m_i
	// AuxSize, when > 0, fixes |A| instead (Fig. 8's 2000 samples),
	// apportioned to clients in proportion to m_i.
	AuxSize int `yaml:"aux_size" json:"aux_size,omitempty"`
	// DirMinSize is the smallest client a Dirichlet split may produce
	// (redrawn otherwise).
	DirMinSize int `yaml:"dir_min_size" json:"dir_min_size"`

	QuickTest QuickTestConf `yaml:"quicktest" json:"quicktest"`
	Eval      EvalConf      `yaml:"eval" json:"eval"`
	// FeatureNet is the classifier whose feature space the image FD uses.
	FeatureNet *FeatureConf `yaml:"feature_net" json:"feature_net,omitempty"`

	FedProxMu     float64 `yaml:"fedprox_mu" json:"fedprox_mu"`
	MoFedSAMRho   float64 `yaml:"mofedsam_rho" json:"mofedsam_rho"`
	MoFedSAMAlpha float64 `yaml:"mofedsam_alpha" json:"mofedsam_alpha"`
	ScaffoldLR    float64 `yaml:"scaffold_global_lr" json:"scaffold_global_lr"`
	// CentralEpochs is the length of Table IV's centralized training on an
	// aux set of CentralFraction·m samples.
	CentralEpochs   int     `yaml:"central_epochs" json:"central_epochs"`
	CentralFraction float64 `yaml:"central_fraction" json:"central_fraction"`
}

// MixtureConf is the ring mixture of the toy data.
type MixtureConf struct {
	Components int     `yaml:"components" json:"components"`
	Radius     float64 `yaml:"radius" json:"radius"`
	Std        float64 `yaml:"std" json:"std"`
}

// DenoiserConf is the MLP denoiser and its schedule.
type DenoiserConf struct {
	Hidden  []int `yaml:"hidden" json:"hidden"`
	TimeDim int   `yaml:"time_dim" json:"time_dim"`
	Steps   int   `yaml:"steps" json:"steps"` // T_diff (ScaledLinear schedule)
	// Variance is the sampler's σ_t²: beta (default) or posterior.
	Variance string `yaml:"variance" json:"variance"`
}

// QuickTestConf is Algorithm 3 and the check period of Algorithm 2.
type QuickTestConf struct {
	Every     int     `yaml:"every" json:"every"`
	Threshold float64 `yaml:"threshold" json:"threshold"`
	TestSize  int     `yaml:"test_size" json:"test_size"`
	Gamma     float64 `yaml:"gamma" json:"gamma"`
	// NeverFired: correct-at-end (default) or no-correction.
	NeverFired string `yaml:"never_fired" json:"never_fired"`
}

// EvalConf sizes the evaluation.
type EvalConf struct {
	Samples      int `yaml:"samples" json:"samples"`             // generated samples for the final scores
	MMDRows      int `yaml:"mmd_rows" json:"mmd_rows"`           // rows per side of the MMD²
	CurveEvery   int `yaml:"curve_every" json:"curve_every"`     // FD every k rounds (0: off)
	CurveSamples int `yaml:"curve_samples" json:"curve_samples"` // samples per curve point
	LossRows     int `yaml:"loss_rows" json:"loss_rows"`         // held-out rows for loss curves (Fig. 8)
	GridSamples  int `yaml:"grid_samples" json:"grid_samples"`   // samples kept for Figs. 4–6
}

// FeatureConf is the feature classifier of the image FD.
type FeatureConf struct {
	Hidden []int   `yaml:"hidden" json:"hidden"`
	Epochs int     `yaml:"epochs" json:"epochs"`
	Batch  int     `yaml:"batch" json:"batch"`
	LR     float64 `yaml:"lr" json:"lr"`
	// TrainRows limits the rows it trains on (0: the whole training split).
	TrainRows int `yaml:"train_rows" json:"train_rows"`
}

// Override changes a few fields of a setting for one experiment (Fig. 8
// uses 20 clients of 500 images and |A| = 2000).
type Override struct {
	Clients     *int `yaml:"clients"`
	TrainSize   *int `yaml:"train_size"`
	AuxSize     *int `yaml:"aux_size"`
	Rounds      *int `yaml:"rounds"`
	LocalEpochs *int `yaml:"local_epochs"`
	// PersistOptimizer keeps client and server optimizer state across
	// rounds (the sensitivity check of decision 2).
	PersistOptimizer *bool `yaml:"persist_optimizer"`
	// Optimizer and the learning rates replace the setting's (adam | sgd;
	// SGD needs its own rates).
	Optimizer *string  `yaml:"optimizer"`
	ClientLR  *float64 `yaml:"client_lr"`
	ServerLR  *float64 `yaml:"server_lr"`
	PlusLR    *float64 `yaml:"plus_lr"`
	// Weights replaces the aggregation weighting (uniform | size).
	Weights *string `yaml:"weights"`
	// Variance replaces the sampler's σ_t² (beta | posterior).
	Variance *string `yaml:"variance"`
	// NeverFired and QuickTestThreshold replace FedDDPM+'s policy when
	// QuickTest never fires and QuickTest's threshold.
	NeverFired         *string  `yaml:"never_fired"`
	QuickTestThreshold *float64 `yaml:"quicktest_threshold"`
}

// Experiment is one family of runs.
type Experiment struct {
	paper.ExperimentHeader `yaml:",inline"`
	// Kind: tables (FL methods × partitions × participation), central
	// (Table IV's centralized training on aux data), fig8 (loss curves,
	// LocalAug vs server-side aux), sensitivity (FL runs of a variant
	// setting, compared with the tables' runs of the same cells).
	Kind          string    `yaml:"kind"`
	Datasets      []string  `yaml:"datasets"` // setting names
	Partitions    []string  `yaml:"partitions"`
	Participation []float64 `yaml:"participation"`
	Methods       []string  `yaml:"methods"`
	Override      Override  `yaml:"override"`
	// Curves records FD every Eval.CurveEvery rounds (Fig. 7).
	Curves bool `yaml:"curves"`
	// Grids keeps Eval.GridSamples samples of the first seed at each
	// dataset's first partition and participation (Figs. 4–6).
	Grids bool `yaml:"grids"`
}

// Methods of the comparison, in table order.
var (
	tableMethods = []string{"fedavg", "fedprox", "scaffold", "mofedsam", "fedddpm", "fedddpm+"}
	allMethods   = append(append([]string(nil), tableMethods...), "localaug")
	methodLabel  = map[string]string{"fedavg": "FedAvg", "fedprox": "FedProx", "scaffold": "SCAFFOLD", "mofedsam": "MoFedSAM",
		"fedddpm": "FedDDPM", "fedddpm+": "FedDDPM+", "localaug": "LocalAug", centralMethod: "Training w/ Aux. Data"}
	sourceNames = []string{"mixture", "fmnist", "mnist", "cifar10", "cifar100"}
)

// centralMethod is the method of Table IV's runs (kind central).
const centralMethod = "central"

// The other choices a spec makes by name. With the method lists above
// they are the registry of the reproduction's code paths: validation,
// execution and the coverage list (components) read them, so a name is
// never typed twice. Where a spec may leave a choice empty, the first
// entry is the default.
var (
	// kinds of experiment (see Experiment.Kind).
	kinds = []string{"tables", centralMethod, "fig8", "sensitivity"}
	// optimizers of clients, server corrections, warmup and centralized
	// training (fa.Opt.Kind).
	optimizers = []string{"adam", "sgd"}
	// optimizerStates: a fresh optimizer per ClientUpdate and correction
	// (decision 2) or its state kept across rounds.
	optimizerStates = []string{"fresh", "persist"}
	weightings      = []fa.Weighting{fa.Uniform, fa.BySize}
	variances       = []diffusion.Variance{diffusion.VarBeta, diffusion.VarPosterior}
	neverFiredRules = []fa.NeverFired{fa.CorrectAtEnd, fa.NoCorrection}
	// partitionKinds: label shards, or Dirichlet(α) label proportions.
	partitionKinds = []string{"shard", "dirichlet"}
	// dataKinds: the generated mixture (FD in raw coordinates, mode
	// coverage) or an image source (FD in a classifier's feature space,
	// class coverage).
	dataKinds = []string{"mixture", "image"}
	// auxSizings: |A_i| = aux_fraction·m_i, or a fixed aux_size apportioned
	// to the clients.
	auxSizings = []string{"fraction", "size"}
)

// named returns the entry of xs whose String is s ("" is the first).
func named[T fmt.Stringer](what, s string, xs []T) (T, error) {
	if s == "" {
		return xs[0], nil
	}
	var names []string
	for _, x := range xs {
		if x.String() == s {
			return x, nil
		}
		names = append(names, x.String())
	}
	var zero T
	return zero, fmt.Errorf("%s %q (want one of %v)", what, s, names)
}

// optimizerOf is the optimizer a setting names ("" is the default).
func optimizerOf(st Setting) string {
	if st.Optimizer == "" {
		return optimizers[0]
	}
	return st.Optimizer
}

// optimizerStateOf names whether a setting keeps optimizer state.
func optimizerStateOf(st Setting) string {
	if st.Persist {
		return optimizerStates[1]
	}
	return optimizerStates[0]
}

// partitionKind names a partition's kind ("" when it does not parse).
func partitionKind(p string) string {
	shard, _, err := parsePartition(p)
	switch {
	case err != nil:
		return ""
	case shard:
		return partitionKinds[0]
	}
	return partitionKinds[1]
}

// dataKind names a source's kind.
func dataKind(source string) string {
	if source == "mixture" {
		return dataKinds[0]
	}
	return dataKinds[1]
}

// auxSizing names how a setting sizes the aux set.
func auxSizing(st Setting) string {
	if st.AuxSize > 0 {
		return auxSizings[1]
	}
	return auxSizings[0]
}

// RunConfig is the full configuration of one run (stored in its result).
type RunConfig struct {
	Experiment    string  `json:"experiment"`
	Kind          string  `json:"kind"`
	Dataset       string  `json:"dataset"` // setting name
	Setting       Setting `json:"setting"`
	Partition     string  `json:"partition"` // shard | dir0.1 | dir0.3 | …
	Participation float64 `json:"participation"`
	Method        string  `json:"method"`
	GeneratorSeed uint64  `json:"generator_seed"`
	Curves        bool    `json:"curves,omitempty"`
	Grid          bool    `json:"grid,omitempty"`
}

// specs loads this paper's specs (embedded, or the user's --spec file).
var specs = paper.Specs[Spec]{FS: specFS, Dir: "reproduce/fedddpm", Validate: (*Spec).validate}

// parsePartition reads "shard" or "dir<α>".
func parsePartition(p string) (shard bool, alpha float64, err error) {
	if p == partitionKinds[0] {
		return true, 0, nil
	}
	if a, ok := strings.CutPrefix(p, "dir"); ok {
		alpha, err = strconv.ParseFloat(a, 64)
		if err == nil && alpha > 0 {
			return false, alpha, nil
		}
	}
	return false, 0, fmt.Errorf("partition %q (want shard or dir<α>, e.g. dir0.1)", p)
}

func (s *Spec) validate() error {
	if err := s.Check("fedddpm"); err != nil {
		return err
	}
	for name, st := range s.Settings {
		if err := st.validate(); err != nil {
			return fmt.Errorf("setting %s: %w", name, err)
		}
	}
	return paper.CheckExperiments(s.Experiments, func(e *Experiment) error { return e.validate(s) })
}

func (st *Setting) validate() error {
	if st.Optimizer != "" && !contains(optimizers, st.Optimizer) {
		return fmt.Errorf("optimizer %q (want one of %v)", st.Optimizer, optimizers)
	}
	if !contains(sourceNames, st.Source) {
		return fmt.Errorf("source %q (want one of %v)", st.Source, sourceNames)
	}
	if st.Source == "mixture" && (st.Mixture == nil || st.Mixture.Components < 2 || !(st.Mixture.Std > 0) || !(st.Mixture.Radius > 0)) {
		return fmt.Errorf("mixture source needs mixture: {components ≥ 2, radius > 0, std > 0}")
	}
	if st.Source != "mixture" && (st.FeatureNet == nil || len(st.FeatureNet.Hidden) == 0) {
		return fmt.Errorf("image source %s needs a feature_net", st.Source)
	}
	if st.Pool < 0 || st.Pool > 2 {
		return fmt.Errorf("pool %d outside 0..2", st.Pool)
	}
	switch {
	case st.TrainSize < 2*st.Clients:
		return fmt.Errorf("train_size %d too small for %d clients", st.TrainSize, st.Clients)
	case st.Clients < 2 || st.Rounds < 1 || st.LocalEpochs < 1 || st.Batch < 1:
		return fmt.Errorf("clients %d, rounds %d, local_epochs %d, batch %d: want ≥ 2, ≥ 1, ≥ 1, ≥ 1", st.Clients, st.Rounds, st.LocalEpochs, st.Batch)
	case st.ServerEpochs < 1 || st.PlusEpochs < 1 || st.WarmupEpochs < 1:
		return fmt.Errorf("server_epochs, plus_epochs and warmup_epochs must be ≥ 1")
	case !(st.AuxFraction > 0) && st.AuxSize <= 0:
		return fmt.Errorf("aux_fraction must be > 0 (or aux_size set)")
	case len(st.Denoiser.Hidden) == 0 || st.Denoiser.TimeDim < 2 || st.Denoiser.Steps < 21:
		return fmt.Errorf("denoiser needs hidden layers, time_dim ≥ 2 and steps ≥ 21")
	case st.Eval.Samples < 10 || st.Eval.MMDRows < 2:
		return fmt.Errorf("eval needs samples ≥ 10 and mmd_rows ≥ 2")
	case st.CentralEpochs < 0 || st.CentralFraction < 0:
		return fmt.Errorf("central_epochs and central_fraction must be ≥ 0")
	}
	if _, err := variance(st.Denoiser.Variance); err != nil {
		return err
	}
	for _, o := range []fa.Opt{st.clientOpt(), st.serverOpt(), st.plusOpt()} {
		if err := o.Validate(); err != nil {
			return err
		}
	}
	if _, err := named("aggregation weighting", st.Weights, weightings); err != nil {
		return err
	}
	if _, err := st.qtConfig(); err != nil {
		return err
	}
	if _, err := neverFired(st.QuickTest.NeverFired); err != nil {
		return err
	}
	return nil
}

func (e *Experiment) validate(s *Spec) error {
	if !contains(kinds, e.Kind) {
		return fmt.Errorf("kind %q (want one of %v)", e.Kind, kinds)
	}
	if len(e.Datasets) == 0 || len(e.Partitions) == 0 {
		return fmt.Errorf("needs datasets and partitions")
	}
	for _, d := range e.Datasets {
		st, ok := s.Settings[d]
		if !ok {
			return fmt.Errorf("unknown setting %q", d)
		}
		st = e.apply(st)
		if err := st.validate(); err != nil {
			return fmt.Errorf("setting %s with the experiment's override: %w", d, err)
		}
		if e.Kind == centralMethod && (st.CentralEpochs < 1 || !(st.CentralFraction > 0)) {
			return fmt.Errorf("setting %s: central runs need central_epochs ≥ 1 and central_fraction > 0", d)
		}
	}
	for _, p := range e.Partitions {
		if _, _, err := parsePartition(p); err != nil {
			return err
		}
	}
	if e.Kind != centralMethod {
		if len(e.Participation) == 0 || len(e.Methods) == 0 {
			return fmt.Errorf("needs participation and methods")
		}
		for _, p := range e.Participation {
			if !(p > 0 && p <= 1) {
				return fmt.Errorf("participation %g outside (0,1]", p)
			}
		}
		for _, m := range e.Methods {
			if !contains(allMethods, m) {
				return fmt.Errorf("unknown method %q (want one of %v)", m, allMethods)
			}
		}
	}
	return nil
}

// apply returns the setting with the experiment's overrides.
func (e *Experiment) apply(st Setting) Setting {
	o := e.Override
	if o.Clients != nil {
		st.Clients = *o.Clients
	}
	if o.TrainSize != nil {
		st.TrainSize = *o.TrainSize
	}
	if o.AuxSize != nil {
		st.AuxSize = *o.AuxSize
	}
	if o.Rounds != nil {
		st.Rounds = *o.Rounds
	}
	if o.LocalEpochs != nil {
		st.LocalEpochs = *o.LocalEpochs
	}
	if o.PersistOptimizer != nil {
		st.Persist = *o.PersistOptimizer
	}
	if o.Optimizer != nil {
		st.Optimizer = *o.Optimizer
	}
	if o.ClientLR != nil {
		st.ClientLR = *o.ClientLR
	}
	if o.ServerLR != nil {
		st.ServerLR = *o.ServerLR
	}
	if o.PlusLR != nil {
		st.PlusLR = *o.PlusLR
	}
	if o.Weights != nil {
		st.Weights = *o.Weights
	}
	if o.Variance != nil {
		st.Denoiser.Variance = *o.Variance
	}
	if o.NeverFired != nil {
		st.QuickTest.NeverFired = *o.NeverFired
	}
	if o.QuickTestThreshold != nil {
		st.QuickTest.Threshold = *o.QuickTestThreshold
	}
	return st
}

func (st *Setting) clientOpt() fa.Opt {
	return fa.Opt{Kind: st.Optimizer, LR: st.ClientLR, Persist: st.Persist}
}
func (st *Setting) serverOpt() fa.Opt {
	return fa.Opt{Kind: st.Optimizer, LR: st.ServerLR, Persist: st.Persist}
}
func (st *Setting) plusOpt() fa.Opt { return fa.Opt{Kind: st.Optimizer, LR: st.PlusLR} }

func (st *Setting) qtConfig() (fa.QuickTestConfig, error) {
	q := fa.QuickTestConfig{Gamma: st.QuickTest.Gamma, Threshold: st.QuickTest.Threshold, TestSize: st.QuickTest.TestSize}
	if st.QuickTest.Every < 1 || q.TestSize < 2 {
		return q, fmt.Errorf("quicktest needs every ≥ 1 and test_size ≥ 2")
	}
	return q, q.Validate()
}

func neverFired(s string) (fa.NeverFired, error) { return named("never_fired", s, neverFiredRules) }

// seedsOf returns the experiment's seeds.
func (s *Spec) seedsOf(e *Experiment) []uint64 {
	return s.SeedsOf(&e.ExperimentHeader)
}

// pLabel formats a participation for cells: "p0.15".
func pLabel(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

// Plan expands the spec into runs; available says which sources can be
// loaded (others are skipped and reported as not run). Runs are ordered
// so that consecutive FedDDPM-family runs need different warmups (the
// executor computes each warmup once per process; two workers starting on
// the same one would wait for each other).
func (s *Spec) Plan(available func(source string) bool) ([]runner.Run, error) {
	var runs []runner.Run
	for i := range s.Experiments {
		e := &s.Experiments[i]
		seeds := s.seedsOf(e)
		for _, ds := range e.Datasets {
			st := e.apply(s.Settings[ds])
			if !available(st.Source) {
				continue
			}
			ps := e.Participation
			methods := e.Methods
			if e.Kind == centralMethod {
				ps, methods = []float64{0}, []string{centralMethod}
			}
			// Method-major, then participation, then seed, then partition.
			for _, m := range methods {
				for pi, p := range ps {
					for si, seed := range seeds {
						for qi, part := range e.Partitions {
							cell := fmt.Sprintf("%s/%s/%s/%s", ds, part, pLabel(p), m)
							if e.Kind == centralMethod {
								cell = fmt.Sprintf("%s/%s/%s", ds, part, m)
							}
							runs = append(runs, runner.Run{
								Paper: "fedddpm", Scale: s.Scale, Experiment: e.Name, Cell: cell, Seed: seed,
								Config: RunConfig{
									Experiment: e.Name, Kind: e.Kind, Dataset: ds, Setting: st, Partition: part,
									Participation: p, Method: m, GeneratorSeed: s.GeneratorSeed,
									Curves: e.Curves, Grid: e.Grids && si == 0 && qi == 0 && pi == 0,
								},
							})
						}
					}
				}
			}
		}
	}
	return runs, nil
}

// configOf recovers a RunConfig from a result (made here or loaded from JSON).
func configOf(r *runner.Result) (RunConfig, error) { return paper.ConfigOf[RunConfig](r) }

func contains[T comparable](xs []T, x T) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// remarshal converts v to out through JSON (results loaded from disk hold
// maps where the run stored structs).
func remarshal(v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
