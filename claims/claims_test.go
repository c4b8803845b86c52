package claims

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/claims/claimtest"
	"github.com/fedrepro/fedrepro/internal/goldenflag"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/gate"
)

const goldenDir = "../golden/claims"

// TestSchema validates every shipped claim file against schema.json, and
// checks that the schema, like the decoder, rejects what it should.
func TestSchema(t *testing.T) {
	s := claimtest.Schema(t)
	for _, id := range IDs() {
		src, err := Source(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(claimtest.JSONValue(t, id, src)); err != nil {
			t.Errorf("%s.yaml does not validate against schema.json: %v", id, err)
		}
	}
	base, _ := Source("tff-dp-fedavg-tutorial")
	for _, m := range []struct{ name, from, to string }{
		{"unknown key", "unit: user\n", "unit: user\ncolour: red\n"},
		{"bad mechanism", "mechanism: gaussian", "mechanism: gauss"},
		{"bad sampling kind", "kind: clients", "kind: shuffled"},
		{"wrong schema", "fedrepro-claim/1", "fedrepro-claim/2"},
		{"claimed ε as text", "claimed_epsilon: 2", "claimed_epsilon: two"},
	} {
		bad := claimtest.Mutated(t, base, m.name, m.from, m.to)
		if err := s.Validate(claimtest.JSONValue(t, m.name, bad)); err == nil {
			t.Errorf("%s: schema.json accepts it", m.name)
		}
		if _, err := claim.Decode("x.yaml", bad); err == nil {
			t.Errorf("%s: the decoder accepts it", m.name)
		}
	}
}

// TestLoad decodes every claim; ids equal file names; the paper claims
// exist for each reproduced paper with figures.
func TestLoad(t *testing.T) {
	if len(IDs()) < 10 {
		t.Fatalf("only %d claim files", len(IDs()))
	}
	for _, id := range IDs() {
		if _, err := Load(id); err != nil {
			t.Error(err)
		}
	}
	for _, p := range Papers {
		if len(ForPaper(p)) == 0 {
			t.Errorf("no claim file for paper %s", p)
		}
	}
	if n := len(Library()); n < 8 {
		t.Errorf("library has %d claims, want ≥ 8", n)
	}
	if _, err := Load("nope"); err == nil || !strings.Contains(err.Error(), "no claim") {
		t.Errorf("unknown id: %v", err)
	}
}

// goldenOptions are the options TestGolden audits every claim with: those
// of the paper audits' "claims" entry at the options a report uses
// (TestPaperAuditsGatedHere checks that the two tables agree).
var goldenOptions = EngineOptions(audit.Options{Seed: proofs.DefaultSeed})

var (
	reportsOnce sync.Once
	reports     map[string]*claim.Report
	reportsErr  error
)

// auditAll audits every claim once per test binary, two at a time.
func auditAll(t *testing.T) map[string]*claim.Report {
	t.Helper()
	reportsOnce.Do(func() {
		reports, reportsErr = claimtest.AuditAll(IDs(), func(id string) (*claim.Report, error) {
			c, err := Load(id)
			if err != nil {
				return nil, err
			}
			return claim.Audit(c, goldenOptions)
		})
	})
	if reportsErr != nil {
		t.Fatal(reportsErr)
	}
	return reports
}

// TestGolden audits every claim and compares every verdict, label and
// number with golden/claims/<id>.json (the exact tier's tolerance); with
// -update it records them and regenerates the tables of README.md.
func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("audits every claim (about a minute)")
	}
	reps := auditAll(t)
	for _, id := range IDs() {
		// The --json document of every claim encodes (no NaN or ∞ leaks).
		if _, err := json.Marshal(reps[id]); err != nil {
			t.Errorf("%s: the report does not encode as JSON: %v", id, err)
		}
	}
	if *goldenflag.Update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, id := range IDs() {
			snap := &gate.AuditSnapshot{SchemaVersion: gate.SchemaVersion, Paper: id, Platform: gate.Platform(), Values: gate.Flatten("", reps[id])}
			if err := gate.WriteAudits(filepath.Join(goldenDir, id+".json"), snap); err != nil {
				t.Fatal(err)
			}
		}
		readme, err := os.ReadFile("README.md")
		if err != nil {
			t.Fatal(err)
		}
		out, err := spliceLibrary(string(readme), libraryMarkdown(reps))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("README.md", []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d claims in %s and the README tables", len(IDs()), goldenDir)
		return
	}
	ents, _ := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if len(ents) != len(IDs()) {
		t.Errorf("%s holds %d goldens for %d claim files: re-record with `make golden-claims`", goldenDir, len(ents), len(IDs()))
	}
	for _, id := range IDs() {
		path := filepath.Join(goldenDir, id+".json")
		g, err := gate.ReadAudits(path)
		if err != nil {
			t.Errorf("%v (record it with `make golden-claims`)", err)
			continue
		}
		tol, note := gate.TolFor(g.Platform)
		if diffs := gate.CompareNamed(g.Values, gate.Flatten("", reps[id]), tol); len(diffs) > 0 {
			t.Errorf("claim %s (%s): %d values differ from %s:\n%s\nIf intended, re-record with `make golden-claims`.", id, note, len(diffs), path, gate.NamedTable(diffs, 40))
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := spliceLibrary(string(readme), libraryMarkdown(reps))
	if err != nil {
		t.Fatal(err)
	}
	if want != string(readme) {
		t.Errorf("claims/README.md's library tables are stale: regenerate with `make golden-claims`")
	}
}

// TestLibraryVerdicts checks what the issue asks of the library: at least
// two claims found consistent, and every optimistic reading explained by
// its arithmetic.
func TestLibraryVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("audits every claim")
	}
	reps := auditAll(t)
	consistent := 0
	for _, id := range Library() {
		for _, k := range reps[id].Cases {
			if k.Verdict == claim.Consistent {
				consistent++
			}
			for _, r := range k.Readings {
				if r.Verdict == claim.Optimistic && (!strings.Contains(r.Reason, "ε ratio") || r.EpsilonRatio == nil || *r.EpsilonRatio <= 1) {
					t.Errorf("%s/%s/%s: optimistic without its arithmetic: %q", id, k.Case, r.Reading, r.Reason)
				}
			}
		}
	}
	if consistent < 2 {
		t.Errorf("%d library cases found consistent, want ≥ 2", consistent)
	}
}

const (
	beginMark = "<!-- library:begin -->"
	endMark   = "<!-- library:end -->"
)

func spliceLibrary(readme, table string) (string, error) {
	i, j := strings.Index(readme, beginMark), strings.Index(readme, endMark)
	if i < 0 || j < i {
		return "", fmt.Errorf("README.md lacks the %s … %s markers", beginMark, endMark)
	}
	return readme[:i+len(beginMark)] + "\n" + table + readme[j:], nil
}

func num(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.4g", *p)
}

func methodCell(r claim.ReadingReport, m string) string { return r.Display(m) }

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// libraryMarkdown renders the library (one row per case × reading), the
// arithmetic of its optimistic verdicts, and the reproduced papers' case
// verdicts.
func libraryMarkdown(reps map[string]*claim.Report) string {
	var b strings.Builder
	counts := map[string]int{}
	cases := 0
	for _, id := range Library() {
		for _, k := range reps[id].Cases {
			counts[k.Verdict]++
			cases++
		}
	}
	fmt.Fprintf(&b, "%d library claims, %d cases: %d consistent, %d optimistic, %d conservative, %d underspecified.\n\n",
		len(Library()), cases, counts[claim.Consistent], counts[claim.Optimistic], counts[claim.Conservative], counts[claim.Underspecified])
	b.WriteString("| claim / case | paper | claimed ε (δ) | reading | rdp | rdp-classic | pld | prv [lower] | exact | reading verdict | case verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	var arithmetic []string
	for _, id := range Library() {
		rep := reps[id]
		for _, k := range rep.Cases {
			name := id
			if k.Case != "" {
				name += " / " + k.Case
			}
			for i, r := range k.Readings {
				first := [3]string{"", "", ""}
				verdict := ""
				if i == 0 {
					first = [3]string{"`" + name + "`", fmt.Sprintf("[%s](%s)", cell(short(rep.Claim.Paper)), rep.Claim.Paper.Link), fmt.Sprintf("%s (%g)", k.Printed, r.Delta)}
					verdict = "**" + k.Verdict + "**"
				}
				rv := r.Verdict
				if r.BoundOnly {
					rv += " (bound only)"
				}
				if r.Proven != "" {
					rv += ", proven (" + r.Proven + ")"
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", first[0], first[1], first[2], r.Reading,
					methodCell(r, claim.MRDP), methodCell(r, claim.MRDPClassic), methodCell(r, claim.MPLD), methodCell(r, claim.MPRV), methodCell(r, claim.MExact), rv, verdict)
				if r.Verdict == claim.Optimistic || r.Verdict == claim.Conservative {
					arithmetic = append(arithmetic, fmt.Sprintf("- `%s`, reading %s: %s", name, r.Reading, cell(r.Reason)))
				}
			}
		}
	}
	if len(arithmetic) > 0 {
		b.WriteString("\nThe arithmetic of the optimistic and conservative readings:\n\n")
		b.WriteString(strings.Join(arithmetic, "\n") + "\n")
	}
	b.WriteString("\n### The reproduced papers\n\n")
	b.WriteString("`fedrepro audit --paper P` prints these with every reading (table `claims`); the paper-specific audits (constants searches, empirical games on the papers' own mechanisms) stay in Go.\n\n")
	b.WriteString("| claim / case | claimed ε | verdict | summary |\n|---|---|---|---|\n")
	for _, p := range Papers {
		for _, id := range ForPaper(p) {
			for _, k := range reps[id].Cases {
				name := id
				if k.Case != "" {
					name += " / " + k.Case
				}
				fmt.Fprintf(&b, "| `%s` | %s | **%s** | %s |\n", name, k.Printed, k.Verdict, cell(k.Summary))
			}
		}
	}
	return b.String()
}

// short is "first author year" of a paper entry.
func short(p claim.Paper) string {
	a := strings.TrimSpace(strings.SplitN(p.Authors, ",", 2)[0])
	if f := strings.Fields(a); len(f) > 1 && !strings.Contains(a, "(") {
		a = f[len(f)-1]
	}
	return fmt.Sprintf("%s %d", a, p.Year)
}

// TestOrdersDocumented: every rdp_orders grid is documented in README.md
// (its row names its first and last order) and in schema.json.
func TestOrdersDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"opacus", "dp-accounting", "tf-privacy", "integer"} {
		o, err := claim.Orders(name)
		if err != nil {
			t.Fatal(err)
		}
		row := ""
		for _, l := range strings.Split(string(readme), "\n") {
			if strings.HasPrefix(l, "| `"+name+"`") {
				row = l
			}
		}
		first, last := fmt.Sprint(o[0]), fmt.Sprint(o[len(o)-1])
		if row == "" || !strings.Contains(row, first) || !strings.Contains(row, last) {
			t.Errorf("README.md: no rdp_orders row for %s naming %s … %s (%q)", name, first, last, row)
		}
		if !strings.Contains(string(schema), name+" (default) =") && !strings.Contains(string(schema), name+" = ") {
			t.Errorf("schema.json: rdp_orders description lacks %s", name)
		}
	}
}
