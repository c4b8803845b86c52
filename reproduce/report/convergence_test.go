package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
	"github.com/fedrepro/fedrepro/proofs"
)

// goldenVerdict reads the engine verdict golden/convergence/<id>.json
// records for the claim at the default seed.
func goldenVerdict(t *testing.T, id string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "golden", "convergence", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Values struct {
			Strings map[string]string `json:"strings"`
		} `json:"values"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s.json: %v", id, err)
	}
	v := g.Values.Strings["verdict"]
	if v == "" {
		t.Fatalf("%s.json records no verdict", id)
	}
	return v
}

// TestConvergenceSection renders upcycled's section from real engine runs
// and checks: one row per claim file of the paper, each with the verdict
// golden/convergence records; the violated printed Lemma 5.5 gets its
// instance file, which replays to a violation with the bound and measured
// value the section states; the finding counts the verdicts.
func TestConvergenceSection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine on the paper's claim files")
	}
	ids := ConvergenceIDs("upcycled")
	if len(ids) < 2 {
		t.Fatalf("upcycled has %d convergence claim files, want ≥ 2: %v", len(ids), ids)
	}
	dir := t.TempDir()
	var d Doc
	f := Convergence(&d, "upcycled", dir, proofs.DefaultSeed)
	md := d.String()
	if !strings.Contains(md, "## "+ConvergenceHeading) {
		t.Fatalf("no heading:\n%s", md)
	}
	violated := 0
	for _, id := range ids {
		want := goldenVerdict(t, id)
		if row := rowCells(md, id); len(row) != 8 || row[3] != "**"+want+"**" {
			t.Errorf("%s: the row does not show the golden verdict %s: %q", id, want, row)
		}
		inst := filepath.Join(dir, "conv-"+id+".json")
		_, err := os.Stat(inst)
		if (want == conv.Violated) != (err == nil) {
			t.Errorf("%s: verdict %s but instance file present = %v", id, want, err == nil)
		}
		if want != conv.Violated {
			continue
		}
		violated++
		b, err := os.ReadFile(inst)
		if err != nil {
			t.Fatal(err)
		}
		var file conv.InstanceFile
		if err := json.Unmarshal(b, &file); err != nil {
			t.Fatal(err)
		}
		c, err := convclaims.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := conv.Replay(c, &file)
		if err != nil {
			t.Fatal(err)
		}
		if !ev.Violated {
			t.Errorf("%s: the written instance does not replay to a violation (measured %g, bound %g)", id, ev.Measured.Value, ev.Bound)
		}
		for _, num := range []string{FormatValue(ev.Measured.Value), FormatValue(ev.Bound), FormatValue(float64(ev.Ratio))} {
			if !strings.Contains(md, num) {
				t.Errorf("%s: the section does not show %s from the replayed instance", id, num)
			}
		}
	}
	if violated == 0 {
		t.Fatal("upcycled's printed Lemma 5.5 is recorded violated; the test expects one violated file")
	}
	if !strings.Contains(f, "violated: upcycled-lemma5.5 (") || !strings.Contains(f, "1 violated") {
		t.Errorf("finding: %q", f)
	}
}

// TestConvergenceSectionRows: the table and finding come from the reports
// alone — verdict counts, the worst ratio over readings, the union of the
// families, no instance written without a folder — and a paper without
// claim files says so.
func TestConvergenceSectionRows(t *testing.T) {
	reps := []*conv.Report{
		{ID: "p-b", Algorithm: "gd", Verdict: conv.NoCounter, Budget: conv.Budget{GridPoints: 2, Draws: 3, Adversarial: 4, MC: 5, Dim: 2, Evaluations: 14},
			Readings: []conv.ReadingReport{
				{Reading: "one", Families: []string{"quadratic"}, Worst: &conv.Eval{Ratio: 0.25}},
				{Reading: "two", Families: []string{"huber", "quadratic"}, Worst: &conv.Eval{Ratio: 0.75}},
			}},
		{ID: "p-a", Algorithm: "upcycled", Verdict: conv.Violated, Quantity: "E f(x) − f*",
			Readings: []conv.ReadingReport{{Reading: "as stated", Families: []string{"quadratic"},
				Worst: &conv.Eval{Family: "quadratic", Ratio: 1.5, Bound: 2, Point: map[string]float64{"K": 3},
					Measured: conv.Measurement{Mode: conv.ModeExact, Value: 3, Lower: 3, Upper: 3}}}}},
		{ID: "p-c", Algorithm: "gd", Verdict: conv.Vacuous},
	}
	var d Doc
	f := ConvergenceSection(&d, "p", reps, "", 7)
	md := d.String()
	for id, want := range map[string][]string{
		"p-b": {"`p-b`", "", "gd", "**no-counterexample**", "0.75", "huber, quadratic", "2 points × (3 draws + 4 adversarial), MC 5, d = 2; spent 14 evaluations", "–"},
		"p-a": {"`p-a`", "", "upcycled", "**violated**", "1.5", "quadratic", "0 points × (0 draws + 0 adversarial), MC 0, d = 0; spent 0 evaluations", "(not written)"},
		"p-c": {"`p-c`", "", "gd", "**vacuous**", "–", "", "0 points × (0 draws + 0 adversarial), MC 0, d = 0; spent 0 evaluations", "–"},
	} {
		if got := rowCells(md, id); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %s: %q, want %q", id, got, want)
		}
	}
	if want := "on a quadratic instance at K = 3 the measured E f(x) − f* is 3 (exact-moments, exact) against the bound 2"; !strings.Contains(md, want) {
		t.Errorf("section lacks %q:\n%s", want, md)
	}
	if strings.Index(md, "`p-a`") > strings.Index(md, "`p-b`") {
		t.Error("rows are not sorted by claim id")
	}
	if want := "Convergence engine: 3 of the paper's theorem files audited — 1 violated, 1 vacuous, 1 no-counterexample; violated: p-a (measured/bound 1.5)."; f != want {
		t.Errorf("finding %q, want %q", f, want)
	}
	if w, _ := worstEval(reps[2]); !math.IsNaN(w) {
		t.Errorf("no evaluation: worst %g, want NaN", w)
	}
	var e Doc
	if f := ConvergenceSection(&e, "none", nil, "", 7); f != "" || !strings.Contains(e.String(), "No convergence claim file") {
		t.Errorf("no files: finding %q, section:\n%s", f, e.String())
	}
}

// rowCells are the trimmed cells of the table row of claim id (nil when
// there is none).
func rowCells(md, id string) []string {
	for _, l := range strings.Split(md, "\n") {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) > 1 && strings.TrimSpace(cells[0]) == "`"+id+"`" {
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			return cells
		}
	}
	return nil
}
