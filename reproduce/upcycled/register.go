package upcycled

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func init() {
	paper.Register(paper.Define(paper.Definition[Spec, RunConfig, *sources]{
		Name:  paperID,
		Title: "Federated Learning with Reduced Information Leakage and Computation (Upcycled-FL; Yin et al., TMLR 2024)",
		Specs: specs,
		Data:  func(o paper.Options, s *Spec) *sources { return newSourcesFor(o, s.GeneratorSeed) },
		// Missing sources are also listed by the report.
		Plan:   func(s *Spec, src *sources) ([]runner.Run, error) { return s.Plan(src.available) },
		NotRun: notRun,
		Notes:  fallbackNotes,
		All:    func(s *Spec) ([]runner.Run, error) { return s.Plan(func(string, string) bool { return true }) },
		Run: paper.Loading(func(src *sources, c RunConfig) (*data.Federated, error) {
			return src.load(c.Source, c.Dataset)
		}, Execute),
		Report:     writeReport,
		CostRate:   costRate,
		Components: components,
		Audits:     audits,
		// The paper's audited privacy figures as claim files, audited by the
		// general claim engine (`fedrepro audit --paper upcycled` and the report
		// print them as the "claims" table); claims_test.go checks that the
		// engine reproduces the numbers of this package's own audits.
		ClaimsAudit: "Upcycled-FL's printed ε̄ through the claim engine (claims/upcycled-*.yaml): output perturbation (Fig. 3, App. F.1) and objective perturbation (Fig. 4)",
		Gates: []gate.Metric{
			{Name: "acc", Threshold: 0.01},  // one accuracy point
			{Name: "loss", Threshold: 0.02}, // final test loss
		},
		// The audits read the released data (their privacy figures refer to it).
		AuditData: func(o paper.Options) string {
			return filepath.Join(o.SharedDir, "datasets", "upcycled-synthetic")
		},
		Datasets: []string{datasets.UpcycledName},
	}))
}

// fallbackNotes are the plan's notes after notRun's: for the released
// datasets the asked experiments read, each project copy used in place of
// a --data-dir that lacks it.
func fallbackNotes(o paper.Options, s *Spec, src *sources) []string {
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
	return src.fallbacks(released)
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
