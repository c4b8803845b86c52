// Package texttable renders the plain-text tables of fedrepro's command
// output (gate failures, review tier, compare, account, list) in one style:
// tablewriter with no outer border, a rule under the header and columns
// separated by two spaces, so every command's tables read alike and stay
// aligned in a terminal, a CI log or a pipe.
package texttable

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a text table under construction.
type Table struct {
	Header []string
	Rows   [][]string
	// Align per column: 'l', 'r' or 'c' (default left).
	Align string
}

// Add appends one row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Render writes the table to w, without trailing spaces.
func (t *Table) Render(w io.Writer) error {
	var buf bytes.Buffer
	if err := t.render(&buf); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

func (t *Table) render(w io.Writer) error {
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
	style := tw.Rendition{
		Borders: tw.BorderNone,
		Symbols: tw.NewSymbols(tw.StyleASCII),
		Settings: tw.Settings{
			Separators: tw.Separators{ShowHeader: tw.On, BetweenRows: tw.Off, BetweenColumns: tw.Off},
			Lines:      tw.Lines{ShowHeaderLine: tw.On},
		},
	}
	tb := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(style)),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithAlignment(align),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
	)
	hdr := make([]any, len(t.Header))
	for i, h := range t.Header {
		hdr[i] = h
	}
	tb.Header(hdr...)
	for _, r := range t.Rows {
		row := make([]any, len(r))
		for i, c := range r {
			row[i] = c
		}
		if err := tb.Append(row...); err != nil {
			return err
		}
	}
	return tb.Render()
}

// String renders the table.
func (t *Table) String() string {
	var b bytes.Buffer
	_ = t.Render(&b)
	return b.String()
}
