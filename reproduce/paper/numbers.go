package paper

import (
	"io/fs"

	"github.com/fedrepro/fedrepro/golden"
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

// OpenReport gathers what a paper's report opens with, in the order every
// report takes it: the paper's printed numbers (golden/<name>/paper.yaml,
// embedded in the binary as golden.Papers), the results grouped over
// seeds by the paper's group function, and the folder the report is
// written to (ReportDir).
func OpenReport[G any](o Options, name string, results []*runner.Result, group func([]*runner.Result) (G, error)) (nums *Numbers, groups G, dir string, err error) {
	if nums, err = golden.Load(name); err != nil {
		return nil, groups, "", err
	}
	if groups, err = group(results); err != nil {
		return nil, groups, "", err
	}
	return nums, groups, ReportDir(o, name), nil
}
