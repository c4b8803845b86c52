package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditClaimFirstScreen: the text report opens with every reading's
// tightest bound (the headline reading starred), flags a reading under
// another neighbouring relation, and says why an ε_LB cell is empty.
func TestAuditClaimFirstScreen(t *testing.T) {
	src := `schema: fedrepro-claim/1
id: screen
title: "first screen"
paper: {title: "T", authors: "A. Author", venue: "V", year: 2024, link: "https://example.org"}
source: {where: "here", quote: "ε = 1"}
accountant_used: {name: unknown}
unit: example
neighbouring: add-remove
delta: 1e-5
claimed_epsilon: 1.0
mechanism: gaussian
noise: {multiplier: 2}
steps: 16
readings:
  - name: stated
  - name: swapped
    neighbouring: replace-one
  - name: leaky
    bound_only: true
    steps: 64
`
	path := filepath.Join(t.TempDir(), "screen.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := runCLI("audit", "--claim", path, "--quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 10 || !strings.HasPrefix(lines[5], "ε by reading") || !strings.Contains(lines[6], "stated") || !strings.Contains(lines[6], "swapped") || !strings.Contains(lines[6], "leaky") {
		t.Fatalf("the first screen lacks the reading table:\n%s", out)
	}
	if !strings.Contains(lines[8], " *") {
		t.Errorf("no reading starred as the headline's:\n%s", out)
	}
	for _, want := range []string{
		"reading swapped assumes replace-one neighbouring; the claim states add-remove",
		"optimistic, proven [replace-one]",
		"- swapped: [replace-one reading; the claim states add-remove] claimed 1.0",
		"- leaky: ε_LB –: the reading over-approximates the mechanism (bound_only)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
