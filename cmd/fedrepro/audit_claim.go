package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/internal/texttable"
)

// `fedrepro audit --claim FILE.yaml|ID` audits one claim file with the
// claim engine (algorithms/audit/claim) and prints, per case, one table
// line per reading and the verdict with its arithmetic; --json prints the
// claim.Report (schema_version 1). `--library` lists the built-in claims.

// loadClaim reads a claim from a file, or from the built-in library when
// no such file exists and the argument is a claim id.
func loadClaim(arg string) (*claim.Claim, error) {
	b, err := os.ReadFile(arg)
	switch {
	case err == nil:
		return claim.Decode(arg, b)
	case errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, "/\\") && !strings.HasSuffix(arg, ".yaml"):
		if _, e := claims.Source(arg); e == nil {
			return claims.Load(arg)
		}
		return nil, fmt.Errorf("%s: no such file, and no built-in claim has this id (fedrepro audit --library lists them)", arg)
	}
	return nil, fmt.Errorf("reading the claim file: %w", err)
}

func runAuditClaim(stdout io.Writer, arg string, o claim.Options, asJSON bool) error {
	c, err := loadClaim(arg)
	if err != nil {
		return err
	}
	rep, err := claim.Audit(c, o)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(stdout, rep)
	}
	return writeClaimText(stdout, rep)
}

// fmtEps formats an ε for the terminal.
func fmtEps(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.4g", *p)
}

func accountantCell(r claim.ReadingReport, m string) string { return r.Display(m) }

func writeClaimText(w io.Writer, rep *claim.Report) error {
	c := rep.Claim
	fmt.Fprintf(w, "%s — %s\n", c.ID, c.Title)
	fmt.Fprintf(w, "paper:  %s, %s (%s, %d) %s\n", c.Paper.Title, c.Paper.Authors, c.Paper.Venue, c.Paper.Year, c.Paper.Link)
	fmt.Fprintf(w, "source: %s\n", c.Source.Where)
	fmt.Fprintf(w, "quote:  %q\n", oneLine(c.Source.Quote))
	if err := writeClaimOverview(w, rep); err != nil {
		return err
	}
	for _, k := range rep.Cases {
		fmt.Fprintln(w)
		name := "claim"
		if k.Case != "" {
			name = "case " + k.Case
		}
		tol := "exact"
		if k.Rounding == "printed" {
			tol = fmt.Sprintf("printed, ±%g", k.Tolerance)
		}
		fmt.Fprintf(w, "%s: claimed ε = %s at δ = %g (%s) → %s\n", name, k.Printed, k.Readings[0].Delta, tol, strings.ToUpper(k.Verdict))
		t := texttable.Table{Header: []string{"reading", "verdict", "rdp", "rdp-classic", "pld", "prv [lower]", "exact", "ε_LB (95%)", "paper's method", "σ needed (×)"}}
		for _, r := range k.Readings {
			v := r.Verdict
			if r.Proven != "" {
				v += ", proven"
			}
			if r.BoundOnly {
				v += " (bound)"
			}
			if r.RelationDiffers {
				v += " [" + r.Neighbouring + "]"
			}
			lb := "–"
			if r.Empirical != nil && r.Empirical.EpsilonLB != nil {
				lb = fmtEps(r.Empirical.EpsilonLB)
			}
			pm := "–"
			if r.PaperMethod != nil {
				pm = fmt.Sprintf("%.4g", r.PaperMethod.Epsilon)
				if r.PaperMethod.Matches {
					pm += " ✓"
				}
			}
			need := "–"
			if n := r.Needed; n != nil && n.Scale > 0 {
				if n.Multiplier > 0 {
					need = fmt.Sprintf("%.4g (×%.3g)", n.Multiplier, n.Scale)
				} else {
					need = fmt.Sprintf("×%.3g", n.Scale)
				}
			}
			t.Add(r.Reading, v, accountantCell(r, claim.MRDP), accountantCell(r, claim.MRDPClassic), accountantCell(r, claim.MPLD),
				accountantCell(r, claim.MPRV), exactCell(r), lb, pm, need)
		}
		if err := t.Render(w); err != nil {
			return err
		}
		for _, r := range k.Readings {
			if r.Verdict != claim.Consistent || len(k.Readings) == 1 || r.RelationDiffers {
				fmt.Fprintf(w, "- %s: %s\n", r.Reading, r.Reason)
			}
			if r.Warning != "" {
				fmt.Fprintf(w, "- %s: warning: %s\n", r.Reading, r.Warning)
			}
		}
		writeEmpiricalNotes(w, k)
		if k.Verdict == claim.Underspecified {
			fmt.Fprintf(w, "verdict: %s\n", k.Summary)
		}
	}
	return nil
}

// writeClaimOverview prints, before the per-case tables, one row per case
// with its verdict and every reading's tightest sound upper bound, and
// marks with * the reading the case's headline rests on — so that every
// reading's ε is on the first screen (Fed-α-NormEC's ε = 8 is 2.88e4,
// 2313 or 12.3 depending on what its "variance" means).
func writeClaimOverview(w io.Writer, rep *claim.Report) error {
	if len(rep.Cases) == 0 {
		return nil
	}
	readings := rep.Cases[0].Readings
	header := []string{"case", "claimed ε", "verdict"}
	for _, r := range readings {
		header = append(header, r.Reading)
	}
	t := texttable.Table{Header: header}
	for _, k := range rep.Cases {
		name := k.Case
		if name == "" {
			name = "claim"
		}
		row := []string{name, k.Printed, k.Verdict}
		for _, r := range k.Readings {
			cell := upperCell(r)
			if k.Headline != nil && k.Headline.Reading == r.Reading {
				cell += " *"
			}
			row = append(row, cell)
		}
		t.Add(row...)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "ε by reading (the tightest sound upper bound and its accountant; * = the reading the case's verdict is quoted from):")
	if err := t.Render(w); err != nil {
		return err
	}
	for _, r := range readings {
		if r.RelationDiffers {
			fmt.Fprintf(w, "reading %s assumes %s neighbouring; the claim states %s: its ε bounds another relation.\n", r.Reading, r.Neighbouring, rep.Cases[0].Neighbouring)
		}
	}
	return nil
}

// upperCell is a reading's tightest sound upper bound with its method.
func upperCell(r claim.ReadingReport) string {
	if r.Upper == nil {
		return "–"
	}
	if math.IsInf(r.Upper.Epsilon, 1) {
		return "∞ (" + r.Upper.Method + ")"
	}
	return fmt.Sprintf("%.4g (%s)", r.Upper.Epsilon, r.Upper.Method)
}

// writeEmpiricalNotes says why the ε_LB column is empty where it is.
func writeEmpiricalNotes(w io.Writer, k claim.CaseReport) {
	for _, r := range k.Readings {
		switch e := r.Empirical; {
		case e == nil:
			fmt.Fprintf(w, "- %s: ε_LB –: the distinguishing game was not run\n", r.Reading)
		case e.EpsilonLB == nil:
			note := e.Note
			if note == "" {
				note = "the game found no evidence above chance"
			}
			fmt.Fprintf(w, "- %s: ε_LB –: %s\n", r.Reading, strings.TrimPrefix(note, "n/a: "))
		}
	}
}

// exactCell is the exact value, or the visible-participation mixture, or
// a stated guarantee's pure/optimal value. Under visible participation the
// mixture comes first: the exact curve of the all-steps-taken event is
// only an upper bound of that mechanism.
func exactCell(r claim.ReadingReport) string {
	order := []string{claim.MExact, claim.MVisibleExact, claim.MOptimal, claim.MPure}
	if e := r.Method(claim.MVisibleExact); e != nil && e.Epsilon != nil {
		order = []string{claim.MVisibleExact, claim.MExact, claim.MOptimal, claim.MPure}
	}
	for _, m := range order {
		if s := accountantCell(r, m); s != "–" && s != "∞" {
			if m != claim.MExact {
				return s + " (" + m + ")"
			}
			return s
		}
	}
	return "–"
}

type libraryEntry struct {
	ID     string   `json:"id"`
	Paper  string   `json:"paper"`
	Title  string   `json:"title"`
	Cases  []string `json:"cases"`
	Owner  string   `json:"reproduced_paper,omitempty"`
	Source string   `json:"file"`
}

// libraryDoc is `audit --library --json`: an object, like every JSON
// document of the CLI, so writeJSON can add schema_version and seconds.
type libraryDoc struct {
	Claims []libraryEntry `json:"claims"`
}

func runAuditLibrary(stdout io.Writer, asJSON bool) error {
	var out []libraryEntry
	for _, id := range claims.IDs() {
		c, err := claims.Load(id)
		if err != nil {
			return err
		}
		e := libraryEntry{ID: id, Paper: c.Paper.Title, Title: c.Title, Source: "claims/" + id + ".yaml", Cases: []string{}}
		for _, k := range c.Cases {
			e.Cases = append(e.Cases, k.Name)
		}
		for _, p := range claims.Papers {
			if strings.HasPrefix(id, p+"-") {
				e.Owner = p
			}
		}
		out = append(out, e)
	}
	if asJSON {
		return writeJSON(stdout, libraryDoc{Claims: out})
	}
	t := texttable.Table{Header: []string{"id", "cases", "paper", "title"}}
	for _, e := range out {
		paper := e.Paper
		if len([]rune(paper)) > 48 {
			paper = string([]rune(paper)[:47]) + "…"
		}
		t.Add(e.ID, fmt.Sprint(max(1, len(e.Cases))), paper, e.Title)
	}
	return t.Render(stdout)
}
