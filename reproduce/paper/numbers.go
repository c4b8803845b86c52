package paper

import (
	"io/fs"

	"github.com/fedrepro/fedrepro/golden"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// The paper-numbers schema lives in package golden (so that proofs/ can
// read the transcriptions without depending on reproduce/); these aliases
// keep reproduce code short.
type (
	// Numbers is golden/<paper>/paper.yaml.
	Numbers = golden.Numbers
	// Table is one printed table.
	Table = golden.Table
	// Row is one printed row.
	Row = golden.Row
	// Value is a number printed in the text.
	Value = golden.Value
	// Cell is a parsed printed cell.
	Cell = golden.Cell
)

// ParseCell parses "98.06±0.07" or "98.06".
func ParseCell(s string) (Cell, error) { return golden.ParseCell(s) }

// LoadNumbers reads golden/<paper>/paper.yaml under root.
func LoadNumbers(root, paper string) (*Numbers, error) { return golden.LoadNumbers(root, paper) }

// LoadNumbersFS reads <paper>/paper.yaml from fsys (e.g. golden.Papers).
func LoadNumbersFS(fsys fs.FS, paper string) (*Numbers, error) {
	return golden.LoadNumbersFS(fsys, paper)
}

// ReportWriter is the part of a report writer every paper's holds: the
// command's options, the plan's spec, the paper's printed numbers, the
// results grouped over seeds (G: the paper's grouping), the folder the
// report is written to and the summary.json its sections fill. A paper's
// writer embeds it and adds its data source and what its sections
// compute for the findings.
type ReportWriter[S, G any] struct {
	Opts    Options
	Spec    *S
	Nums    *Numbers
	Groups  G
	Dir     string
	Summary *report.Summary
}

// OpenReport opens a paper's report, in the order every report takes it:
// the paper's printed numbers (golden/<name>/paper.yaml, embedded in the
// binary as golden.Papers), the results grouped over seeds by the paper's
// group function, the folder the report is written to (ReportDir), and a
// summary of the paper at o's scale opening with notes (what its cells
// mean).
func OpenReport[S, G any](o Options, name string, s *S, results []*runner.Result, group func([]*runner.Result) (G, error), notes ...string) (ReportWriter[S, G], error) {
	w := ReportWriter[S, G]{Opts: o, Spec: s, Dir: ReportDir(o, name), Summary: &report.Summary{Paper: name, Scale: o.Scale, Notes: notes}}
	var err error
	if w.Nums, err = golden.Load(name); err != nil {
		return w, err
	}
	if w.Groups, err = group(results); err != nil {
		return w, err
	}
	return w, nil
}

// Finish closes the report: doc written to the report's folder with the
// summary, the findings at a glance and the headline (report.Doc.Finish).
func (w *ReportWriter[S, G]) Finish(doc *report.Doc, findings []string, h *report.Headline, cellOrder ...string) error {
	return doc.Finish(w.Dir, w.Summary, findings, h, cellOrder...)
}
