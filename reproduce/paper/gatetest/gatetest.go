// Package gatetest runs a paper's smoke-scale reproduction inside `go test`
// and gates it against golden/<paper>/smoke/results.json, so `make test`
// fails when a change moves a reproduced number. `go test … -update`
// (make golden) rewrites the golden file instead.
package gatetest

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/internal/goldenflag"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
)

var (
	update = goldenflag.Update
	scale  = flag.String("gate-scale", "smoke", "scale to gate (smoke in CI; make golden SCALE=default records default)")
)

// Root returns the module root, found by walking up to go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Run executes the gate for the named paper.
func Run(t *testing.T, name string) {
	t.Helper()
	p, ok := paper.Lookup(name)
	if !ok {
		t.Fatalf("paper %s is not registered", name)
	}
	root := Root(t)
	o := paper.Options{
		Scale:      *scale,
		ResultsDir: t.TempDir(),
		SharedDir:  filepath.Join(root, "..", "shared"),
	}
	golden := filepath.Join(root, "golden")
	ctx := context.Background()
	if *update {
		path, err := p.UpdateGolden(ctx, o, golden)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	findings, err := p.Compare(ctx, o, golden, true)
	if err != nil {
		t.Fatal(err)
	}
	failed := gate.Failed(findings)
	for _, f := range findings {
		t.Log(f.String())
	}
	if len(failed) > 0 {
		var lines []string
		for _, f := range failed {
			lines = append(lines, f.String())
		}
		t.Fatalf("%d of %d gated cells of %s/%s moved:\n%s", len(failed), len(findings), name, o.Scale, strings.Join(lines, "\n"))
	}
	checkReport(t, ctx, p, o)
}

// checkReport writes the paper's report from the results the gate just
// made (every run is reused, so only the report is computed) and checks
// that README.md and a decodable summary.json with cells appear: the
// report writer runs in CI at smoke scale, claims and audits included.
func checkReport(t *testing.T, ctx context.Context, p *paper.Paper, o paper.Options) {
	t.Helper()
	o.ReportsDir = t.TempDir()
	sum, err := p.Reproduce(ctx, o)
	if err != nil {
		t.Fatalf("writing the %s report: %v", p.Name, err)
	}
	if sum.Ran != 0 {
		t.Errorf("the report ran %d runs again; the gate's results should have been reused", sum.Ran)
	}
	dir := filepath.Join(o.ReportsDir, p.Name)
	md, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || len(md) == 0 {
		t.Fatalf("report README.md missing or empty: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if s.Paper != p.Name || s.Scale != o.Scale || len(s.Cells) == 0 {
		t.Errorf("summary.json: paper %q scale %q with %d cells", s.Paper, s.Scale, len(s.Cells))
	}
}
