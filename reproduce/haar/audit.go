// Package haar holds the reproduction code of Ranaweera et al.'s Haar-wavelet
// DP-FL paper. This file registers its privacy-figure audits for
// `fedrepro audit --paper haar`:
//
//   - table3-fit: every ε of Table III recomputed from σ ∈ {1, 1.5, 3} and
//     δ = 1e-5, and a search for one (sampling rate q, steps T) of the
//     Poisson-subsampled Gaussian that reproduces each dataset's three
//     values at once;
//   - table3-literal: ε of the configurations the paper's text implies
//     (per-client DP-SGD over 300 rounds × 50 local epochs; user-level
//     accounting over 300 rounds);
//   - lemma2-comparison: vanilla vs each wavelet variant — effective noise
//     multiplier, ε from the accountants, and the empirical lower bound ε_LB
//     from a distinguishing game on the actual WaveletNoise mechanism.
package haar

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	hwt "github.com/fedrepro/fedrepro/algorithms/haar"
)

const paperID = "haar"

// audits are the paper's privacy audits (Definition.Audits), in the order
// `fedrepro audit`, the report and golden/haar/audits.json list them.
var audits = []audit.Entry{
	{ID: "table3-fit", Title: "Table III: can one (q, T) of the Poisson-subsampled Gaussian give each dataset's three ε at σ = 1, 1.5, 3?", Run: runTable3Fit},
	{ID: "table3-literal", Title: "Table III: ε of the configurations the paper's text implies", Run: runTable3Literal},
	{ID: "lemma2-comparison", Title: "Lemma 2: vanilla vs wavelet mechanisms — effective noise multiplier, ε, empirical ε lower bound", Run: runLemma2Comparison},
}

// Delta is the paper's δ (Table III caption).
const Delta = 1e-5

// Sigmas are the paper's noise multipliers (small, medium, large noise).
var Sigmas = []float64{1, 1.5, 3}

// Table3 is Table III's ε header row per dataset, aligned with Sigmas (the
// σ → ε mapping by column order is implied, not stated, by the paper).
var Table3 = []struct {
	Dataset string
	Eps     []float64
	Digits  int // decimals printed, for the rounding tolerance
}{
	{"MNIST", []float64{6.38, 3.61, 1.64}, 2},
	{"Fashion-MNIST", []float64{6.38, 3.61, 1.64}, 2},
	{"CIFAR10", []float64{24.5, 7.94, 4.75}, -1},
}

// printTolerance is half a unit of the last printed digit of v (24.5 → 0.05,
// 7.94 → 0.005): a recomputed value that rounds to the printed one is
// within it.
func printTolerance(v float64, digits int) float64 {
	if digits >= 0 {
		return 0.5 * math.Pow(10, -float64(digits))
	}
	// Three significant digits.
	e := math.Floor(math.Log10(v))
	return 0.5 * math.Pow(10, e-2)
}

// GoogleOrders is dp_accounting's DEFAULT_RDP_ORDERS (the paper used "the
// RDP accountant from Google's differential privacy libraries"):
// 1.1, 1.2, …, 10.9, 11, 12, …, 63, 128, 256, 512, 1024.
func GoogleOrders() []float64 {
	var o []float64
	for x := 1; x <= 99; x++ {
		o = append(o, 1+float64(x)/10)
	}
	for a := 11; a <= 63; a++ {
		o = append(o, float64(a))
	}
	return append(o, 128, 256, 512, 1024)
}

// curve is the per-step RDP of PoissonSampled{q, Gaussian{σ}} on a grid.
type curve struct {
	orders, rdp []float64
}

func stepCurve(orders []float64, q, sigma float64) (curve, error) {
	v, err := accountant.EventRDP(accountant.PoissonSampled{Q: q, Event: accountant.Gaussian{Sigma: sigma}}, orders, accountant.AddRemove)
	if err != nil {
		return curve{}, err
	}
	return curve{orders: orders, rdp: v}, nil
}

// eps is ε at δ after T steps (RDP composes linearly, so T may be real
// during the search).
func (c curve) eps(steps float64, conv accountant.Conversion) float64 {
	r := make([]float64, len(c.rdp))
	for i, v := range c.rdp {
		r[i] = v * steps
	}
	e, _, err := accountant.EpsilonFromRDP(c.orders, r, Delta, conv)
	if err != nil {
		return math.Inf(1)
	}
	return e
}

// Search limits of the (q, T) fit.
const (
	minSteps = 1.0
	maxSteps = 1e10
)

// fitRegion is where the (q, T) fit may look: q ∈ [10^LogQLo, 10^LogQHi]
// and T ≥ max(1, MinEpochs/q), i.e. at least MinEpochs passes over the
// data.
type fitRegion struct {
	Name             string
	LogQLo, LogQHi   float64
	MinEpochs        float64
	MaxEpochs        float64 // 0: T ≤ 1e10 only
	DenseUpperDecade bool    // add 60 grid points on [0.1, 1] (where the best T is small)
}

// anyRegion is the unconstrained search: every q ∈ [1e-5, 1], every T ≥ 1.
var anyRegion = fitRegion{Name: "any", LogQLo: -5, LogQHi: 0, DenseUpperDecade: true}

// plausibleRegion is the search restricted to a training configuration
// the paper could have run. q ≤ 0.1: a lot of at most a tenth of the data
// (60 of a client's 600 examples; DP-SGD is run with small lots, Abadi et
// al. use q = 0.01, and the audit table3-literal's largest lot is 60/600);
// q ≥ 1/600: a lot of at least one example — sample-level DP runs DP-SGD on
// each client's data, 600 examples when the 60 000 training images are
// split equally among 100 clients (§6.1); and 1 ≤ qT ≤ 15 000: at least one
// epoch over the data and at most the paper's 300 rounds × 50 local epochs.
var plausibleRegion = fitRegion{Name: "plausible", LogQLo: math.Log10(1.0 / 600), LogQHi: -1, MinEpochs: 1, MaxEpochs: 300 * 50}

// tRange is the range of T the region allows at q.
func (r fitRegion) tRange(q float64) (lo, hi float64) {
	lo, hi = math.Max(minSteps, math.Ceil(r.MinEpochs/q-1e-9)), maxSteps
	if r.MaxEpochs > 0 {
		hi = math.Min(hi, math.Floor(r.MaxEpochs/q+1e-9))
	}
	return lo, math.Max(lo, hi)
}

// stepsFor returns the real T ∈ [tMin, tMax] with ε(T) = target (bisection
// on log T; ε is increasing in T), and whether one exists.
func stepsFor(c curve, target, tMin, tMax float64, conv accountant.Conversion) (float64, bool) {
	lo, hi := math.Log(tMin), math.Log(tMax)
	if c.eps(tMin, conv) > target || c.eps(tMax, conv) < target {
		return 0, false
	}
	for i := 0; i < 80; i++ {
		mid := (lo + hi) / 2
		if c.eps(math.Exp(mid), conv) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2), true
}

// fitScore is max_i |ε_i − p_i|/tol_i: ≤ 1 means every recomputed ε
// rounds to the printed one.
func fitScore(cs []curve, steps float64, paper, tol []float64, conv accountant.Conversion) float64 {
	s := 0.0
	for i, c := range cs {
		s = math.Max(s, math.Abs(c.eps(steps, conv)-paper[i])/tol[i])
	}
	return s
}

// golden minimises f on [a, b] (unimodal or nearly so) by golden-section
// search and returns the minimiser and minimum.
func golden(f func(float64) float64, a, b float64, iters int) (float64, float64) {
	const r = 0.6180339887498949
	x1, x2 := b-r*(b-a), a+r*(b-a)
	f1, f2 := f(x1), f(x2)
	for i := 0; i < iters; i++ {
		if f1 <= f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - r*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + r*(b-a)
			f2 = f(x2)
		}
	}
	if f1 <= f2 {
		return x1, f1
	}
	return x2, f2
}

// curveMemo holds the per-step RDP curves of the columns' σ (Sigmas) by
// sampling rate: the fit's searches (datasets × conversions × regions)
// probe the same log-q grid, and the subsampled Gaussian's RDP at
// fractional orders (a numerical integral per order) is where the search
// spends its time. A curve is never modified after it is built (eps copies
// before scaling), so sharing it leaves every number as computed afresh.
type curveMemo struct {
	orders []float64
	byQ    map[uint64][]curve
}

func newCurveMemo(orders []float64) *curveMemo {
	return &curveMemo{orders: orders, byQ: map[uint64][]curve{}}
}

// at is the curves at q, computed once per q (keyed by q's bits).
func (m *curveMemo) at(q float64) ([]curve, error) {
	k := math.Float64bits(q)
	if cs, ok := m.byQ[k]; ok {
		return cs, nil
	}
	cs := make([]curve, len(Sigmas))
	for i, s := range Sigmas {
		c, err := stepCurve(m.orders, q, s)
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	m.byQ[k] = cs
	return cs, nil
}

// fit is the best (q, T) found for one dataset and conversion.
type fit struct {
	q      float64
	steps  int
	eps    []float64
	score  float64 // max_i |ε_i − p_i|/tol_i
	relErr []float64
}

// bestSteps minimises the fit score over integer T ≥ 1 for a fixed q: the
// real-valued optimum lies between the T's that match the individual
// values (golden-section search on log T there), and the better of its
// two integer neighbours is returned.
func bestSteps(cs []curve, paper, tol []float64, tMin, tMax float64, conv accountant.Conversion) (int, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range cs {
		t, ok := stepsFor(c, paper[i], tMin, tMax, conv)
		if !ok {
			continue
		}
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	var t float64
	switch {
	case math.IsInf(lo, 1): // no single value reachable: the better end
		t = tMin
		if fitScore(cs, tMax, paper, tol, conv) < fitScore(cs, tMin, paper, tol, conv) {
			t = tMax
		}
	case hi/lo < 1+1e-12:
		t = lo
	default:
		f := func(lt float64) float64 { return fitScore(cs, math.Exp(lt), paper, tol, conv) }
		lt, _ := golden(f, math.Log(lo), math.Log(hi), 60)
		t = math.Exp(lt)
	}
	ti := int(math.Max(tMin, math.Floor(t)))
	s := fitScore(cs, float64(ti), paper, tol, conv)
	if s2 := fitScore(cs, float64(ti+1), paper, tol, conv); s2 < s && float64(ti+1) <= tMax {
		ti, s = ti+1, s2
	}
	return ti, s
}

// fitEffort sizes the (q, T) search: grid points per decade of q, how
// many of the best grid cells are refined, and the golden-section
// iterations per refinement.
type fitEffort struct {
	PointsPerDecade, RefineCells, RefineIters int
}

// fullFit is the published search; quickFit the smoke-size one (audit
// --quick, quick reports): a coarser grid and a shorter refinement of the
// two best cells. A quick fit is still a real (q, T) whose ε is recomputed,
// only possibly a worse fit than the full search finds.
var (
	fullFit  = fitEffort{PointsPerDecade: 30, RefineCells: 5, RefineIters: 30}
	quickFit = fitEffort{PointsPerDecade: 6, RefineCells: 2, RefineIters: 12}
)

// cellWord spells a small count as the note always has ("five").
func cellWord(n int) string {
	if w := []string{"zero", "one", "two", "three", "four", "five"}; n < len(w) {
		return w[n]
	}
	return fmt.Sprint(n)
}

// searchFit scans q on a log grid (PointsPerDecade per decade over
// [1e-5, 1]) with the best integer T for each q, and refines the
// RefineCells best grid cells by golden-section search on log q.
//
// curvesAt gives the per-step RDP curves of the columns' σ at q (a
// curveMemo's at): they depend on q alone, not on the printed values, the
// conversion or the region, so every search of one audit shares them.
func searchFit(curvesAt func(q float64) ([]curve, error), paper []float64, digits int, conv accountant.Conversion, eff fitEffort, reg fitRegion) (fit, error) {
	pointsPerDecade := eff.PointsPerDecade
	tol := make([]float64, len(paper))
	for i, p := range paper {
		tol[i] = printTolerance(p, digits)
	}
	var err error
	scoreAt := func(lq float64) float64 {
		cs, e := curvesAt(math.Pow(10, lq))
		if e != nil {
			err = e
			return math.Inf(1)
		}
		tMin, tMax := reg.tRange(math.Pow(10, lq))
		_, s := bestSteps(cs, paper, tol, tMin, tMax, conv)
		return s
	}
	// The grid: pointsPerDecade per decade over [1e-5, 1], plus a dense
	// stretch of 60 points on [0.1, 1], where the best T is small and the
	// integer constraint makes the score jagged.
	var grid []float64
	n := int(math.Ceil(reg.LogQHi-reg.LogQLo))*pointsPerDecade + 1
	for i := 0; i < n; i++ {
		grid = append(grid, reg.LogQLo+(reg.LogQHi-reg.LogQLo)*float64(i)/float64(n-1))
	}
	if reg.DenseUpperDecade {
		const dense = 60
		for i := 1; i < dense; i++ {
			grid = append(grid, -1+float64(i)/dense)
		}
	}
	sort.Float64s(grid)
	scores := make([]float64, len(grid))
	for i, lq := range grid {
		scores[i] = scoreAt(lq)
	}
	if err != nil {
		return fit{}, err
	}
	// Refine the best grid cells by golden-section search on log q.
	order := make([]int, len(grid))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return scores[order[a]] < scores[order[b]] })
	lq, best := grid[order[0]], scores[order[0]]
	for _, i := range order[:min(eff.RefineCells, len(order))] {
		a, b := grid[max(i-1, 0)], grid[min(i+1, len(grid)-1)]
		if x, s := golden(scoreAt, a, b, eff.RefineIters); s < best {
			lq, best = x, s
		}
	}
	if err != nil {
		return fit{}, err
	}
	q := math.Pow(10, lq)
	cs, err := curvesAt(q)
	if err != nil {
		return fit{}, err
	}
	tMin, tMax := reg.tRange(q)
	ti, score := bestSteps(cs, paper, tol, tMin, tMax, conv)
	f := fit{q: q, steps: ti, score: score}
	for i, c := range cs {
		e := c.eps(float64(ti), conv)
		f.eps = append(f.eps, e)
		f.relErr = append(f.relErr, e/paper[i]-1)
	}
	return f, nil
}

// runTable3Fit searches, per dataset, RDP conversion and search region,
// the (q, T) that best reproduces Table III's three ε values.
//
// Row fields:
//
//	dataset          "MNIST" | "Fashion-MNIST" | "CIFAR10"
//	conversion       "improved" (Balle et al. 2020) | "classic" (Mironov 2017)
//	region           "any" (q ∈ [1e-5, 1], T ≥ 1) | "plausible" (q ∈ [1/600, 0.1], 1 ≤ qT ≤ 15000)
//	sigma            noise multiplier σ of the column
//	paper_eps        ε printed in Table III for (dataset, σ)
//	tolerance        half a unit of the printed last digit of paper_eps
//	fit_q            best Poisson sampling rate (same for the dataset's 3 columns)
//	fit_steps        best number of steps T (integer; same for the 3 columns)
//	fit_epochs       fit_q·fit_steps: the passes over the data the fit implies
//	fit_eps          ε recomputed at (fit_q, fit_steps, σ), δ = 1e-5
//	rel_error        fit_eps/paper_eps − 1
//	fit_score        max over the 3 columns of |fit_eps − paper_eps|/tolerance
//	consistent       fit_score ≤ 1: all three printed values reproduced to print precision
//	within_5pct      every |rel_error| ≤ 5% at this best fit (a looser summary)
func runTable3Fit(o audit.Options) (audit.Table, error) {
	eff := fullFit
	if o.Quick {
		eff = quickFit
	}
	orders := GoogleOrders()
	t := audit.Table{ID: "table3-fit", Title: "Table III ε: best single (q, T) per dataset, anywhere and in a plausible training region",
		Columns: []string{"dataset", "conversion", "region", "sigma", "paper_eps", "tolerance", "fit_q", "fit_steps", "fit_epochs", "fit_eps", "rel_error", "fit_score", "consistent", "within_5pct"}}
	type count struct{ consistent, within, total int }
	counts := map[string]*count{}
	var best []string
	cache := map[string]fit{} // MNIST and Fashion-MNIST print the same ε
	curves := newCurveMemo(orders)
	for _, reg := range []fitRegion{anyRegion, plausibleRegion} {
		counts[reg.Name] = &count{}
		for _, d := range Table3 {
			for _, conv := range []accountant.Conversion{accountant.Improved, accountant.Classic} {
				key := fmt.Sprint(d.Eps, d.Digits, conv, reg.Name)
				f, ok := cache[key]
				if !ok {
					var err error
					if f, err = searchFit(curves.at, d.Eps, d.Digits, conv, eff, reg); err != nil {
						return t, fmt.Errorf("table3-fit %s %v %s: %w", d.Dataset, conv, reg.Name, err)
					}
					cache[key] = f
				}
				within := true
				worst := 0.0
				for _, r := range f.relErr {
					worst = math.Max(worst, math.Abs(r))
					if math.Abs(r) > 0.05 {
						within = false
					}
				}
				c := counts[reg.Name]
				c.total++
				if f.score <= 1 {
					c.consistent++
				}
				if within {
					c.within++
				}
				best = append(best, fmt.Sprintf("%s/%v/%s: q = %.3g, T = %d, worst error %.1f%%", d.Dataset, conv, reg.Name, f.q, f.steps, 100*worst))
				for i, s := range Sigmas {
					t.Rows = append(t.Rows, audit.Row{"dataset": d.Dataset, "conversion": conv.String(), "region": reg.Name, "sigma": s,
						"paper_eps": d.Eps[i], "tolerance": printTolerance(d.Eps[i], d.Digits),
						"fit_q": f.q, "fit_steps": f.steps, "fit_epochs": f.q * float64(f.steps), "fit_eps": f.eps[i], "rel_error": f.relErr[i],
						"fit_score": f.score, "consistent": f.score <= 1, "within_5pct": within})
				}
			}
		}
	}
	a, p := counts[anyRegion.Name], counts[plausibleRegion.Name]
	switch {
	case a.consistent == a.total && p.consistent == p.total:
		t.Verdict = "consistent"
	case a.consistent == 0 && p.consistent == 0:
		t.Verdict = fmt.Sprintf("inconsistent: no (q, T) reproduces any dataset's three ε to print precision; best fits within 5%%: %d/%d anywhere, %d/%d in the plausible region (%s)", a.within, a.total, p.within, p.total, strings.Join(best, "; "))
	default:
		t.Verdict = fmt.Sprintf("partly consistent: fits to print precision %d/%d anywhere, %d/%d in the plausible region; within 5%% %d/%d and %d/%d (%s)", a.consistent, a.total, p.consistent, p.total, a.within, a.total, p.within, p.total, strings.Join(best, "; "))
	}
	t.Notes = []string{
		"Mechanism assumed: T steps of the Poisson-subsampled Gaussian with noise multiplier σ (the vanilla σ, i.e. the accountant used 'black-box' as the paper says), add/remove neighbouring, δ = 1e-5, RDP accountant on dp_accounting's default order grid (1.1…10.9, 11…63, 128, 256, 512, 1024), both RDP→(ε,δ) conversions.",
		"The paper gives no q, q_c, lot size, K or step count (spec §5); Table III's columns are mapped to σ = 1, 1.5, 3 by order (small noise → largest ε), which the paper implies but does not state.",
		fmt.Sprintf("Region any: q ∈ [1e-5, 1] on a log grid with %d points per decade plus 60 points on [0.1, 1] (where the best T is small), the %s best cells refined by golden-section search on log q; for each q, the integer T ∈ [1, 1e10] minimising the worst column error (bisection and golden-section search on log T, then the better integer neighbour). Below q ≈ 1e-4 the best score no longer changes (the small-q limit, where only q²T matters), so the lower end of the region does not constrain the fit.", eff.PointsPerDecade, cellWord(eff.RefineCells)),
		"Region plausible: the same search restricted to 1/600 ≤ q ≤ 0.1 (sample-level DP runs DP-SGD on each client's 600 examples: a lot of at least one example and at most 60, a tenth; DP-SGD runs with small lots) and 1 ≤ qT ≤ 15 000 (at least one epoch, at most the paper's 300 rounds × 50 local epochs, §6.1). A best fit at q near 1 with a handful of steps, or at q = 1e-5 with 1e10 steps, is not a training run the paper describes.",
		"consistent = every recomputed ε rounds to the printed value (|ε − printed| ≤ half a unit of the last printed digit); within_5pct is a looser check allowing for a different accountant version or order grid.",
		"The same (q, T) must serve all three σ of a dataset: the paper ran one training configuration per noise level.",
	}
	return t, nil
}

// LiteralSetting is an accounting configuration the paper's text implies:
// T steps of the Poisson-subsampled Gaussian with sampling rate Q.
type LiteralSetting struct {
	Name  string  // row label
	Q     float64 // Poisson sampling rate (lot/600 or q_c)
	Steps int     // composed steps
	Note  string  // how Q and Steps follow from the paper's text
}

// LiteralSettings are the configurations spec §5 asks to evaluate: 100
// clients with 600 examples each, 300 rounds × 50 local epochs.
var LiteralSettings = []LiteralSetting{
	{"per-client DP-SGD, lot 10", 10.0 / 600, 300 * 50 * 60, "q = 10/600, T = 300 rounds × 50 epochs × 60 lots"},
	{"per-client DP-SGD, lot 60", 60.0 / 600, 300 * 50 * 10, "q = 60/600, T = 300 × 50 × 10"},
	{"user-level, 5 of 100 clients", 0.05, 300, "q_c = 0.05, T = 300 rounds"},
	{"user-level, 10 of 100 clients", 0.1, 300, "q_c = 0.1, T = 300 rounds"},
	{"user-level, all clients", 1, 300, "q_c = 1, T = 300 rounds (no sampling amplification)"},
}

// runTable3Literal evaluates the literal configurations at σ ∈ {1, 1.5, 3}.
//
// Row fields:
//
//	setting            name of the configuration
//	note               how q and steps follow from the paper's text
//	q                  Poisson sampling rate
//	steps              number of composed steps T
//	sigma              noise multiplier
//	eps_rdp_improved   RDP accountant, improved conversion, δ = 1e-5
//	eps_rdp_classic    RDP accountant, classic conversion
//	eps_pld            PLD accountant (discretization interval pld_interval)
//	pld_interval       PLD loss grid (coarser for long compositions)
//	eps_mnist_paper    Table III's MNIST/Fashion-MNIST ε for this σ
//	eps_cifar10_paper  Table III's CIFAR10 ε for this σ
func runTable3Literal(o audit.Options) (audit.Table, error) {
	orders := GoogleOrders()
	t := audit.Table{ID: "table3-literal", Title: "ε of the configurations implied by the paper's text (δ = 1e-5)",
		Columns: []string{"setting", "note", "q", "steps", "sigma", "eps_rdp_improved", "eps_rdp_classic", "eps_pld", "pld_interval", "eps_mnist_paper", "eps_cifar10_paper"}}
	for _, s := range LiteralSettings {
		for i, sg := range Sigmas {
			c, err := stepCurve(orders, s.Q, sg)
			if err != nil {
				return t, fmt.Errorf("table3-literal %s σ=%g: %w", s.Name, sg, err)
			}
			iv := 1e-4
			switch {
			case s.Steps > 20000:
				iv = 1e-2
			case o.Quick:
				iv = 1e-3
			}
			ev := accountant.SelfComposed{Event: accountant.PoissonSampled{Q: s.Q, Event: accountant.Gaussian{Sigma: sg}}, Count: s.Steps}
			pld, _, err := accountant.Config{Kind: accountant.KindPLD, PLD: accountant.PLDOptions{Interval: iv}}.Epsilon(ev, Delta)
			if err != nil {
				return t, fmt.Errorf("table3-literal %s σ=%g PLD: %w", s.Name, sg, err)
			}
			t.Rows = append(t.Rows, audit.Row{"setting": s.Name, "note": s.Note, "q": s.Q, "steps": s.Steps, "sigma": sg,
				"eps_rdp_improved": c.eps(float64(s.Steps), accountant.Improved),
				"eps_rdp_classic":  c.eps(float64(s.Steps), accountant.Classic),
				"eps_pld":          pld, "pld_interval": iv,
				"eps_mnist_paper": Table3[0].Eps[i], "eps_cifar10_paper": Table3[2].Eps[i]})
		}
	}
	t.Notes = []string{
		"Literal readings of §6.1: 100 clients × 600 examples (MNIST/FMNIST 60 000 training images split equally), 300 rounds, 50 local epochs per round; sample-level accounting composes every local lot of one client, user-level accounting composes rounds with client sampling q_c.",
		"Poisson sampling, add/remove neighbouring, RDP accountant on dp_accounting's default orders and the PLD accountant; the paper's actual lot size and K are not reported, so these are assumptions, not the paper's configuration.",
		"The PLD accountant rounds every privacy loss up to its grid (pessimistic), so its ε is an upper bound whose slack grows with steps × pld_interval: for the 150 000- and 900 000-step compositions (grid 0.01, the finest that fits in memory) it can exceed the RDP value.",
	}
	return t, nil
}

// Lemma 2 comparison settings.
const (
	// AuditM is the vector length of the comparison and the audit.
	AuditM = 64
	// DPSGDQ and DPSGDSteps are the TF-Privacy MNIST tutorial setting
	// (lot 256 of 60 000, 60 epochs), a reference composition.
	DPSGDQ     = 256.0 / 60000
	DPSGDSteps = 14063
)

// runLemma2Comparison compares vanilla with each wavelet variant, under
// Lemma 2's calibration and under a privacy-matched calibration.
//
// Row fields:
//
//	sigma                      vanilla-equivalent noise multiplier σ of the paper
//	variant                    vanilla | alg1_coefficient_clip | gradient_clip | alg2_aggregate
//	calibration                "lemma2": coefficient scale σ_Haar = σ·sqrt(2/(2+log2 m));
//	                           "privacy_matched": coefficient scale chosen so the effective multiplier is σ;
//	                           "none" for vanilla
//	m                          vector length (power of two)
//	coef_noise_scale           σ for vanilla, else the coefficient noise scale of the calibration
//	effective_multiplier       noise multiplier of the equivalent scalar Gaussian mechanism
//	eps_exact                  one release, exact Gaussian privacy curve, δ = 1e-5
//	eps_rdp                    one release, RDP accountant (improved conversion)
//	eps_pld                    one release, PLD accountant
//	pld_matches_exact          eps_pld within 0.1% of eps_exact (false flags an accountant defect)
//	eps_rdp_dpsgd              Poisson q = 256/60000, 14 063 steps, RDP
//	per_coord_var_over_sigma2  exact per-coordinate variance of the released noise / (σC)²
//	eps_lb                     empirical lower bound on ε from the distinguishing game (one release)
//	eps_lb_confidence          confidence level of eps_lb
//	eps_gdp_estimate           GDP-based estimate from the same counts (assumes a Gaussian-like mechanism)
//	trials                     games per hypothesis
//	exceeds_vanilla            eps_lb > vanilla's eps_exact at the same σ (a violation of "same (ε, δ)")
func runLemma2Comparison(o audit.Options) (audit.Table, error) {
	t := audit.Table{ID: "lemma2-comparison", Title: fmt.Sprintf("Lemma 2 at m = %d: privacy of the wavelet mechanisms vs vanilla at the paper's σ", AuditM),
		Columns: []string{"sigma", "variant", "calibration", "m", "coef_noise_scale", "effective_multiplier", "eps_exact", "eps_rdp", "eps_pld", "pld_matches_exact", "eps_rdp_dpsgd", "per_coord_var_over_sigma2", "eps_lb", "eps_lb_confidence", "eps_gdp_estimate", "trials", "exceeds_vanilla"}}
	violations, pldBad := 0, 0
	pldLo := 1e-4
	if o.Quick {
		pldLo = 1e-3
	}
	for _, s := range Sigmas {
		var vanEps float64
		for _, cal := range []string{"lemma2", "privacy_matched"} {
			for _, v := range hwt.Variants {
				calib := cal
				scale := hwt.SigmaHaar(s, AuditM)
				switch {
				case v == hwt.Vanilla && cal == "privacy_matched":
					continue
				case v == hwt.Vanilla:
					scale, calib = s, "none"
				case cal == "privacy_matched":
					scale = s / hwt.EffectiveMultiplier(v, AuditM, 1)
				}
				mult := hwt.EffectiveMultiplier(v, AuditM, scale)
				ex, err := accountant.GaussianEpsilon(mult, Delta)
				if err != nil {
					return t, err
				}
				rdp, _, err := accountant.RDPEpsilon(accountant.Gaussian{Sigma: mult}, Delta)
				if err != nil {
					return t, err
				}
				pld, _, err := accountant.Config{Kind: accountant.KindPLD, PLD: accountant.PLDOptions{Interval: math.Max(pldLo, 1e-6/(mult*mult))}}.Epsilon(accountant.Gaussian{Sigma: mult}, Delta)
				if err != nil {
					return t, err
				}
				pldOK := math.Abs(pld-ex) <= 1e-3*math.Max(1, ex)
				if !pldOK {
					pldBad++
				}
				ev := accountant.SelfComposed{Event: accountant.PoissonSampled{Q: DPSGDQ, Event: accountant.Gaussian{Sigma: mult}}, Count: DPSGDSteps}
				rdpSGD, _, err := accountant.RDPEpsilon(ev, Delta)
				if err != nil {
					return t, err
				}
				pcv := 1.0
				if v != hwt.Vanilla {
					pcv = hwt.CoordinateVarianceClosedForm(AuditM, scale/s)
				} else {
					vanEps = ex
				}
				lb, err := empiricalEpsilon(o, v, calib, s, scale)
				if err != nil {
					return t, err
				}
				exceeds := v != hwt.Vanilla && lb.Eps > vanEps
				if exceeds {
					violations++
				}
				t.Rows = append(t.Rows, audit.Row{"sigma": s, "variant": v.String(), "calibration": calib, "m": AuditM, "coef_noise_scale": scale,
					"effective_multiplier": mult, "eps_exact": ex, "eps_rdp": rdp, "eps_pld": pld, "pld_matches_exact": pldOK, "eps_rdp_dpsgd": rdpSGD,
					"per_coord_var_over_sigma2": pcv, "eps_lb": lb.Eps, "eps_lb_confidence": lb.Confidence, "eps_gdp_estimate": lb.GDP, "trials": lb.Trials,
					"exceeds_vanilla": exceeds})
			}
		}
	}
	t.Notes = []string{
		"Effective multiplier: a Gaussian mechanism with noise covariance Σ on an L2 ball of radius Δ has the privacy profile of a scalar Gaussian with multiplier 1/sup_{‖u‖≤Δ}‖Σ^{-1/2}u‖. Alg. 1 (coefficient clip): σ_c/m; gradient clip and Alg. 2: σ_c/‖diag(W)A‖ = σ_c/√m. Accountants are given this multiplier.",
		"calibration lemma2: the paper's σ_Haar = σ·sqrt(2/(2+log2 m)) (spec §7.2.1 default). privacy_matched: σ_c = σ·m (Alg. 1) or σ·√m (gradient clip, Alg. 2), which gives vanilla's ε exactly — at a per-coordinate noise variance ≈ m²/3 or m/3 times vanilla's.",
		"eps_lb: distinguishing game (algorithms/audit) on the actual WaveletNoise mechanisms (algorithms/haar.AuditGame) with a worst-case neighbouring pair — the empty lot vs one example, clip C = 1, whose contribution lies on the base and coarsest Haar coefficients, the most weakly noised directions — and the Neyman–Pearson score; Clopper–Pearson at 95%, split-half threshold selection, one release. It is a lower bound, so eps_lb > vanilla's exact ε proves the wavelet mechanism less private than vanilla at the same σ; with finitely many trials it saturates near ln(trials/7), far below the analytic ε of the wavelet variants.",
		"eps_rdp_dpsgd composes the per-step mechanism over the TF-Privacy MNIST tutorial setting (q = 256/60000, 60 epochs); eps_pld uses a loss grid max(1e-4, 1e-6/multiplier²) so large losses fit in memory.",
	}
	if pldBad > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("The PLD accountant disagrees with the exact Gaussian curve in %d rows (pld_matches_exact = false): it returns ε = 0 for one Gaussian release with multiplier ≲ 1/32, an accountant defect; eps_exact and eps_rdp are unaffected.", pldBad))
	}
	if violations > 0 {
		t.Verdict = fmt.Sprintf("gap: %d wavelet (variant, σ) rows are measurably less private than vanilla (all under Lemma 2's calibration)", violations)
	} else {
		t.Verdict = "no empirical violation found"
	}
	return t, nil
}

// lowerBound is an empirical ε lower bound from the distinguishing game.
type lowerBound struct {
	Eps        float64 // Clopper–Pearson lower bound
	GDP        float64 // GDP-based estimate on the same counts
	Confidence float64
	Trials     int // per side
}

// empiricalEpsilon plays the algorithms/audit distinguishing game against
// one release of variant v at m = AuditM with coefficient noise scale,
// using haar.AuditGame's worst-case neighbour and optimal score: 20 000
// trials per side (2 000 in quick mode), split-half threshold selection,
// 95% confidence, δ = 1e-5.
func empiricalEpsilon(o audit.Options, v hwt.Variant, calibration string, sigma, scale float64) (lowerBound, error) {
	trials := 20000
	if o.Quick {
		trials = 2000
	}
	g := hwt.NewAuditGame(v, AuditM, scale)
	game := audit.Game{ID: fmt.Sprintf("haar/lemma2-comparison/%v/%s/sigma=%g", v, calibration, sigma), Seed: o.Seed,
		Trials: trials, Delta: Delta, Confidence: 0.95}
	r, err := game.Run(g.Score)
	if err != nil {
		return lowerBound{}, fmt.Errorf("lemma2-comparison %v σ=%g: %w", v, sigma, err)
	}
	return lowerBound{Eps: r.EpsilonLB, GDP: r.EpsilonGDP, Confidence: r.Confidence, Trials: r.Trials}, nil
}
