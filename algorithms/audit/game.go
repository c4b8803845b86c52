package audit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Mechanism runs the audited mechanism once, on the neighbouring dataset D′
// when neighbour is true and on D otherwise, drawing all its randomness
// from r, and returns a scalar statistic of the output (the attack's
// score). Larger scores need not mean D′: the harness tries both
// directions.
type Mechanism func(r *rand.Rand, neighbour bool) float64

// VectorMechanism is a Mechanism whose output is a vector; it may reuse dst
// (of the length given to RunVector) and returns the output.
type VectorMechanism func(r *rand.Rand, neighbour bool, dst []float64) []float64

// Score turns a vector output into the attack's scalar statistic.
type Score func(out []float64) float64

// GaussianLRScore is the likelihood-ratio attack against a mechanism that
// releases meanD or meanDPrime plus isotropic Gaussian noise: the log
// likelihood ratio log p_{D′}(x)/p_D(x) is an increasing affine function
// of ⟨x − (m₀+m₁)/2, m₁ − m₀⟩, which is therefore the most powerful test
// statistic (Neyman–Pearson) whatever the noise scale.
func GaussianLRScore(meanD, meanDPrime []float64) Score {
	if len(meanD) != len(meanDPrime) {
		panic("audit: GaussianLRScore means of different lengths")
	}
	dir := make([]float64, len(meanD))
	mid := make([]float64, len(meanD))
	for i := range dir {
		dir[i] = meanDPrime[i] - meanD[i]
		mid[i] = (meanDPrime[i] + meanD[i]) / 2
	}
	return func(x []float64) float64 {
		s := 0.0
		for i, d := range dir {
			s += (x[i] - mid[i]) * d
		}
		return s
	}
}

// Selection says how the distinguishing threshold is chosen without
// invalidating the confidence level.
type Selection int

const (
	// SplitHalf (default) chooses threshold and direction on the first
	// half of the trials (maximising the Clopper–Pearson bound there) and
	// evaluates only on the second half, so the bound's confidence is
	// exact for the chosen test.
	SplitHalf Selection = iota
	// Bonferroni evaluates every threshold of Game.Thresholds in both
	// directions on all trials, each at level (1−Confidence)/K for K
	// candidates, and reports the best. The thresholds must be fixed in
	// advance (not derived from the scores), or the union bound does not
	// apply.
	Bonferroni
	// Calibrated chooses threshold and direction on Game.Calibration
	// separate trials per side (streams "calibration", i, side: no trial
	// is used twice) and evaluates that one test on all Trials, so every
	// evaluation trial counts and the confidence is exact for the chosen
	// test. Cheap calibration, expensive evidence: the bound grows with
	// Trials.
	Calibrated
)

// String returns "split-half" or "bonferroni".
func (s Selection) String() string {
	switch s {
	case Bonferroni:
		return "bonferroni"
	case Calibrated:
		return "calibrated"
	}
	return "split-half"
}

// Game is a distinguishing game: run the mechanism Trials times on D and
// Trials times on D′ and bound ε from how well a threshold on the score
// tells them apart. Trial i on side D (D′) draws from the stream
// rng.New(Seed, "audit", ID, "trial", i, "D" ("D'")), so results do not
// depend on evaluation order and two audits with different IDs are
// independent.
type Game struct {
	ID         string
	Seed       uint64
	Trials     int       // per side; ≥ 2 for SplitHalf
	Delta      float64   // the δ at which ε is bounded (0 ≤ δ < 1)
	Confidence float64   // probability that the bound holds (default 0.95)
	Selection  Selection // default SplitHalf
	Thresholds []float64 // Bonferroni only
	// Calibration is the number of calibration trials per side
	// (Calibrated only; ≥ 1).
	Calibration int

	reverse bool // Calibrated: the direction chosen on the calibration trials
}

// Result is the outcome of a Game.
type Result struct {
	ID         string
	Trials     int     // per side
	Delta      float64 // δ of the bound
	EpsilonLB  float64 // Clopper–Pearson lower bound on ε (EpsilonLB)
	Confidence float64 // probability with which EpsilonLB holds
	EpsilonGDP float64 // GDP-based estimate on the same counts (δ > 0 only)
	Threshold  float64
	// Reverse is true when the test guesses D′ for scores below Threshold.
	Reverse   bool
	Counts    Counts    // on the evaluation trials
	Selection Selection // how Threshold was chosen
	// Fit is the Gaussian fit of the evaluation scores (GaussianFit at the
	// game's confidence): μ with its interval, an estimate that moves with
	// the noise even when the threshold test separates perfectly.
	Fit Fit
	// MaxEpsilonLB is the bound an error-free test on the same number of
	// evaluation trials would give: the most this trial budget can show.
	MaxEpsilonLB float64
	// BudgetLimited is true when EpsilonLB > 0 and the test made no false
	// positive or no false negative (Saturated): the bound is then set by
	// the trial count, and EpsilonGDP (fitted to the same counts) is the
	// budget's value too, not the mechanism's.
	BudgetLimited bool
}

// ResultColumns are the columns Result.Row fills, in display order.
var ResultColumns = []string{"id", "trials", "delta", "epsilon_lb", "confidence", "epsilon_gdp", "tp", "fn", "fp", "tn", "selection"}

// Row renders the result as an audit table row (keys: ResultColumns).
func (r Result) Row() Row {
	return Row{
		"id": r.ID, "trials": r.Trials, "delta": r.Delta, "epsilon_lb": r.EpsilonLB,
		"confidence": r.Confidence, "epsilon_gdp": r.EpsilonGDP,
		"tp": r.Counts.TP, "fn": r.Counts.FN, "fp": r.Counts.FP, "tn": r.Counts.TN,
		"selection": r.Selection.String(),
	}
}

func (g Game) withDefaults() (Game, error) {
	if g.Confidence == 0 {
		g.Confidence = 0.95
	}
	if g.ID == "" {
		return g, errors.New("audit game needs an ID (it names the random streams)")
	}
	if err := checkConf(g.Delta, g.Confidence); err != nil {
		return g, err
	}
	switch g.Selection {
	case SplitHalf:
		if g.Trials < 2 {
			return g, fmt.Errorf("split-half selection needs ≥ 2 trials per side (got %d)", g.Trials)
		}
	case Bonferroni:
		if g.Trials < 1 || len(g.Thresholds) == 0 {
			return g, fmt.Errorf("Bonferroni selection needs ≥ 1 trial per side and fixed thresholds (got %d, %d)", g.Trials, len(g.Thresholds))
		}
	case Calibrated:
		if g.Trials < 2 || g.Calibration < 1 {
			return g, fmt.Errorf("calibrated selection needs ≥ 2 trials and ≥ 1 calibration trial per side (got %d, %d)", g.Trials, g.Calibration)
		}
	default:
		return g, fmt.Errorf("unknown selection %d", int(g.Selection))
	}
	return g, nil
}

// stream returns the generator of trial i on one side.
func (g Game) stream(i int, neighbour bool) *rand.Rand {
	side := "D"
	if neighbour {
		side = "D'"
	}
	return rng.New(g.Seed, "audit", g.ID, "trial", i, side).Rand()
}

// calStream returns the generator of calibration trial i on one side.
func (g Game) calStream(i int, neighbour bool) *rand.Rand {
	side := "D"
	if neighbour {
		side = "D'"
	}
	return rng.New(g.Seed, "audit", g.ID, "calibration", i, side).Rand()
}

// Run plays the game with a scalar mechanism.
func (g Game) Run(m Mechanism) (Result, error) {
	g, err := g.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if g.Selection == Calibrated {
		c0 := make([]float64, g.Calibration)
		c1 := make([]float64, g.Calibration)
		for i := range c0 {
			c0[i] = m(g.calStream(i, false), false)
			c1[i] = m(g.calStream(i, true), true)
		}
		t, rev, err := bestThreshold(c0, c1, g.Delta, g.Confidence)
		if err != nil {
			return Result{}, err
		}
		g.Thresholds = []float64{t}
		g.reverse = rev
	}
	s0 := make([]float64, g.Trials)
	s1 := make([]float64, g.Trials)
	for i := 0; i < g.Trials; i++ {
		s0[i] = m(g.stream(i, false), false)
		s1[i] = m(g.stream(i, true), true)
	}
	return g.decide(s0, s1)
}

// RunScores evaluates precomputed scores: s0[i] and s1[i] must be trial i
// on D and D′, computed from the streams Stream(i, …) (and, for
// Calibrated, c0/c1 from CalibrationStream); it is Run for callers that
// schedule the trials themselves (e.g. on several workers).
func (g Game) RunScores(c0, c1, s0, s1 []float64) (Result, error) {
	g.Trials = len(s0)
	if len(s1) != len(s0) {
		return Result{}, fmt.Errorf("%d scores on D, %d on D′: want as many", len(s0), len(s1))
	}
	if g.Selection == Calibrated {
		g.Calibration = len(c0)
		if len(c1) != len(c0) {
			return Result{}, fmt.Errorf("%d calibration scores on D, %d on D′: want as many", len(c0), len(c1))
		}
	}
	g, err := g.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if g.Selection == Calibrated {
		t, rev, err := bestThreshold(c0, c1, g.Delta, g.Confidence)
		if err != nil {
			return Result{}, err
		}
		g.Thresholds = []float64{t}
		g.reverse = rev
	}
	return g.decide(s0, s1)
}

// Stream is the generator of evaluation trial i (on D′ when neighbour).
func (g Game) Stream(i int, neighbour bool) *rand.Rand { return g.stream(i, neighbour) }

// CalibrationStream is the generator of calibration trial i.
func (g Game) CalibrationStream(i int, neighbour bool) *rand.Rand { return g.calStream(i, neighbour) }

// bestThreshold is the threshold and direction with the largest
// Clopper–Pearson bound on the scores (ties: the first candidate).
func bestThreshold(s0, s1 []float64, delta, conf float64) (float64, bool, error) {
	for _, s := range append(append([]float64(nil), s0...), s1...) {
		if math.IsNaN(s) {
			return 0, false, errors.New("the mechanism's score is NaN")
		}
	}
	best, bt, brev := math.Inf(-1), 0.0, false
	ct := newCounter(s0, s1)
	for _, t := range candidates(s0, s1) {
		for _, rev := range []bool{false, true} {
			b, err := EpsilonLB(ct.count(t, rev), delta, conf)
			if err != nil {
				return 0, false, err
			}
			if b.Epsilon > best {
				best, bt, brev = b.Epsilon, t, rev
			}
		}
	}
	return bt, brev, nil
}

// RunVector plays the game with a vector mechanism of output length dim
// and the attack's score function.
func (g Game) RunVector(m VectorMechanism, dim int, score Score) (Result, error) {
	buf := make([]float64, dim)
	return g.Run(func(r *rand.Rand, neighbour bool) float64 {
		clear(buf)
		return score(m(r, neighbour, buf))
	})
}

// count returns the counts of the test "guess D′ iff score > t" (or < t
// when reverse) on scores s0 (from D) and s1 (from D′).
func count(s0, s1 []float64, t float64, reverse bool) Counts {
	var c Counts
	guess := func(s float64) bool {
		if reverse {
			return s < t
		}
		return s > t
	}
	for _, s := range s1 {
		if guess(s) {
			c.TP++
		} else {
			c.FN++
		}
	}
	for _, s := range s0 {
		if guess(s) {
			c.FP++
		} else {
			c.TN++
		}
	}
	return c
}

// counter answers count(s0, s1, t, reverse) for many thresholds t: the
// scores are sorted once, and the number above (below) t is found by
// binary search, O(log n) instead of a pass over every score per
// threshold — the threshold searches ask for 514 thresholds over up to
// 2·20,000 scores per game. The counts are integers, so they are those of
// count exactly (TestCounterMatchesCount). Scores must not be NaN (the
// callers refuse them first).
type counter struct{ s0, s1 []float64 }

func newCounter(s0, s1 []float64) counter {
	c := counter{slices.Clone(s0), slices.Clone(s1)}
	sort.Float64s(c.s0)
	sort.Float64s(c.s1)
	return c
}

// guessed is the number of sorted scores s with s > t (s < t when
// reverse); no score compares with a NaN t.
func guessed(s []float64, t float64, reverse bool) int {
	if math.IsNaN(t) {
		return 0
	}
	if reverse {
		return sort.Search(len(s), func(i int) bool { return s[i] >= t })
	}
	return len(s) - sort.Search(len(s), func(i int) bool { return s[i] > t })
}

// count is count(s0, s1, t, reverse) on the sorted scores.
func (c counter) count(t float64, reverse bool) Counts {
	tp, fp := guessed(c.s1, t, reverse), guessed(c.s0, t, reverse)
	return Counts{TP: tp, FN: len(c.s1) - tp, FP: fp, TN: len(c.s0) - fp}
}

// candidates returns up to 257 thresholds: quantiles of the pooled scores
// (midpoints between neighbouring order statistics).
func candidates(s0, s1 []float64) []float64 {
	all := append(append([]float64(nil), s0...), s1...)
	sort.Float64s(all)
	const k = 256
	var out []float64
	for j := 0; j <= k; j++ {
		i := j * (len(all) - 1) / k
		t := all[i]
		if i+1 < len(all) {
			t = (all[i] + all[i+1]) / 2
		}
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out
}

func (g Game) decide(s0, s1 []float64) (Result, error) {
	for _, s := range append(append([]float64(nil), s0...), s1...) {
		if math.IsNaN(s) {
			return Result{}, errors.New("the mechanism's score is NaN")
		}
	}
	res := Result{ID: g.ID, Trials: g.Trials, Delta: g.Delta, Confidence: g.Confidence, Selection: g.Selection}
	var eval0, eval1 []float64
	var thresholds []float64
	level := g.Confidence
	switch g.Selection {
	case SplitHalf:
		h := g.Trials / 2
		sel0, sel1 := s0[:h], s1[:h]
		eval0, eval1 = s0[h:], s1[h:]
		best := math.Inf(-1)
		ct := newCounter(sel0, sel1)
		for _, t := range candidates(sel0, sel1) {
			for _, rev := range []bool{false, true} {
				b, err := EpsilonLB(ct.count(t, rev), g.Delta, g.Confidence)
				if err != nil {
					return Result{}, err
				}
				if b.Epsilon > best {
					best, res.Threshold, res.Reverse = b.Epsilon, t, rev
				}
			}
		}
		thresholds = []float64{res.Threshold}
	case Bonferroni:
		eval0, eval1 = s0, s1
		thresholds = g.Thresholds
		k := float64(2 * len(thresholds))
		level = 1 - (1-g.Confidence)/k
	case Calibrated:
		eval0, eval1 = s0, s1
		thresholds = g.Thresholds
		res.Reverse = g.reverse
	}
	best := math.Inf(-1)
	for _, t := range thresholds {
		for _, rev := range []bool{false, true} {
			if g.Selection != Bonferroni && rev != res.Reverse {
				continue
			}
			c := count(eval0, eval1, t, rev)
			b, err := EpsilonLB(c, g.Delta, level)
			if err != nil {
				return Result{}, err
			}
			if b.Epsilon > best {
				best, res.Threshold, res.Reverse, res.Counts = b.Epsilon, t, rev, c
				res.EpsilonLB = b.Epsilon
			}
		}
	}
	if g.Delta > 0 {
		e, _, err := EpsilonGDP(res.Counts, g.Delta, level)
		if err != nil {
			return Result{}, err
		}
		res.EpsilonGDP = e
	}
	// The fit is an estimate beside the bound: scores it cannot fit
	// (infinite ones, too few) leave it NaN rather than fail the game.
	res.Fit = Fit{Mu: math.NaN(), MuLo: math.NaN(), MuHi: math.NaN(), Confidence: g.Confidence}
	if f, err := GaussianFit(eval0, eval1, g.Confidence); err == nil {
		res.Fit = f
	}
	mx, err := MaxEpsilonLB(len(eval0), len(eval1), g.Delta, level)
	if err != nil {
		return Result{}, err
	}
	res.MaxEpsilonLB = mx
	res.BudgetLimited = res.EpsilonLB > 0 && Saturated(res.Counts)
	return res, nil
}
