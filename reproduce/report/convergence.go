package report

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// ConvergenceHeading is the heading of the section Convergence writes.
const ConvergenceHeading = "Convergence claims audited by the engine"

// ConvergenceIDs are the convergence claim files of paper
// (claims/convergence/<paper>-*.yaml), sorted.
func ConvergenceIDs(paper string) []string {
	var out []string
	for _, id := range convclaims.IDs() {
		if strings.HasPrefix(id, paper+"-") {
			out = append(out, id)
		}
	}
	return out
}

// Convergence audits every convergence claim file of paper with the
// generic engine (algorithms/audit/convergence) at the file's own smoke
// budget and seed — the run golden/convergence/<id>.json records — and adds
// the section ConvergenceHeading to doc (see ConvergenceSection). dir is
// the report's folder: a violated claim's counterexample is written there as
// conv-<id>.json (nothing is written when dir is ""). It returns the
// section's finding for "Findings at a glance" ("" when the paper has no
// claim file).
func Convergence(doc *Doc, paper, dir string, seed uint64) string {
	ids := ConvergenceIDs(paper)
	var reps []*conv.Report
	var failed []string
	for _, id := range ids {
		Step("convergence engine: %s", id)
		rep, err := convclaims.AuditShared(id, seed)
		if err == nil {
			reps = append(reps, rep)
			continue
		}
		failed = append(failed, fmt.Sprintf("%s: %v", id, err))
	}
	f := ConvergenceSection(doc, paper, reps, dir, seed)
	if len(failed) > 0 {
		doc.P("Audits that could not run:")
		doc.List(failed...)
		f = strings.TrimSuffix(f, ".") + fmt.Sprintf("; %d claim file(s) could not be audited.", len(failed))
	}
	return f
}

// ConvergenceSection renders the audits reps of paper's convergence claims:
// the heading, one row per claim (engine verdict, worst measured/bound over
// its readings, the families the verdict covers, the budget spent) and, for
// each violated claim, the instance and its arithmetic (measured value, its
// interval, the bound) with the file that replays it. Every figure is read
// from the reports; nothing is typed in. It returns the finding.
func ConvergenceSection(doc *Doc, paper string, reps []*conv.Report, dir string, seed uint64) string {
	doc.H(2, "%s", ConvergenceHeading)
	if len(reps) == 0 {
		doc.P("No convergence claim file of this paper goes through the engine (claims/convergence/%s-*.yaml).", paper)
		return ""
	}
	doc.P("Each row is a theorem of the paper written as a claim file (claims/convergence/, format fedrepro-convergence/1) and audited by the generic convergence engine: it searches instances of the theorem's own problem class — random draws, then a Nelder–Mead search maximising measured/bound — for one where the measured quantity exceeds the bound, with exact moments on quadratics and Monte-Carlo confidence intervals on the other families (seed %d, the files' own budgets; `fedrepro audit --claim ID` reruns one). *violated*: an instance of the class above the bound; *no-counterexample*: none within the budget stated; *vacuous*: the bound never fell below the value at the starting point; *underspecified*: the readings disagree. A verdict covers only the families listed.", seed)
	reps = append([]*conv.Report(nil), reps...)
	sort.Slice(reps, func(i, j int) bool { return reps[i].ID < reps[j].ID })
	tb := &Table{Header: []string{"claim", "source", "method", "verdict", "worst measured/bound", "families covered", "budget", "instance"}}
	counts := map[string]int{}
	var violated []string
	var details []string
	for _, r := range reps {
		counts[r.Verdict]++
		worst, w := worstEval(r)
		inst := "–"
		if r.Verdict == conv.Violated {
			violated = append(violated, fmt.Sprintf("%s (measured/bound %s)", r.ID, FormatValue(worst)))
			inst = "(not written)"
			if dir != "" {
				name := "conv-" + r.ID + ".json"
				if err := writeInstance(filepath.Join(dir, name), r, seed); err != nil {
					inst = "could not be written: " + err.Error()
				} else {
					inst = fmt.Sprintf("[%s](%s)", name, name)
				}
			}
			if w != nil {
				details = append(details, fmt.Sprintf("`%s` (%s): on a %s instance at %s the measured %s is %s (%s) against the bound %s; `fedrepro audit --claim %s --instance conv-%s.json` replays it.",
					r.ID, w.reading, w.ev.Family, fmtGridPoint(w.ev.Point), r.Quantity, FormatValue(w.ev.Measured.Value), intervalText(w.ev.Measured), FormatValue(w.ev.Bound), r.ID, r.ID))
			}
		}
		ratio := "–"
		if !math.IsNaN(worst) {
			ratio = FormatValue(worst)
		}
		tb.Add("`"+r.ID+"`", PublicText(OneLine(r.Source.Where, 90)), r.Algorithm, "**"+r.Verdict+"**", ratio,
			strings.Join(coveredFamilies(r), ", "), budgetText(r.Budget), inst)
	}
	doc.Table(tb)
	if len(details) > 0 {
		doc.P("Counterexamples (the arithmetic):")
		doc.List(details...)
	}
	var parts []string
	for _, v := range []string{conv.Violated, conv.Underspecified, conv.Vacuous, conv.NoCounter} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	f := fmt.Sprintf("Convergence engine: %d of the paper's theorem files audited — %s", len(reps), strings.Join(parts, ", "))
	if len(violated) > 0 {
		f += "; violated: " + strings.Join(violated, ", ")
	}
	f += "."
	doc.P("%s", f)
	return f
}

type worstOf struct {
	reading string
	ev      *conv.Eval
}

// worstEval is the largest measured/bound over the readings (NaN when no
// instance was evaluated) and the evaluation that reached it.
func worstEval(r *conv.Report) (float64, *worstOf) {
	best, w := math.NaN(), (*worstOf)(nil)
	for _, rr := range r.Readings {
		if rr.Worst == nil {
			continue
		}
		if v := float64(rr.Worst.Ratio); w == nil || v > best {
			best, w = v, &worstOf{reading: rr.Reading, ev: rr.Worst}
		}
	}
	return best, w
}

// coveredFamilies is the union of the families the readings' verdicts cover.
func coveredFamilies(r *conv.Report) []string {
	seen := map[string]bool{}
	var out []string
	for _, rr := range r.Readings {
		for _, f := range rr.Families {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

func budgetText(b conv.Budget) string {
	unit := "evaluations"
	if b.Evaluations == 1 {
		unit = "evaluation"
	}
	return fmt.Sprintf("%d points × (%d draws + %d adversarial), MC %d, d = %d; spent %d %s",
		b.GridPoints, b.Draws, b.Adversarial, b.MC, b.Dim, b.Evaluations, unit)
}

func intervalText(m conv.Measurement) string {
	if m.Lower == m.Upper {
		return m.Mode + ", exact"
	}
	return fmt.Sprintf("%s, 99.9%% interval [%s, %s]", m.Mode, FormatValue(m.Lower), FormatValue(m.Upper))
}

func fmtGridPoint(p map[string]float64) string {
	ks := make([]string, 0, len(p))
	for k := range p {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s = %s", k, FormatValue(p[k])))
	}
	if len(parts) == 0 {
		return "the file's parameters"
	}
	return strings.Join(parts, ", ")
}

// writeInstance writes the counterexample of r's worst reading, the file
// `fedrepro audit --claim ID --instance FILE` replays.
func writeInstance(path string, r *conv.Report, seed uint64) error {
	_, w := worstEval(r)
	if w == nil {
		return fmt.Errorf("no instance was evaluated")
	}
	b, err := json.MarshalIndent(r.Counterexample(w.reading, seed), "", " ")
	if err != nil {
		return err
	}
	return runner.WriteFileAtomic(path, append(b, '\n'))
}
