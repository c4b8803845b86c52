package report

import (
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/attack"
)

func TestAttackVerdict(t *testing.T) {
	rows := []attack.Row{
		{ID: "vanilla", Claimed: 2, Accountant: 2, EpsLB: 0.5},
		{ID: "wav", Claimed: 2, Accountant: 1e6, EpsLB: 3, Refutes: true, BudgetLimited: true},
		{ID: "weak", Claimed: 5, Accountant: 40, EpsLB: 1},
		{ID: "capped", Claimed: 9, Accountant: math.Inf(1), EpsLB: 4, BudgetLimited: true},
		{ID: "barely", Claimed: 2, Accountant: 2.05, EpsLB: 1},
		{ID: "absent", Skipped: "no data"},
	}
	got := AttackVerdict(rows)
	for _, want := range []string{
		"1 of 5 audits refute", "the accountants refute 4 of the claims audited, and the attacks refute 1 of those",
		"weak (ε_lb 1 ≤ claimed 5; the attack was too weak at this budget)", "capped (ε_lb 4 ≤ claimed 9; limited by the trial budget)",
		"2 of 5 bounds are limited by the trial budget", "barely (ε_lb 1 ≤ claimed 2; the attack was too weak at this budget)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
	if got := AttackVerdict(rows[5:]); !strings.HasPrefix(got, "No attack ran") {
		t.Errorf("all skipped: %q", got)
	}
}

func TestAttacksSection(t *testing.T) {
	var d Doc
	rows, v := Attacks(&d, "normec", "default")
	if len(rows) == 0 || v == "" || !strings.Contains(d.String(), "ε_lb (95 %)") {
		t.Fatalf("recorded normec attacks not shown:\n%s", d.String())
	}
	if v != AttackVerdict(rows) {
		t.Fatalf("finding %q is not the rows' verdict", v)
	}
	var e Doc
	if rows, v := Attacks(&e, "normec", "smoke"); rows != nil || v != "" || !strings.Contains(e.String(), attack.RecordCommand("normec", "smoke")) {
		t.Fatalf("a scale without a recording must name the command:\n%s", e.String())
	}
}
