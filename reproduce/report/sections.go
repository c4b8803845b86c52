package report

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/proofs"
)

// OneLine collapses whitespace and cuts s to at most limit runes (adding
// "…"), for evidence strings in table cells.
func OneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}

// FormatValue renders an audit or summary value for a table cell: floats
// with four significant digits, +Inf as ∞, nil as empty.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "∞"
		case math.IsInf(x, -1):
			return "−∞"
		}
		return fmt.Sprintf("%.4g", x)
	default:
		return fmt.Sprint(x)
	}
}

// Claims runs every registered claim of a paper with the given seed, adds
// a table (claim, kind, source, verdict, evidence) and a count of verdicts
// to doc, and returns the count per verdict (for the headline). Verdicts
// come from the checks; nothing is typed in here.
func Claims(doc *Doc, paper string, seed uint64) map[string]int {
	cs := proofs.Claims(paper)
	out := map[string]int{}
	if len(cs) == 0 {
		doc.P("No claim checks are registered.")
		return out
	}
	Step("claims: %d checks of %s", len(cs), paper)
	tb := &Table{Header: []string{"claim", "kind", "source", "verdict", "evidence"}}
	counts := map[proofs.Verdict]int{}
	algebra := 0
	for _, c := range cs {
		r := runClaim(c, seed)
		counts[r.Verdict]++
		if c.KindOf() == proofs.Algebra {
			algebra++
		}
		tb.Add(c.ID, c.KindOf(), c.Source, r.Verdict, OneLine(PublicText(r.Evidence), 400))
	}
	var parts []string
	for _, v := range []proofs.Verdict{proofs.Holds, proofs.HoldsWithErratum, proofs.Refuted, proofs.Inconclusive} {
		parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
	}
	doc.P("%d claims (seed %d): %s. Kind: %d computation (the verdict comes from running this project's implementations), %d algebra (a check of the paper's own algebra or transcription, which no implementation bug can move).",
		len(cs), seed, strings.Join(parts, ", "), len(cs)-algebra, algebra)
	doc.Table(tb)
	for v, n := range counts {
		out[string(v)] = n
	}
	return out
}

// Audits runs every registered audit of a paper, adds each table (title,
// verdict, rows, notes) to doc and returns the tables it computed (for the
// findings and the headline). columns optionally narrows wide tables by
// audit ID; the full table stays available from `fedrepro audit --json`.
// A writer that called PrefetchAudits earlier with the same options gets
// the tables computed in the background.
func Audits(doc *Doc, paper string, opts audit.Options, columns map[string][]string) []audit.Table {
	es := audit.Entries(paper)
	if len(es) == 0 {
		doc.P("No audits are registered.")
		return nil
	}
	var out []audit.Table
	for _, e := range es {
		Step("audit %s", e.ID)
		t, err := prefetched(e, opts)
		if err != nil {
			doc.P("**%s**: failed: %v", e.Title, err)
			continue
		}
		out = append(out, t)
		doc.H(3, "%s", t.Title)
		if t.Verdict != "" {
			doc.P("Verdict: **%s**", PublicText(t.Verdict))
		}
		cols := t.Columns
		if want := columns[t.ID]; len(want) > 0 {
			have := map[string]bool{}
			for _, c := range t.Columns {
				have[c] = true
			}
			var keep []string
			for _, c := range want {
				if have[c] {
					keep = append(keep, c)
				}
			}
			if len(keep) < len(cols) {
				doc.P("Selected columns (%d of %d; the whole table: `fedrepro audit --paper %s --json`).", len(keep), len(cols), paper)
				cols = keep
			}
		}
		tb := &Table{Header: cols}
		for _, r := range t.Rows {
			row := make([]string, len(cols))
			for i, c := range cols {
				row[i] = PublicText(FormatValue(r[c]))
			}
			tb.Rows = append(tb.Rows, row)
		}
		doc.Table(tb)
		if len(t.Notes) > 0 {
			notes := make([]string, len(t.Notes))
			for i, n := range t.Notes {
				notes[i] = PublicText(n)
			}
			doc.List(notes...)
		}
	}
	return out
}

// Audit prefetching. The audits are deterministic functions of their
// options (audit.Run) and independent of the report's other sections, so a
// writer may start them all before its tables and figures, on goroutines of
// their own, and collect them when it reaches its audit section: on a
// machine with more than one core the report's wall time is then about the
// longer of the two instead of their sum. The tables are the same ones the
// sequential path computes (each audit's own code, with its own streams);
// only when they are computed changes.
type auditKey struct {
	paper, id string
	opts      audit.Options
}

type auditFuture struct {
	done chan struct{}
	t    audit.Table
	err  error
}

var (
	pendingMu sync.Mutex
	pending   = map[auditKey]*auditFuture{}
)

// PrefetchAudits starts computing every registered audit of paper with
// opts in the background (one goroutine each; the Go scheduler shares them
// with the caller over the cores). Audits collects them.
func PrefetchAudits(paper string, opts audit.Options) {
	for _, e := range audit.Entries(paper) {
		k := auditKey{e.Paper, e.ID, opts}
		pendingMu.Lock()
		if _, ok := pending[k]; ok {
			pendingMu.Unlock()
			continue
		}
		f := &auditFuture{done: make(chan struct{})}
		pending[k] = f
		pendingMu.Unlock()
		go func() {
			defer close(f.done)
			f.t, f.err = runAudit(e, opts)
		}()
	}
}

// prefetched returns the audit's table: the background computation's when
// one was started (waiting for it, then forgetting it), else computed now.
func prefetched(e audit.Entry, opts audit.Options) (audit.Table, error) {
	k := auditKey{e.Paper, e.ID, opts}
	pendingMu.Lock()
	f, ok := pending[k]
	delete(pending, k)
	pendingMu.Unlock()
	if !ok {
		return runAudit(e, opts)
	}
	<-f.done
	return f.t, f.err
}

// AuditTable returns the table of the given audit id among tables.
func AuditTable(tables []audit.Table, id string) (audit.Table, bool) {
	for _, t := range tables {
		if t.ID == id {
			return t, true
		}
	}
	return audit.Table{}, false
}

// RowFloat reads a numeric cell of an audit row (false when absent or not
// a number).
func RowFloat(r audit.Row, col string) (float64, bool) {
	switch v := r[col].(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}
