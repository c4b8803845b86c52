package haar

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"

	_ "github.com/fedrepro/fedrepro/proofs/haar" // registers the claim checks the report runs
)

func init() {
	paper.Register(paper.Define(paper.Definition[Spec, RunConfig, *imageSets]{
		Name:   paperID,
		Title:  "Federated Learning with Differential Privacy: An Utility-Enhanced Approach (Haar-wavelet DP-FL; Ranaweera et al.)",
		Specs:  specs,
		DataAt: newImageSets,
		NotRun: notRun,
		Run: paper.Loading(func(sets *imageSets, c RunConfig) (*imageSet, error) {
			return sets.load(c.Dataset, c.Data.Pool)
		}, Execute),
		Report:   writeReport,
		CostRate: costRate,
		Gates: []gate.Metric{
			{Name: "acc", Threshold: 0.02}, // two accuracy points
		},
		Components: components,
		Audits:     audits,
		// The paper's audited privacy figures as claim files, audited by the
		// general claim engine (`fedrepro audit --paper haar` and the report
		// print them as the "claims" table); claims_test.go checks that the
		// engine reproduces the numbers of this package's own audits.
		ClaimsAudit: "Table III's ε through the claim engine (claims/haar-table3.yaml): the configurations the paper's text implies",
		Datasets:    []string{datasets.FashionMNISTName},
	}))
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
	for _, r := range noisePerReadings {
		out = append(out, "noise_per:"+r)
	}
	return out
}

// Uses names the components a planned run exercises.
func (cfg RunConfig) Uses() []string {
	out := []string{"level:" + cfg.Level, "method:" + cfg.Level + "/" + cfg.Method, "optimizer:" + cfg.Optimizer, "model:" + cfg.Model}
	if d := clipDomainOf(cfg); d != "" {
		out = append(out, "clip_domain:"+d)
	}
	if cfg.Level == "sample" && cfg.Method != "nonprivate" {
		r := noisePerLot
		if perExampleNoise(cfg) {
			r = noisePerExample
		}
		out = append(out, "noise_per:"+r)
	}
	return out
}

// notRun lists the (dataset, experiment) pairs skipped for missing data.
func notRun(s *Spec, sets *imageSets) []string {
	byDS := map[string][]string{}
	for _, e := range s.Experiments {
		for _, ds := range e.Datasets {
			if !sets.Available(ds) {
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
