package golden

import (
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fedrepro/fedrepro/internal/strictyaml"
)

// Numbers is golden/<paper>/paper.yaml: every number the paper prints that
// a reproduction compares against, each with where it was printed.
type Numbers struct {
	Paper  string  `yaml:"paper"`
	Source string  `yaml:"source"` // the paper file transcribed
	Tables []Table `yaml:"tables"`
	Values []Value `yaml:"values"`
}

// Table is one printed table.
type Table struct {
	ID      string   `yaml:"id"`     // "1", "III"
	Title   string   `yaml:"title"`  // caption, abridged
	Source  string   `yaml:"source"` // "Table 1, App. F.3"
	Unit    string   `yaml:"unit"`   // "%", "s", "FID", …
	Columns []string `yaml:"columns"`
	Rows    []Row    `yaml:"rows"`
}

// Row is a printed row: its label as printed, the keys that identify it in
// our results (method, variant, …) and its cells by column.
type Row struct {
	Label string            `yaml:"label"`
	Keys  map[string]string `yaml:"keys"`
	// Cells maps a column to the printed text: "98.06±0.07", "98.06",
	// or "-" for an empty cell.
	Cells map[string]string `yaml:"cells"`
}

// Value is a number printed in the text or a caption.
type Value struct {
	ID     string  `yaml:"id"`
	Value  float64 `yaml:"value"`
	Source string  `yaml:"source"`
	Note   string  `yaml:"note"`
}

// Cell is a parsed printed cell.
type Cell struct {
	Mean, Std float64 // Std is NaN when none was printed
	HasStd    bool
}

// ParseCell parses "98.06±0.07", "98.06 ± 0.07" or "98.06".
func ParseCell(s string) (Cell, error) {
	s = strings.TrimSpace(s)
	a, b, ok := strings.Cut(s, "±")
	mean, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
	if err != nil {
		return Cell{}, fmt.Errorf("cell %q: %w", s, err)
	}
	c := Cell{Mean: mean, Std: math.NaN()}
	if ok {
		if c.Std, err = strconv.ParseFloat(strings.TrimSpace(b), 64); err != nil {
			return Cell{}, fmt.Errorf("cell %q: %w", s, err)
		}
		c.HasStd = true
	}
	return c, nil
}

// LoadNumbers reads and validates golden/<paper>/paper.yaml under root.
func LoadNumbers(root, paper string) (*Numbers, error) {
	return LoadNumbersFS(os.DirFS(root), paper)
}

// Load reads the embedded <paper>/paper.yaml.
func Load(paper string) (*Numbers, error) { return LoadNumbersFS(Papers, paper) }

// LoadNumbersFS reads <paper>/paper.yaml from fsys (e.g. golden.Papers).
func LoadNumbersFS(fsys fs.FS, paper string) (*Numbers, error) {
	path := filepath.Join("golden", paper, "paper.yaml")
	b, err := fs.ReadFile(fsys, paper+"/paper.yaml")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var n Numbers
	if err := strictyaml.Decode(path, b, &n); err != nil {
		return nil, err
	}
	if n.Paper != paper {
		return nil, fmt.Errorf("%s: paper %q, want %q", path, n.Paper, paper)
	}
	for _, t := range n.Tables {
		cols := map[string]bool{}
		for _, c := range t.Columns {
			cols[c] = true
		}
		for _, r := range t.Rows {
			for col, txt := range r.Cells {
				if !cols[col] {
					return nil, fmt.Errorf("%s: table %s row %q: unknown column %q", path, t.ID, r.Label, col)
				}
				if txt == "-" {
					continue
				}
				if _, err := ParseCell(txt); err != nil {
					return nil, fmt.Errorf("%s: table %s row %q column %s: %w", path, t.ID, r.Label, col, err)
				}
			}
		}
	}
	return &n, nil
}

// Table returns the table with the given ID.
func (n *Numbers) Table(id string) (*Table, bool) {
	for i := range n.Tables {
		if n.Tables[i].ID == id {
			return &n.Tables[i], true
		}
	}
	return nil, false
}

// Lookup returns the printed cell of the row whose keys include all of
// keys, in column col.
func (t *Table) Lookup(keys map[string]string, col string) (Cell, bool) {
	for _, r := range t.Rows {
		match := true
		for k, v := range keys {
			if r.Keys[k] != v {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		txt, ok := r.Cells[col]
		if !ok || txt == "-" {
			return Cell{}, false
		}
		c, err := ParseCell(txt)
		return c, err == nil
	}
	return Cell{}, false
}

// Value returns a text value by ID.
func (n *Numbers) Value(id string) (Value, bool) {
	for _, v := range n.Values {
		if v.ID == id {
			return v, true
		}
	}
	return Value{}, false
}
