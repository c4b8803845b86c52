package convergence

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	"github.com/fedrepro/fedrepro/claims/claimtest"
	"github.com/fedrepro/fedrepro/internal/goldenflag"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"go.yaml.in/yaml/v3"
)

const goldenDir = "../../golden/convergence"

// TestSchema validates every shipped file against schema.json, and checks
// that the schema and the decoder both reject plausible mistakes.
func TestSchema(t *testing.T) {
	s := claimtest.Schema(t)
	for _, id := range IDs() {
		src, _ := Source(id)
		if err := s.Validate(claimtest.JSONValue(t, id, src)); err != nil {
			t.Errorf("%s.yaml does not validate against schema.json: %v", id, err)
		}
	}
	base, _ := Source("drori2014-gd-tight")
	for _, m := range []struct{ name, from, to string }{
		{"unknown key", "  noise: none\n", "  noise: none\n  colour: red\n"},
		{"unknown method", "name: gd", "name: gradient-descent"},
		{"unknown convexity", "convexity: convex", "convexity: convexish"},
		{"unknown measure", "measure: gap", "measure: loss"},
		{"wrong format", "fedrepro-convergence/1", "fedrepro-convergence/2"},
		{"grid of text", "T: [1, 2, 5, 10]", "T: [one, two]"},
		{"unknown family", "families: [quadratic, huber, logistic, piecewise]", "families: [quadratic, hubber]"},
		{"negative L", "constants: {L: 1}", "constants: {L: -1}"},
	} {
		bad := claimtest.Mutated(t, base, m.name, m.from, m.to)
		if err := s.Validate(claimtest.JSONValue(t, m.name, bad)); err == nil {
			t.Errorf("%s: schema.json accepts it", m.name)
		}
		if m.name == "negative L" {
			continue // the decoder accepts any L; instances then fail to certify
		}
		if _, err := conv.Decode("x.yaml", bad); err == nil {
			t.Errorf("%s: the decoder accepts it", m.name)
		}
	}
}

// TestLoad decodes every claim; ids equal file names; the library holds
// at least eight claims of papers fedrepro does not reproduce.
func TestLoad(t *testing.T) {
	for _, id := range IDs() {
		c, err := Load(id)
		if err != nil {
			t.Error(err)
			continue
		}
		if c.ID != id {
			t.Errorf("%s.yaml declares id %q", id, c.ID)
		}
	}
	if n := len(Library()); n < 8 {
		t.Errorf("library has %d claims, want ≥ 8", n)
	}
	if _, err := Load("nope"); err == nil {
		t.Error("unknown id loads")
	}
}

var (
	reportsOnce sync.Once
	reports     map[string]*conv.Report
	reportsErr  error
)

// auditAll audits every claim once per test binary, two at a time.
func auditAll(t *testing.T) map[string]*conv.Report {
	t.Helper()
	reportsOnce.Do(func() {
		reports, reportsErr = auditIDs(IDs(), func(c *conv.Claim) {})
	})
	if reportsErr != nil {
		t.Fatal(reportsErr)
	}
	return reports
}

// auditIDs audits claims (after edit) with the default seed, two at a time.
func auditIDs(ids []string, edit func(c *conv.Claim)) (map[string]*conv.Report, error) {
	return claimtest.AuditAll(ids, func(id string) (*conv.Report, error) {
		c, err := Load(id)
		if err != nil {
			return nil, err
		}
		edit(c)
		return conv.Audit(c, conv.Options{Seed: proofs.DefaultSeed})
	})
}

// golden is the gated view of a report: verdicts, the worst instance's
// numbers, what was covered and the budget.
func golden(r *conv.Report) any {
	type rd struct {
		Reading      string   `json:"reading"`
		Verdict      string   `json:"verdict"`
		WorstRatio   any      `json:"worst_ratio"`
		Measured     float64  `json:"measured"`
		Lower        float64  `json:"lower"`
		Bound        float64  `json:"bound"`
		Family       string   `json:"family"`
		Mode         string   `json:"mode"`
		Evaluations  int      `json:"evaluations"`
		BelowTrivial int      `json:"below_trivial"`
		Families     []string `json:"families"`
		Skipped      int      `json:"skipped"`
		Degenerate   int      `json:"degenerate"`
	}
	out := struct {
		Verdict  string      `json:"verdict"`
		Readings []rd        `json:"readings"`
		Budget   conv.Budget `json:"budget"`
	}{Verdict: r.Verdict, Budget: r.Budget}
	for _, x := range r.Readings {
		v := rd{Reading: x.Reading, Verdict: x.Verdict, Evaluations: x.Evaluations, BelowTrivial: x.BelowTrivial, Families: x.Families, Skipped: len(x.Skipped), Degenerate: x.Degenerate}
		if w := x.Worst; w != nil {
			v.WorstRatio, v.Measured, v.Lower, v.Bound, v.Family, v.Mode = float64(w.Ratio), w.Measured.Value, w.Measured.Lower, w.Bound, w.Family, w.Measured.Mode
			if math.IsInf(float64(w.Ratio), 0) {
				v.WorstRatio = "inf"
			}
		}
		out.Readings = append(out.Readings, v)
	}
	return out
}

// TestGolden audits every claim and compares its verdicts and worst
// instances with golden/convergence/<id>.json (the exact tier); -update
// records them and regenerates README.md's verdict table.
func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("audits every convergence claim")
	}
	reps := auditAll(t)
	for _, id := range IDs() {
		if _, err := json.Marshal(reps[id]); err != nil {
			t.Errorf("%s: the report does not encode as JSON: %v", id, err)
		}
	}
	if *goldenflag.Update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, id := range IDs() {
			snap := &gate.AuditSnapshot{SchemaVersion: gate.SchemaVersion, Paper: id, Platform: gate.Platform(), Values: gate.Flatten("", golden(reps[id]))}
			if err := gate.WriteAudits(filepath.Join(goldenDir, id+".json"), snap); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeTable(reps); err != nil {
			t.Fatal(err)
		}
		return
	}
	ents, _ := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if len(ents) != len(IDs()) {
		t.Errorf("%s holds %d goldens for %d claim files: re-record with go test ./claims/convergence -update", goldenDir, len(ents), len(IDs()))
	}
	for _, id := range IDs() {
		path := filepath.Join(goldenDir, id+".json")
		g, err := gate.ReadAudits(path)
		if err != nil {
			t.Errorf("%v (record it with go test ./claims/convergence -update)", err)
			continue
		}
		tol, note := gate.TolFor(g.Platform)
		if diffs := gate.CompareNamed(g.Values, gate.Flatten("", golden(reps[id])), tol); len(diffs) > 0 {
			t.Errorf("claim %s (%s): %d values differ from %s:\n%s", id, note, len(diffs), path, gate.NamedTable(diffs, 40))
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want, err := splice(string(readme), table(reps)); err != nil || want != string(readme) {
		t.Errorf("README.md's verdict table is stale (%v): re-record with go test ./claims/convergence -update", err)
	}
}

const beginMark, endMark = "<!-- verdicts:begin -->", "<!-- verdicts:end -->"

// table is the Markdown verdict table of every claim.
func table(reps map[string]*conv.Report) string {
	var b strings.Builder
	b.WriteString("| claim | method | verdict | worst measured/bound | families covered | budget |\n|---|---|---|---|---|---|\n")
	for _, id := range IDs() {
		r := reps[id]
		worst := "–"
		var fams []string
		seen := map[string]bool{}
		ratio := math.Inf(-1)
		for _, x := range r.Readings {
			if x.Worst != nil {
				ratio = math.Max(ratio, float64(x.Worst.Ratio))
			}
			for _, f := range x.Families {
				if !seen[f] {
					seen[f] = true
					fams = append(fams, f)
				}
			}
		}
		if !math.IsInf(ratio, -1) {
			worst = fmt.Sprintf("%.4g", ratio)
		}
		bud := r.Budget
		fmt.Fprintf(&b, "| `%s` | %s | **%s** | %s | %s | %d points × (%d draws + %d adversarial), MC %d, d = %d: %d evaluations |\n",
			id, r.Algorithm, r.Verdict, worst, strings.Join(fams, ", "), bud.GridPoints, bud.Draws, bud.Adversarial, bud.MC, bud.Dim, bud.Evaluations)
	}
	return b.String()
}

func splice(doc, tbl string) (string, error) {
	i, j := strings.Index(doc, beginMark), strings.Index(doc, endMark)
	if i < 0 || j < i {
		return "", fmt.Errorf("README.md lacks the %s … %s markers", beginMark, endMark)
	}
	return doc[:i+len(beginMark)] + "\n" + tbl + doc[j:], nil
}

func writeTable(reps map[string]*conv.Report) error {
	b, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	out, err := splice(string(b), table(reps))
	if err != nil {
		return err
	}
	return os.WriteFile("README.md", []byte(out), 0o644)
}

// TestPlantedError halves every library bound in memory (the bound times
// ½, i.e. its leading constant halved) and audits again with the same
// budget. The search path is invariant to a constant factor on the bound,
// so the halved claim must be violated wherever the original's worst
// instance had a lower confidence limit above half the bound, and cannot
// be where every measured/bound stayed below ½. The log lists which flip.
//
// Claims whose worst measured/bound stayed below farBelow are not audited
// again: halved, their ratio stays below 2·farBelow = ¼, far on the
// no-flip side, and the no-flip half of the rule is still tested by the
// library claims between farBelow and ½ (at least minNoFlip of them, which
// the test checks). The ones left out are the most expensive searches
// (Li et al. 2020's FedAvg bounds and Stich 2019, about 60 % of the
// re-audit's CPU time); every claim is still audited once by TestGolden.
func TestPlantedError(t *testing.T) {
	if testing.Short() {
		t.Skip("audits every library claim twice")
	}
	const farBelow, minNoFlip = 0.125, 3
	base := auditAll(t)
	var ids []string
	noFlip := 0
	for _, id := range Library() {
		if base[id].Verdict == conv.Violated {
			continue
		}
		hi := 0.0
		for _, x := range base[id].Readings {
			if w := x.Worst; w != nil && w.Bound > 0 {
				hi = math.Max(hi, float64(w.Ratio))
			}
		}
		if hi < farBelow {
			t.Logf("%-34s worst ratio %.4g < %g: not re-audited (halved it stays below ¼)", id, hi, farBelow)
			continue
		}
		if hi < 0.5 {
			noFlip++
		}
		ids = append(ids, id)
	}
	if noFlip < minNoFlip {
		t.Errorf("only %d re-audited claims on the no-flip side (worst ratio in [%g, ½)), want ≥ %d: lower farBelow", noFlip, farBelow, minNoFlip)
	}
	halve := func(v conv.Value) conv.Value {
		return conv.Value{Formula: "0.5*(" + v.String() + ")", Set: true, Line: v.Line}
	}
	planted, err := auditIDs(ids, func(c *conv.Claim) {
		c.Bound = halve(c.Bound)
		for i := range c.Readings {
			if c.Readings[i].Bound.Set {
				c.Readings[i].Bound = halve(c.Readings[i].Bound)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	flipped := 0
	for _, id := range ids {
		hi, lo := 0.0, math.Inf(1) // worst measured/bound and its lower confidence ratio
		for _, x := range base[id].Readings {
			if w := x.Worst; w != nil && w.Bound > 0 {
				hi = math.Max(hi, float64(w.Ratio))
				lo = math.Min(lo, w.Measured.Lower/w.Bound)
			}
		}
		got := planted[id].Verdict
		if got == conv.Violated {
			flipped++
		}
		switch {
		case lo > 0.5 && got != conv.Violated:
			t.Errorf("%s: worst lower ratio %.4g > ½ but the halved bound is %s", id, lo, got)
		case hi < 0.5 && got == conv.Violated:
			t.Errorf("%s: every ratio stayed below ½ (%.4g) yet the halved bound is violated", id, hi)
		}
		t.Logf("%-34s worst ratio %.4g → halved bound: %s", id, hi, got)
	}
	if flipped == 0 {
		t.Error("no planted error was detected")
	}
}

// TestPlantedRateError: the paper-theorem bounds below are loose on the
// searched instances (worst measured/bound below ½, so a halved constant
// is not detectable, as TestPlantedError's rule predicts), but a planted
// rate error — a sum taken for a mean, the kind of slip the papers'
// errata are — must flip each file to violated, the vacuous ones
// included: Upcycled Theorem 5.6's bound divided by M once more,
// (f(ω̄⁰) − f*)/M², and Fed-α-NormEC Theorem 2's whole right-hand side
// divided by K + 1 (every term then decays like 1/K, including 2R).
func TestPlantedRateError(t *testing.T) {
	if testing.Short() {
		t.Skip("audits the paper-theorem files with a planted error")
	}
	cases := []struct{ id, divisor string }{
		{"upcycled-thm5.6", "M"},
		{"upcycled-thm5.6-corrected", "M"},
		{"normec-thm2", "(K + 1)"},
	}
	var ids []string
	div := map[string]string{}
	for _, c := range cases {
		ids = append(ids, c.id)
		div[c.id] = c.divisor
	}
	base := auditAll(t)
	planted, err := auditIDs(ids, func(c *conv.Claim) {
		c.Bound = conv.Value{Formula: "(" + c.Bound.String() + ")/" + div[c.ID], Set: true, Line: c.Bound.Line}
		for i := range c.Readings {
			if c.Readings[i].Bound.Set {
				c.Readings[i].Bound = conv.Value{Formula: "(" + c.Readings[i].Bound.String() + ")/" + div[c.ID], Set: true, Line: c.Readings[i].Bound.Line}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if base[id].Verdict == conv.Violated {
			t.Fatalf("%s is violated without a planted error", id)
		}
		if got := planted[id].Verdict; got != conv.Violated {
			t.Errorf("%s with the bound divided by %s: %s, want violated", id, div[id], got)
		}
		t.Logf("%s: %s → bound/%s: %s", id, base[id].Verdict, div[id], planted[id].Summary)
	}
}

// handChecks maps each paper-theorem claim file to fedrepro's hand-written
// check of the same statement (proofs/<paper>) and the verdict that check
// records in golden/<paper>/claims.yaml — read from the golden, never typed
// here. A number key (instead of the verdict) compares a count the check
// records: zero violations ↔ no counterexample.
var handChecks = []struct{ file, paper, claim, number string }{
	{"upcycled-lemma5.5", "upcycled", "upcycled/lemma5.5-one-step", ""},
	{"upcycled-lemma5.5-corrected", "upcycled", "upcycled/lemma5.5-one-step", "corrected_violations"},
	{"upcycled-thm5.6-corrected", "upcycled", "upcycled/cor5.8-rate", ""},
	{"normec-thm1", "normec", "normec/thm1-bound", ""},
	{"normec-thm2", "normec", "normec/cor5-rate-k-1-8-ig", ""},
	{"fedddpm-thm1", "fedddpm", "fedddpm/theorem1-bound-quadratics", ""},
}

// TestPaperTheoremsAgree: the engine reaches the hand-written checks'
// verdicts (refuted ↔ violated; holds ↔ no counterexample or vacuous).
func TestPaperTheoremsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("audits the paper claims")
	}
	reps := auditAll(t)
	for _, h := range handChecks {
		b, err := os.ReadFile(filepath.Join("../../golden", h.paper, "claims.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Claims map[string]struct {
				Verdict string             `yaml:"verdict"`
				Numbers map[string]float64 `yaml:"numbers"`
			} `yaml:"claims"`
		}
		if err := yaml.Unmarshal(b, &g); err != nil {
			t.Fatal(err)
		}
		hc, ok := g.Claims[h.claim]
		if !ok {
			t.Fatalf("golden/%s/claims.yaml has no %s", h.paper, h.claim)
		}
		refuted := hc.Verdict == "refuted"
		if h.number != "" {
			n, ok := hc.Numbers[h.number]
			if !ok {
				t.Fatalf("%s records no %s", h.claim, h.number)
			}
			refuted = n > 0
		}
		got := reps[h.file].Verdict
		if refuted != (got == conv.Violated) || got == conv.Underspecified {
			t.Errorf("%s: engine %s, hand-written check %s (%s %s)", h.file, got, h.claim, hc.Verdict, h.number)
		}
	}
}
