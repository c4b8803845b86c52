package accountant

import (
	"fmt"
	"math"
	"sync"
)

// This file computes the Rényi DP of the (Poisson-subsampled) Gaussian
// mechanism, following Mironov, Talwar and Zhang 2019 ("Rényi DP of the
// sampled Gaussian mechanism", arXiv 1908.10530) as summarised in
// spec §B2: ε(α) = log(A_α)/(α−1) with
//
//	A_α = E_{z∼N(0,σ²)}[((1−q) + q·e^{(2z−1)/(2σ²)})^α].

// FractionalSeries selects how the fractional-order series for A_α treats
// the generalized binomial coefficients C(α,k), which are negative for some
// k > α+1 (spec §B4).
type FractionalSeries int

const (
	// Signed uses the true, signed coefficients; the series then equals
	// A_α exactly (it agrees with numerical integration). Opacus and the
	// legacy TF Privacy accountant do this. The default.
	Signed FractionalSeries = iota
	// Absolute adds |C(α,k)|, which over-estimates A_α (a valid but looser
	// upper bound). Current dp_accounting does this because
	// scipy.special.gammaln returns log|Γ|; keep it only to reproduce
	// dp_accounting's published numbers.
	Absolute
)

// String returns "signed" or "absolute".
func (s FractionalSeries) String() string {
	if s == Absolute {
		return "absolute"
	}
	return "signed"
}

// PoissonGaussianRDP returns the RDP of order alpha of one step of the
// Poisson-subsampled Gaussian mechanism with sampling probability q and
// noise multiplier sigma, under add/remove neighbouring, using the signed
// fractional series. Special cases: q = 0 gives 0; q = 1 gives α/(2σ²);
// σ = 0 or α = +Inf gives +Inf. Orders ≤ 1 are rejected.
func PoissonGaussianRDP(q, sigma, alpha float64) (float64, error) {
	if err := checkOrder(alpha); err != nil {
		return 0, err
	}
	if err := validate(PoissonSampled{Q: q, Event: Gaussian{Sigma: sigma}}); err != nil {
		return 0, err
	}
	return poissonGaussianRDP(q, sigma, alpha, Signed), nil
}

func checkOrder(alpha float64) error {
	if !(alpha > 1) {
		return fmt.Errorf("RDP order %v: orders must be > 1", alpha)
	}
	return nil
}

func gaussianRDP(sigma, alpha float64) float64 {
	if sigma == 0 || math.IsInf(alpha, 1) {
		return math.Inf(1)
	}
	return alpha / (2 * sigma * sigma)
}

func poissonGaussianRDP(q, sigma, alpha float64, series FractionalSeries) float64 {
	switch {
	case q == 0:
		return 0
	case sigma == 0 || math.IsInf(alpha, 1):
		return math.Inf(1)
	case q == 1:
		return gaussianRDP(sigma, alpha)
	}
	inv2s2 := 1 / (2 * sigma * sigma)
	// (α−1)·RDP ≥ α·log q + α(α−1)/(2σ²) (keep only the k = α term of
	// A_α); when that overflows, so does the RDP: +Inf is its double value.
	if lb := alpha*math.Log(q)/(alpha-1) + alpha*inv2s2; !(lb < 1e300) {
		return math.Inf(1)
	}
	if alpha == math.Trunc(alpha) && alpha < 1<<20 {
		return math.Max(0, logAInt(q, sigma, int(alpha))/(alpha-1))
	}
	k := fracKey{q, sigma, alpha, series}
	if v, ok := fracMemo.get(k); ok {
		return v
	}
	v := fracPoissonGaussianRDP(q, sigma, alpha, series)
	fracMemo.put(k, v)
	return v
}

// fracPoissonGaussianRDP is the fractional-order case of
// poissonGaussianRDP (0 < q < 1, σ > 0, α finite and not an integer below
// 2²⁰), computed afresh.
func fracPoissonGaussianRDP(q, sigma, alpha float64, series FractionalSeries) float64 {
	la := logAFrac(q, sigma, alpha, series)
	if series == Signed && !(la >= smallLogA) {
		// A_α − 1 is too small for the series, whose terms are of order 1,
		// to resolve (large σ or tiny q): integrate A_α − 1 directly.
		la = math.Log1p(math.Exp(logAm1Quad(q, sigma, alpha)))
	}
	return math.Max(0, la/(alpha-1))
}

// fracKey is everything the fractional-order RDP depends on.
type fracKey struct {
	q, sigma, alpha float64
	series          FractionalSeries
}

// fracMemo remembers fractional-order RDP values for the whole process.
// They are pure functions of their key, and searches over (q, σ) ask for
// the same point many times: the Haar Table III fit scans one q grid for
// every dataset, conversion and region; claim audits ask several
// accountants and readings about the same leaf. The quadrature behind
// small A_α − 1 costs ~0.1 ms a point, which made these repeats the
// largest cost of the privacy audits. A hit returns the bits the
// computation would; the table is dropped whole when it reaches
// fracMemoCap entries, so memory stays bounded (≈ 10 MB).
var fracMemo = rdpValueMemo[fracKey]{cap: fracMemoCap}

const fracMemoCap = 1 << 17

// rdpValueMemo is a bounded, concurrency-safe map from a comparable key to
// an RDP value. Keys holding NaN never hit (NaN ≠ NaN): they are recomputed.
type rdpValueMemo[K comparable] struct {
	mu  sync.Mutex
	m   map[K]float64
	cap int
}

func (c *rdpValueMemo[K]) get(k K) (float64, bool) {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	return v, ok
}

// reset forgets every entry (benchmarks call it to time cold work).
func (c *rdpValueMemo[K]) reset() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

func (c *rdpValueMemo[K]) put(k K, v float64) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.cap {
		c.m = make(map[K]float64)
	}
	c.m[k] = v
	c.mu.Unlock()
}

// smallLogA is the log A_α below which the fractional series is replaced
// by quadrature: the series sums terms of order one, so its absolute
// error in A_α is ~1e-16 and A_α − 1 < 1e-6 would keep fewer than ten
// significant digits (at σ = 1e6 it even comes out negative).
const smallLogA = 1e-6

// logAm1Quad returns log(A_α − 1) by quadrature of
// A_α − 1 = E_{z∼N(0,σ²)}[(1 + q·u)^α − 1 − α·q·u], u = e^{(2z−1)/(2σ²)} − 1:
// E[u] = 0, so the subtracted linear term changes nothing, and it leaves a
// non-negative integrand (convexity of (1+x)^α) with no cancellation.
// The integrand peaks within a few σ of 0 (small q·u) or near z = α
// (large q·u), so [−16σ, α + 16σ] holds all but a negligible part.
func logAm1Quad(q, sigma, alpha float64) float64 {
	s2 := sigma * sigma
	lq := math.Log(q)
	logNorm := math.Log(sigma) + 0.5*math.Log(2*math.Pi)
	lf := func(z float64) float64 {
		y := (2*z - 1) / (2 * s2)
		var lg float64
		switch {
		case y > 700: // q·u = q·e^y to double precision; (1+qu)^α dominates
			lx := lq + y
			lg = alpha * (lx + math.Log1p(math.Exp(-lx)))
		default:
			x := q * math.Expm1(y)
			if math.Abs(x) < 1e-3 {
				// Σ_{k≥2} C(α,k) x^k; |x| < 1e-3, so ten terms suffice.
				c, p, g := alpha, x, 0.0
				for k := 2; k < 12; k++ {
					c *= (alpha - float64(k-1)) / float64(k)
					p *= x
					g += c * p
				}
				lg = math.Log(g)
			} else if l := alpha * math.Log1p(x); l < 30 {
				lg = math.Log(math.Expm1(l) - alpha*x)
			} else {
				lg = l + math.Log1p(-(1+alpha*x)*math.Exp(-l))
			}
		}
		return lg - z*z/(2*s2) - logNorm
	}
	lo, hi := -16*sigma, alpha+16*sigma
	panels := int(math.Min(4000, math.Ceil((hi-lo)/(sigma/2))))
	return logIntegral(lf, lo, hi, panels)
}

// logExpm1 returns log(e^y − 1) for y > 0.
func logExpm1(y float64) float64 {
	if y > 40 { // e^{-y} is below half an ulp of 1
		return y
	}
	if y > 30 {
		return y + math.Log1p(-math.Exp(-y))
	}
	return math.Log(math.Expm1(y))
}

// logAInt returns log A_α for integer α ≥ 2 by the binomial expansion. Since
// Σ_k C(α,k)(1−q)^{α−k}q^k = 1, A_α − 1 = Σ_{k≥2} C(α,k)(1−q)^{α−k} q^k
// (e^{(k²−k)/(2σ²)} − 1), a sum of positive terms; summing A_α − 1 rather
// than A_α keeps full relative precision when A_α is close to 1 (small q).
//
// The terms are first bounded with e^y − 1 < e^y (arithmetic only); terms
// more than e^{45} below the largest bound cannot change A_α − 1 in double
// precision and are skipped, which leaves a few dozen exact terms at
// large α.
func logAInt(q, sigma float64, alpha int) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	inv2s2 := 1 / (2 * sigma * sigma)
	bound := func(k int) float64 {
		kf := float64(k)
		return logBinom(alpha, k) + kf*lq + float64(alpha-k)*l1q + (kf*kf-kf)*inv2s2
	}
	top := math.Inf(-1)
	for k := 2; k <= alpha; k++ {
		top = math.Max(top, bound(k))
	}
	var acc logSum
	for k := 2; k <= alpha; k++ {
		b := bound(k)
		if b < top-45 {
			continue
		}
		kf := float64(k)
		y := (kf*kf - kf) * inv2s2
		acc.add(b-y+logExpm1(y), false)
	}
	return logAdd(0, acc.log())
}

// logSum accumulates ±e^{t} terms as s·e^{m}, rescaling when a larger term
// arrives, so that a long series costs one exp per term.
type logSum struct {
	m    float64 // log scale; -Inf while empty
	s    float64
	init bool
}

func (a *logSum) add(t float64, neg bool) {
	sign := 1.0
	if neg {
		sign = -1
	}
	if !a.init {
		a.m, a.s, a.init = t, sign, true
		return
	}
	if t > a.m {
		a.s = a.s*math.Exp(a.m-t) + sign
		a.m = t
		return
	}
	a.s += sign * math.Exp(t-a.m)
}

// log returns the log of the (positive) sum; -Inf if empty or ≤ 0.
func (a *logSum) log() float64 {
	if !a.init || a.s <= 0 {
		return math.Inf(-1)
	}
	return a.m + math.Log(a.s)
}

// logFact[i] = log(i!) for small i, so integer binomials cost no
// transcendental calls.
var logFact = func() []float64 {
	t := make([]float64, 1025)
	for i := 2; i < len(t); i++ {
		t[i] = t[i-1] + math.Log(float64(i))
	}
	return t
}()

// logBinom returns log C(n, k) for 0 ≤ k ≤ n.
func logBinom(n, k int) float64 {
	if n < len(logFact) {
		return logFact[n] - logFact[k] - logFact[n-k]
	}
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// addErfc adds ±e^{e}·f·erfc(x) (f > 0) to the sum. When the term is no
// larger than the current scale it is formed in linear space (one exp,
// one erfc); otherwise it goes through log space.
func (a *logSum) addErfc(e, f, x float64, neg bool) {
	if a.init && x < 25 {
		if d := e - a.m; d < 700 {
			v := math.Exp(d) * f * math.Erfc(x)
			if v <= 1 {
				if neg {
					v = -v
				}
				a.s += v
				return
			}
		}
	}
	a.add(e+math.Log(f)+logErfc(x), neg)
}

// logAFrac returns log A_α for fractional α > 1 by the two-sided series
// (spec §B2) with z₀ = σ² ln(1/q − 1) + ½:
//
//	A₀ = Σ_k C(α,k) q^k (1−q)^{α−k} e^{(k²−k)/(2σ²)} ½erfc((k−z₀)/(√2σ))
//	A₁ = Σ_k C(α,k) q^{α−k} (1−q)^k e^{((α−k)²−(α−k))/(2σ²)} ½erfc((z₀−(α−k))/(√2σ))
//
// C(α,k) is the generalized binomial coefficient; its sign alternates once
// k > α+1. Writing e^{(k²−k)/(2σ²)}·erfc(u) = e^{kL − z₀²/(2σ²)}·erfcx(u)
// (L = ln(1/q−1), erfcx(u) = e^{u²}erfc(u)) shows that each term is
// C(α,k)·(1−q)^α e^{−z₀²/(2σ²)}·½[erfcx((k−z₀)/(√2σ)) + erfcx((k−α+z₀)/(√2σ))]:
// a smooth, decreasing magnitude times an alternating sign. The tail decays
// only polynomially (like k^{−α−2}), so near α = 1 plain summation needs
// thousands of terms; instead, once k > α+1, the partial sums are
// accelerated by Euler's repeated averaging (8 levels), stopping when two
// successive accelerated estimates agree to 1e-13 of A−1 (or to the
// double-precision floor of A).
//
// With series = Absolute every term is added with a plus sign and summed
// plainly until terms fall below 1e-13 of A−1 (no acceleration applies).
func logAFrac(q, sigma, alpha float64, series FractionalSeries) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	s2 := sigma * sigma
	inv2s2 := 1 / (2 * s2)
	z0 := s2*(l1q-lq) + 0.5
	c := math.Sqrt2 * sigma
	const ln2 = math.Ln2
	const levels = 8
	var acc logSum
	var hist [levels + 1]float64 // last partial sums, in units of e^{acc.m}
	nhist := 0
	histScale := math.NaN()
	prevEst := math.NaN()
	// |C(α,k)| = e^{lc}·cl: the ratio recurrence runs in linear space (a
	// multiply per term instead of a log) and is folded into lc when cl
	// leaves [1e-100, 1e100].
	lc, cl := 0.0, 1.0
	neg := false
	const maxTerms = 100000
	for k := 0; k < maxTerms; k++ {
		kf := float64(k)
		j := alpha - kf
		e0 := lc + kf*lq + j*l1q + (kf*kf-kf)*inv2s2 - ln2
		e1 := lc + j*lq + kf*l1q + (j*j-j)*inv2s2 - ln2
		sneg := neg && series == Signed
		acc.addErfc(e0, cl, (kf-z0)/c, sneg)
		acc.addErfc(e1, cl, (z0-j)/c, sneg)
		if kf > alpha+1 {
			if series == Signed {
				if acc.m != histScale {
					histScale, nhist, prevEst = acc.m, 0, math.NaN()
				}
				copy(hist[:], hist[1:])
				hist[levels] = acc.s
				nhist++
				if nhist > levels {
					est := eulerAverage(&hist)
					if !math.IsNaN(prevEst) {
						tol := math.Max(1e-13*(est-math.Exp(-acc.m)), 1e-17*est)
						if math.Abs(est-prevEst) <= tol {
							return acc.m + math.Log(est)
						}
					}
					prevEst = est
				}
			} else if k%4 == 0 {
				lt := logAdd(e0+logErfc((kf-z0)/c), e1+logErfc((z0-j)/c)) + math.Log(cl)
				la := acc.log()
				if lt < logAm1(la)+math.Log(1e-13) || lt < la+math.Log(1e-17) {
					return la
				}
			}
		}
		r := (alpha - kf) / (kf + 1)
		if r < 0 {
			neg = !neg
		}
		cl *= math.Abs(r)
		if cl < 1e-100 || cl > 1e100 {
			lc += math.Log(cl)
			cl = 1
		}
	}
	return acc.log()
}

// eulerAverage applies len(h)−1 levels of pairwise averaging to the partial
// sums h (oldest first): Σ_i C(m,i) h_i / 2^m.
func eulerAverage(h *[9]float64) float64 {
	const w0, w1, w2, w3, w4 = 1.0 / 256, 8.0 / 256, 28.0 / 256, 56.0 / 256, 70.0 / 256
	return w0*(h[0]+h[8]) + w1*(h[1]+h[7]) + w2*(h[2]+h[6]) + w3*(h[3]+h[5]) + w4*h[4]
}

// logAm1 returns log(e^{la} − 1) for la ≥ 0, -Inf when la ≤ 0.
func logAm1(la float64) float64 {
	if la <= 0 {
		return math.Inf(-1)
	}
	return logExpm1(la)
}
