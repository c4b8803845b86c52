package upcycled

import (
	"fmt"
	"io/fs"
	"math"

	"github.com/fedrepro/fedrepro/golden"
	"github.com/fedrepro/fedrepro/internal/strictyaml"
	"github.com/fedrepro/fedrepro/reproduce/report"
)

// The agreement criterion of the Table 1/3 cells (issue 14): a mark that
// noise alone cannot earn.
//
//	✓  |Δ| ≤ Bound and |Δ| ≤ 2·SE: within a practical bound and not
//	   distinguishable from seed noise (SE = √(s_a²/n_a + s_b²/n_b), the
//	   standard error of the difference of the two means);
//	≈  |Δ| ≤ Bound but |Δ| > 2·SE: within the bound, yet the two means
//	   differ by more than their noise;
//	✗  |Δ| > Bound, however large the spreads.
//
// A cell is also marked unstable (⚠) when either side's across-seed
// standard deviation exceeds Unstable points: one table number is then not
// a stable property of the method, and Δ says little either way.
const (
	Bound    = 1.0 // percentage points: the regression gate's accuracy threshold
	Unstable = 3.0 // percentage points of across-seed standard deviation
	// PaperRuns is how many runs each printed mean±std summarises ("over
	// four runs", Tables 1 and 3).
	PaperRuns = 4
)

// Agreement is the comparison of our cell with a reference value.
type Agreement struct {
	Delta, SE float64
	Mark      string // ✓, ≈ or ✗
	Unstable  bool
}

// Agrees reports whether the cell is within Bound (✓ or ≈).
func (a Agreement) Agrees() bool { return a.Mark != "✗" }

// WithinNoise reports |Δ| ≤ 2·SE (what an unstable cell can still show).
func (a Agreement) WithinNoise() bool { return math.Abs(a.Delta) <= 2*a.SE }

// String is the mark with the unstable flag.
func (a Agreement) String() string {
	if a.Unstable {
		return a.Mark + "⚠"
	}
	return a.Mark
}

// Agree compares ours (percent) with a reference mean and, when known, its
// standard deviation over refN runs (refStd NaN or refN 0: unknown, then
// only our own noise enters SE).
func Agree(ours report.Stats, refMean, refStd float64, refN int) Agreement {
	a := Agreement{Delta: ours.Mean - refMean}
	v := 0.0
	if ours.N > 1 {
		v += ours.Std * ours.Std / float64(ours.N)
	}
	if refN > 0 && !math.IsNaN(refStd) {
		v += refStd * refStd / float64(refN)
	}
	a.SE = math.Sqrt(v)
	switch d := math.Abs(a.Delta); {
	case !(d <= Bound):
		a.Mark = "✗"
	case d <= 2*a.SE:
		a.Mark = "✓"
	default:
		a.Mark = "≈"
	}
	a.Unstable = ours.Std > Unstable || (!math.IsNaN(refStd) && refStd > Unstable)
	return a
}

// CriterionText states the criterion for the report.
func CriterionText() string {
	return fmt.Sprintf("✓ = |Δ| ≤ %.0f point and |Δ| ≤ 2·SE, where SE = √(s_ours²/n_ours + s_ref²/n_ref) is the standard error of the difference of the two means (the paper's n = %d runs); ≈ = |Δ| ≤ %.0f point but more than 2·SE (close, yet the means differ by more than their noise); ✗ = |Δ| > %.0f point, whatever the spreads, so a large spread cannot earn a mark; ⚠ = unstable: an across-seed standard deviation above %.0f points on either side (one table number is then not a stable property of the method).", Bound, PaperRuns, Bound, Bound, Unstable)
}

// Upstream is golden/upcycled/upstream.yaml: accuracies the authors'
// released code gives on cells of Tables 1 and 3, with who measured them
// and how, and the behaviours of that code this reproduction keeps on
// purpose.
type Upstream struct {
	Code       string      `yaml:"code"`
	Behaviours []Behaviour `yaml:"behaviours"`
	Runs       []UpRun     `yaml:"runs"`
}

// Behaviour is a property of the released code reproduced on purpose.
type Behaviour struct {
	ID    string `yaml:"id"`
	What  string `yaml:"what"`
	Where string `yaml:"where"` // upstream file:line
	Here  string `yaml:"here"`  // where fedrepro reproduces it
}

// UpRun is one measurement campaign with the released code.
type UpRun struct {
	ID    string   `yaml:"id"`
	By    string   `yaml:"by"`
	How   string   `yaml:"how"`
	Cells []UpCell `yaml:"cells"`
}

// UpCell is the released code's accuracy (percent) on one cell.
type UpCell struct {
	Table   string    `yaml:"table"`
	Dataset string    `yaml:"dataset"`
	Method  string    `yaml:"method"`
	Variant string    `yaml:"variant"`
	Mean    float64   `yaml:"mean"`
	Std     *float64  `yaml:"std"`    // sample std over seeds, when reported
	Seeds   int       `yaml:"seeds"`  // number of seeds (0: not reported)
	Values  []float64 `yaml:"values"` // per-seed accuracies, when recorded
	Note    string    `yaml:"note"`
}

// StdOrNaN returns the std, or NaN when unknown.
func (c UpCell) StdOrNaN() float64 {
	if c.Std == nil {
		return math.NaN()
	}
	return *c.Std
}

const upstreamPath = "upcycled/upstream.yaml"

// LoadUpstream reads the embedded golden/upcycled/upstream.yaml.
func LoadUpstream() (*Upstream, error) {
	b, err := fs.ReadFile(golden.Papers, upstreamPath)
	if err != nil {
		return nil, fmt.Errorf("golden/%s: %w", upstreamPath, err)
	}
	var u Upstream
	if err := strictyaml.Decode("golden/"+upstreamPath, b, &u); err != nil {
		return nil, err
	}
	for _, r := range u.Runs {
		for _, c := range r.Cells {
			if c.Table == "" || c.Dataset == "" || c.Method == "" || (c.Variant != "baseline" && c.Variant != "upcycled") {
				return nil, fmt.Errorf("golden/%s: run %s: incomplete cell %+v", upstreamPath, r.ID, c)
			}
			if len(c.Values) > 0 && c.Seeds != len(c.Values) {
				return nil, fmt.Errorf("golden/%s: run %s: %s/%s/%s: %d values for %d seeds", upstreamPath, r.ID, c.Dataset, c.Method, c.Variant, len(c.Values), c.Seeds)
			}
		}
	}
	return &u, nil
}

// Lookup returns the released code's measurements of a cell, most recent
// campaign last.
func (u *Upstream) Lookup(table, dataset, method, variant string) []UpCell {
	var out []UpCell
	for _, r := range u.Runs {
		for _, c := range r.Cells {
			if c.Table == table && c.Dataset == dataset && c.Method == method && c.Variant == variant {
				out = append(out, c)
			}
		}
	}
	return out
}

// Best returns the measurement of a cell with the most seeds (a later
// campaign wins ties); ok is false when the released code was not run on it.
func (u *Upstream) Best(table, dataset, method, variant string) (best UpCell, ok bool) {
	for _, c := range u.Lookup(table, dataset, method, variant) {
		if !ok || c.Seeds >= best.Seeds {
			best, ok = c, true
		}
	}
	return best, ok
}
