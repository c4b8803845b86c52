package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditConvergence runs `audit --claim` on a convergence claim end to
// end: the text table and verdict, JSON with schema_version, --save of the
// counterexample and --instance replaying it to the same violation.
func TestAuditConvergence(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "ce.json")
	code, out, errb := runCLI("audit", "--claim", "../../claims/convergence/gd-too-tight-4t4.yaml", "--save", save)
	if code != 0 || !strings.Contains(out, "verdict: VIOLATED") || !strings.Contains(out, "huber") || errb != "" {
		t.Fatalf("text: exit %d, stdout %q, stderr %q", code, out, errb)
	}
	code, out, _ = runCLI("audit", "--claim", "gd-too-tight-4t4", "--instance", save)
	if code != 0 || !strings.Contains(out, "VIOLATED on this instance") {
		t.Fatalf("replay: exit %d, %q", code, out)
	}
	code, out, _ = runCLI("audit", "--claim", "gd-too-tight-4t4", "--json", "--budget", "0.5")
	var rep struct {
		Schema   int    `json:"schema_version"`
		Verdict  string `json:"verdict"`
		Readings []struct {
			Worst struct {
				Instance struct {
					Family string `json:"family"`
				} `json:"instance"`
			} `json:"worst"`
		} `json:"readings"`
		Budget struct {
			Draws int `json:"draws_per_family_point"`
		} `json:"budget"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Schema != JSONSchema || rep.Verdict != "violated" || rep.Budget.Draws != 3 {
		t.Fatalf("json: exit %d, %+v, %q", code, rep, out)
	}
	// A privacy claim still goes to the privacy engine (one whose audit
	// takes milliseconds: the routing is what is tested here).
	code, out, _ = runCLI("audit", "--claim", "gboard-es-dpftrl", "--json")
	if code != 0 || strings.Contains(out, "fedrepro-convergence") || !strings.Contains(out, "cases") {
		t.Errorf("privacy claim: exit %d", code)
	}
}

// TestAuditConvergenceBadInput: one line per mistake, usage errors exit 2.
func TestAuditConvergenceBadInput(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../claims/convergence/drori2014-gd-tight.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(string(src), "bound: L*R2/(4*T + 2)", "bound: L*R3/(4*T + 2)", 1)), 0o644)
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte(`{"format": "x"}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"audit", "--claim", bad}, 1, `unknown name "R3"`},
		{[]string{"audit", "--claim", "drori2014-gd-tight", "--budget", "0"}, 2, "--budget"},
		{[]string{"audit", "--claim", "drori2014-gd-tight", "stray"}, 2, "unexpected argument"},
		{[]string{"audit", "--claim", "drori2014-gd-tight", "--instance", junk}, 1, "format"},
		{[]string{"audit", "--claim", "drori2014-gd-tight", "--instance", filepath.Join(dir, "none.json")}, 1, "instance file"},
	} {
		code, out, errb := runCLI(c.args...)
		if code != c.code || !strings.Contains(errb, c.want) || out != "" || strings.Count(strings.TrimSpace(errb), "\n") > 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, errb)
		}
	}
}
