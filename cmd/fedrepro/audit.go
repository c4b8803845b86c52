package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/internal/texttable"
	"github.com/fedrepro/fedrepro/proofs"
)

// `fedrepro audit --paper X` runs every audit a paper package registered
// (algorithms/audit.Register) and prints their tables as Markdown, or as
// JSON {"paper": X, "audits": [Table…]}. A paper with no registered audit
// prints "no audits yet" (an empty list in JSON): nothing is faked.
//
// Paper packages register their audits in init, so they reach this command
// only when the binary imports them; each paper package must be blank-
// imported here (or in main.go) once it exists.

func init() {
	register(command{
		Name:    "audit",
		Summary: "audit a privacy claim: a paper's figures (--paper) or any claim file (--claim)",
		Description: "With --paper, runs every privacy audit a paper registers: the paper's stated ε recomputed under its own assumptions and under " +
			"what its mechanism really does (the claim engine on its claims/ files, RDP, PLD, PRV and exact accountants), and empirical lower bounds " +
			"from a distinguishing game; the reports print the same tables (same seed). With --claim, audits one claim file " +
			"(schema fedrepro-claim/1, claims/README.md) — a path, or the id of a claim in the built-in library: ε under every accountant, " +
			"the noise the claim needs, an empirical lower bound, and a verdict per reading (consistent, optimistic, conservative; " +
			"underspecified when readings disagree). --library lists the built-in claims. --json prints every field.",
		Examples: []string{"fedrepro audit --paper upcycled", "fedrepro audit --paper haar --json --quick",
			"fedrepro audit --claim claims/bu2020-clt.yaml", "fedrepro audit --claim tfp-mnist-tutorial --json", "fedrepro audit --library"},
		Run: runAudit,
	})
}

// auditReport is the --json document.
type auditReport struct {
	Paper  string        `json:"paper"`
	Audits []audit.Table `json:"audits"`
}

func runAudit(args []string, stdout, stderr io.Writer) error {
	if handled, err := auditConvergence(args, stdout, stderr); handled { // convergence claims: audit_conv.go
		return err
	}
	fs := newFlagSet("audit", stderr)
	paper := fs.String("paper", "", "paper to audit (one of "+strings.Join(knownPapers, ", ")+"); or give --claim or --library")
	claimArg := fs.String("claim", "", "claim file to audit (FILE.yaml), or the id of a built-in claim")
	library := fs.Bool("library", false, "list the built-in claim files")
	asJSON := fs.Bool("json", false, `print JSON: {"paper": X, "audits": [tables]}, a claim report (schema_version 1), or the library list`)
	quick := fs.Bool("quick", false, "reduced trial counts (CI)")
	seed := fs.Uint64("seed", proofs.DefaultSeed, "seed of every random stream the audits use (the reports use the default)")
	dataDir := fs.String("data-dir", "", "directory of user-supplied datasets (default: built-in locations)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	modes := 0
	for _, on := range []bool{*paper != "", *claimArg != "", *library} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return usagef("give one of --paper, --claim and --library")
	case *library:
		return runAuditLibrary(stdout, *asJSON)
	case *claimArg != "":
		return runAuditClaim(stdout, *claimArg, claim.Options{Seed: *seed, Quick: *quick}, *asJSON)
	case *paper == "":
		return usagef("--paper is required (one of %v), or --claim FILE.yaml, or --library", knownPapers)
	}
	if err := checkPaper(*paper); err != nil {
		return err
	}
	opts := audit.Options{Seed: *seed, Quick: *quick, DataDir: *dataDir}
	report := auditReport{Paper: *paper, Audits: []audit.Table{}}
	for _, e := range audit.Entries(*paper) {
		t, err := e.Run(opts)
		if err != nil {
			return fmt.Errorf("audit %s/%s: %w", e.Paper, e.ID, err)
		}
		if t.ID == "" {
			t.ID = e.ID
		}
		if t.Title == "" {
			t.Title = e.Title
		}
		report.Audits = append(report.Audits, t)
	}
	if *asJSON {
		for i := range report.Audits {
			report.Audits[i] = jsonSafe(report.Audits[i])
		}
		return writeJSON(stdout, report)
	}
	if len(report.Audits) == 0 {
		_, err := fmt.Fprintf(stdout, "%s: no audits yet\n", *paper)
		return err
	}
	for i, t := range report.Audits {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := renderTable(stdout, t); err != nil {
			return err
		}
	}
	return nil
}

// jsonSafe replaces non-finite numbers, which JSON cannot encode, by null.
func jsonSafe(t audit.Table) audit.Table {
	rows := make([]audit.Row, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = audit.Row{}
		for k, v := range r {
			if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
				v = nil
			}
			rows[i][k] = v
		}
	}
	t.Rows = rows
	return t
}

// cell formats one value: floats to 6 significant digits, ∞ spelled out.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "∞"
		case math.IsInf(x, -1):
			return "-∞"
		case math.IsNaN(x):
			return "NaN"
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	case float32:
		return cell(float64(x))
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

// renderTable prints "## id — title", the rows as a text table (the style
// of every fedrepro table, internal/texttable), then notes and the verdict.
func renderTable(w io.Writer, t audit.Table) error {
	fmt.Fprintf(w, "## %s — %s\n\n", t.ID, t.Title)
	cols := t.Columns
	if len(cols) == 0 && len(t.Rows) > 0 {
		for k := range t.Rows[0] {
			cols = append(cols, k)
		}
		sortStrings(cols)
	}
	if len(cols) > 0 {
		tbl := texttable.Table{Header: cols}
		for _, r := range t.Rows {
			line := make([]string, len(cols))
			for i, c := range cols {
				line[i] = cell(r[c])
			}
			tbl.Add(line...)
		}
		if err := tbl.Render(w); err != nil {
			return err
		}
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	if t.Verdict != "" {
		fmt.Fprintf(w, "verdict: %s\n", t.Verdict)
	}
	return nil
}

func sortStrings(s []string) { sort.Strings(s) }
