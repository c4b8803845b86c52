package audit

import (
	"fmt"
	"math"
)

// OneRunPValue is the p-value of Steinke, Nasr and Jagielski 2023
// ("Privacy auditing with one (1) training run", Thm 7 / App. D): m
// canaries are each included with probability ½, the auditor guesses r of
// them and gets v right. Under (ε, δ)-DP, with q = e^ε/(1+e^ε),
//
//	p = P[Bin(r, q) ≥ v] + 2mδ · max_{i=1..v} (1/i)·P[v−i ≤ Bin(r, q) < v].
//
// A small p rejects (ε, δ)-DP.
func OneRunPValue(m, r, v int, eps, delta float64) (float64, error) {
	if m < 1 || r < 0 || r > m || v < 0 || v > r {
		return 0, fmt.Errorf("one-run audit with m=%d canaries, r=%d guesses, v=%d correct: want 0 ≤ v ≤ r ≤ m, m ≥ 1", m, r, v)
	}
	if !(eps >= 0) || !(delta >= 0 && delta < 1) {
		return 0, fmt.Errorf("ε = %v, δ = %v: want ε ≥ 0 and 0 ≤ δ < 1", eps, delta)
	}
	return oneRunP(m, r, v, eps, delta), nil
}

func oneRunP(m, r, v int, eps, delta float64) float64 {
	// log q and log(1−q) for q = e^ε/(1+e^ε), without overflow.
	lq := -math.Log1p(math.Exp(-eps))
	l1q := -eps - math.Log1p(math.Exp(-eps))
	lgr, _ := math.Lgamma(float64(r + 1))
	pmf := func(k int) float64 {
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(r - k + 1))
		return math.Exp(lgr - a - b + float64(k)*lq + float64(r-k)*l1q)
	}
	tail := 0.0
	for k := r; k >= v; k-- {
		tail += pmf(k)
	}
	if delta == 0 || v == 0 {
		return math.Min(1, tail)
	}
	best, window := 0.0, 0.0
	for i := 1; i <= v; i++ {
		window += pmf(v - i) // P[v−i ≤ Bin < v]
		best = math.Max(best, window/float64(i))
	}
	return math.Min(1, tail+2*float64(m)*delta*best)
}

// OneRunEpsilon is the one-run lower bound: the largest ε whose p-value is
// below beta (the confidence is 1−beta). As in the paper's App. D it
// brackets upward in integer steps and then bisects 30 times, returning the
// lower end, so the result never exceeds the exact root.
func OneRunEpsilon(m, r, v int, delta, beta float64) (float64, error) {
	if _, err := OneRunPValue(m, r, v, 0, delta); err != nil {
		return 0, err
	}
	if !(beta > 0 && beta < 1) {
		return 0, fmt.Errorf("β = %v: want 0 < β < 1", beta)
	}
	if oneRunP(m, r, v, 0, delta) >= beta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for oneRunP(m, r, v, hi, delta) < beta {
		lo, hi = hi, hi+1
		if hi > 1000 {
			return lo, nil
		}
	}
	for i := 0; i < 30; i++ {
		mid := (lo + hi) / 2
		if oneRunP(m, r, v, mid, delta) < beta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
