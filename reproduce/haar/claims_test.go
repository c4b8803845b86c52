package haar

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/proofs"
)

// claimReading maps table3-literal's settings to the readings of
// claims/haar-table3.yaml.
var claimReading = map[string]string{
	"per-client DP-SGD, lot 10":     "per-client-lot10",
	"per-client DP-SGD, lot 60":     "per-client-lot60",
	"user-level, 5 of 100 clients":  "user-level-5-of-100",
	"user-level, 10 of 100 clients": "user-level-10-of-100",
	"user-level, all clients":       "user-level-all-clients",
}

// TestClaimEngineEquivalence: claims/haar-table3.yaml, audited by the
// general claim engine, reproduces table3-literal: for every setting the
// paper's text implies and every σ, RDP (both conversions) and PLD (same
// grid) give the numbers this package's audit prints. (table3-fit's
// (q, T) search and lemma2-comparison's wavelet mechanisms are specific
// to the paper and stay Go code.)
func TestClaimEngineEquivalence(t *testing.T) {
	tab, err := runTable3Literal(audit.Options{Seed: proofs.DefaultSeed})
	if err != nil {
		t.Fatal(err)
	}
	c, err := claims.Load("haar-table3")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := claim.Audit(c, claim.Options{Seed: proofs.DefaultSeed, NoEmpirical: true, NoCalibration: true, WorkPoints: -1}) // the audit runs uncapped
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, row := range tab.Rows {
		name, ok := claimReading[row["setting"].(string)]
		if !ok {
			t.Fatalf("setting %q has no reading in claims/haar-table3.yaml", row["setting"])
		}
		caseName := fmt.Sprintf("mnist-sigma%g", row["sigma"].(float64))
		rr, ok := rep.Reading(caseName, name)
		if !ok {
			t.Fatalf("no case %s reading %s", caseName, name)
		}
		for _, m := range []struct {
			col, method string
		}{{"eps_rdp_improved", claim.MRDP}, {"eps_rdp_classic", claim.MRDPClassic}, {"eps_pld", claim.MPLD}} {
			e := rr.Method(m.method)
			if e == nil || e.Epsilon == nil {
				t.Errorf("%s/%s: no %s (%+v)", caseName, name, m.method, e)
				continue
			}
			if m.method == claim.MPLD && (e.Interval == nil || *e.Interval != row["pld_interval"].(float64)) {
				t.Errorf("%s/%s: PLD grid %v, the audit's %v", caseName, name, e.Interval, row["pld_interval"])
				continue
			}
			a := row[m.col].(float64)
			if !(math.Abs(a-*e.Epsilon) <= 1e-12*a) {
				t.Errorf("%s/%s %s: audit %.17g, claim engine %.17g", caseName, name, m.method, a, *e.Epsilon)
			}
			compared++
		}
		if got := rr.NoiseMultiplier; got != row["sigma"].(float64) {
			t.Errorf("%s: noise multiplier %v", caseName, got)
		}
	}
	if compared != 3*len(tab.Rows) || compared < 45 {
		t.Errorf("compared %d numbers of %d rows", compared, len(tab.Rows))
	}
	t.Logf("%d numbers of table3-literal reproduced by the claim engine", compared)
}
