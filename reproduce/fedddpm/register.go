package fedddpm

import (
	"fmt"
	"sort"
	"strings"

	_ "github.com/fedrepro/fedrepro/proofs/fedddpm" // registers the claim checks the report runs
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Scales of the reproduction, cheapest first.
var Scales = []string{"smoke", "default", "paper"}

// Gates are the final metrics the golden gate compares: the log of the
// Fréchet distance (scale-free: 0.15 ≈ a 16% move, whatever the dataset's
// FD units) and the mode/class total-variation distances.
var Gates = []gate.Metric{
	{Name: "log_fd", Threshold: 0.15},
	{Name: "mode_tv", Threshold: 0.05},
	{Name: "class_tv", Threshold: 0.05},
}

func init() {
	paper.Register(&paper.Paper{
		Name:         "fedddpm",
		Title:        "Federated Learning for Diffusion Models (FedDDPM / FedDDPM+; Peng, Wang, Chen, Rao, Shen)",
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

// plan expands the scale's spec over the data that is present; missing
// data are reported ("not run: …"), not silently dropped.
func plan(o paper.Options) ([]runner.Run, error) {
	s, err := specs.For(o)
	if err != nil {
		return nil, err
	}
	src := newSources(o.DataDir)
	for _, nr := range notRun(s, src) {
		o.Logf("fedddpm: %s", nr)
	}
	return s.Plan(src.available)
}

// supplyHint says how to provide the image datasets.
const supplyHint = "pass --data-dir D with D/mnist holding MNIST's four IDX files, D/cifar10 holding cifar-10-batches-bin, D/cifar100 holding cifar-100-binary"

// notRun lists the settings skipped for missing data as "not run: …".
func notRun(s *Spec, src *sources) []string {
	var out []string
	seen := map[string]bool{}
	byLine := map[string][]string{}
	for _, e := range s.Experiments {
		for _, ds := range e.Datasets {
			st := s.Settings[ds]
			if src.available(st.Source) {
				continue
			}
			line := fmt.Sprintf("not run: %s not found at %s", st.Source, src.where(st.Source))
			if !seen[line+e.Name] {
				seen[line+e.Name] = true
				byLine[line] = append(byLine[line], e.Name)
			}
		}
	}
	for line, exps := range byLine {
		out = append(out, fmt.Sprintf("%s (experiments %s; %s)", line, strings.Join(exps, ", "), supplyHint))
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
