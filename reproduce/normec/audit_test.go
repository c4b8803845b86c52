package normec

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	alg "github.com/fedrepro/fedrepro/algorithms/normec"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
)

// runQuick runs every normec audit in quick mode and checks the shape every
// table must have: rows, notes, a verdict, exactly the declared columns,
// finite numbers, and the fields the CLI schema promises.
func runQuick(t *testing.T) map[string]audit.Table {
	t.Helper()
	out := map[string]audit.Table{}
	required := []string{"p", "beta", "rounds", "delta", "sigma", "epsilon", "accountant", "neighbouring"}
	for _, e := range audit.Entries(paperID) {
		if e.ID == claims.EntryID {
			// The claim-engine table: claims' TestPaperAuditsGatedHere checks
			// its values and its row contract at the report's options, and
			// algorithms/audit/claim tests the engine's quick mode.
			continue
		}
		tab, err := e.Run(audit.Options{Seed: 7, Quick: true})
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if tab.ID != e.ID || len(tab.Rows) == 0 || len(tab.Notes) == 0 || tab.Verdict == "" {
			t.Fatalf("%s: table %q, %d rows, %d notes, verdict %q", e.ID, tab.ID, len(tab.Rows), len(tab.Notes), tab.Verdict)
		}
		for _, c := range required {
			found := false
			for _, col := range tab.Columns {
				found = found || col == c
			}
			if !found {
				t.Errorf("%s: column %s missing", e.ID, c)
			}
		}
		papertest.AuditTableExact(t, tab)
		out[e.ID] = tab
	}
	for _, id := range []string{"formula-epsilon", "one-round-distinguisher"} {
		if _, ok := out[id]; !ok {
			t.Fatalf("audit %s not registered", id)
		}
	}
	return out
}

func f(r audit.Row, k string) float64 { return r[k].(float64) }

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// TestAuditsQuick runs the audits in quick mode and checks that every row
// is internally consistent.
func TestAuditsQuick(t *testing.T) {
	tabs := runQuick(t)

	formula := tabs["formula-epsilon"]
	if len(formula.Rows) != len(Ps)*len(Betas)*2*2 {
		t.Errorf("formula-epsilon has %d rows, want one per (p, β, accountant, relation)", len(formula.Rows))
	}
	byCell := map[[3]any]map[string]float64{}
	for i, r := range formula.Rows {
		p, beta, sigma, eps := f(r, "p"), f(r, "beta"), f(r, "sigma"), f(r, "epsilon")
		vis, every, lb := f(r, "epsilon_visible_participation"), f(r, "epsilon_every_round"), f(r, "epsilon_lower_bound")
		cal := f(r, "sigma_calibrated")
		checks := []struct {
			name string
			ok   bool
		}{
			{"σ is the formula's", near(sigma, alg.ExperimentSigma(p, beta, Rounds, TargetEpsilon, Delta), 1e-12)},
			{"rounds and δ", r["rounds"] == Rounds && f(r, "delta") == Delta},
			{"ε ≥ rigorous lower bound", eps >= lb*(1-1e-9)},
			{"visible ≤ every round", vis <= every*(1+1e-9)},
			{"σ below calibration ⇒ ε > 8", (sigma < cal) == (eps > TargetEpsilon)},
			{"σ/σ_cal", near(f(r, "sigma_over_calibrated"), sigma/cal, 1e-12)},
			{"c reproduces σ_cal", near(alg.TheorySigma(f(r, "c_needed"), p, Rounds, TargetEpsilon, Delta), cal, 1e-12)},
			{"c_paper = β", f(r, "c_paper") == beta},
			{"charitable reading ≥ its lower bound", f(r, "epsilon_noise_on_beta_delta") > 0},
		}
		switch r["epsilon_method"] {
		case "poisson-amplified", "composition":
			if r["accountant"] == "pld" {
				checks = append(checks, struct {
					name string
					ok   bool
				}{"PLD ≤ exact no-amplification ε", eps <= vis*(1+1e-3)+1e-6})
			}
			if p == 1 {
				checks = append(checks, struct {
					name string
					ok   bool
				}{"p = 1 agrees with the exact composition", eps >= every*(1-1e-3)})
			}
		default:
			checks = append(checks, struct {
				name string
				ok   bool
			}{"fallback is the exact no-amplification ε", eps == vis})
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("formula-epsilon row %d (p=%v β=%v %v %v): %s fails: %v", i, p, beta, r["accountant"], r["neighbouring"], c.name, r)
			}
		}
		k := [3]any{p, beta, r["accountant"]}
		if byCell[k] == nil {
			byCell[k] = map[string]float64{}
		}
		byCell[k][r["neighbouring"].(string)+"/vis"] = vis
		byCell[k][r["neighbouring"].(string)+"/every"] = every
	}
	for k, m := range byCell {
		if m["replace-one/vis"] < m["add-remove/vis"] || m["replace-one/every"] < m["add-remove/every"] {
			t.Errorf("cell %v: replace-one less private than add-remove: %v", k, m)
		}
	}
	// The calibrated σ meets the target when re-evaluated (spec §E5).
	for _, r := range formula.Rows {
		if r["calibration_method"] != "accountant" || r["beta"] != Betas[0] {
			continue
		}
		kind := accountant.KindRDP
		if r["accountant"] == "pld" {
			kind = accountant.KindPLD
		}
		nb := accountant.AddRemove
		if r["neighbouring"] == "replace-one" {
			nb = accountant.ReplaceOne
		}
		e, _, err := alg.EpsilonInterval(f(r, "sigma_calibrated"), f(r, "p"), Rounds, Delta, nb, kind, pldInterval(audit.Options{Quick: true}))
		if err != nil || e > TargetEpsilon*(1+1e-9) {
			t.Errorf("calibrated σ = %v (p=%v %v %v) gives ε = %v (%v), want ≤ 8", r["sigma_calibrated"], r["p"], r["accountant"], r["neighbouring"], e, err)
		}
	}

	dist := tabs["one-round-distinguisher"]
	if len(dist.Rows) != len(Ps)*len(Betas)*2 {
		t.Errorf("one-round-distinguisher has %d rows", len(dist.Rows))
	}
	for i, r := range dist.Rows {
		n := r["trials"].(int)
		tp, fn, fp, tn := r["tp"].(int), r["fn"].(int), r["fp"].(int), r["tn"].(int)
		eps := f(r, "epsilon")
		switch {
		case tp+fn != n || fp+tn != n:
			t.Errorf("distinguisher row %d: counts %d+%d, %d+%d for %d trials", i, tp, fn, fp, tn, n)
		case eps > f(r, "epsilon_upper_one_round")*(1+1e-9):
			t.Errorf("distinguisher row %d: empirical ε %v above the exact one-round ε %v", i, eps, r["epsilon_upper_one_round"])
		case eps > f(r, "epsilon_max_detectable")*(1+1e-9):
			t.Errorf("distinguisher row %d: ε %v above the detectable maximum %v", i, eps, r["epsilon_max_detectable"])
		case r["exceeds_target"].(bool) != (eps > TargetEpsilon):
			t.Errorf("distinguisher row %d: exceeds_target inconsistent with ε = %v", i, eps)
		case r["rounds"] != 1 || r["accountant"] != "empirical":
			t.Errorf("distinguisher row %d: rounds %v accountant %v", i, r["rounds"], r["accountant"])
		}
		b, err := audit.EpsilonLB(audit.Counts{TP: tp, FN: fn, FP: fp, TN: tn}, Delta, f(r, "confidence"))
		if err != nil || b.Epsilon != eps {
			t.Errorf("distinguisher row %d: ε %v does not follow from its counts (%v, %v)", i, eps, b.Epsilon, err)
		}
	}
}

func TestLowerBoundOneRound(t *testing.T) {
	// A lower bound must not exceed the exact one-round ε without
	// amplification (p = 1 is the Gaussian mechanism itself) and should be
	// close to it when the test is near optimal.
	for _, tc := range []struct {
		sigma float64
		nb    accountant.Neighbouring
	}{{0.5, accountant.AddRemove}, {1, accountant.AddRemove}, {1, accountant.ReplaceOne}, {3, accountant.AddRemove}} {
		lb := lowerBoundOneRound(tc.sigma, 1, Delta, tc.nb)
		exact, err := alg.ExactCompositionEpsilon(tc.sigma, 1, Delta, tc.nb)
		if err != nil {
			t.Fatal(err)
		}
		if lb > exact*(1+1e-9) || lb < 0.8*exact {
			t.Errorf("σ=%v %v: one-round lower bound %v vs exact %v", tc.sigma, tc.nb, lb, exact)
		}
		if amp := lowerBoundOneRound(tc.sigma, 0.25, Delta, tc.nb); amp > lb {
			t.Errorf("σ=%v %v: subsampling raised the lower bound (%v > %v)", tc.sigma, tc.nb, amp, lb)
		}
	}
}
