package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// requiredFiles are the files every paper package reproduce/<paper> has
// (ARCHITECTURE.md, "Adding a paper"): its registration, spec types and
// embedded specs, run execution, cost model, report, findings, and the
// gate tests.
var requiredFiles = []string{
	"register.go", "spec.go", "exec.go", "cost.go", "report.go", "findings.go", "gate_test.go",
	"specs/smoke.yaml", "specs/default.yaml",
}

// registeredAudits counts each paper's audits as the paper packages
// register them, before any test adds its own (audit_test.go registers
// stand-ins): package variables initialise after every import's init.
var registeredAudits = func() map[string]int {
	out := map[string]int{}
	for _, p := range paper.Names() {
		out[p] = len(audit.Entries(p))
	}
	return out
}()

// requiredTests are the tests gate_test.go must declare.
var requiredTests = []string{"TestGate", "TestCoverage"}

// TestPaperStructure fails when a registered paper lacks a required part:
// a derived function left nil, a scale list without smoke and its default,
// no gated metric, a missing file of the paper package, a golden the gate
// reads, or — for a paper with claims or audits — their gate and golden.
func TestPaperStructure(t *testing.T) {
	root := filepath.Join("..", "..")
	names := paper.Names()
	if len(names) == 0 {
		t.Fatal("no paper is registered (cmd/fedrepro/papers.go imports them)")
	}
	if !slices.Equal(names, knownPapers) {
		t.Errorf("the CLI's papers %v are not the registry's %v", knownPapers, names)
	}
	// The claim files' list of reproduced papers (an ordered list: the
	// claims README's tables follow it) names registered papers only, and
	// every registered paper that has claim files.
	for _, p := range claims.Papers {
		if !slices.Contains(names, p) {
			t.Errorf("claims.Papers names %s, which is not a registered paper", p)
		}
	}
	for _, name := range names {
		if len(claims.ForPaper(name)) > 0 && !slices.Contains(claims.Papers, name) {
			t.Errorf("claims/%s-*.yaml exist but claims.Papers lacks %s (its claims would count as the library's)", name, name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p, _ := paper.Lookup(name)
			if p.Title == "" {
				t.Error("no title")
			}
			for field, missing := range map[string]bool{
				"Plan": p.Plan == nil, "Exec": p.Exec == nil, "Report": p.Report == nil, "Cost": p.Cost == nil,
				"Describe": p.Describe == nil, "Components": p.Components == nil, "Uses": p.Uses == nil, "SpecSource": p.SpecSource == nil,
			} {
				if missing {
					t.Errorf("%s is nil: define it in the paper's Definition", field)
				}
			}
			if !(p.CostRate > 0) {
				t.Error("no CostRate: the cost model predicts no CPU time")
			}
			if len(p.Gates) == 0 {
				t.Error("no gated metric")
			}
			if !slices.Contains(p.Scales, "smoke") || !slices.Contains(p.Scales, p.DefaultScale) {
				t.Errorf("scales %v must hold smoke and the default %q", p.Scales, p.DefaultScale)
			}
			for _, s := range p.Scales {
				if exps, err := p.Describe(s); err != nil || len(exps) == 0 {
					t.Errorf("scale %s describes no experiment (%v)", s, err)
				}
			}
			if p.Components != nil && len(p.Components()) == 0 {
				t.Error("no component declared (the coverage gate would check nothing)")
			}
			dir := filepath.Join(root, "reproduce", name)
			for _, f := range requiredFiles {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("reproduce/%s lacks %s", name, f)
				}
			}
			gt, err := os.ReadFile(filepath.Join(dir, "gate_test.go"))
			if err != nil {
				return
			}
			tests := slices.Clone(requiredTests)
			if len(proofs.Claims(name)) > 0 {
				tests = append(tests, "TestClaims")
			}
			for _, test := range tests {
				if !regexp.MustCompile(`(?m)^func ` + test + `\(t \*testing\.T\)`).Match(gt) {
					t.Errorf("reproduce/%s/gate_test.go lacks %s", name, test)
				}
			}
			goldens := []string{filepath.Join(name, "smoke", "results.json")}
			if len(proofs.Claims(name)) > 0 {
				goldens = append(goldens, filepath.Join(name, "claims.yaml"))
			}
			if registeredAudits[name] > 0 {
				goldens = append(goldens, filepath.Join(name, "audits.json"))
			}
			for _, g := range goldens {
				if _, err := os.Stat(filepath.Join(root, "golden", g)); err != nil {
					t.Errorf("golden/%s is missing (make golden PAPER=%s records it)", g, name)
				}
			}
		})
	}
}
