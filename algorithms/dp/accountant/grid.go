package accountant

import "math"

// The privacy curve of a discrete privacy-loss distribution — masses
// p_i at losses l_i increasing with i, on a grid of spacing h, plus a
// mass inf at +∞ — shared by the PLD accountant (grid Δ·ℤ) and the PRV
// accountant (its mesh). Both solve on the same formulas, so they live
// once here.

// gridDeltaSum returns Σ_{l_i > ε} p_i (1 − e^{ε − l_i}), the finite
// losses' part of δ(ε), summed from the top.
func gridDeltaSum(p []float64, loss func(i int) float64, eps float64) float64 {
	d := 0.0
	for i := len(p) - 1; i >= 0; i-- {
		l := loss(i)
		if l <= eps {
			break
		}
		d += p[i] * -math.Expm1(eps-l)
	}
	return d
}

// gridEpsilon solves inf + Σ_{l_i > ε} p_i (1 − e^{ε − l_i}) = target for
// ε ≥ 0 (+Inf when inf ≥ target). Between consecutive losses
// l_{k−1} ≤ ε ≤ l_k, δ(ε) = inf + P_k − e^{ε−l_k}·E_k with P_k = Σ_{i≥k} p_i
// and E_k = Σ_{i≥k} p_i e^{l_k−l_i} (kept relative to l_k so that nothing
// underflows at large losses), so the solution is exact for the discrete
// distribution. lowerLoss(i) is the loss below l_i (l_{i−1}, spelled as
// each caller computes it).
func gridEpsilon(p []float64, inf, target, h float64, loss, lowerLoss func(i int) float64) float64 {
	if !(inf < target) { // a NaN mass is no bound: answer ∞, never 0
		return math.Inf(1)
	}
	var P, E float64
	shrink := math.Exp(-h)
	// lower − l is −h up to rounding at almost every point, so the few
	// distinct values repeat: e^{lower−l} is recomputed only when its
	// argument's bits change (the same bits give the same e^x).
	lastArg, lastExp := math.NaN(), math.NaN()
	for i := len(p) - 1; i >= 0; i-- {
		l := loss(i)
		if l <= 0 {
			break
		}
		P += p[i]
		E += p[i] // E is now Σ_{j≥i} p_j e^{l_i − l_j}
		lower := 0.0
		if i > 0 {
			lower = math.Max(0, lowerLoss(i))
		}
		if arg := lower - l; math.Float64bits(arg) != math.Float64bits(lastArg) {
			lastArg, lastExp = arg, math.Exp(arg)
		}
		if inf+P-lastExp*E >= target {
			// The root lies in [lower, l].
			e := l + math.Log((inf+P-target)/E)
			return math.Min(l, math.Max(lower, e))
		}
		E *= shrink // relative to the next lower loss
	}
	return 0
}
