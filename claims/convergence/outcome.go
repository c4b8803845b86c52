package convergence

import (
	"fmt"
	"math"
	"sort"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	"github.com/fedrepro/fedrepro/proofs"
)

// Outcome is an engine audit of an embedded claim summarised in the terms
// of the proofs registry (proofs/claims.go), so that `fedrepro verify
// --paper P` can show the engine's verdict on P's theorems beside the
// hand-written checks (RegisterProof puts it in the registry).
type Outcome struct {
	// Verdict is "refuted" (the engine found a violation: the whole
	// measurement, its confidence interval for Monte Carlo, above the
	// bound), "holds" (no counterexample within the budget, or a vacuous
	// bound, which is never violated), or "inconclusive" (the readings
	// disagree: underspecified).
	Verdict string
	// Engine is the engine's own verdict (violated, no-counterexample,
	// vacuous, underspecified).
	Engine   string
	Evidence string
	// Values: the engine verdict, and per reading its verdict, worst
	// measured/bound, evaluations and evaluations whose bound was below the
	// trivial value; plus the budget.
	Values map[string]any
}

// AuditOutcome audits the embedded claim id at seed with the claim's own
// smoke budget (the budget its golden file records) and summarises it.
func AuditOutcome(id string, seed uint64) (Outcome, error) {
	rep, err := AuditShared(id, seed)
	if err != nil {
		return Outcome{}, err
	}
	return outcomeOf(rep), nil
}

// outcomeOf maps a report to the registry's verdicts.
func outcomeOf(rep *conv.Report) Outcome {
	o := Outcome{Engine: rep.Verdict, Values: map[string]any{"engine_verdict": rep.Verdict}}
	switch rep.Verdict {
	case conv.Violated:
		o.Verdict = "refuted"
	case conv.NoCounter, conv.Vacuous:
		o.Verdict = "holds"
	default:
		o.Verdict = "inconclusive"
	}
	worst := math.Inf(-1)
	readings := append([]conv.ReadingReport(nil), rep.Readings...)
	sort.Slice(readings, func(i, j int) bool { return readings[i].Reading < readings[j].Reading })
	for _, r := range readings {
		p := "reading/" + r.Reading + "/"
		o.Values[p+"verdict"] = r.Verdict
		o.Values[p+"evaluations"] = r.Evaluations
		o.Values[p+"below_trivial"] = r.BelowTrivial
		if r.Worst != nil {
			ratio := float64(r.Worst.Ratio)
			o.Values[p+"worst_ratio"] = ratio
			o.Values[p+"worst_measured"] = r.Worst.Measured.Value
			o.Values[p+"worst_bound"] = r.Worst.Bound
			if ratio > worst {
				worst = ratio
			}
		}
	}
	b := rep.Budget
	o.Values["budget/evaluations"] = b.Evaluations
	o.Values["budget/grid_points"] = b.GridPoints
	o.Values["budget/draws"] = b.Draws
	o.Values["budget/adversarial"] = b.Adversarial
	o.Values["budget/mc"] = b.MC
	o.Evidence = fmt.Sprintf("convergence engine on claims/convergence/%s.yaml: %s (worst measured/bound %.4g; families %v; %d evaluations) — %s",
		rep.ID, rep.Verdict, worst, b.Families, b.Evaluations, rep.Summary)
	return o
}

// RegisterProof registers, in the proofs registry, the engine's audit of the
// embedded claim file as the claim <paper>/<slug> (Computation kind: the
// verdict comes from running the method in the engine), so that `fedrepro
// verify --paper P` shows it beside P's hand-written checks and
// golden/<paper>/claims.yaml gates it. An audit that cannot run is
// inconclusive, with the error as its evidence.
func RegisterProof(paper, slug, file, source, statement string) {
	proofs.Register(proofs.Claim{
		ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement,
		Check: func(cfg proofs.Config) proofs.Result {
			o, err := AuditOutcome(file, cfg.Seed)
			if err != nil {
				return proofs.Result{Verdict: proofs.Inconclusive, Evidence: "convergence engine: " + err.Error()}
			}
			return proofs.Result{Verdict: proofs.Verdict(o.Verdict), Evidence: o.Evidence, Values: o.Values}
		},
	})
}
