package accountant

import "math"

// worGaussianRDP bounds the RDP of the Gaussian mechanism (noise multiplier
// sigma relative to the replace-one sensitivity) run on a sample of a
// fraction gamma = m/n drawn without replacement, under ReplaceOne.
//
// For integer α ≥ 2 it is Wang, Balle and Kasiviswanathan 2019 ("Subsampled
// Rényi DP and analytical moments accountant") Theorem 9 with ε(j) the
// base mechanism's RDP and ε(∞) = ∞ for the Gaussian:
//
//	ε'(α) ≤ 1/(α−1) · log(1 + γ²C(α,2)·min{4(e^{ε(2)}−1), 2e^{ε(2)}}
//	                     + Σ_{j=3}^{α} 2γ^j C(α,j) e^{(j−1)ε(j)}).
//
// (The tighter Theorem 27 refinement that dp_accounting applies to the
// Gaussian is not implemented; Theorem 9 is never smaller, so results are
// conservative.) Subsampling never hurts, so the bound is capped at the
// unsampled RDP. Fractional α ≥ 2 interpolate (α−1)ε'(α) linearly between
// the neighbouring integers, an upper bound because the cumulant
// (α−1)D_α is convex in α; α < 2 uses ε'(2), since RDP is non-decreasing in α.
func worGaussianRDP(gamma, sigma, alpha float64) float64 {
	if gamma == 0 {
		return 0
	}
	if sigma == 0 || math.IsInf(alpha, 1) {
		return math.Inf(1)
	}
	full := gaussianRDP(sigma, alpha)
	if gamma == 1 {
		return full
	}
	if alpha < 2 {
		return math.Min(full, worGaussianRDPInt(gamma, sigma, 2))
	}
	lo := math.Floor(alpha)
	if lo == alpha {
		return math.Min(full, worGaussianRDPInt(gamma, sigma, int(alpha)))
	}
	hi := lo + 1
	klo := (lo - 1) * worGaussianRDPInt(gamma, sigma, int(lo))
	khi := (hi - 1) * worGaussianRDPInt(gamma, sigma, int(hi))
	t := alpha - lo
	return math.Min(full, ((1-t)*klo+t*khi)/(alpha-1))
}

func worGaussianRDPInt(gamma, sigma float64, alpha int) float64 {
	eps := func(j float64) float64 { return j / (2 * sigma * sigma) }
	lg := math.Log(gamma)
	e2 := eps(2)
	// j = 2 term: γ² C(α,2) min{4(e^{ε(2)}−1), 2e^{ε(2)}}.
	lc := math.Log(float64(alpha)) + math.Log(float64(alpha-1)) - math.Ln2
	t2 := math.Min(math.Log(4)+logExpm1(e2), math.Ln2+e2)
	var acc logSum
	acc.add(2*lg+lc+t2, false)
	for j := 3; j <= alpha; j++ {
		lc += math.Log(float64(alpha-j+1) / float64(j))
		jf := float64(j)
		acc.add(math.Ln2+jf*lg+lc+(jf-1)*eps(jf), false)
	}
	return logAdd(0, acc.log()) / float64(alpha-1)
}
