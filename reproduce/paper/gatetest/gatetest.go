// Package gatetest runs a paper's smoke-scale reproduction inside `go test`
// and gates it against golden/<paper>/smoke/results.json, so `make test`
// fails when a change moves a reproduced number. `go test … -update`
// (make golden) rewrites the golden file instead.
package gatetest

import (
	"context"
	"flag"
	"github.com/fedrepro/fedrepro/internal/goldenflag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
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
}
