package fedddpm

import (
	"fmt"
	"sort"
	"strings"

	_ "github.com/fedrepro/fedrepro/proofs/fedddpm" // registers the claim checks the report runs
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// Gates are the final metrics the golden gate compares: the log of the
// Fréchet distance (scale-free: 0.15 ≈ a 16% move, whatever the dataset's
// FD units) and the mode/class total-variation distances.
var Gates = []gate.Metric{
	{Name: "log_fd", Threshold: 0.15},
	{Name: "mode_tv", Threshold: 0.05},
	{Name: "class_tv", Threshold: 0.05},
}

func init() {
	paper.Register(paper.Define(paper.Definition[Spec, RunConfig, *sources]{
		Name:       "fedddpm",
		Title:      "Federated Learning for Diffusion Models (FedDDPM / FedDDPM+; Peng, Wang, Chen, Rao, Shen)",
		Specs:      specs,
		DataAt:     newSources,
		NotRun:     notRun,
		Run:        Execute,
		Report:     writeReport,
		Gates:      Gates,
		Components: components,
		CostRate:   costRate,
		Datasets:   []string{datasets.FashionMNISTName},
	}))
}

// evalPaths are the optional measurements of a run: FD curves during
// training (Fig. 7) and kept sample grids (Figs. 4–6).
var evalPaths = []string{"curves", "grid"}

// components lists every code path a spec selects by name, from the
// registries in spec.go: experiment kinds, every method (the FL methods,
// LocalAug and Table IV's centralized training), both data kinds, both
// partition kinds, both optimizers and the optimizer-state decision,
// both aggregation weightings, both sampler variances, FedDDPM+'s two
// policies when QuickTest never fires, both aux-set sizings and the
// optional measurements. The sources themselves are not paths beyond
// their kind (MNIST and CIFAR are not on this machine). Whether QuickTest
// fires is an outcome, not a configuration: TestQuickTestOutcomes checks
// the smoke golden for both. The smoke scale must run every component
// (TestCoverage).
func components() []string {
	var out []string
	add := func(kind string, names ...string) {
		for _, n := range names {
			out = append(out, kind+":"+n)
		}
	}
	add("kind", kinds...)
	add("method", allMethods...)
	add("method", centralMethod)
	add("data", dataKinds...)
	add("partition", partitionKinds...)
	add("optimizer", optimizers...)
	add("optimizer-state", optimizerStates...)
	add("weights", names(weightings)...)
	add("variance", names(variances)...)
	add("never-fired", names(neverFiredRules)...)
	add("aux", auxSizings...)
	add("eval", evalPaths...)
	return out
}

func names[T fmt.Stringer](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// Uses names the components a planned run exercises.
func (c RunConfig) Uses() []string {
	st := c.Setting
	v, err := variance(st.Denoiser.Variance)
	if err != nil {
		return []string{"variance:" + st.Denoiser.Variance}
	}
	out := []string{"kind:" + c.Kind, "method:" + c.Method, "data:" + dataKind(st.Source), "partition:" + partitionKind(c.Partition),
		"optimizer:" + optimizerOf(st), "variance:" + v.String()}
	if c.Kind != centralMethod {
		w, err := named("aggregation weighting", st.Weights, weightings)
		if err != nil {
			return []string{"weights:" + st.Weights}
		}
		out = append(out, "optimizer-state:"+optimizerStateOf(st), "weights:"+w.String())
	}
	if usesAux(c.Method) {
		out = append(out, "aux:"+auxSizing(st))
	}
	if c.Method == "fedddpm+" {
		nf, err := neverFired(st.QuickTest.NeverFired)
		if err != nil {
			return []string{"never-fired:" + st.QuickTest.NeverFired}
		}
		out = append(out, "never-fired:"+nf.String())
	}
	if c.Curves && st.Eval.CurveEvery > 0 {
		out = append(out, "eval:"+evalPaths[0])
	}
	if c.Grid && st.Eval.GridSamples > 0 {
		out = append(out, "eval:"+evalPaths[1])
	}
	return out
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
			if src.Available(st.Source) {
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
