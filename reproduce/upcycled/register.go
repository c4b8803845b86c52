package upcycled

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Scales of the reproduction, cheapest first.
var Scales = []string{"smoke", "default", "paper"}

func init() {
	paper.Register(&paper.Paper{
		Name:         "upcycled",
		Title:        "Federated Learning with Reduced Information Leakage and Computation (Upcycled-FL; Yin et al., TMLR 2024)",
		Scales:       Scales,
		DefaultScale: "default",
		Plan:         plan,
		Exec: func(o paper.Options) (runner.Func, error) {
			s, err := specs.For(o)
			if err != nil {
				return nil, err
			}
			x := &executor{src: newSourcesFor(o, s.GeneratorSeed)}
			return x.run, nil
		},
		Report:     writeReport,
		Cost:       runCost,
		CostRate:   costRate,
		SpecSource: specs.Source,
		Components: components,
		Uses:       uses,
		Gates: []gate.Metric{
			{Name: "acc", Threshold: 0.01},  // one accuracy point
			{Name: "loss", Threshold: 0.02}, // final test loss
		},
		Describe: describe,
		// The audits read the released data (their privacy figures refer to it).
		AuditData: func(o paper.Options) string {
			return filepath.Join(o.SharedDir, "datasets", "upcycled-synthetic")
		},
	})
}

// plan expands the scale's spec over the data that is present; missing
// sources are reported by the report, not silently dropped.
func plan(o paper.Options) ([]runner.Run, error) {
	s, err := specs.For(o)
	if err != nil {
		return nil, err
	}
	src := newSourcesFor(o, s.GeneratorSeed)
	for _, nr := range notRun(s, src) {
		o.Logf("upcycled: %s", nr)
	}
	var released []string
	seen := map[string]bool{}
	for _, e := range s.Experiments {
		if len(o.Experiments) > 0 && !slices.Contains(o.Experiments, e.Name) {
			continue
		}
		for _, so := range e.Sources {
			for _, ds := range e.Datasets {
				if so == "released" && ds != "femnist" && !seen[ds] {
					seen[ds] = true
					released = append(released, ds)
				}
			}
		}
	}
	sort.Strings(released)
	for _, fb := range src.fallbacks(released) {
		o.Logf("upcycled: %s", fb)
	}
	return s.Plan(src.available)
}

// notRun lists the (experiment, source, dataset) combinations skipped for
// missing data, as "not run: …" lines.
func notRun(s *Spec, src *sources) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range s.Experiments {
		for _, so := range e.Sources {
			for _, ds := range e.Datasets {
				if src.available(so, ds) {
					continue
				}
				line := fmt.Sprintf("not run: %s (%s data) not found at %s", ds, so, src.where(so, ds))
				if ds == "femnist" {
					line = fmt.Sprintf("not run: FEMNIST not found at %s (pass --data-dir with femnist/{train,test}/*.json in LEAF format)", src.where(so, ds))
				}
				if !seen[line] {
					seen[line] = true
					out = append(out, line+" — experiment "+e.Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func describe(scale string) ([]paper.Experiment, error) {
	s, err := LoadSpec(scale)
	if err != nil {
		return nil, err
	}
	runs, err := s.Plan(func(string, string) bool { return true })
	if err != nil {
		return nil, err
	}
	return paper.Describe(s.Experiments, Experiment.info, runs), nil
}
