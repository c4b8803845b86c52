package normec

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// formulaRowFor is one synthetic formula-epsilon audit row.
func formulaRowFor(p, beta float64, acct, nb string, eps, vis float64) audit.Row {
	return audit.Row{"p": p, "beta": beta, "accountant": acct, "neighbouring": nb, "epsilon": eps,
		"epsilon_visible_participation": vis, "epsilon_target": 8.0}
}

// TestTightestAmplifiedPicksSmallest checks the selection behind the
// headline's privacy figures on synthetic audit rows: the smallest of the
// add/remove rows' amplified ε (RDP, PLD) and their visible-participation
// exact ε, with the name of the bound that gave it; replace-one rows and
// other (p, β) are ignored. A planted min→max in the selection fails
// every row whose candidates differ.
func TestTightestAmplifiedPicksSmallest(t *testing.T) {
	for _, c := range []struct {
		name     string
		rows     []audit.Row
		want     float64
		wantWhat string
	}{
		{"RDP smallest", []audit.Row{formulaRowFor(1, 0.01, "rdp", "add-remove", 300, 400), formulaRowFor(1, 0.01, "pld", "add-remove", 350, 400)},
			300, "amplified (RDP)"},
		{"PLD smallest", []audit.Row{formulaRowFor(1, 0.01, "rdp", "add-remove", 300, 400), formulaRowFor(1, 0.01, "pld", "add-remove", 250, 400)},
			250, "amplified (PLD)"},
		{"visible smallest", []audit.Row{formulaRowFor(1, 0.01, "rdp", "add-remove", 4.85e5, 1.61e5), formulaRowFor(1, 0.01, "pld", "add-remove", 1.61e5, 1.61e5)},
			1.61e5, "bounded by the visible-participation exact ε"},
		{"replace-one and other cells ignored", []audit.Row{
			formulaRowFor(1, 0.01, "rdp", "add-remove", 300, 400),
			formulaRowFor(1, 0.01, "rdp", "replace-one", 1, 1),
			formulaRowFor(0.25, 0.01, "rdp", "add-remove", 2, 2),
			formulaRowFor(1, 0.1, "rdp", "add-remove", 3, 3)}, 300, "amplified (RDP)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &reportWriter{auditTables: []audit.Table{{ID: "formula-epsilon", Rows: c.rows}}}
			what, claimed, eps, ok := w.tightestAmplified(1, 0.01)
			if !ok || eps != c.want || what != c.wantWhat || claimed != 8 {
				t.Errorf("got %q %v (claimed %v, ok %v), want %q %v", what, eps, claimed, ok, c.wantWhat, c.want)
			}
		})
	}
	w := &reportWriter{}
	if _, _, _, ok := w.tightestAmplified(1, 0.01); ok {
		t.Error("a bound without audit rows")
	}
}

// TestPrivacyStatementsFollowAuditRows computes the formula-epsilon audit
// and writes the privacy section, the findings and the headline from
// formula-noise runs of every (p, β) at the default scale's 300 rounds.
// Independently of the report code it takes, from the audit rows, the
// tightest sound bound of each cell — the smallest of the add/remove
// rows' amplified ε and visible-participation exact ε (and, for the range
// the privacy section states, RDP's amplified ε and the visible one, the
// two accountants that section uses) — and checks that the findings'
// "ε between lo and hi" and the headline's audited figures are those
// values. A min→max planted in either selection fails it.
func TestPrivacyStatementsFollowAuditRows(t *testing.T) {
	if testing.Short() {
		t.Skip("computes the formula-epsilon audit (a few seconds)")
	}
	var tab audit.Table
	for _, e := range audit.Entries(paperID) {
		if e.ID == "formula-epsilon" {
			var err error
			if tab, err = e.Run(audit.Options{Seed: 7, Quick: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(tab.Rows) == 0 {
		t.Fatal("formula-epsilon audit not registered or empty")
	}
	s, err := specs.Load("default")
	if err != nil {
		t.Fatal(err)
	}
	if s.Training.Rounds != Rounds || s.Privacy.Delta != Delta || s.Privacy.Epsilon != TargetEpsilon {
		t.Fatalf("default spec (%d rounds, δ %g, ε %g) is not the audit's setting", s.Training.Rounds, s.Privacy.Delta, s.Privacy.Epsilon)
	}
	combo := Combo{"fashion-mnist", "logreg", "iid", "formula", ""}
	var rs []*runner.Result
	for _, p := range Ps {
		for _, b := range Betas {
			c := RunConfig{Dataset: combo.Dataset, Model: combo.Model, Split: combo.Split, Noise: combo.Noise, Method: "normec", P: p, Beta: b, Gamma: 0.1,
				Training: s.Training, Privacy: s.Privacy}
			if c.Sigma, err = NoiseSigma("formula", p, b, s.Training.Rounds, s.Privacy); err != nil {
				t.Fatal(err)
			}
			r := &runner.Result{Run: runner.Run{Paper: paperID, Scale: "test", Experiment: "normec", Cell: CellLabel(c), Seed: 1, Config: c},
				Final: runner.Metrics{"acc": 0.5}, Extra: map[string]any{"params": 100.0}}
			rs = append(rs, r)
		}
	}
	grids, err := Grids(rs)
	if err != nil {
		t.Fatal(err)
	}
	w := &reportWriter{ReportWriter: paper.ReportWriter[Spec, map[Combo]*Grid]{Spec: s, Groups: grids, Summary: &report.Summary{}},
		combos: []Combo{combo}, primary: combo, auditTables: []audit.Table{tab},
		formulaEps: [2]float64{math.NaN(), math.NaN()}, robust: map[Verdict]int{}}
	w.privacy(&report.Doc{})

	// The references, from the audit rows alone.
	tightAll := map[[2]float64]float64{} // every add/remove bound
	tightRDP := map[[2]float64]float64{} // RDP amplified and visible
	visible := map[[2]float64]float64{}
	for _, r := range tab.Rows {
		if r["neighbouring"] != "add-remove" {
			continue
		}
		k := [2]float64{r["p"].(float64), r["beta"].(float64)}
		v := math.Min(r["epsilon"].(float64), r["epsilon_visible_participation"].(float64))
		if old, ok := tightAll[k]; !ok || v < old {
			tightAll[k] = v
		}
		if r["accountant"] == "rdp" {
			tightRDP[k], visible[k] = v, r["epsilon_visible_participation"].(float64)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range tightRDP {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if len(tightRDP) != len(Ps)*len(Betas) {
		t.Fatalf("%d RDP add/remove cells in the audit, want %d", len(tightRDP), len(Ps)*len(Betas))
	}
	if !near(w.formulaEps[0], lo, 1e-6) || !near(w.formulaEps[1], hi, 1e-6) {
		t.Errorf("privacy section's range [%v, %v], audit rows' tightest bounds [%v, %v]", w.formulaEps[0], w.formulaEps[1], lo, hi)
	}
	findings := strings.Join(w.findings(false), "\n")
	if want := fmt.Sprintf("ε between %s and %s", fmtEps(lo), fmtEps(hi)); !strings.Contains(findings, want) {
		t.Errorf("findings lack %q:\n%s", want, findings)
	}

	h := w.headline(rs)
	want := []float64{tightAll[[2]float64{1, paperBestBeta}], tightAll[[2]float64{paperPartialP, paperBestBeta}], visible[[2]float64{paperPartialP, paperBestBeta}]}
	if len(h.Privacy) != len(want) {
		t.Fatalf("headline has %d privacy figures, want %d: %+v", len(h.Privacy), len(want), h.Privacy)
	}
	for i, f := range h.Privacy {
		if float64(f.Audited) != want[i] || float64(f.Claimed) != TargetEpsilon {
			t.Errorf("headline figure %d (%s): audited %v, claimed %v; audit rows give %v against %v", i, f.What, float64(f.Audited), float64(f.Claimed), want[i], TargetEpsilon)
		}
		if s := fmt.Sprintf("%s: ε = %s (stated 8)", f.What, fmtEps(want[i])); !strings.Contains(findings, s) {
			t.Errorf("findings lack %q", s)
		}
	}
}
