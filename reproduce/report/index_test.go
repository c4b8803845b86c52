package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// The committed cross-paper page is what the committed summaries generate:
// `make reproduce` of any paper rewrites it, and nobody edits it by hand.
func TestCommittedIndex(t *testing.T) {
	dir := filepath.Join("..", "..", "reports")
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatalf("reports/README.md: %v (make reproduce writes it)", err)
	}
	want, err := Index(dir)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Fatalf("reports/README.md is not what reports/*/summary.json generate; run `make reproduce PAPER=<any>` (or report.WriteIndex) and commit it")
	}
}

// A committed report records the clean commits its results came from: a
// run from a modified tree cannot be traced to any code, so a report whose
// provenance says "dirty" (or names no commit) is refused.
func TestCommittedReportsClean(t *testing.T) {
	dir := filepath.Join("..", "..", "reports")
	sums, err := filepath.Glob(filepath.Join(dir, "*", "summary.json"))
	if err != nil || len(sums) == 0 {
		t.Fatalf("no committed summary.json under reports/ (%v)", err)
	}
	for _, f := range sums {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := cleanProvenance(s.Provenance); err != nil {
			t.Errorf("%s: %v; regenerate it with `make reproduce PAPER=%s` from a clean checkout", f, err, s.Paper)
		}
	}
}

// The check itself refuses what it must.
func TestCleanProvenance(t *testing.T) {
	ok := &runner.Provenance{Commit: "79985f6d2c2b1e3f00000000000000000000aaaa"}
	cases := []struct {
		name string
		p    *Provenance
		ok   bool
	}{
		{"clean", &Provenance{Results: 3, Sources: []*runner.Provenance{ok}}, true},
		{"dirty source", &Provenance{Results: 3, Sources: []*runner.Provenance{ok, {Commit: ok.Commit, Dirty: true}}}, false},
		{"no commit", &Provenance{Results: 3, Sources: []*runner.Provenance{{}}}, false},
		{"no sources", &Provenance{Results: 3}, false},
		{"no provenance", nil, false},
	}
	for _, c := range cases {
		if err := cleanProvenance(c.p); (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// The index is one short line per paper: the short name, the verdicts,
// one privacy figure, the cost.
func TestIndexCells(t *testing.T) {
	if got := shortName("Federated Learning with Reduced Information Leakage and Computation (Upcycled-FL)", "upcycled"); got != "Upcycled-FL" {
		t.Errorf("shortName = %q", got)
	}
	if got := shortName("A title without a short name", "x"); got != "x" {
		t.Errorf("shortName fallback = %q", got)
	}
	cases := []struct {
		figs []PrivacyFigure
		want string
	}{
		{nil, "— (none claimed or audited)"},
		{[]PrivacyFigure{{Claimed: 1.59, Audited: 16760}}, "1.59 → 1.676e+04"},
		{[]PrivacyFigure{{Claimed: JSONFloat(math.NaN()), Audited: 2.4e4}, {Claimed: 1, Audited: 2}}, "none stated → 2.4e+04 (+1 more)"},
	}
	for _, c := range cases {
		if got := privacyCell(c.figs); got != c.want {
			t.Errorf("privacyCell(%v) = %q, want %q", c.figs, got, c.want)
		}
	}
	dir := t.TempDir()
	for _, p := range []string{"a", "b"} {
		s := Summary{SchemaVersion: SummarySchema, Paper: p, Scale: "smoke", Headline: &Headline{Title: "T (" + strings.ToUpper(p) + ")", Runs: 2, CPUSeconds: 3,
			Claims: map[string]int{"holds": 1}, Privacy: []PrivacyFigure{{Claimed: 1, Audited: 2}}, Relations: []Relation{{Name: "long relation text that stays in the paper page", Ours: "1/2", Paper: "2/2"}}}}
		b, _ := json.Marshal(s)
		os.MkdirAll(filepath.Join(dir, p), 0o755)
		os.WriteFile(filepath.Join(dir, p, "summary.json"), b, 0o644)
	}
	md, err := Index(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| [") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2 || strings.Contains(md, "long relation text") || strings.Count(rows[0], "|") != 5 {
		t.Errorf("index rows %q", rows)
	}
}

// The summed CPU time is the same bits whatever order the results come in.
func TestRunCostOrderFree(t *testing.T) {
	var rs []*runner.Result
	for i := range 200 {
		rs = append(rs, &runner.Result{CPUSeconds: 0.1 + float64(i%7)*1e-3 + float64(i)*1e-9, WallSeconds: 9})
	}
	rs = append(rs, &runner.Result{WallSeconds: 3.25})
	_, want := RunCost(rs)
	rev := slices.Clone(rs)
	slices.Reverse(rev)
	if n, got := RunCost(rev); got != want || n != len(rs) {
		t.Errorf("reversed: %d runs, %v; want %v", n, got, want)
	}
}
