package gate

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/fedrepro/fedrepro/internal/texttable"
)

// Diff is one difference found by the exact tier: a value that moved, or a
// run, value or configuration present on one side only.
type Diff struct {
	Experiment, Cell string
	Seed             uint64
	// Key is the value's key ("final/acc", "round/3/loss", …); empty for a
	// difference of the whole run.
	Key           string
	Golden, Fresh float64
	// Note explains differences that are not a moved value ("run missing in
	// the fresh results", "value not in the golden", "configuration
	// changed").
	Note string
}

// Moved reports whether d is a value present on both sides that changed.
func (d Diff) Moved() bool { return d.Note == "" }

// RelChange is |fresh − golden| / max(|golden|, |fresh|), NaN when it is
// not a moved value, +Inf when a value became or stopped being non-finite.
func (d Diff) RelChange() float64 {
	if !d.Moved() {
		return math.NaN()
	}
	return relDiff(d.Golden, d.Fresh)
}

func relDiff(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Inf(1)
	}
	den := math.Max(math.Abs(a), math.Abs(b))
	if den == 0 {
		return 0
	}
	return math.Abs(a-b) / den
}

// Same reports whether two values agree under a relative tolerance: with
// relTol = 0, bit for bit (NaN equals NaN); otherwise also when
// |a − b| ≤ relTol·max(|a|, |b|).
func Same(a, b, relTol float64) bool {
	if math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	if relTol == 0 || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	return math.Abs(a-b) <= relTol*math.Max(math.Abs(a), math.Abs(b))
}

// Tolerance is the exact tier's relative tolerance against a golden: 0 (bit
// for bit) on the golden's platform, RelTolForeign elsewhere, with a
// sentence saying which.
func Tolerance(golden *Snapshot) (float64, string) {
	here := Platform()
	if golden.Platform == here {
		return 0, fmt.Sprintf("bitwise (golden recorded on %s, as here)", here)
	}
	return RelTolForeign, fmt.Sprintf("relative %.0e (golden recorded on %s, this is %s)", RelTolForeign, golden.Platform, here)
}

// Exact compares a fresh snapshot with the golden one value by value and
// returns every difference, ordered by run and key.
func Exact(golden, fresh *Snapshot, relTol float64) []Diff {
	fr := map[string]RunValues{}
	for _, r := range fresh.Runs {
		fr[r.ID()] = r
	}
	var out []Diff
	seen := map[string]bool{}
	for _, g := range golden.Runs {
		id := g.ID()
		seen[id] = true
		f, ok := fr[id]
		if !ok {
			out = append(out, Diff{Experiment: g.Experiment, Cell: g.Cell, Seed: g.Seed, Note: "run missing from the fresh results"})
			continue
		}
		if g.ConfigHash != f.ConfigHash {
			out = append(out, Diff{Experiment: g.Experiment, Cell: g.Cell, Seed: g.Seed,
				Note: fmt.Sprintf("configuration changed (hash %s → %s)", g.ConfigHash, f.ConfigHash)})
		}
		for _, k := range sortedKeys(g.Values, f.Values) {
			gv, gok := g.Values[k]
			fv, fok := f.Values[k]
			d := Diff{Experiment: g.Experiment, Cell: g.Cell, Seed: g.Seed, Key: k, Golden: gv, Fresh: fv}
			switch {
			case !fok:
				d.Note, d.Fresh = "value missing from the fresh run", math.NaN()
			case !gok:
				d.Note, d.Golden = "value not in the golden run", math.NaN()
			case Same(gv, fv, relTol):
				continue
			}
			out = append(out, d)
		}
	}
	for _, f := range fresh.Runs {
		if !seen[f.ID()] {
			out = append(out, Diff{Experiment: f.Experiment, Cell: f.Cell, Seed: f.Seed, Note: "run not in the golden (record it with `make golden`)"})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if a.Cell != b.Cell {
			return a.Cell < b.Cell
		}
		return a.Seed < b.Seed
	})
	return out
}

func sortedKeys(a, b map[string]float64) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Summary is one sentence counting the differences: values moved, runs
// and cells affected.
func Summary(diffs []Diff, golden *Snapshot) string {
	runs, cells := map[string]bool{}, map[string]bool{}
	moved := 0
	for _, d := range diffs {
		runs[fmt.Sprintf("%s/%s/%d", d.Experiment, d.Cell, d.Seed)] = true
		cells[d.Experiment+"/"+d.Cell] = true
		if d.Moved() {
			moved++
		}
	}
	return fmt.Sprintf("%d differences (%d values moved, %d other) in %d of %d runs, %d cells",
		len(diffs), moved, len(diffs)-moved, len(runs), len(golden.Runs), len(cells))
}

// Table renders at most limit differences (all when limit ≤ 0) as one
// table: cell, seed, metric, golden, fresh, relative change. Rows beyond the
// limit are counted in a last line.
func Table(diffs []Diff, limit int) string {
	t := texttable.Table{Header: []string{"cell", "seed", "metric", "golden", "fresh", "rel. change"}, Align: "lrlrrr"}
	n := len(diffs)
	if limit > 0 && n > limit {
		n = limit
	}
	for _, d := range diffs[:n] {
		cell := d.Experiment + "/" + d.Cell
		seed := strconv.FormatUint(d.Seed, 10)
		if !d.Moved() {
			t.Add(cell, seed, metricOrRun(d.Key), fmtOrDash(d.Golden), fmtOrDash(d.Fresh), d.Note)
			continue
		}
		t.Add(cell, seed, metricName(d.Key), FormatFloat(d.Golden), FormatFloat(d.Fresh), fmt.Sprintf("%.3g", d.RelChange()))
	}
	s := t.String()
	if n < len(diffs) {
		s += fmt.Sprintf("… and %d more differences\n", len(diffs)-n)
	}
	return s
}

func metricOrRun(key string) string {
	if key == "" {
		return "(run)"
	}
	return metricName(key)
}

func fmtOrDash(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return FormatFloat(x)
}

// FormatFloat prints x with enough digits to tell apart two values that
// differ in the last bits (up to 17 significant digits).
func FormatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func tableOf(header []string, align string) *texttable.Table {
	return &texttable.Table{Header: header, Align: align}
}
