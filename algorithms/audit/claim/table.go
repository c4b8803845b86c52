package claim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit"
)

// TableColumns are the fields of every AuditTable row, in display order
// (the `fedrepro audit --paper P --json` schema of the claims table):
//
//	claim, case, reading        which claim file, case and reading
//	claimed, delta              the printed ε and the reading's δ
//	noise_multiplier            the reading's noise multiplier (0: none)
//	eps_rdp, eps_rdp_classic, eps_pld, eps_prv, eps_prv_lower, eps_exact,
//	eps_visible_exact, eps_pure, eps_optimal
//	                            each method's ε (null: not applicable or ∞)
//	eps_upper, upper_method     the tightest sound upper bound
//	eps_lower                   the best proven lower bound (null: none)
//	eps_lb                      the distinguishing game's 95% lower bound
//	eps_paper_method            ε by the paper's own method (null: none)
//	needed_scale                the factor on the noise the claimed ε needs
//	verdict, case_verdict       the reading's verdict and the case's
var TableColumns = []string{"claim", "case", "reading", "claimed", "delta", "noise_multiplier",
	"eps_rdp", "eps_rdp_classic", "eps_pld", "eps_prv", "eps_prv_lower", "eps_exact", "eps_visible_exact", "eps_pure", "eps_optimal",
	"eps_upper", "upper_method", "eps_lower", "eps_lb", "eps_paper_method", "needed_scale", "verdict", "case_verdict"}

func val(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// AuditTable turns claim reports into one audit table: a row per case ×
// reading, and a verdict counting the cases.
func AuditTable(id, title string, reps []*Report) audit.Table {
	t := audit.Table{ID: id, Title: title, Columns: TableColumns}
	counts := map[string]int{}
	cases := 0
	var ids []string
	for _, rep := range reps {
		ids = append(ids, rep.Claim.ID)
		for _, k := range rep.Cases {
			counts[k.Verdict]++
			cases++
			for _, r := range k.Readings {
				row := audit.Row{"claim": rep.Claim.ID, "case": k.Case, "reading": r.Reading, "claimed": k.ClaimedEpsilon, "delta": r.Delta,
					"noise_multiplier": r.NoiseMultiplier, "verdict": r.Verdict, "case_verdict": k.Verdict}
				for _, m := range []string{MRDP, MRDPClassic, MPLD, MPRV, MExact, MVisibleExact, MPure, MOptimal} {
					key := "eps_" + strings.ReplaceAll(m, "-", "_")
					if m == MOptimal {
						key = "eps_optimal"
					}
					row[key] = nil
					if e := r.Method(m); e != nil {
						row[key] = val(e.Epsilon)
						if m == MPRV {
							row["eps_prv_lower"] = val(e.Lower)
						}
					}
				}
				if _, ok := row["eps_prv_lower"]; !ok {
					row["eps_prv_lower"] = nil
				}
				row["eps_upper"], row["upper_method"] = val(ptr(r.Upper.Epsilon)), r.Upper.Method
				row["eps_lower"] = nil
				if r.Lower != nil {
					row["eps_lower"] = r.Lower.Epsilon
				}
				row["eps_lb"] = nil
				if r.Empirical != nil {
					row["eps_lb"] = val(r.Empirical.EpsilonLB)
				}
				row["eps_paper_method"] = nil
				if r.PaperMethod != nil {
					row["eps_paper_method"] = r.PaperMethod.Epsilon
				}
				row["needed_scale"] = nil
				if n := r.Needed; n != nil && n.Scale > 0 {
					row["needed_scale"] = n.Scale
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	var parts []string
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	t.Verdict = fmt.Sprintf("%d claimed figures: %s", cases, strings.Join(parts, ", "))
	t.Notes = []string{
		fmt.Sprintf("The claim engine (algorithms/audit/claim) on claims/%s.yaml: every case × reading under RDP (improved and classic conversions), PLD, PRV (upper bound and proven lower bound), the exact curve where one exists (visible_exact: participation seen by the server; pure and optimal: a stated pure-DP guarantee summed and optimally composed); upper = the tightest sound bound, lower = the best proven lower bound, eps_lb = the distinguishing game's 95%% bound, needed_scale = the factor on the noise at which the claimed ε holds. Verdict rules: claims/README.md; the arithmetic of every verdict: fedrepro audit --claim ID.", strings.Join(ids, ".yaml, claims/")),
	}
	return t
}
