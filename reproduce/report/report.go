// Package report writes the generated part of reports/<paper>/: markdown
// tables (tablewriter), figures (gonum.org/v1/plot, SVG and PNG) and the
// machine-readable summary.json that holds every reported number.
//
// Output is deterministic for deterministic inputs: tables and summaries are
// sorted by the caller's order or by key, and nothing embeds a clock.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/fedrepro/fedrepro/reproduce/runner"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Stats summarises a sample.
type Stats struct {
	Mean, Std float64 // Std is the sample standard deviation (n−1); 0 for n = 1
	N         int
}

// Summarize returns the mean and sample standard deviation of xs; non-finite
// values propagate (a diverged run is not silently dropped).
func Summarize(xs []float64) Stats {
	n := len(xs)
	if n == 0 {
		return Stats{Mean: math.NaN(), Std: math.NaN()}
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(n)
	if n == 1 {
		return Stats{Mean: m, N: 1}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return Stats{Mean: m, Std: math.Sqrt(ss / float64(n-1)), N: n}
}

// PM formats mean±std with the given number of decimals.
func (s Stats) PM(decimals int) string {
	if s.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%.*f±%.*f", decimals, s.Mean, decimals, s.Std)
}

// Scaled returns the stats multiplied by k (e.g. accuracy → percent).
func (s Stats) Scaled(k float64) Stats { return Stats{Mean: s.Mean * k, Std: s.Std * k, N: s.N} }

// Table is a markdown table under construction.
type Table struct {
	Header []string
	Rows   [][]string
	// Align per column: 'l', 'r' or 'c' (default left).
	Align string
}

// Add appends a row of cells, formatting each with fmt's %v.
func (t *Table) Add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.Rows = append(t.Rows, row)
}

// Markdown renders the table with tablewriter's markdown renderer (headers
// as given, '|' escaped).
func (t *Table) Markdown() string {
	var buf bytes.Buffer
	align := make(tw.Alignment, len(t.Header))
	for i := range align {
		align[i] = tw.AlignLeft
		if i < len(t.Align) {
			switch t.Align[i] {
			case 'r':
				align[i] = tw.AlignRight
			case 'c':
				align[i] = tw.AlignCenter
			}
		}
	}
	tb := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithAlignment(align),
	)
	hdr := make([]any, len(t.Header))
	for i, h := range t.Header {
		hdr[i] = escape(h)
	}
	tb.Header(hdr...)
	for _, r := range t.Rows {
		row := make([]any, len(r))
		for i, c := range r {
			row[i] = escape(c)
		}
		_ = tb.Append(row...)
	}
	_ = tb.Render()
	return buf.String()
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Cell is one reported number in summary.json: a flat object whose keys
// are the paper's documented fields (table, dataset, method, …, mean, std,
// n, paper_mean, …). Non-finite floats are written as strings.
type Cell map[string]any

// SummarySchema is the version of summary.json.
const SummarySchema = 1

// SeedStatsNote is the summary note every paper opens its notes with: the
// convention of Stats (Mean, and Std with Bessel's n−1), the statistic
// behind every cell's mean and std.
const SeedStatsNote = "mean and std are over seeds; std is the sample standard deviation (n−1)"

// Summary is summary.json.
type Summary struct {
	SchemaVersion int    `json:"schema_version"`
	Paper         string `json:"paper"`
	Scale         string `json:"scale"`
	// Provenance of the results the report was written from.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Notes explain conventions (std is the sample std over seeds, …).
	Notes []string `json:"notes,omitempty"`
	// Headline feeds the cross-paper index (reports/README.md).
	Headline *Headline `json:"headline,omitempty"`
	Cells    []Cell    `json:"cells"`
}

// SortCells orders cells by the given keys (then by all keys), so output
// is stable whatever order results were loaded in.
func SortCells(cells []Cell, keys ...string) {
	str := func(c Cell, k string) string { return fmt.Sprint(c[k]) }
	sort.SliceStable(cells, func(i, j int) bool {
		for _, k := range keys {
			a, b := str(cells[i], k), str(cells[j], k)
			if a != b {
				return a < b
			}
		}
		return false
	})
}

// MarshalSummary encodes s with sanitized non-finite floats.
func MarshalSummary(s *Summary) ([]byte, error) {
	clean := *s
	clean.SchemaVersion = SummarySchema
	if clean.Provenance == nil {
		clean.Provenance = sessionProvenance()
	}
	clean.Cells = make([]Cell, len(s.Cells))
	for i, c := range s.Cells {
		cc := Cell{}
		for k, v := range c {
			cc[k] = Sanitize(v)
		}
		clean.Cells[i] = cc
	}
	b, err := json.MarshalIndent(clean, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Sanitize replaces non-finite floats (also inside maps and slices) by the
// strings "NaN", "+Inf" and "-Inf" so that encoding/json accepts them.
func Sanitize(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		if math.IsInf(x, 1) {
			return "+Inf"
		}
		if math.IsInf(x, -1) {
			return "-Inf"
		}
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = Sanitize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Sanitize(e)
		}
		return out
	case []float64:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Sanitize(e)
		}
		return out
	}
	return v
}

// WriteSummary writes summary.json atomically.
func WriteSummary(path string, s *Summary) error {
	b, err := MarshalSummary(s)
	if err != nil {
		return fmt.Errorf("summary %s: %w", path, err)
	}
	return runner.WriteFileAtomic(path, b)
}

// Doc accumulates a markdown report. It renders in a fixed order, so every
// report opens alike whatever order its writer fills it in: the title (H1),
// the meta lines (provenance), "Findings at a glance" (Findings), a table of
// contents of the level-2 sections, then the body. Body text written before
// the first level-2 heading becomes the section "About this report".
type Doc struct {
	b        strings.Builder
	title    string
	meta     []string
	findings []string
	sections []string // level-2 headings in order
}

// H adds a heading of the given level; level 1 sets the document's title.
func (d *Doc) H(level int, format string, a ...any) {
	text := fmt.Sprintf(format, a...)
	if level == 1 {
		d.title = text
		return
	}
	if level == 2 {
		if len(d.sections) == 0 && strings.TrimSpace(d.b.String()) != "" {
			// Text before the first section gets a section of its own.
			body := d.b.String()
			d.b.Reset()
			d.sections = append(d.sections, aboutSection)
			fmt.Fprintf(&d.b, "## %s\n\n%s", aboutSection, body)
		}
		d.sections = append(d.sections, text)
	}
	fmt.Fprintf(&d.b, "%s %s\n\n", strings.Repeat("#", level), text)
}

const aboutSection = "About this report"

// Meta adds a line under the title (provenance: code version, data, spec).
func (d *Doc) Meta(format string, a ...any) { d.meta = append(d.meta, fmt.Sprintf(format, a...)) }

// Findings sets the "Findings at a glance" items: sentences computed from
// the results, the first thing a reader sees.
func (d *Doc) Findings(items ...string) { d.findings = append(d.findings, items...) }

// Anchor is GitHub's anchor for a heading: lower case, letters, digits,
// '-' and '_' kept, spaces turned into '-', everything else dropped.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// P adds a paragraph.
func (d *Doc) P(format string, a ...any) { fmt.Fprintf(&d.b, "%s\n\n", fmt.Sprintf(format, a...)) }

// List adds a bullet list.
func (d *Doc) List(items ...string) {
	for _, it := range items {
		fmt.Fprintf(&d.b, "- %s\n", it)
	}
	d.b.WriteString("\n")
}

// Table adds a rendered table.
func (d *Doc) Table(t *Table) { d.b.WriteString(t.Markdown()); d.b.WriteString("\n") }

// Image adds an image link (path relative to the document).
func (d *Doc) Image(alt, path string) { fmt.Fprintf(&d.b, "![%s](%s)\n\n", alt, path) }

// Raw appends text verbatim.
func (d *Doc) Raw(s string) { d.b.WriteString(s) }

// String renders the document: title, meta, findings, contents, body.
func (d *Doc) String() string {
	if d.title == "" && len(d.findings) == 0 && len(d.meta) == 0 {
		return d.b.String()
	}
	var out strings.Builder
	if d.title != "" {
		fmt.Fprintf(&out, "# %s\n\n", d.title)
	}
	meta := d.meta
	if d.title != "" {
		meta = append(append([]string(nil), meta...), sessionProvenance().Lines()...)
	}
	for _, m := range meta {
		fmt.Fprintf(&out, "%s  \n", m)
	}
	if len(meta) > 0 {
		out.WriteString("\n")
	}
	if len(d.findings) > 0 {
		out.WriteString("## Findings at a glance\n\n")
		for _, f := range d.findings {
			fmt.Fprintf(&out, "- %s\n", f)
		}
		out.WriteString("\n")
	}
	if len(d.sections) > 1 {
		out.WriteString("## Contents\n\n")
		seen := map[string]int{}
		for _, s := range d.sections {
			a := Anchor(s)
			if n := seen[a]; n > 0 {
				seen[a]++
				a = fmt.Sprintf("%s-%d", a, n)
			} else {
				seen[a] = 1
			}
			fmt.Fprintf(&out, "- [%s](#%s)\n", strings.ReplaceAll(s, "`", ""), a)
		}
		out.WriteString("\n")
	}
	out.WriteString(d.b.String())
	return out.String()
}

// Write stores the document atomically.
func (d *Doc) Write(path string) error { return runner.WriteFileAtomic(path, []byte(d.String())) }
