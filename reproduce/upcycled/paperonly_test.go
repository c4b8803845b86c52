package upcycled

import (
	"slices"
	"strings"
	"testing"
)

// TestPaperOnly: the report's "run at --scale paper only" item names what
// the paper spec runs and the default spec does not — whole experiments,
// data sources, modes, methods — and nothing the default spec runs.
func TestPaperOnly(t *testing.T) {
	def, _ := scalePlan(t, "default")
	got := paperOnly(def)
	names := make([]string, len(got))
	for i, g := range got {
		names[i], _, _ = strings.Cut(g, " ")
	}
	for _, want := range []string{"table1", "table3", "table1_tuned", "table3_tuned", "fig3_output", "fig4_objective"} {
		if !slices.Contains(names, want) {
			t.Errorf("%q not listed: %q", want, got)
		}
	}
	for _, g := range got {
		switch {
		case strings.HasPrefix(g, "table1 ") && (strings.Contains(g, "paper mode") || strings.Contains(g, "released")):
			t.Errorf("the default runs Table 1 on the released data in both modes: %q", g)
		case strings.HasPrefix(g, "table3 ") && !strings.Contains(g, "paper mode"):
			t.Errorf("Table 3's paper mode missing: %q", g)
		case strings.HasPrefix(g, "femnist"):
			t.Errorf("FEMNIST has its own item: %q", g)
		}
	}
	pap, _ := scalePlan(t, "paper")
	if got := paperOnly(pap); got != nil {
		t.Errorf("paper scale lists %q", got)
	}
}
