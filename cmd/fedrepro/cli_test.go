package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/gate"
)

// call runs the CLI in-process and returns exit code, stdout and stderr.
func call(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func sharedDir(t *testing.T) string {
	t.Helper()
	d, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared"))
	if _, err := os.Stat(filepath.Join(d, "datasets", "upcycled-synthetic")); err != nil {
		t.Skipf("released Upcycled-FL data not found at %s", d)
	}
	return d
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, ""},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"reproduce"}, 2, "--paper is required"},
		{[]string{"reproduce", "--paper", "nope"}, 2, `unknown paper "nope"`},
		{[]string{"reproduce", "--paper", "upcycled", "--scale", "huge"}, 2, `no scale "huge"`},
		{[]string{"reproduce", "--paper", "upcycled", "--shard", "3/2"}, 2, "--shard"},
		{[]string{"reproduce", "--paper", "upcycled", "--workers", "-1"}, 2, "--workers"},
		{[]string{"reproduce", "--paper", "upcycled", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"verify", "--paper", "nope"}, 2, "unknown paper"},
		{[]string{"list", "extra"}, 2, "unexpected argument"},
	}
	for _, c := range cases {
		code, _, errs := call(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d stderr %q; want exit %d containing %q", c.args, code, errs, c.code, c.want)
		}
		if c.want != "" && strings.Count(strings.TrimSpace(errs), "\n") > 0 && !strings.Contains(errs, "Usage") {
			t.Errorf("%v: error is not one line: %q", c.args, errs)
		}
	}
}

func TestReproduceBadSpecAndExperiment(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte("paper: upcycled\nscale: smoke\nseeds: [1]\nexperiments:\n  - name: x\n    sigma_typo: 1\n"), 0o644)
	code, _, errs := call("reproduce", "--paper", "upcycled", "--scale", "smoke", "--spec", spec, "--results", dir)
	if code != 1 || !strings.Contains(errs, spec+":6: unknown key \"sigma_typo\"") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = call("reproduce", "--paper", "upcycled", "--scale", "smoke", "--experiment", "table9", "--results", dir)
	if code != 2 || !strings.Contains(errs, `unknown experiment "table9"`) || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 { // only spec.yaml: nothing half-written
		t.Fatalf("bad input wrote files: %v", entries)
	}
}

func TestReproduceOneExperimentAndResume(t *testing.T) {
	shared := sharedDir(t)
	dir := t.TempDir()
	args := []string{"reproduce", "--paper", "upcycled", "--scale", "smoke", "--experiment", "fig3_output",
		"--shared-dir", shared, "--results", filepath.Join(dir, "res"), "--reports", filepath.Join(dir, "rep"), "--json"}
	code, out, errs := call(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	runs := sum["runs"].(float64) // the experiment's size is the spec's business
	if runs < 1 || sum["ran"].(float64) != runs || sum["reused"].(float64) != 0 {
		t.Fatalf("first run: %v", sum)
	}
	code, out, _ = call(args...)
	json.Unmarshal([]byte(out), &sum)
	if code != 0 || sum["ran"].(float64) != 0 || sum["reused"].(float64) != runs {
		t.Fatalf("resume: exit %d %v", code, sum)
	}
	if !strings.Contains(errs, "report needs every experiment") {
		t.Errorf("a partial run should say why no report was written: %q", errs)
	}
}

func TestCompareWithoutResults(t *testing.T) {
	code, _, errs := call("compare", "--paper", "upcycled", "--scale", "smoke", "--no-run", "--results", t.TempDir(), "--golden", filepath.Join("..", "..", "golden"))
	if code != 1 || !strings.Contains(errs, "results incomplete") {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
}

// compare --update records a golden file from the results (running what is
// missing); comparing the same results with it then finds every value equal.
// A golden whose values differ — by one ulp in one run, or by a shift of
// every seed of one cell — fails the exact gate with a table, and the review
// table calls the shifted cell "shifted".
func TestCompareUpdateThenCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the upcycled smoke scale")
	}
	golden, results := t.TempDir(), t.TempDir()
	base := []string{"compare", "--paper", "upcycled", "--scale", "smoke", "--results", results,
		"--shared-dir", sharedDir(t)}
	if code, _, errs := call(append(base, "--golden", golden, "--update", "--no-run")...); code != 2 {
		t.Errorf("--update --no-run: exit %d, want 2 (%q)", code, errs)
	}
	code, out, errs := call(append(base, "--golden", golden, "--update")...)
	if code != 0 || !strings.Contains(out, "results.json") {
		t.Fatalf("--update: exit %d out %q stderr %q", code, out, errs)
	}
	code, out, errs = call(append(base, "--golden", golden, "--no-run")...)
	if code != 0 || !strings.Contains(out, "every value equal to the golden") {
		t.Fatalf("compare after --update: exit %d out %q stderr %q", code, out, errs)
	}
	path := filepath.Join(golden, "upcycled", "smoke", "results.json")
	g, err := gate.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	cell := g.Runs[0].Cell
	for i := range g.Runs {
		if g.Runs[i].Cell == cell && g.Runs[i].Experiment == g.Runs[0].Experiment {
			g.Runs[i].Values["final/acc"] += 0.05
		}
	}
	g.Runs[len(g.Runs)-1].Values["final/loss"] = math.Nextafter(g.Runs[len(g.Runs)-1].Values["final/loss"], 0)
	old := filepath.Join(t.TempDir(), "old.json")
	if err := gate.Write(old, g); err != nil {
		t.Fatal(err)
	}
	code, out, errs = call(append(base, "--golden", old, "--no-run")...)
	if code != 1 || !strings.Contains(errs, "values moved") {
		t.Fatalf("compare against a changed golden: exit %d stderr %q", code, errs)
	}
	for _, want := range []string{"shifted", cell, "rel. change", "exact gate"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = call(append(base, "--golden", old, "--no-run", "--json")...)
	var doc struct {
		Differences int `json:"differences"`
		Review      []struct {
			Cell, Metric, Verdict string
		} `json:"review"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 {
		t.Fatalf("--json: exit %d, %v", code, err)
	}
	if doc.Differences != 5 || doc.Review[0].Verdict != "shifted" || doc.Review[0].Cell != cell {
		t.Errorf("--json: %d differences (want 4 shifted seeds + 1 ulp), first review row %+v", doc.Differences, doc.Review[0])
	}
}

func TestListJSON(t *testing.T) {
	code, out, errs := call("list", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Schema  int `json:"schema_version"`
		Entries []struct {
			Paper       string `json:"paper"`
			Experiments []struct {
				Scale, Name string
				Runs        int
			} `json:"experiments"`
		} `json:"papers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != JSONSchema {
		t.Fatal(err, doc.Schema)
	}
	entries := doc.Entries
	if len(entries) != len(knownPapers) || entries[0].Paper != knownPapers[0] || len(entries[0].Experiments) == 0 {
		t.Fatalf("list: %+v", entries)
	}
}

// An explicit --data-dir that lacks a dataset falls back to the project's
// copy, and says so in one line.
func TestDataDirFallbackIsSaid(t *testing.T) {
	shared := sharedDir(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	code, _, errs := call("reproduce", "--paper", "upcycled", "--scale", "smoke", "--experiment", "fig3_output", "--quiet",
		"--data-dir", filepath.Join(dir, "data"), "--shared-dir", shared, "--results", filepath.Join(dir, "res"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(errs, "synthetic_iid is not under --data-dir"); n != 1 {
		t.Errorf("the fallback is said %d times, want once:\n%s", n, errs)
	}
}
