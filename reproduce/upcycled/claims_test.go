package upcycled

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
)

// closeTo reports |a − b| ≤ rel·max(|a|, |b|) (or both ≈ 0).
func closeTo(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

// auditClaimReport is the claim engine's report on claims/<id>.yaml as
// claims' TestGolden pins it (papertest.GoldenClaimReport), and the
// relative tolerance the golden's platform adds to a comparison here.
func auditClaimReport(t *testing.T, id string) (*claim.Report, float64) {
	t.Helper()
	return papertest.GoldenClaimReport(t, id)
}

func readingOf(t *testing.T, r *claim.Report, caseName, reading string) *claim.ReadingReport {
	t.Helper()
	rr, ok := r.Reading(caseName, reading)
	if !ok {
		t.Fatalf("%s: no case %q reading %q", r.Claim.ID, caseName, reading)
	}
	return rr
}

func methodValue(t *testing.T, rr *claim.ReadingReport, m string) float64 {
	t.Helper()
	e := rr.Method(m)
	if e == nil || e.Epsilon == nil {
		t.Fatalf("reading %s: no %s value (%+v)", rr.Reading, m, e)
	}
	return *e.Epsilon
}

// TestClaimEngineEquivalence: the claim files claims/upcycled-*.yaml,
// audited by the general claim engine (its reports as claims' TestGolden
// recomputes and pins them), reproduce the numbers this
// package's own audits print — op-recompute (Thm 6.2, RDP, PLD over the δ
// grid), op-mechanism (RDP and exact ε under the three sensitivity models
// and the upstream σ² noise) and objective (Thm 6.3's sum, its zCDP and
// optimal-composition conversions) — and the client sizes in the claim
// files are the released data's.
func TestClaimEngineEquivalence(t *testing.T) {
	if !auditHaveReleased() {
		t.Skip("released Upcycled-FL data not found at " + auditReleasedRoot)
	}
	o := audit.Options{Seed: proofs.DefaultSeed, DataDir: auditReleasedRoot}
	d, err := auditLoad(o)
	if err != nil {
		t.Fatal(err)
	}
	out, tolOut := auditClaimReport(t, "upcycled-output-perturbation")
	obj, tolObj := auditClaimReport(t, "upcycled-objective-perturbation")
	for _, id := range []string{"upcycled-output-perturbation", "upcycled-objective-perturbation"} {
		c, _ := claims.Load(id)
		if !slices.Equal(c.AverageOver.Values, d.sizes) {
			t.Errorf("%s: average_over values %v differ from the released Syn(iid) sizes %v", id, c.AverageOver.Values, d.sizes)
		}
	}
	// 1e-12 on the platform the claim goldens were recorded on.
	rel := max(1e-12, tolOut, tolObj)
	compared := 0
	check := func(what string, audit, engine float64) {
		t.Helper()
		compared++
		if !closeTo(audit, engine, rel) {
			t.Errorf("%s: audit %.17g, claim engine %.17g", what, audit, engine)
		}
	}
	rec, err := auditRunRecompute(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rec.Rows {
		caseName := "fig3-" + row["variant"].(string)
		rr := readingOf(t, out, caseName, fmt.Sprintf("delta-1e%d", int(math.Round(math.Log10(row["delta"].(float64))))))
		what := fmt.Sprintf("op-recompute %s δ=%g", row["variant"], row["delta"])
		check(what+" Thm 6.2", row["eps_thm62"].(float64), rr.PaperMethod.Epsilon)
		check(what+" RDP", row["eps_rdp"].(float64), methodValue(t, rr, claim.MRDP))
		check(what+" PLD", row["eps_pld"].(float64), methodValue(t, rr, claim.MPLD))
	}
	mech, err := auditRunMechanism(o)
	if err != nil {
		t.Fatal(err)
	}
	readingFor := map[string]string{
		"paper_sigma/tau_over_D_paper_add_one":                     "delta-1e-5",
		"paper_sigma/2tau_over_D_replace_one_averaging":            "replace-one-averaging",
		"paper_sigma/2tau_clipped_model_replace_one":               "clipped-model",
		"upstream_sigma_squared/2tau_clipped_model_replace_one":    "upstream-clipped-model",
		"upstream_sigma_squared/tau_over_D_paper_add_one":          "",
		"upstream_sigma_squared/2tau_over_D_replace_one_averaging": "",
	}
	for _, row := range mech.Rows {
		key := row["std_mode"].(string) + "/" + row["sensitivity"].(string)
		name, ok := readingFor[key]
		if !ok {
			t.Fatalf("op-mechanism row %s has no reading", key)
		}
		if name == "" || (row["std_mode"] == "upstream_sigma_squared" && row["variant"] == "baseline") {
			continue // σ² = σ for the baseline; the reading covers Upcycled
		}
		rr := readingOf(t, out, "fig3-"+row["variant"].(string), name)
		what := fmt.Sprintf("op-mechanism %s %s", key, row["variant"])
		check(what+" RDP", row["eps_rdp"].(float64), methodValue(t, rr, claim.MRDP))
		if !closeTo(row["eps_exact"].(float64), methodValue(t, rr, claim.MExact), 1e-9) {
			t.Errorf("%s exact: audit %.17g, claim engine %.17g", what, row["eps_exact"], methodValue(t, rr, claim.MExact))
		}
		compared++
	}
	objTab, err := auditRunObjective(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range objTab.Rows {
		if row["constants"] != "normalised_features_u1_1_u2_0.25" {
			continue // the released-features and fitted constants are data-derived searches, not claims
		}
		reading := "printed-terms"
		if row["terms"] == "M (leaking rounds)" {
			reading = "leaking-rounds"
		}
		for _, side := range []struct{ col, caseName string }{{"base", "fedprox"}, {"up", "upcycled-fedprox"}} {
			pure := readingOf(t, obj, side.caseName, reading)
			conv := readingOf(t, obj, side.caseName, reading+"-delta-1e-5")
			what := fmt.Sprintf("objective %s %s", side.caseName, reading)
			check(what+" Thm 6.3", row["eps_"+side.col].(float64), methodValue(t, pure, claim.MPure))
			check(what+" paper method", row["eps_"+side.col].(float64), pure.PaperMethod.Epsilon)
			check(what+" zCDP", row["eps_"+side.col+"_zcdp"].(float64), methodValue(t, conv, claim.MZCDPClassic))
			if a, e := row["eps_"+side.col+"_rr"].(float64), methodValue(t, conv, claim.MOptimal); !closeTo(a, e, 1e-9) {
				t.Errorf("%s optimal composition: audit %.17g, claim engine %.17g", what, a, e)
			}
			compared++
		}
	}
	if compared < 40 {
		t.Errorf("only %d numbers compared", compared)
	}
	t.Logf("%d numbers of op-recompute, op-mechanism and objective reproduced by the claim engine", compared)
}
