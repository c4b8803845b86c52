package normec

import (
	"fmt"
	"sort"
	"strings"

	_ "github.com/fedrepro/fedrepro/proofs/normec" // registers the claims `fedrepro verify` and the report run
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Scales of the reproduction, cheapest first.
var Scales = []string{"smoke", "default", "paper"}

// Gates are the final metrics the golden gate compares. Only runs of
// experiments marked `gate: true` carry them (with ≥ 4 seeds, so that the
// Mann–Whitney test applies).
var Gates = []gate.Metric{
	{Name: "gate_acc", Threshold: 0.01},        // one accuracy point
	{Name: "gate_train_loss", Threshold: 0.02}, // final training loss
}

func init() {
	paper.Register(&paper.Paper{
		Name:         paperID,
		Title:        "First Provable Guarantees for Practical Private FL: Beyond Restrictive Assumptions (Fed-α-NormEC; Shulgin, Malinovsky, Khirirat, Richtárik)",
		Scales:       Scales,
		DefaultScale: "default",
		Plan:         plan,
		Exec: func(o paper.Options) (runner.Func, error) {
			if _, err := specs.For(o); err != nil {
				return nil, err
			}
			x := &executor{src: newSources(o.DataDir)}
			return x.run, nil
		},
		Report:   writeReport,
		Cost:     runCost,
		Gates:    Gates,
		Describe: describe,
	})
}

// plan expands the scale's spec over the data that is present; absent
// datasets are noted (and listed in the report), not silently dropped.
func plan(o paper.Options) ([]runner.Run, error) {
	s, err := specs.For(o)
	if err != nil {
		return nil, err
	}
	src := newSources(o.DataDir)
	for _, nr := range notRun(s, src) {
		o.Logf("normec: %s", nr)
	}
	return s.Plan(src.available)
}

// notRun lists the absent datasets, one "not run: …" line each naming the
// experiments that would have used them.
func notRun(s *Spec, src *sources) []string {
	exps := map[string][]string{}
	var order []string
	for _, e := range s.Experiments {
		for _, ds := range e.Datasets {
			if src.available(ds) {
				continue
			}
			if exps[ds] == nil {
				order = append(order, ds)
			}
			exps[ds] = append(exps[ds], e.Name)
		}
	}
	var out []string
	for _, ds := range order {
		line := fmt.Sprintf("not run: %s not found at %s", datasetLabel[ds], src.where(ds))
		if ds == "cifar10" {
			line += " (pass --data-dir with CIFAR-10's binary batches: cifar-10-batches-bin/data_batch_{1..5}.bin and test_batch.bin)"
		}
		out = append(out, line+" — experiments "+strings.Join(exps[ds], ", "))
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
