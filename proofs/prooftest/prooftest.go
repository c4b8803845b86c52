// Package prooftest holds what the proofs packages' tests share. It
// imports package testing, so only _test.go files may import it (the
// binary's TestNoTestingInBinary keeps it out of fedrepro).
package prooftest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ConvergenceVerdict is the generic convergence engine's verdict on
// claims/convergence/<id>.yaml as claims/convergence's TestGolden pins it
// (golden/convergence/<id>.json: that test audits every file with seed
// proofs.DefaultSeed and its own budget, and compares the verdict and the
// worst instance's numbers). A hand-written check's agreement test reads
// the engine's side from here: engine = golden there, hand = golden here,
// without auditing the file a second time in one `make test`.
func ConvergenceVerdict(t testing.TB, id string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "golden", "convergence", id+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record it with `make golden-convergence`)", err)
	}
	var g struct {
		Values struct {
			Strings map[string]string `json:"strings"`
		} `json:"values"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v, ok := g.Values.Strings["verdict"]
	if !ok || v == "" {
		t.Fatalf("%s records no verdict (re-record it with `make golden-convergence`)", path)
	}
	return v
}

// ModuleRoot is the nearest folder above the working directory holding
// go.mod (tests run in their package's folder): where golden/ and
// claims/ are.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = up
	}
}
