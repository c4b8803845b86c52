package haar

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
)

func runAll(t *testing.T) map[string]audit.Table {
	t.Helper()
	out := map[string]audit.Table{}
	mine := map[string]bool{"table3-fit": true, "table3-literal": true, "lemma2-comparison": true}
	for _, e := range audit.Entries(paperID) {
		if !mine[e.ID] {
			continue
		}
		tab, err := e.Run(audit.Options{Seed: 1, Quick: true})
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if tab.ID != e.ID || len(tab.Rows) == 0 || len(tab.Notes) == 0 {
			t.Fatalf("%s: table %q with %d rows and %d notes", e.ID, tab.ID, len(tab.Rows), len(tab.Notes))
		}
		papertest.AuditTableExact(t, tab)
		out[e.ID] = tab
	}
	for _, id := range []string{"table3-fit", "table3-literal", "lemma2-comparison"} {
		if _, ok := out[id]; !ok {
			t.Fatalf("audit %s not registered", id)
		}
	}
	return out
}

// TestAuditsQuick runs every haar audit in quick mode and checks that the
// rows are finite and consistent with what they claim.
func TestAuditsQuick(t *testing.T) {
	tabs := runAll(t)

	// table3-fit: the solved (q, T) reproduce the ε they report, and
	// "consistent" agrees with the reported errors and tolerances.
	orders := GoogleOrders()
	for _, r := range tabs["table3-fit"].Rows {
		conv := accountant.Improved
		if r["conversion"] == "classic" {
			conv = accountant.Classic
		}
		c, err := stepCurve(orders, r["fit_q"].(float64), r["sigma"].(float64))
		if err != nil {
			t.Fatal(err)
		}
		got := c.eps(float64(r["fit_steps"].(int)), conv)
		if !(math.Abs(got-r["fit_eps"].(float64)) <= 1e-9*got) {
			t.Errorf("%v: fit_eps %v, recomputed %v", r, r["fit_eps"], got)
		}
		paper := r["paper_eps"].(float64)
		if re := got/paper - 1; !(math.Abs(re-r["rel_error"].(float64)) <= 1e-12) {
			t.Errorf("%v: rel_error %v, recomputed %v", r, r["rel_error"], re)
		}
		withinTol := math.Abs(got-paper) <= r["tolerance"].(float64)*r["fit_score"].(float64)*(1+1e-9)+1e-12
		if !withinTol {
			t.Errorf("%v: |ε − paper| = %g exceeds fit_score × tolerance", r, math.Abs(got-paper))
		}
		if r["consistent"].(bool) && !(math.Abs(got-paper) <= r["tolerance"].(float64)*(1+1e-9)) {
			t.Errorf("%v: marked consistent but off by %g > tolerance", r, math.Abs(got-paper))
		}
		if q := r["fit_q"].(float64); q < 1e-5*(1-1e-12) || q > 1 || r["fit_steps"].(int) < 1 {
			t.Errorf("%v: fit outside the search region", r)
		}
	}

	// table3-literal: ε falls as σ grows within a setting.
	prev := map[string]float64{}
	for _, r := range tabs["table3-literal"].Rows {
		s := r["setting"].(string)
		e := r["eps_rdp_improved"].(float64)
		if p, ok := prev[s]; ok && e >= p {
			t.Errorf("%s: ε %g does not fall with σ (previous %g)", s, e, p)
		}
		prev[s] = e
		if r["eps_rdp_classic"].(float64) < e*(1-1e-9) {
			t.Errorf("%s: classic conversion %g below improved %g", s, r["eps_rdp_classic"], e)
		}
	}

	// lemma2-comparison: the empirical lower bound never exceeds the exact
	// ε of the effective multiplier (else the analysis would be wrong),
	// vanilla rows have multiplier σ, and privacy-matched rows reach
	// vanilla's ε exactly.
	vanilla := map[float64]float64{}
	for _, r := range tabs["lemma2-comparison"].Rows {
		if r["variant"] == "vanilla" {
			vanilla[r["sigma"].(float64)] = r["eps_exact"].(float64)
		}
	}
	for _, r := range tabs["lemma2-comparison"].Rows {
		if r["calibration"] == "privacy_matched" {
			if e, v := r["eps_exact"].(float64), vanilla[r["sigma"].(float64)]; !(math.Abs(e-v) <= 1e-9*v) {
				t.Errorf("%v: privacy-matched ε %g, vanilla %g", r, e, v)
			}
			if r["exceeds_vanilla"].(bool) {
				t.Errorf("%v: a privacy-matched mechanism measured above vanilla's ε", r)
			}
		}
		if lb, ex := r["eps_lb"].(float64), r["eps_exact"].(float64); lb > ex*(1+1e-9) {
			t.Errorf("%v: eps_lb %g above the exact ε %g of the effective multiplier", r, lb, ex)
		}
		if r["variant"] == "vanilla" && r["effective_multiplier"].(float64) != r["sigma"].(float64) {
			t.Errorf("vanilla row %v: multiplier differs from σ", r)
		}
	}
}
