package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/attack"
)

// Attacks adds the canary audits recorded for paper at scale (golden/attack,
// made by `fedrepro attack`) to doc: one row per audit beside the claimed ε
// and the accountant's bound, the threat models, and a verdict computed from
// the rows. It returns the rows (nil when none were recorded) and a finding
// for "Findings at a glance" ("" when there is nothing to say).
func Attacks(doc *Doc, paper, scale string) ([]attack.Row, string) {
	rec, ok, err := attack.Recorded(paper, scale)
	if err != nil {
		doc.P("The recorded attacks could not be read: %v", err)
		return nil, ""
	}
	if !ok || len(rec.Rows) == 0 {
		doc.P("No attack is recorded at the %s scale. `%s` runs them and records the rows the report quotes.", scale, attack.RecordCommand(paper, scale))
		return nil, ""
	}
	rows := rec.Rows
	doc.P("Each audit runs this paper's own training code on the real data, once with a canary and once without, and bounds ε from below by what the threat model lets the adversary see (white-box gradient canaries, Nasr et al. 2023; one-run audits, Steinke, Nasr and Jagielski 2023; Clopper–Pearson at 95 %%). The rows were recorded by `fedrepro attack --paper %s --scale %s` with seed %d; `%s` remakes them.",
		paper, scale, rec.Seed, attack.RecordCommand(paper, scale))
	tb := &Table{Header: []string{"audit", "claimed ε", "accountant ε", "ε_lb (95 %)", "most the budget can show", "limited by the budget", "refutes the claim", "trials or canaries", "wall s"}}
	threats := map[string][]string{}
	for _, r := range rows {
		if r.Skipped != "" {
			tb.Add(r.ID, FormatValue(r.Claimed), "–", "not run", "–", "–", "–", "–", PublicText(OneLine(r.Skipped, 120)))
			continue
		}
		n := fmt.Sprintf("%d trials/side", r.Trials)
		if r.Canaries > 0 {
			n = fmt.Sprintf("%d canaries, %d/%d guesses right", r.Canaries, r.Correct, r.Guesses)
		}
		tb.Add(r.ID, FormatValue(r.Claimed), FormatValue(r.Accountant), FormatValue(r.EpsLB), FormatValue(r.EpsLBMax),
			yesNo(r.BudgetLimited), yesNo(r.Refutes), n, fmt.Sprintf("%.0f", r.WallSeconds))
		threats[r.ThreatModel+"; accountant: "+r.AccountantName] = append(threats[r.ThreatModel+"; accountant: "+r.AccountantName], r.ID)
	}
	doc.Table(tb)
	keys := make([]string, 0, len(threats))
	for k := range threats {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var items []string
	for _, k := range keys {
		items = append(items, fmt.Sprintf("%s: %s", strings.Join(threats[k], ", "), PublicText(k)))
	}
	doc.P("Threat models (what the adversary sees) and the accountant each row is compared with:")
	doc.List(items...)
	v := AttackVerdict(rows)
	doc.P("%s", v)
	return rows, v
}

// AttackVerdict states, from the rows alone, how many audits ran, how many
// refute their claimed ε, how the refutations line up with the accountants
// (a claim the accountant refutes has accountant ε > claimed ε) and which
// bounds the trial budget rather than the mechanism limits.
func AttackVerdict(rows []attack.Row) string {
	ran, refuted, acctRefutes, both, limited := 0, 0, 0, 0, 0
	var missed []string
	for _, r := range rows {
		if r.Skipped != "" {
			continue
		}
		ran++
		if r.Refutes {
			refuted++
		}
		if r.BudgetLimited {
			limited++
		}
		if r.Accountant > r.Claimed || math.IsInf(r.Accountant, 1) {
			acctRefutes++
			if r.Refutes {
				both++
			} else {
				why := "the attack was too weak at this budget"
				if r.BudgetLimited {
					why = "limited by the trial budget"
				}
				missed = append(missed, fmt.Sprintf("%s (ε_lb %s ≤ claimed %s; %s)", r.ID, FormatValue(r.EpsLB), FormatValue(r.Claimed), why))
			}
		}
	}
	if ran == 0 {
		return "No attack ran (every audit's data was missing)."
	}
	s := fmt.Sprintf("Attacks: %d of %d audits refute the claimed ε with 95 %% confidence; the accountants refute %d of the claims audited, and the attacks refute %d of those", refuted, ran, acctRefutes, both)
	if len(missed) > 0 {
		s += "; not refuted by attack: " + strings.Join(missed, ", ")
	}
	s += fmt.Sprintf(". %d of %d bounds are limited by the trial budget (an error-free test: more trials would raise them).", limited, ran)
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
