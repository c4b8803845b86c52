package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/fedrepro/fedrepro"

// layer ranks a package of the module: internal helpers (0) under
// algorithms (1) under proofs, claims and golden (2) under reproduce (3)
// under the commands, scripts and deployment tools (4). -1: not a package of the module.
func layer(path string) int {
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return -1
	}
	top, _, _ := strings.Cut(rel, "/")
	switch top {
	case "internal":
		return 0
	case "algorithms":
		return 1
	case "proofs", "claims", "golden":
		return 2
	case "reproduce":
		return 3
	case "cmd", "scripts", "deploy":
		return 4
	}
	return 99 // an unknown top folder: place it in this table
}

type listed struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
	Deps                               []string
}

// goList runs `go list -json args…` and decodes its stream of packages.
func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-json"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// testReach are the upward imports tests may make, with the reason: the
// privacy and convergence claim files' golden tests compare every audited
// number through the exact tier's named comparison (reproduce/gate), the
// one comparison all goldens share; and claims' TestPaperAuditsGatedHere
// gates the papers' "claims" audit section of golden/<paper>/audits.json
// with the paper gate's own flattening (gatetest.FlattenTable), which is
// why the paper gates need not compute it, and checks that table's row
// contract with the paper packages' own check (papertest.AuditTableExact),
// which is why their audit tests need not compute it. Only tests: the binary never
// takes them.
var testReach = map[[2]string]bool{
	{module + "/claims", module + "/reproduce/gate"}:             true,
	{module + "/claims/convergence", module + "/reproduce/gate"}: true,
	{module + "/claims", module + "/reproduce/paper/gatetest"}:   true,
	{module + "/claims", module + "/reproduce/paper/papertest"}:  true,
}

// TestLayers: dependencies point down only (algorithms → proofs/claims →
// reproduce → cmd): no package imports a package of a higher layer, and
// no test does either, but for the reaches listed in testReach.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("go list over the module")
	}
	pkgs := goList(t, "-e", module+"/...")
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		own := layer(p.ImportPath)
		if own == 99 {
			t.Errorf("%s: a top-level folder the layer table does not know", p.ImportPath)
			continue
		}
		for _, set := range []struct {
			what string
			imps []string
		}{{"imports", p.Imports}, {"test imports", p.TestImports}, {"external test imports", p.XTestImports}} {
			for _, imp := range set.imps {
				if l := layer(imp); l > own && !(set.what != "imports" && testReach[[2]string{p.ImportPath, imp}]) {
					t.Errorf("%s %s %s, a higher layer (%d > %d)", p.ImportPath, set.what, imp, l, own)
				}
			}
		}
	}
}

// TestNoTestingInBinary: nothing the fedrepro binary links imports
// package testing (test helpers such as gatetest stay in tests; the claim
// checks sample with proofs/sweep, and gopter stays in _test.go files).
// It names the importer; TestBinaryLinksNoTesting checks the list itself.
func TestNoTestingInBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("go list over the binary's dependencies")
	}
	for _, p := range goList(t, "-deps", "./") {
		for _, imp := range p.Imports {
			if imp == "testing" {
				t.Errorf("%s imports testing, so it ships in the fedrepro binary", p.ImportPath)
			}
		}
	}
}
