package accountant

import (
	"fmt"
	"math"
)

// Sampling without replacement (a uniformly random batch of m of n
// records) under replace-one neighbouring: Wang, Balle and Kasiviswanathan
// 2019, "Subsampled Rényi differential privacy and analytical moments
// accountant" (arXiv:1808.00087). With γ = m/n, ε(j) the base mechanism's
// RDP and ε(∞) its pure-DP level, for integer α ≥ 2:
//
//	Theorem 9:  ε'(α) ≤ 1/(α−1)·log(1 + γ²C(α,2)·min{4(e^{ε(2)}−1), e^{ε(2)}·min{2, (e^{ε(∞)}−1)²}}
//	                                + Σ_{j=3}^{α} γ^j C(α,j)·e^{(j−1)ε(j)}·min{2, (e^{ε(∞)}−1)^j})
//
//	Theorem 27: the j ≥ 3 terms become γ^j C(α,j)·min{4·√(Δ_{2⌊j/2⌋}·Δ_{2⌈j/2⌉}), e^{(j−1)ε(j)}·min{2, (e^{ε(∞)}−1)^j}},
//
// where Δ_k = E_Q[(P/Q − 1)^k] is the k-th forward difference at 0 of the
// base pair's moments M_i = E_Q[(P/Q)^i] = e^{(i−1)ε(i)}. Theorem 27 needs
// a base pair that is worst for every Rényi and Pearson–Vajda divergence
// with tight RDP (Gaussian, Laplace); its min keeps it never above
// Theorem 9. Both are capped by the unsampled ε(α) and by the pure-DP
// amplification ε'(∞) = log(1 + γ(e^{ε(∞)} − 1)) (Balle, Barthe and
// Gaboardi 2018). Fractional α ≥ 2 interpolate the cumulant (α−1)ε'(α)
// linearly between integers (WBK Corollary 10: it is convex); α < 2 uses
// α = 2 (RDP is non-decreasing in α). Above order 256 the forward
// differences are not computed and Theorem 9 is used, as in dp_accounting.

// WORBound selects the bound for sampling without replacement.
type WORBound int

const (
	// WORTheorem27 is WBK Theorem 27 for a Gaussian inner event (tighter;
	// the default) and Theorem 9 for a Laplace one.
	WORTheorem27 WORBound = iota
	// WORTheorem9 is WBK Theorem 9 for every inner event.
	WORTheorem9
)

// String returns "theorem27" or "theorem9".
func (b WORBound) String() string {
	if b == WORTheorem9 {
		return "theorem9"
	}
	return "theorem27"
}

// maxForwardDiffOrder is the largest order with Theorem 27's terms.
const maxForwardDiffOrder = 256

// worBase is the base mechanism of the WBK bounds.
type worBase struct {
	rdp    func(alpha float64) float64 // ε(α) of the base mechanism
	epsInf float64                     // ε(∞): +Inf for the Gaussian
	// logDiff[k] = log Δ_k for even k ≤ len−1 (Theorem 27); nil: Theorem 9.
	logDiff []float64
}

// worRDP is the bound at order alpha.
func worRDP(gamma float64, b worBase, alpha float64) float64 {
	switch {
	case gamma == 0:
		return 0
	case gamma == 1:
		return b.rdp(alpha)
	}
	pure := math.Inf(1)
	if !math.IsInf(b.epsInf, 1) {
		pure = logMix(gamma, b.epsInf)
	}
	if math.IsInf(alpha, 1) {
		return pure
	}
	if alpha > 1<<20 {
		return math.Min(pure, b.rdp(alpha))
	}
	cap := math.Min(pure, b.rdp(alpha))
	if alpha < 2 {
		return math.Min(cap, worRDPInt(gamma, b, 2))
	}
	lo := math.Floor(alpha)
	if lo == alpha {
		return math.Min(cap, worRDPInt(gamma, b, int(alpha)))
	}
	klo := (lo - 1) * worRDPInt(gamma, b, int(lo))
	khi := lo * worRDPInt(gamma, b, int(lo)+1)
	t := alpha - lo
	return math.Min(cap, ((1-t)*klo+t*khi)/(alpha-1))
}

// worRDPInt is the bound at integer alpha ≥ 2, before the caps.
func worRDPInt(gamma float64, b worBase, alpha int) float64 {
	lg := math.Log(gamma)
	// min{2, (e^{ε(∞)}−1)^j} in logs: min{log 2, j·log(e^{ε(∞)}−1)}.
	lInf := math.Inf(1)
	if !math.IsInf(b.epsInf, 1) {
		if b.epsInf == 0 {
			return 0
		}
		lInf = logExpm1(b.epsInf)
	}
	e2 := b.rdp(2)
	lc := math.Log(float64(alpha)) + math.Log(float64(alpha-1)) - math.Ln2 // log C(α,2)
	t2 := math.Min(math.Log(4)+logExpm1(e2), e2+math.Min(math.Ln2, 2*lInf))
	var acc logSum
	acc.add(2*lg+lc+t2, false)
	useDiff := b.logDiff != nil && alpha <= maxForwardDiffOrder
	for j := 3; j <= alpha; j++ {
		lc += math.Log(float64(alpha-j+1) / float64(j))
		jf := float64(j)
		t := (jf-1)*b.rdp(jf) + math.Min(math.Ln2, jf*lInf)
		if useDiff {
			lo, hi := 2*(j/2), 2*((j+1)/2)
			t = math.Min(t, math.Log(4)+0.5*(b.logDiff[lo]+b.logDiff[hi]))
		}
		acc.add(jf*lg+lc+t, false)
	}
	return logAdd(0, acc.log()) / float64(alpha-1)
}

// gaussianForwardDiffs returns log Δ_k for even k ≤ kmax of the Gaussian
// pair N(1, s²) vs N(0, s²) (s relative to the sensitivity): with
// Y = log(P/Q) ∼ N(−v/2, v), v = 1/s², Δ_k = E[(e^Y − 1)^k]. The
// alternating sum Σ_i C(k,i)(−1)^{k−i}e^{i(i−1)v/2} cancels
// catastrophically (terms of order one, result of order v^{k/2}), so the
// expectation is integrated instead; for even k the integrand is ≥ 0.
func gaussianForwardDiffs(s float64, kmax int) []float64 {
	v := 1 / (s * s)
	sd := math.Sqrt(v)
	out := make([]float64, kmax+1)
	for i := range out {
		out[i] = math.NaN()
	}
	out[0] = 0
	logNorm := 0.5 * math.Log(2*math.Pi*v)
	for k := 2; k <= kmax; k += 2 {
		kf := float64(k)
		lf := func(y float64) float64 {
			var l float64
			if y > 700 {
				l = y
			} else {
				l = math.Log(math.Abs(math.Expm1(y)))
			}
			d := y + v/2
			return kf*l - d*d/(2*v) - logNorm
		}
		lo := -v/2 - 20*sd
		hi := math.Max(kf*v, 0) + 20*sd
		panels := int(math.Min(4000, math.Ceil((hi-lo)/(sd/2))))
		out[k] = logIntegral(lf, lo, hi, panels)
	}
	return out
}

// worGaussianBase is the WBK base for a Gaussian with noise multiplier s
// (relative to the replace-one sensitivity) up to order maxOrder.
func worGaussianBase(s float64, maxOrder float64, bound WORBound) worBase {
	b := worBase{rdp: func(a float64) float64 { return gaussianRDP(s, a) }, epsInf: math.Inf(1)}
	if bound == WORTheorem27 {
		kmax := int(math.Min(maxOrder, maxForwardDiffOrder)) + 1
		kmax += kmax % 2
		b.logDiff = gaussianForwardDiffs(s, kmax)
	}
	return b
}

// worLaplaceBase is the WBK base (Theorem 9) for a Laplace mechanism of
// scale b relative to the replace-one sensitivity.
func worLaplaceBase(b float64) worBase {
	return worBase{rdp: func(a float64) float64 { return laplaceRDP(b, a) }, epsInf: 1 / b}
}

// worRDPVector fills the RDP of a SampledWithoutReplacement event under
// replace-one at each order.
func worRDPVector(e SampledWithoutReplacement, orders []float64, bound WORBound) ([]float64, string, error) {
	v := make([]float64, len(orders))
	gamma := float64(e.SampleSize) / float64(e.PopulationSize)
	var base worBase
	reason := ""
	switch in := e.Event.(type) {
	case Gaussian:
		s := in.Sigma / 2
		if in.Sigma == 0 {
			if gamma == 0 {
				return v, "", nil
			}
			for i := range v {
				v[i] = math.Inf(1)
			}
			return v, "σ = 0: no noise", nil
		}
		maxOrder := 2.0
		for _, o := range orders {
			if !math.IsInf(o, 1) {
				maxOrder = math.Max(maxOrder, math.Ceil(o))
			}
		}
		base = worGaussianBase(s, maxOrder, bound)
	case Laplace:
		if in.Scale == 0 {
			if gamma == 0 {
				return v, "", nil
			}
			for i := range v {
				v[i] = math.Inf(1)
			}
			return v, "Laplace scale 0: no noise", nil
		}
		base = worLaplaceBase(in.Scale / 2)
	default:
		return nil, "", unsupported("RDP of sampling without replacement is implemented for a Gaussian or Laplace inner event, not %v", e.Event)
	}
	for i, o := range orders {
		v[i] = math.Max(0, worRDP(gamma, base, o))
		if math.IsInf(v[i], 1) && reason == "" {
			reason = fmt.Sprintf("%v: the RDP overflows double precision", e)
		}
	}
	return v, reason, nil
}
