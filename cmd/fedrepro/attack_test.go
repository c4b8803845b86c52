package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAttackBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"attack"}, "--paper is required"},
		{[]string{"attack", "--paper", "nope"}, `unknown paper "nope"`},
		{[]string{"attack", "--paper", "normec", "--scale", "huge"}, `--scale "huge"`},
		{[]string{"attack", "--paper", "normec", "stray"}, "unexpected argument"},
	} {
		code, out, errb := runCLI(c.args...)
		if code != 2 || !strings.Contains(errb, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, errb)
		}
	}
	// A known paper without a privacy figure: an honest empty answer.
	code, out, _ := runCLI("attack", "--paper", "fedddpm")
	if code != 0 || !strings.Contains(out, "no attack audits") {
		t.Errorf("fedddpm: exit %d, %q", code, out)
	}
}

// TestAttackCommand runs one smoke audit end to end, in text and JSON.
func TestAttackCommand(t *testing.T) {
	t.Setenv("FEDREPRO_SHARED", sharedDir(t))
	args := []string{"attack", "--paper", "upcycled", "--scale", "smoke", "--only", "output/fedavg/paper", "--seed", "1"}
	code, out, errb := runCLI(args...)
	if code != 0 || !strings.Contains(out, "output/fedavg/paper") || !strings.Contains(out, "budget-limited") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errb)
	}
	if strings.Contains(out, "skipped") {
		t.Skip("released Upcycled-FL data absent: " + out)
	}
	code, out, errb = runCLI(append(args, "--json")...)
	var rep struct {
		Paper   string `json:"paper"`
		Scale   string `json:"scale"`
		Attacks []struct {
			ID         string  `json:"id"`
			Claimed    float64 `json:"claimed_eps"`
			EpsLB      float64 `json:"eps_lb"`
			Confidence float64 `json:"confidence"`
			Budget     *bool   `json:"budget_limited"`
			Wall       float64 `json:"wall_seconds"`
		} `json:"attacks"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Paper != "upcycled" || rep.Scale != "smoke" || len(rep.Attacks) != 1 {
		t.Fatalf("JSON: exit %d, %q, %q", code, out, errb)
	}
	a := rep.Attacks[0]
	if a.ID != "output/fedavg/paper" || a.Confidence != 0.95 || a.Budget == nil || !(a.EpsLB > a.Claimed) || !(a.Wall > 0) {
		t.Errorf("row %+v", a)
	}
}
