package audit

import (
	"errors"
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"gonum.org/v1/gonum/stat/distuv"
)

// Why a second GDP estimate. EpsilonGDP fits μ from the Clopper–Pearson
// bounds on one threshold test's error rates. When the test separates the
// two sides perfectly (0 false positives and 0 false negatives) those
// bounds depend only on the number of trials — 1 − a^{1/n} — so the
// estimate is the same whatever the mechanism: 42.28 at δ = 1e-5 for 2,500
// evaluation trials per side, for noise std 1, 0.8 and 0.64 alike
// (upcycled op-empirical). That is a budget limit, not a measurement.
// GaussianFit reads μ from the scores themselves (their mean difference in
// units of their spread), which keeps moving with the noise however well
// the sides separate; Saturated says when the count-based estimate is only
// the trial budget.

// Fit is the equal-variance Gaussian fit of a test statistic's scores on
// D (s0) and D′ (s1): μ = (E s1 − E s0)/sd, the GDP parameter of the pair
// of score distributions when they are N(m0, s²) and N(m1, s²) — exactly
// so for a linear score of a Gaussian mechanism's output with a fixed
// noiseless part (the white-box gradient canary of Nasr et al. 2023,
// "Tight Auditing of Differentially Private Machine Learning"), an
// approximation otherwise. MuLo and MuHi bracket μ with probability ≥
// Confidence under that model: a union bound of the two-sided t-interval
// (level 1 − a/2) on the mean difference and the χ² interval (level
// 1 − a/2) on the common standard deviation, a = 1 − Confidence:
//
//	μ_lo = Δ_lo/s_hi,   μ_hi = Δ_hi/s_lo.
//
// An estimate under the Gaussian model, not a bound for every mechanism:
// reports show it next to the Clopper–Pearson bound, never instead of it.
type Fit struct {
	Mu, MuLo, MuHi float64
	MeanD, MeanDp  float64 // sample means of s0 and s1
	SD             float64 // pooled standard deviation
	Confidence     float64
}

// GaussianFit fits μ to the scores (at least two per side, not all equal).
func GaussianFit(s0, s1 []float64, conf float64) (Fit, error) {
	n0, n1 := len(s0), len(s1)
	if n0 < 2 || n1 < 2 {
		return Fit{}, fmt.Errorf("Gaussian fit needs ≥ 2 scores per side (got %d, %d)", n0, n1)
	}
	if !(conf > 0 && conf < 1) {
		return Fit{}, fmt.Errorf("confidence %v: want 0 < confidence < 1", conf)
	}
	mean := func(s []float64) float64 {
		var t float64
		for _, v := range s {
			t += v
		}
		return t / float64(len(s))
	}
	m0, m1 := mean(s0), mean(s1)
	var ss float64
	for _, v := range s0 {
		ss += (v - m0) * (v - m0)
	}
	for _, v := range s1 {
		ss += (v - m1) * (v - m1)
	}
	nu := float64(n0 + n1 - 2)
	sd := math.Sqrt(ss / nu)
	if math.IsNaN(sd) || math.IsInf(sd, 0) || math.IsNaN(m0) || math.IsNaN(m1) || math.IsInf(m0, 0) || math.IsInf(m1, 0) {
		return Fit{}, errors.New("Gaussian fit: scores not finite")
	}
	f := Fit{MeanD: m0, MeanDp: m1, SD: sd, Confidence: conf}
	diff := m1 - m0
	if sd == 0 {
		// Deterministic scores: μ is infinite when the sides differ.
		if diff == 0 {
			return f, nil
		}
		inf := math.Copysign(math.Inf(1), diff)
		f.Mu, f.MuLo, f.MuHi = inf, inf, inf
		return f, nil
	}
	a := 1 - conf
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(1 - a/4)
	half := t * sd * math.Sqrt(1/float64(n0)+1/float64(n1))
	chi := distuv.ChiSquared{K: nu}
	sLo := sd * math.Sqrt(nu/chi.Quantile(1-a/4))
	sHi := sd * math.Sqrt(nu/chi.Quantile(a/4))
	f.Mu = diff / sd
	lo, hi := diff-half, diff+half
	// The bracket of a ratio: divide by the σ end that makes it widest.
	if lo >= 0 {
		f.MuLo = lo / sHi
	} else {
		f.MuLo = lo / sLo
	}
	if hi >= 0 {
		f.MuHi = hi / sLo
	} else {
		f.MuHi = hi / sHi
	}
	return f, nil
}

// GDPEpsilon converts μ (its absolute value: the direction of a test does
// not matter) scaled by √releases — μ-GDP composed over that many
// independent releases (Dong, Roth and Su 2022, Cor. 3.3) — to ε at δ;
// 0 for μ = 0, +Inf for an infinite μ.
func GDPEpsilon(mu float64, releases int, delta float64) (float64, error) {
	if releases < 1 {
		return 0, fmt.Errorf("%d releases: want ≥ 1", releases)
	}
	mu = math.Abs(mu) * math.Sqrt(float64(releases))
	if mu == 0 {
		return 0, nil
	}
	if math.IsInf(mu, 1) {
		return math.Inf(1), nil
	}
	return accountant.GDPEpsilon(mu, delta)
}

// MaxEpsilonLB is the largest Clopper–Pearson bound (EpsilonLB) that n0
// trials on D and n1 on D′ can give at δ and confidence conf: that of a
// test without any error. A bound at (or near) it says as much about the
// trial budget as about the mechanism.
func MaxEpsilonLB(n0, n1 int, delta, conf float64) (float64, error) {
	b, err := EpsilonLB(Counts{TP: n1, TN: n0}, delta, conf)
	return b.Epsilon, err
}

// Saturated reports whether a test's error counts leave the bound to the
// trial budget: a positive bound with no false positive or no false
// negative is set by the Clopper–Pearson bound at zero errors, which only
// grows with the number of trials (ln n for n trials, whatever the
// mechanism), so more trials would raise it.
func Saturated(c Counts) bool {
	return c.FP == 0 || c.FN == 0
}
