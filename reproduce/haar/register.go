package haar

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"

	// The claim checks, shown in the report.
	_ "github.com/fedrepro/fedrepro/proofs/haar"
)

// Scales of the reproduction, cheapest first.
var Scales = []string{"smoke", "default", "paper"}

func init() {
	paper.Register(&paper.Paper{
		Name:         "haar",
		Title:        "Federated Learning with Differential Privacy: An Utility-Enhanced Approach (Haar-wavelet DP-FL; Ranaweera et al.)",
		Scales:       Scales,
		DefaultScale: "default",
		Plan:         plan,
		Exec: func(o paper.Options) (runner.Func, error) {
			if _, err := specs.For(o); err != nil {
				return nil, err
			}
			x := &executor{sets: newImageSets(o.DataDir)}
			return x.run, nil
		},
		Report:     writeReport,
		Cost:       runCost,
		CostRate:   costRate,
		SpecSource: specs.Source,
		Gates: []gate.Metric{
			{Name: "acc", Threshold: 0.02}, // two accuracy points
		},
		Describe:   describe,
		Components: components,
		Uses:       uses,
	})
}

// components lists every code path a spec selects by name, from the
// registries in spec.go: each method at each level (the sample level runs
// DP-SGD, the user level DP-FedAvg — and the non-private user run plain
// FedAvg — so a method is a different path at each), every optimizer,
// model and clipping domain of the wavelet mechanisms. Datasets are not
// paths (one loader per file format, and only Fashion-MNIST is on this
// machine); the smoke scale must run every component (TestCoverage).
func components() []string {
	var out []string
	for _, l := range levels {
		out = append(out, "level:"+l)
		for _, m := range methodOrder {
			out = append(out, "method:"+l+"/"+m)
		}
	}
	for _, o := range knownOptimizers {
		out = append(out, "optimizer:"+o)
	}
	for _, m := range knownModels {
		out = append(out, "model:"+m)
	}
	for _, d := range slices.Sorted(maps.Keys(clipDomains)) {
		out = append(out, "clip_domain:"+d)
	}
	return out
}

// uses names the components a planned run exercises.
func uses(r runner.Run) []string {
	cfg, ok := r.Config.(RunConfig)
	if !ok {
		return []string{fmt.Sprintf("config:%T", r.Config)}
	}
	out := []string{"level:" + cfg.Level, "method:" + cfg.Level + "/" + cfg.Method, "optimizer:" + cfg.Optimizer, "model:" + cfg.Model}
	if d := clipDomainOf(cfg); d != "" {
		out = append(out, "clip_domain:"+d)
	}
	return out
}

// plan expands the scale's spec over the datasets that are present; the
// missing ones are reported ("not run: …"), not silently dropped.
func plan(o paper.Options) ([]runner.Run, error) {
	s, err := specs.For(o)
	if err != nil {
		return nil, err
	}
	sets := newImageSets(o.DataDir)
	for _, nr := range notRun(s, sets) {
		o.Logf("haar: %s", nr)
	}
	return s.Plan(sets.available)
}

// notRun lists the (dataset, experiment) pairs skipped for missing data.
func notRun(s *Spec, sets *imageSets) []string {
	byDS := map[string][]string{}
	for _, e := range s.Experiments {
		for _, ds := range e.Datasets {
			if !sets.available(ds) {
				byDS[ds] = append(byDS[ds], e.Name)
			}
		}
	}
	var out []string
	for ds, exps := range byDS {
		hint := map[string]string{
			"mnist":         "pass --data-dir D with MNIST's four IDX files in D/mnist",
			"cifar10":       "pass --data-dir D with CIFAR-10's binary batches in D/cifar-10-batches-bin",
			"fashion_mnist": "run `make data` (Debian package dataset-fashion-mnist) or pass --data-dir D with D/fashion-mnist",
		}[ds]
		out = append(out, fmt.Sprintf("not run: %s not found at %s (%s) — experiments %v", datasetLabel[ds], sets.where(ds), hint, exps))
	}
	sort.Strings(out)
	return out
}

func describe(scale string) ([]paper.Experiment, error) {
	s, err := LoadSpec(scale)
	if err != nil {
		return nil, err
	}
	runs, err := s.Plan(func(string) bool { return true })
	if err != nil {
		return nil, err
	}
	return paper.Describe(s.Experiments, Experiment.info, runs), nil
}
