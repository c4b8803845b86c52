package claim

import (
	"errors"
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
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

// visibleDelta is δ(ε) of steps rounds of a Gaussian mechanism with noise
// multiplier z (already halved for replace-one) in which the record
// takes part independently with probability q and the adversary sees in
// which rounds: participation is public and data-independent, so the
// curve is the Binomial(steps, q) mixture of the n-fold composed
// Gaussian, δ(ε) = Σ_n P(n)·δ_G(z/√n, ε) — exact for the worst-case pair
// (terms with log-weight below −80 dropped).
func visibleDelta(z, q float64, steps int, eps float64) (float64, error) {
	lp, lq := math.Log(q), math.Log1p(-q)
	ln, _ := math.Lgamma(float64(steps + 1))
	var d float64
	for n := 1; n <= steps; n++ {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(steps - n + 1))
		lw := ln - a - b + float64(n)*lp
		if q < 1 {
			lw += float64(steps-n) * lq
		} else if n < steps {
			continue
		}
		if lw < -80 {
			continue
		}
		dn, err := accountant.GaussianDelta(z/math.Sqrt(float64(n)), eps)
		if err != nil {
			return 1, err
		}
		d += math.Exp(lw) * dn
	}
	return math.Min(d, 1), nil
}

// visibleEpsilon inverts visibleDelta by bisection (relative 1e-12).
func visibleEpsilon(z, q float64, steps int, delta float64) (float64, error) {
	if !(z > 0) {
		return math.Inf(1), errors.New("no noise: ε is infinite")
	}
	f := func(e float64) (float64, error) { return visibleDelta(z, q, steps, e) }
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
			return math.Inf(1), fmt.Errorf("no ε below 1e15 reaches δ = %v", delta)
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
