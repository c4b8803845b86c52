package claim

import (
	"fmt"
	"math"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"gonum.org/v1/gonum/stat/distuv"
)

// Privacy curves that are not accountant events: the optimal composition
// of a stated pure-DP guarantee, and the Poisson mechanism whose
// participation the adversary sees.

// optimalCompositionDelta is δ(ε) of the k-fold composition of ε₀-DP
// mechanisms in the worst case (Kairouz, Oh and Viswanath 2015, "The
// composition theorem for differential privacy", Thm 3.3; the k-fold
// randomized response attains it): the privacy loss is (k − 2l)ε₀ with
// probability C(k, l)·e^{(k−l)ε₀}/(1 + e^{ε₀})^k, so
// δ(ε) = Σ_l C(k,l)·[e^{(k−l)ε₀} − e^{ε + lε₀}]₊ / (1 + e^{ε₀})^k.
// Summed in log space.
func optimalCompositionDelta(eps0 float64, k int, eps float64) float64 {
	if eps0 == 0 || k == 0 {
		return 0
	}
	logNorm := float64(k) * (eps0 + math.Log1p(math.Exp(-eps0)))
	lk, _ := math.Lgamma(float64(k + 1))
	mx := math.Inf(-1)
	terms := make([]float64, 0, k+1)
	for l := 0; l <= k; l++ {
		a := float64(k-l) * eps0   // log e^{(k−l)ε₀}
		b := eps + float64(l)*eps0 // log e^{ε+lε₀}
		if b >= a {
			break // b − a grows with l: every later term is zero too
		}
		l1, _ := math.Lgamma(float64(l + 1))
		l2, _ := math.Lgamma(float64(k - l + 1))
		t := lk - l1 - l2 + a + math.Log(-math.Expm1(b-a)) - logNorm
		terms = append(terms, t)
		mx = math.Max(mx, t)
	}
	if len(terms) == 0 {
		return 0
	}
	var s float64
	for _, t := range terms {
		s += math.Exp(t - mx)
	}
	return math.Min(1, math.Exp(mx+math.Log(s)))
}

// optimalCompositionEpsilon is the smallest ε with
// optimalCompositionDelta(ε₀, k, ε) ≤ δ (bisection to 1e-12 relative; at
// δ = 0 it is kε₀).
func optimalCompositionEpsilon(eps0 float64, k int, delta float64) float64 {
	hi := float64(k) * eps0
	if delta <= 0 || hi == 0 {
		return hi
	}
	if optimalCompositionDelta(eps0, k, 0) <= delta {
		return 0
	}
	lo := 0.0
	for range 200 {
		if hi-lo <= 1e-12*hi {
			break
		}
		mid := (lo + hi) / 2
		if optimalCompositionDelta(eps0, k, mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// visibleDelta bounds δ(ε) of steps rounds of a Gaussian mechanism with
// noise multiplier z (already halved for replace-one) in which the record
// takes part independently with probability q and the adversary sees in
// which rounds: participation is public and data-independent, so the
// curve is the Binomial(steps, q) mixture of the n-fold composed
// Gaussian, δ(ε) = Σ_n P(n)·δ_G(z/√n, ε), exact for the worst-case pair.
//
// It returns lo ≤ δ(ε) ≤ hi. The sum runs over the window of n around the
// Binomial mode outside which every log-weight is below −80 (the
// weights are log-concave in n, so the window is an interval); the
// dropped weight, 1 − Σ_window P(n), is added to hi (each δ_n ≤ 1). When
// the window holds more than visibleMaxTerms counts it is cut into that
// many blocks; δ_G(z/√n, ε) grows with n, so a block's weight times the
// δ at its last n bounds it from above and at its first n from below.
// The work is therefore O(visibleMaxTerms) whatever the step count (1e12
// rounds answer in milliseconds), and for windows below the cap lo = hi.
func visibleDelta(z, q float64, steps int, eps float64) (lo, hi float64, err error) {
	vw := visibleWeightsFor(q, steps)
	for i, w := range vw.w {
		a, b := vw.a[i], vw.b[i]
		dl, err := accountant.GaussianDelta(z/math.Sqrt(float64(a)), eps)
		if err != nil {
			return 1, 1, err
		}
		dh := dl
		if b > a {
			if dh, err = accountant.GaussianDelta(z/math.Sqrt(float64(b)), eps); err != nil {
				return 1, 1, err
			}
		}
		lo += w * dl
		hi += w * dh
	}
	// Every count outside the window (n = 0 aside, whose δ is 0) has
	// weight below e^−80, so together at most steps·e^−80.
	hi += float64(steps) * math.Exp(-80)
	return math.Min(lo, 1), math.Min(hi, 1), nil
}

// visibleWeights are the blocks [a_i, b_i] of participation counts and
// their Binomial weights; they depend on (q, steps) only, not on the
// noise or ε, so one table serves every evaluation of a bisection or a
// calibration.
type visibleWeights struct {
	a, b []int
	w    []float64
}

var (
	visibleMu    sync.Mutex
	visibleCache = map[[2]float64]*visibleWeights{}
)

func visibleWeightsFor(q float64, steps int) *visibleWeights {
	key := [2]float64{q, float64(steps)}
	visibleMu.Lock()
	vw, ok := visibleCache[key]
	visibleMu.Unlock()
	if ok {
		return vw
	}
	vw = &visibleWeights{}
	nlo, nhi := visibleWindow(q, steps)
	if nlo <= nhi {
		width := nhi - nlo + 1
		block := 1
		if width > visibleMaxTerms {
			block = (width + visibleMaxTerms - 1) / visibleMaxTerms
		}
		for a := nlo; a <= nhi; a += block {
			b := min(a+block-1, nhi)
			vw.a, vw.b = append(vw.a, a), append(vw.b, b)
			vw.w = append(vw.w, blockWeight(q, steps, a, b))
		}
	}
	visibleMu.Lock()
	if len(visibleCache) < 1<<12 {
		visibleCache[key] = vw
	}
	visibleMu.Unlock()
	return vw
}

// visibleMaxTerms caps the blocks of the visible-participation sum.
const visibleMaxTerms = 4096

// binomLogPMF is log P(n) for n ~ Binomial(steps, q).
func binomLogPMF(q float64, steps, n int) float64 {
	if q == 1 {
		if n == steps {
			return 0
		}
		return math.Inf(-1)
	}
	ln, _ := math.Lgamma(float64(steps + 1))
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(steps - n + 1))
	return ln - a - b + float64(n)*math.Log(q) + float64(steps-n)*math.Log1p(-q)
}

// visibleWindow is the interval of participation counts n ≥ 1 whose
// Binomial log-weight is at least −80 (empty: nlo > nhi).
func visibleWindow(q float64, steps int) (nlo, nhi int) {
	if q == 1 {
		return steps, steps
	}
	mode := int(math.Floor(float64(steps+1) * q))
	mode = min(max(mode, 1), steps)
	// Exponential search then bisection on each side (log-concavity).
	ok := func(n int) bool { return binomLogPMF(q, steps, n) >= -80 }
	if !ok(mode) {
		return 1, 0
	}
	edge := func(dir int) int {
		inside, step := mode, 1
		for {
			n := mode + dir*step
			if n < 1 || n > steps || !ok(n) {
				break
			}
			inside = n
			step *= 2
		}
		out := mode + dir*step // first probe outside (or past the range)
		for abs(out-inside) > 1 {
			mid := (inside + out) / 2
			if mid >= 1 && mid <= steps && ok(mid) {
				inside = mid
			} else {
				out = mid
			}
		}
		return inside
	}
	return edge(-1), edge(+1)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// blockWeight is P(a ≤ n ≤ b) for n ~ Binomial(steps, q), summed term by
// term in log space when the block is small and by the regularized
// incomplete beta function otherwise.
func blockWeight(q float64, steps, a, b int) float64 {
	if b-a < 64 {
		var w float64
		for n := a; n <= b; n++ {
			w += math.Exp(binomLogPMF(q, steps, n))
		}
		return w
	}
	cdf := func(k int) float64 { // P(n ≤ k)
		if k < 0 {
			return 0
		}
		if k >= steps {
			return 1
		}
		return distuv.Binomial{N: float64(steps), P: q}.CDF(float64(k))
	}
	return math.Max(0, cdf(b)-cdf(a-1))
}

// visibleEpsilon is the upper bound of visibleEpsilonBounds (the sound
// value, used to calibrate).
func visibleEpsilon(z, q float64, steps int, delta float64) (float64, error) {
	if !(z > 0) {
		return math.Inf(1), fmt.Errorf("%w: no noise", accountant.ErrInfinite)
	}
	return invertDelta(func(e float64) (float64, error) { _, d, err := visibleDelta(z, q, steps, e); return d, err }, delta)
}

// visibleEpsilonBounds returns bounds lo ≤ ε ≤ hi of the
// visible-participation mechanism at δ (bisection to relative 1e-12 on
// each bound of δ(ε)); hi = lo when the window needs no blocks.
func visibleEpsilonBounds(z, q float64, steps int, delta float64) (lo, hi float64, err error) {
	if !(z > 0) {
		return math.Inf(1), math.Inf(1), fmt.Errorf("%w: no noise", accountant.ErrInfinite)
	}
	hi, err = invertDelta(func(e float64) (float64, error) { _, d, err := visibleDelta(z, q, steps, e); return d, err }, delta)
	if err != nil {
		return hi, hi, err
	}
	lo, err = invertDelta(func(e float64) (float64, error) { d, _, err := visibleDelta(z, q, steps, e); return d, err }, delta)
	return lo, hi, err
}

// invertDelta is the smallest ε with f(ε) ≤ δ for a non-increasing f
// (bisection, relative 1e-12).
func invertDelta(f func(float64) (float64, error), delta float64) (float64, error) {
	d0, err := f(0)
	if err != nil {
		return 0, err
	}
	if d0 <= delta {
		return 0, nil
	}
	hi := 1.0
	for {
		d, err := f(hi)
		if err != nil {
			return 0, err
		}
		if d <= delta {
			break
		}
		hi *= 2
		if hi > 1e15 {
			return math.Inf(1), fmt.Errorf("%w: no ε below 1e15 reaches δ = %v", accountant.ErrInfinite, delta)
		}
	}
	lo := 0.0
	for range 200 {
		if hi-lo <= 1e-12*hi {
			break
		}
		mid := (lo + hi) / 2
		d, err := f(mid)
		if err != nil {
			return 0, err
		}
		if d > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}
