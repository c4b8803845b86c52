package main

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
)

// emptyPaper returns a known paper with no registered audit, or "".
func emptyPaper() string {
	for _, p := range knownPapers {
		if len(audit.Entries(p)) == 0 {
			return p
		}
	}
	return ""
}

func TestAuditBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"audit"}, "--paper is required"},
		{[]string{"audit", "--paper", "nope"}, `unknown paper "nope"`},
		{[]string{"audit", "--paper", "haar", "--seed", "-1"}, "seed"},
		{[]string{"audit", "--paper", "haar", "stray"}, "unexpected argument"},
	} {
		code, out, errb := runCLI(c.args...)
		if code != 2 || !strings.Contains(errb, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, errb)
		}
	}
}

// TestAuditRegistered runs the command end to end on a paper that has no
// audits yet: first the honest "no audits yet", then with test entries.
func TestAuditRegistered(t *testing.T) {
	p := emptyPaper()
	if p == "" {
		t.Skip("every paper has registered audits")
	}
	code, out, _ := runCLI("audit", "--paper", p)
	if code != 0 || out != p+": no audits yet\n" {
		t.Errorf("empty paper: exit %d, %q", code, out)
	}
	code, out, _ = runCLI("audit", "--paper", p, "--json")
	var rep struct {
		Paper  string            `json:"paper"`
		Audits []json.RawMessage `json:"audits"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Paper != p || rep.Audits == nil || len(rep.Audits) != 0 {
		t.Errorf("empty paper JSON: exit %d, %q", code, out)
	}

	var got audit.Options
	audit.Register(audit.Entry{Paper: p, ID: "cli-test", Title: "CLI rendering test", Run: func(o audit.Options) (audit.Table, error) {
		got = o
		return audit.Table{
			Columns: []string{"name", "epsilon", "lb"},
			Rows: []audit.Row{
				{"name": "a", "epsilon": 1.23456789, "lb": math.Inf(1)},
				{"name": "b", "epsilon": 2.0, "lb": 0.5},
			},
			Notes:   []string{"assumptions stated here"},
			Verdict: "consistent",
		}, nil
	}})
	code, out, errb := runCLI("audit", "--paper", p, "--quick", "--seed", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !got.Quick || got.Seed != 7 {
		t.Errorf("options not passed through: %+v", got)
	}
	for _, want := range []string{"## cli-test — CLI rendering test", "name  epsilon", "-----", "1.23457", "∞", "- assumptions stated here", "verdict: consistent"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NAME") || strings.Contains(out, "EPSILON") {
		t.Errorf("headers were upper-cased:\n%s", out)
	}
	// Stable output: the same run prints the same bytes.
	if _, again, _ := runCLI("audit", "--paper", p, "--quick", "--seed", "7"); again != out {
		t.Error("output is not stable across runs")
	}
	code, out, _ = runCLI("audit", "--paper", p, "--json")
	var full struct {
		Paper  string        `json:"paper"`
		Audits []audit.Table `json:"audits"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &full) != nil || len(full.Audits) != 1 {
		t.Fatalf("JSON: exit %d\n%s", code, out)
	}
	a := full.Audits[0]
	if a.ID != "cli-test" || a.Rows[0]["lb"] != nil || a.Rows[1]["lb"] != 0.5 || a.Verdict != "consistent" {
		t.Errorf("JSON table %+v (∞ must become null)", a)
	}

	// A failing audit is an error naming it.
	audit.Register(audit.Entry{Paper: p, ID: "cli-test-fail", Title: "fails", Run: func(audit.Options) (audit.Table, error) {
		return audit.Table{}, errors.New("dataset missing")
	}})
	code, _, errb = runCLI("audit", "--paper", p)
	if code != 1 || !strings.Contains(errb, "cli-test-fail: dataset missing") || strings.Count(errb, "\n") != 1 {
		t.Errorf("failing audit: exit %d, %q", code, errb)
	}
}

// TestAuditClaim runs `audit --claim` end to end on a small claim file
// whose readings get different verdicts, in text and JSON.
func TestAuditClaim(t *testing.T) {
	code, out, errb := runCLI("audit", "--claim", "testdata/claim-small.yaml", "--quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"claim-small — A test claim", "→ UNDERSPECIFIED", "sixteen", "sixty-four", "optimistic, proven",
		"- sixty-four: claimed 1.5 (+0.05 printed precision) <", "ε ratio", "verdict: underspecified: the readings disagree — consistent under sixteen; optimistic under sixty-four"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errb = runCLI("audit", "--claim", "testdata/claim-small.yaml", "--quick", "--json")
	var rep claim.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("JSON: exit %d %s\n%s", code, errb, out)
	}
	if rep.SchemaVersion != claim.SchemaVersion || rep.Claim.ID != "claim-small" || len(rep.Cases) != 1 || len(rep.Cases[0].Readings) != 2 {
		t.Fatalf("JSON report %+v", rep)
	}
	r0, r1 := rep.Cases[0].Readings[0], rep.Cases[0].Readings[1]
	if rep.Cases[0].Verdict != claim.Underspecified || r0.Verdict != claim.Consistent || r1.Verdict != claim.Optimistic ||
		r1.Upper == nil || r1.Upper.Method != claim.MExact || r1.Proven != "lower-bound" {
		t.Errorf("verdicts: case %s, readings %s (%s) and %s (%s, upper %+v, proven %q)", rep.Cases[0].Verdict, r0.Verdict, r0.Reason, r1.Verdict, r1.Reason, r1.Upper, r1.Proven)
	}
	// A built-in claim by id.
	if code, out, errb := runCLI("audit", "--claim", "gboard-es-dpftrl"); code != 0 || !strings.Contains(out, "→ CONSISTENT") {
		t.Errorf("library id: exit %d %s\n%s", code, errb, out)
	}
	code, out, _ = runCLI("audit", "--library", "--json")
	var lib libraryDoc
	if code != 0 || json.Unmarshal([]byte(out), &lib) != nil || len(lib.Claims) < 10 {
		t.Errorf("library JSON: exit %d\n%s", code, out)
	}
}

// TestAuditClaimBadFiles: a bad claim file gets one line naming the file
// (and line), exit 1; conflicting modes are usage errors.
func TestAuditClaimBadFiles(t *testing.T) {
	good, err := os.ReadFile("testdata/claim-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"unknown key", "unit: example\n", "unit: example\nunits: user\n", `:7: unknown key "units"`},
		{"bad mechanism", "mechanism: gaussian", "mechanism: gauss", `:12: reading sixteen: mechanism "gauss": want one of`},
		{"unknown variable", "steps: E", "steps: F", `:14: reading sixteen: steps: unknown name "F"`},
		{"fractional steps", `steps: "4*E"`, `steps: "E/3"`, `:18: reading sixty-four: steps = 5.333333333333333: want a whole number`},
		{"formula syntax", `steps: "4*E"`, `steps: "4*(E"`, `:18: reading sixty-four: steps:`},
		{"bad delta", "delta: 1e-5", "delta: 2", "delta = 2: want 0 ≤ δ < 1"},
		{"fixed batch under add-remove", "steps: E\n", "steps: E\nsampling: {kind: fixed-batch, batch: 10, population: 100}\n", "has a bound only under replace-one"},
		{"not YAML", "schema:", "schema: [", "claim-small.yaml:"},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("%s: mutation not applied", c.name)
		}
		path := filepath.Join(dir, "claim-small.yaml")
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errb := runCLI("audit", "--claim", path)
		if code != 1 || out != "" || strings.Count(errb, "\n") != 1 || !strings.Contains(errb, c.want) || !strings.Contains(errb, "claim-small.yaml") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q (want %q)", c.name, code, out, errb, c.want)
		}
	}
	if code, _, errb := runCLI("audit", "--claim", "x.yaml", "--paper", "haar"); code != 2 || !strings.Contains(errb, "one of --paper, --claim and --library") {
		t.Errorf("two modes: exit %d %q", code, errb)
	}
	if code, _, errb := runCLI("audit", "--claim", filepath.Join(dir, "absent.yaml")); code != 1 || !strings.Contains(errb, "no such file") {
		t.Errorf("absent file: exit %d %q", code, errb)
	}
}
