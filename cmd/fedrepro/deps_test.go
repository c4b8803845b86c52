package main

import (
	"os/exec"
	"strings"
	"testing"
)

// testOnly reports whether a package must stay out of the fedrepro binary:
// package testing itself, and gopter with its sub-packages (its root package
// imports testing; the claim checks sample with proofs/sweep instead).
func testOnly(pkg string) bool {
	const gopter = "github.com/leanovate/gopter"
	return pkg == "testing" || pkg == gopter || strings.HasPrefix(pkg, gopter+"/")
}

// linkedTestOnly returns the packages of deps that testOnly forbids.
func linkedTestOnly(deps []string) []string {
	var bad []string
	for _, p := range deps {
		if testOnly(p) {
			bad = append(bad, p)
		}
	}
	return bad
}

// TestBinaryLinksNoTesting: `go list -deps ./cmd/fedrepro` — every package
// the binary links — holds neither testing nor gopter (issue 21).
func TestBinaryLinksNoTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages (%q): not the binary's dependencies", len(deps), out)
	}
	for _, p := range linkedTestOnly(deps) {
		t.Errorf("the fedrepro binary links %s (`go list -deps ./cmd/fedrepro`); test-only code belongs in _test.go files", p)
	}
}

// TestLinkedTestOnly: the filter catches testing and every gopter package,
// and nothing else (so TestBinaryLinksNoTesting can fail).
func TestLinkedTestOnly(t *testing.T) {
	tests := []struct {
		deps []string
		want string
	}{
		{[]string{"fmt", "math", "github.com/fedrepro/fedrepro/proofs/sweep"}, ""},
		{[]string{"fmt", "testing", "testing/quick"}, "testing"},
		{[]string{"github.com/leanovate/gopter", "github.com/leanovate/gopter/gen", "github.com/leanovate/gopterx"}, "github.com/leanovate/gopter github.com/leanovate/gopter/gen"},
	}
	for _, tc := range tests {
		if got := strings.Join(linkedTestOnly(tc.deps), " "); got != tc.want {
			t.Errorf("linkedTestOnly(%v) = %q, want %q", tc.deps, got, tc.want)
		}
	}
}
