package normec

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
)

func closeRel(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// TestClaimEngineEquivalence: claims/normec-noise-formula.yaml, audited by
// the general claim engine (its report as claims' TestGolden recomputes
// and pins it), reproduces formula-epsilon: for every (p, β)
// the formula's σ, the amplified ε under RDP and PLD (both relations,
// where the audit has the accountant's value rather than a fallback), the
// exact ε when the server sees who transmitted, the charitable
// noise-on-βΔ reading, and the σ a calibration to ε = 8 needs (PLD for
// p < 1, the exact composition for p = 1; visible participation). (The
// one-round distinguisher is specific to the paper's mechanism and stays
// Go code.)
func TestClaimEngineEquivalence(t *testing.T) {
	tab, err := runFormulaEpsilon(audit.Options{Seed: proofs.DefaultSeed})
	if err != nil {
		t.Fatal(err)
	}
	// The engine's report as claims' TestGolden recomputes and pins it:
	// engine = golden there, audit = golden here.
	rep, tol := papertest.GoldenClaimReport(t, "normec-noise-formula")
	counts := map[string]int{}
	check := func(what string, audit, engine, rel float64) {
		t.Helper()
		counts[what]++
		if !closeRel(audit, engine, max(rel, tol)) {
			t.Errorf("%s: audit %.17g, claim engine %.17g", what, audit, engine)
		}
	}
	reading := func(p, beta float64, name string) *claim.ReadingReport {
		t.Helper()
		rr, ok := rep.Reading(fmt.Sprintf("p%g-beta%g", p, beta), name)
		if !ok {
			t.Fatalf("no case p%g-beta%g reading %s", p, beta, name)
		}
		return rr
	}
	value := func(rr *claim.ReadingReport, m string) (float64, *float64) {
		e := rr.Method(m)
		if e == nil || e.Epsilon == nil {
			return math.NaN(), nil
		}
		return *e.Epsilon, e.Interval
	}
	for _, row := range tab.Rows {
		p, beta := row["p"].(float64), row["beta"].(float64)
		nb, kind := row["neighbouring"].(string), row["accountant"].(string)
		amp := reading(p, beta, "amplified-"+nb)
		vis := reading(p, beta, "visible-"+nb)
		check("sigma", row["sigma"].(float64), amp.NoiseMultiplier, 1e-15)
		if m := row["epsilon_method"].(string); m == "poisson-amplified" || m == "composition" {
			e, iv := value(amp, kind)
			switch {
			case math.IsNaN(e):
				t.Errorf("p=%g β=%g %s %s: the engine has no value where the audit has %v", p, beta, kind, nb, row["epsilon"])
			case kind == "pld" && (iv == nil || *iv != row["pld_interval"].(float64)):
				counts["pld on another grid (skipped)"]++
			default:
				check("amplified "+kind, row["epsilon"].(float64), e, 1e-12)
			}
		}
		ve, _ := value(vis, claim.MVisibleExact)
		check("visible participation", row["epsilon_visible_participation"].(float64), ve, 1e-12)
		if nb == "add-remove" {
			if e, iv := value(reading(p, beta, "noise-on-beta-delta"), kind); !math.IsNaN(e) && (kind != "pld" || *iv == pldInterval(audit.Options{})) {
				// The audit forms σ/β from the formula's σ, the claim p·√(K·log(1/δ))/ε
				// directly: the inputs differ in the last bits, so allow 1e-9.
				check("noise on βΔ "+kind, row["epsilon_noise_on_beta_delta"].(float64), e, 1e-9)
			}
		}
		if kind == "pld" && row["calibration_method"] == "accountant" && amp.Needed != nil && amp.Needed.Multiplier > 0 {
			want := row["sigma_calibrated"].(float64)
			if p == 1 { // the engine calibrates the exact composition
				want = row["sigma_calibrated_visible_participation"].(float64)
			}
			// The engine's σ needed is the smallest over every valid
			// accountant: equal to the audit's where PLD (or, at p = 1, the
			// exact curve) gave it, never above it otherwise.
			switch amp.Needed.Method {
			case "pld", "exact":
				check("calibrated σ", want, amp.Needed.Multiplier, 3e-5)
			default:
				if !(amp.Needed.Multiplier <= want*(1+3e-5)) {
					t.Errorf("p=%g β=%g: calibrated σ %g by %s is above the audit's %g", p, beta, amp.Needed.Multiplier, amp.Needed.Method, want)
				}
			}
		}
		if vis.Needed != nil && vis.Needed.Multiplier > 0 {
			check("calibrated σ, visible participation", row["sigma_calibrated_visible_participation"].(float64), vis.Needed.Multiplier, 3e-6)
		}
	}
	for _, k := range []string{"sigma", "amplified rdp", "amplified pld", "visible participation", "noise on βΔ rdp", "noise on βΔ pld", "calibrated σ", "calibrated σ, visible participation"} {
		if counts[k] == 0 {
			t.Errorf("nothing compared for %q", k)
		}
	}
	t.Logf("compared with formula-epsilon: %v", counts)
}
