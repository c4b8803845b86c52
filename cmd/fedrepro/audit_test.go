package main

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
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
