package gate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/internal/texttable"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Review verdicts.
const (
	Unchanged   = "unchanged"    // every paired value is bit-for-bit equal
	WithinNoise = "within noise" // values moved, but the paired test does not reject Δ = 0
	Shifted     = "shifted"      // the paired test rejects Δ = 0 at Alpha
	Untestable  = "changed, untestable"
	OnlyGolden  = "missing"
	OnlyFresh   = "new"
)

// MinSeeds is the fewest seeds a headline cell should have for the review
// tier: with n paired seeds the t-test has n − 1 degrees of freedom, and
// below 4 its detectable shift is too wide to be useful (t_{0.975,2} = 4.3).
const MinSeeds = 4

// Alpha is the two-sided significance level of the review tier's paired
// t-test, and Power the power at which it states detectable shifts.
const (
	Alpha = 0.05
	Power = 0.8
)

// ReviewRow compares one (experiment, cell, metric) between a golden and a
// fresh snapshot, pairing the values by seed.
type ReviewRow struct {
	Experiment string  `json:"experiment"`
	Cell       string  `json:"cell"`
	Metric     string  `json:"metric"`
	N          int     `json:"n"`            // seeds present on both sides
	Golden     float64 `json:"golden"`       // mean over the paired seeds
	Fresh      float64 `json:"fresh"`        // mean over the paired seeds
	Delta      float64 `json:"delta"`        // Fresh − Golden (= mean paired difference)
	DiffSD     float64 `json:"diff_sd"`      // sample std of the paired differences
	DiffMin    float64 `json:"diff_min"`     // smallest paired difference
	DiffMax    float64 `json:"diff_max"`     // largest paired difference
	SeedSD     float64 `json:"seed_sd"`      // sample std of the golden values over seeds
	P          float64 `json:"p_value"`      // paired t-test, two-sided; NaN when untestable
	MDE        float64 `json:"mde"`          // smallest |Δ| the paired test detects (Alpha, Power)
	MDEUnpair  float64 `json:"mde_unpaired"` // the same for an unpaired t-test at the golden seed spread
	Threshold  float64 `json:"threshold"`    // the metric's practical threshold (0 when not a headline metric)
	NonFinite  string  `json:"non_finite,omitempty"`
	Verdict    string  `json:"verdict"`
}

// Review compares golden and fresh per cell and metric: a row for every
// headline metric (Snapshot.Metrics) of every cell, and one for any other
// final metric whose values moved.
func Review(golden, fresh *Snapshot) []ReviewRow {
	type key struct{ exp, cell string }
	type side struct{ g, f map[uint64]RunValues }
	cells := map[key]*side{}
	get := func(e, c string) *side {
		k := key{e, c}
		if cells[k] == nil {
			cells[k] = &side{g: map[uint64]RunValues{}, f: map[uint64]RunValues{}}
		}
		return cells[k]
	}
	for _, r := range golden.Runs {
		get(r.Experiment, r.Cell).g[r.Seed] = r
	}
	for _, r := range fresh.Runs {
		get(r.Experiment, r.Cell).f[r.Seed] = r
	}
	headline := map[string]float64{}
	for _, m := range golden.Metrics {
		headline[m.Name] = m.Threshold
	}
	var rows []ReviewRow
	for k, s := range cells {
		if len(s.f) == 0 || len(s.g) == 0 {
			v := OnlyGolden
			if len(s.g) == 0 {
				v = OnlyFresh
			}
			rows = append(rows, ReviewRow{Experiment: k.exp, Cell: k.cell, Metric: "(cell)", Verdict: v,
				Golden: math.NaN(), Fresh: math.NaN(), Delta: math.NaN(), P: math.NaN(), MDE: math.NaN(), MDEUnpair: math.NaN()})
			continue
		}
		names := finalNames(s.g, s.f)
		for _, m := range names {
			thr, isHead := headline[m]
			row := reviewMetric(k.exp, k.cell, m, s.g, s.f)
			row.Threshold = thr
			if !isHead && row.Verdict == Unchanged {
				continue
			}
			rows = append(rows, row)
		}
	}
	rank := map[string]int{Shifted: 0, OnlyGolden: 1, OnlyFresh: 1, Untestable: 2, WithinNoise: 3, Unchanged: 4}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if rank[a.Verdict] != rank[b.Verdict] {
			return rank[a.Verdict] < rank[b.Verdict]
		}
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if a.Cell != b.Cell {
			return a.Cell < b.Cell
		}
		return a.Metric < b.Metric
	})
	return rows
}

func finalNames(g, f map[uint64]RunValues) []string {
	set := map[string]bool{}
	for _, side := range []map[uint64]RunValues{g, f} {
		for _, r := range side {
			for k := range r.Values {
				if strings.HasPrefix(k, "final/") {
					set[k[len("final/"):]] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func reviewMetric(exp, cell, metric string, g, f map[uint64]RunValues) ReviewRow {
	row := ReviewRow{Experiment: exp, Cell: cell, Metric: metric}
	key := "final/" + metric
	var seeds []uint64
	for s := range g {
		if _, ok := f[s]; ok {
			seeds = append(seeds, s)
		}
	}
	sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
	var gs, fs, ds []float64
	same := true
	nonFinG, nonFinF := 0, 0
	for _, s := range seeds {
		gv, gok := g[s].Values[key]
		fv, fok := f[s].Values[key]
		if !gok || !fok {
			same = same && gok == fok
			continue
		}
		same = same && Same(gv, fv, 0)
		if !finite(gv) || !finite(fv) {
			if !finite(gv) {
				nonFinG++
			}
			if !finite(fv) {
				nonFinF++
			}
			continue
		}
		gs, fs, ds = append(gs, gv), append(fs, fv), append(ds, fv-gv)
	}
	row.N = len(ds)
	row.Golden, row.Fresh, row.Delta = meanOrNaN(gs), meanOrNaN(fs), meanOrNaN(ds)
	row.DiffSD, row.SeedSD = sdOrNaN(ds), sdOrNaN(gs)
	row.DiffMin, row.DiffMax = minMax(ds)
	row.P, row.MDE = pairedT(ds)
	row.MDEUnpair = mdeUnpaired(row.SeedSD, row.N)
	if nonFinG+nonFinF > 0 {
		row.NonFinite = fmt.Sprintf("non-finite: %d golden, %d fresh", nonFinG, nonFinF)
	}
	switch {
	case same:
		row.Verdict = Unchanged
	case nonFinG != nonFinF:
		row.Verdict = Shifted
	case math.IsNaN(row.P):
		row.Verdict = Untestable
	case row.P < Alpha:
		row.Verdict = Shifted
	default:
		row.Verdict = WithinNoise
	}
	return row
}

// pairedT returns the two-sided p-value of the paired t-test of the
// differences d against 0, and the smallest mean difference it detects
// with probability Power at level Alpha:
// MDE = (t_{1−α/2, n−1} + t_{Power, n−1}) · s_d / √n.
// With fewer than two differences both are NaN; when all differences are
// equal (s_d = 0) the test is degenerate: p = 0 for a non-zero shift, 1 for
// none, and MDE = 0.
func pairedT(d []float64) (p, mde float64) {
	n := len(d)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	m := stat.Mean(d, nil)
	sd := stat.StdDev(d, nil)
	if sd == 0 {
		if m == 0 {
			return 1, 0
		}
		return 0, 0
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	ts := m / (sd / math.Sqrt(float64(n)))
	p = 2 * t.Survival(math.Abs(ts))
	mde = (t.Quantile(1-Alpha/2) + t.Quantile(Power)) * sd / math.Sqrt(float64(n))
	return p, mde
}

// mdeUnpaired is the smallest shift an unpaired two-sample t-test with n
// seeds per side detects at the golden's seed spread s:
// (t_{1−α/2, 2n−2} + t_{Power, 2n−2}) · s · √(2/n). It is what the seeds
// could detect without pairing; the paired MDE is usually far smaller.
func mdeUnpaired(s float64, n int) float64 {
	if n < 2 || math.IsNaN(s) {
		return math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(2*n - 2)}
	return (t.Quantile(1-Alpha/2) + t.Quantile(Power)) * s * math.Sqrt(2/float64(n))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func meanOrNaN(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return stat.Mean(x, nil)
}

func sdOrNaN(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	return stat.StdDev(x, nil)
}

func minMax(x []float64) (lo, hi float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	lo, hi = x[0], x[0]
	for _, v := range x[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// ReviewCounts counts rows per verdict, in the order of severity.
func ReviewCounts(rows []ReviewRow) string {
	n := map[string]int{}
	for _, r := range rows {
		n[r.Verdict]++
	}
	var parts []string
	for _, v := range []string{Shifted, OnlyGolden, OnlyFresh, Untestable, WithinNoise, Unchanged} {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	return fmt.Sprintf("%d rows: %s", len(rows), strings.Join(parts, ", "))
}

// ReviewTable renders review rows benchstat-style, the most severe first:
// cell, metric, golden and fresh centres (means over paired seeds), Δ and
// Δ%, the range of the paired per-seed differences, p, the paired and
// unpaired detectable shifts, and the verdict.
func ReviewTable(rows []ReviewRow) string {
	t := texttable.Table{
		Header: []string{"cell", "metric", "golden", "fresh", "Δ", "Δ%", "paired Δ per seed", "n", "p", "MDE paired", "MDE unpaired", "verdict"},
		Align:  "llrrrrlrrrrl",
	}
	for _, r := range rows {
		verdict := r.Verdict
		if r.NonFinite != "" {
			verdict += " (" + r.NonFinite + ")"
		}
		if r.Metric == "(cell)" {
			t.Add(r.Experiment+"/"+r.Cell, r.Metric, "", "", "", "", "", "", "", "", "", verdict)
			continue
		}
		pct := "—"
		if r.Golden != 0 && finite(r.Delta) {
			pct = fmt.Sprintf("%+.2f%%", 100*r.Delta/math.Abs(r.Golden))
		}
		t.Add(r.Experiment+"/"+r.Cell, r.Metric, g4(r.Golden), g4(r.Fresh), signed(r.Delta), pct,
			fmt.Sprintf("[%s, %s]", signed(r.DiffMin), signed(r.DiffMax)), fmt.Sprint(r.N), pval(r.P), g4(r.MDE), g4(r.MDEUnpair), verdict)
	}
	return t.String()
}

func g4(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.4g", x)
}

func signed(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	if x == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3g", x)
}

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "—"
	case p < 1e-4:
		return "<1e-4"
	}
	return fmt.Sprintf("%.3f", p)
}
