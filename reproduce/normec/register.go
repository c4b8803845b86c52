package normec

import (
	"context"
	"fmt"
	"sort"
	"strings"

	_ "github.com/fedrepro/fedrepro/proofs/normec" // registers the claims `fedrepro verify` and the report run
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Gates are the final metrics the golden gate compares. Only runs of
// experiments marked `gate: true` carry them (with ≥ gate.MinSeeds seeds,
// so that the review tier's paired t-test has degrees of freedom to judge
// a shift with).
var Gates = []gate.Metric{
	{Name: "gate_acc", Threshold: 0.01},        // one accuracy point
	{Name: "gate_train_loss", Threshold: 0.02}, // final training loss
}

func init() {
	paper.Register(paper.Define(paper.Definition[Spec, RunConfig, *sources]{
		Name:   paperID,
		Title:  "First Provable Guarantees for Practical Private FL: Beyond Restrictive Assumptions (Fed-α-NormEC; Shulgin, Malinovsky, Khirirat, Richtárik)",
		Specs:  specs,
		DataAt: newSources,
		// Absent datasets are also listed in the report.
		NotRun: notRun,
		Run: paper.Loading(func(src *sources, c RunConfig) (*prepared, error) {
			return src.load(c.Dataset, c.Data.Pool)
		}, func(ctx context.Context, p *prepared, c RunConfig, seed uint64) (*runner.Outcome, error) {
			return Execute(ctx, p.train, p.test, c, seed)
		}),
		Report:     writeReport,
		Gates:      Gates,
		Components: components,
		Audits:     audits,
		// The paper's audited privacy figures as claim files, audited by the
		// general claim engine (`fedrepro audit --paper normec` and the report
		// print them as the "claims" table); claims_test.go checks that the
		// engine reproduces the numbers of this package's own audits.
		ClaimsAudit: "The experiments' noise formula through the claim engine (claims/normec-noise-formula.yaml): ε = 8 at δ = 1e-5?",
		CostRate:    costRate,
		Datasets:    []string{datasets.FashionMNISTName},
	}))
}

// components lists every code path a spec selects by name, from the
// registries in spec.go: both methods, models, splits, every noise
// setting, each method's local operators (NewStepper builds them apart),
// and — Fed-α-NormEC only, as FedAvg runs at p = 1 with no memory — both
// participation regimes and both memory modes. Datasets are not paths
// (one loader per file format; CIFAR-10 is not on this machine). The
// smoke scale must run every component (TestCoverage).
func components() []string {
	var out []string
	for _, l := range []struct {
		kind  string
		names []string
	}{{"method", knownMethods}, {"model", knownModels}, {"split", knownSplits}, {"noise", knownNoises}, {"participation", participation}} {
		for _, v := range l.names {
			out = append(out, l.kind+":"+v)
		}
	}
	for _, m := range memoryModes {
		out = append(out, "memory:"+m.String())
	}
	for _, m := range knownMethods {
		for _, k := range localKinds {
			out = append(out, "local:"+m+"/"+k.name)
		}
	}
	return out
}

// Uses names the components a planned run exercises. The memory mode
// counts only at p < 1: with every client participating both modes
// update every memory, so a run at p = 1 cannot tell them apart.
func (c RunConfig) Uses() []string {
	_, local := localOperator(c.Training.LocalSteps)
	out := []string{"method:" + c.Method, "model:" + c.Model, "split:" + c.Split, "noise:" + c.Noise, "local:" + c.Method + "/" + local}
	if c.Method == "normec" {
		out = append(out, "participation:"+participationOf(c.P))
		if c.P < 1 {
			out = append(out, "memory:"+c.Training.Memory)
		}
	}
	return out
}

// notRun lists the absent datasets, one "not run: …" line each naming the
// experiments that would have used them.
func notRun(s *Spec, src *sources) []string {
	exps := map[string][]string{}
	var order []string
	for _, e := range s.Experiments {
		for _, ds := range e.Datasets {
			if src.Available(ds) {
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
