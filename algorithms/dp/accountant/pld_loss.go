package accountant

import "math"

// Privacy-loss distributions of the supported mechanisms. For a pair (P, Q)
// of output distributions on neighbouring datasets the privacy loss is
// L = log(P(o)/Q(o)); its distribution under o ∼ P is the PLD (the
// "privacy random variable" of Gopi et al.), and connect-the-dots also
// needs its distribution under Q. Each lossDist gives both CDFs, each
// computed on its small side so that tails keep full relative precision.

// lossDist describes a privacy-loss random variable. Either eval (a
// continuous or mixed distribution) or the atom lists (a purely atomic
// one) is set.
type lossDist struct {
	// eval returns P(L ≤ l), P(L > l), Q(L ≤ l), Q(L > l).
	eval func(l float64) (fP, sP, fQ, sQ float64)
	// evalP returns P(L ≤ l), P(L > l) alone (cheaper; nil: use eval).
	evalP      func(l float64) (fP, sP float64)
	lmin, lmax float64   // support bounds (±Inf if unbounded)
	scale      float64   // a typical spread, to start tail searches
	centre     float64   // a typical loss
	jumps      []float64 // losses where the CDFs jump (atoms inside eval's support)

	atomL, atomP []float64 // atomic case: losses and their P-masses (Q-mass = P·e^{−l})

	inf float64 // P-mass at loss +∞ (Q-mass 0)
	// trunc is the part of inf that stands for finite losses too large to
	// represent (not a genuine infinite loss); see PLD.Epsilon.
	trunc float64
}

// normTails returns Φ(t), 1 − Φ(t) with one erfc: the smaller one is
// computed directly, the other as its complement (then ≥ ½, where
// absolute precision is all the callers need).
func normTails(t float64) (c, s float64) {
	if t < 0 {
		c = 0.5 * math.Erfc(-t/math.Sqrt2)
		return c, 1 - c
	}
	s = 0.5 * math.Erfc(t/math.Sqrt2)
	return 1 - s, s
}

// mixTails returns P(x ≤ t), P(x > t) for x ∼ (1−q)N(0,σ²) + qN(c,σ²).
func mixTails(q, sigma, c, t float64) (float64, float64) {
	c0, s0 := normTails(t / sigma)
	c1, s1 := normTails((t - c) / sigma)
	return (1-q)*c0 + q*c1, (1-q)*s0 + q*s1
}

// gaussianLoss: P = N(0,σ²), Q = N(1,σ²), L = (1−2x)/(2σ²), so
// L ∼ N(1/(2σ²), 1/σ²) under P and N(−1/(2σ²), 1/σ²) under Q. The pair
// is symmetric: both directions have this distribution.
func gaussianLoss(sigma float64) lossDist {
	m, s := 1/(2*sigma*sigma), 1/sigma
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			fp, sp := normTails((l - m) / s)
			fq, sq := normTails((l + m) / s)
			return fp, sp, fq, sq
		},
		evalP: func(l float64) (float64, float64) { return normTails((l - m) / s) },
		lmin:  math.Inf(-1), lmax: math.Inf(1),
		scale: s, centre: m,
	}
}

// laplaceLoss: P = Lap(0,b), Q = Lap(1,b), L = (|x−1| − |x|)/b. Under P,
// L = 1/b w.p. ½ (x ≤ 0), −1/b w.p. ½e^{−1/b} (x ≥ 1) and (1−2x)/b in
// between, so P(L ≤ l) = ½e^{−(1−lb)/(2b)} on [−1/b, 1/b); under Q,
// Q(L ≤ l) = 1 − ½e^{−(1+lb)/(2b)} there.
func laplaceLoss(b float64) lossDist {
	top := 1 / b
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			switch {
			case l < -top:
				return 0, 1, 0, 1
			case l >= top:
				return 1, 0, 1, 0
			}
			fp := 0.5 * math.Exp(-(1-l*b)/(2*b))
			sq := 0.5 * math.Exp(-(1+l*b)/(2*b))
			return fp, 1 - fp, 1 - sq, sq
		},
		lmin: -top, lmax: top,
		scale: top, centre: 0,
		jumps: []float64{-top, top},
	}
}

// mixLogit returns y = log((e^l − 1 + q)/q), the solution of
// log(1 − q + q·e^y) = l, without cancellation for l near 0 or overflow
// for large l. It is −Inf at l = log(1 − q).
func mixLogit(q, l float64) float64 {
	if l > 30 {
		return l + math.Log1p(-(1-q)*math.Exp(-l)) - math.Log(q)
	}
	return math.Log1p(math.Expm1(l) / q)
}

// poissonGaussianAdd is the "add" direction of the Poisson-subsampled
// Gaussian: P = (1−q)N(0,σ²) + qN(1,σ²) (with the record) against
// Q = N(0,σ²), L(x) = log(1−q + q e^{(2x−1)/(2σ²)}): increasing in x,
// bounded below by log(1−q). L ≤ l ⟺ x ≤ σ²·log((e^l − 1 + q)/q) + ½.
func poissonGaussianAdd(q, sigma float64) lossDist {
	s2 := sigma * sigma
	lmin := math.Log1p(-q)
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			if l <= lmin {
				return 0, 1, 0, 1
			}
			x := s2*mixLogit(q, l) + 0.5
			fp, sp := mixTails(q, sigma, 1, x)
			fq, sq := normTails(x / sigma)
			return fp, sp, fq, sq
		},
		evalP: func(l float64) (float64, float64) {
			if l <= lmin {
				return 0, 1
			}
			return mixTails(q, sigma, 1, s2*mixLogit(q, l)+0.5)
		},
		lmin: lmin, lmax: math.Inf(1),
		scale: q / sigma, centre: q * q / (2 * s2),
	}
}

// poissonGaussianRemove is the "remove" direction: P = N(0,σ²) (without
// the record) against Q = (1−q)N(0,σ²) + qN(1,σ²), L(x) = −log(1−q + q
// e^{(2x−1)/(2σ²)}): decreasing in x, bounded above by −log(1−q).
// L ≤ l ⟺ x ≥ σ²·log((e^{−l} − 1 + q)/q) + ½.
func poissonGaussianRemove(q, sigma float64) lossDist {
	s2 := sigma * sigma
	lmax := -math.Log1p(-q)
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			if l >= lmax {
				return 1, 0, 1, 0
			}
			x := s2*mixLogit(q, -l) + 0.5
			fq, sq := mixTails(q, sigma, 1, x)
			cp, sp := normTails(x / sigma)
			return sp, cp, sq, fq
		},
		evalP: func(l float64) (float64, float64) {
			if l >= lmax {
				return 1, 0
			}
			cp, sp := normTails((s2*mixLogit(q, -l) + 0.5) / sigma)
			return sp, cp
		},
		lmin: math.Inf(-1), lmax: lmax,
		scale: q / sigma, centre: 0,
	}
}

// substitutionGaussian is the replace-one pair of the Poisson-subsampled
// Gaussian (Koskela, Jälkö and Honkela 2020, "substitute" relation): the
// replaced record contributes +1 or −1 (in clip units) when sampled, so
// P = (1−q)N(0,σ²) + qN(1,σ²) against Q = (1−q)N(0,σ²) + qN(−1,σ²), and
// L(x) = log(1−q+q·c·E) − log(1−q+q·c/E) with E = e^{x/σ²}, c = e^{−1/(2σ²)}:
// increasing and odd. Solving L = l is a quadratic in E,
// A·E² + B·E − A·e^l = 0 with A = qc, B = (1−q)(1 − e^l), so the
// inverse is closed-form: E = (−B + √(B² + 4A²e^l))/(2A), written as
// 2A·e^l/(B + √…) when B > 0 to avoid cancellation, all in logs. The
// pair is symmetric, so one distribution serves both directions.
func substitutionGaussian(q, sigma float64) lossDist {
	s2 := sigma * sigma
	la := math.Log(q) - 1/(2*s2) // log A
	l1q := math.Log1p(-q)
	inv := func(l float64) float64 { // x with L(x) = l
		if l == 0 {
			return 0
		}
		// log|B| = log(1−q) + log|e^l − 1|; log √(B² + 4A²e^l).
		lb := l1q + logAbsExpm1(l)
		ls := 0.5 * logAdd(2*lb, math.Log(4)+2*la+l)
		var le float64
		if l > 0 { // B < 0
			le = logAdd(lb, ls) - math.Ln2 - la
		} else {
			le = math.Ln2 + la + l - logAdd(lb, ls)
		}
		return s2 * le
	}
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			x := inv(l)
			fp, sp := mixTails(q, sigma, 1, x)
			fq, sq := mixTails(q, sigma, -1, x)
			return fp, sp, fq, sq
		},
		evalP: func(l float64) (float64, float64) { return mixTails(q, sigma, 1, inv(l)) },
		lmin:  math.Inf(-1), lmax: math.Inf(1),
		scale: 2 * q / sigma, centre: 0,
	}
}

// logAbsExpm1 returns log|e^y − 1| for y ≠ 0.
func logAbsExpm1(y float64) float64 {
	if y > 0 {
		return logExpm1(y)
	}
	return math.Log(-math.Expm1(y))
}

// lapTails returns P(x ≤ t), P(x > t) for x ∼ Lap(μ, b).
func lapTails(mu, b, t float64) (float64, float64) {
	if t < mu {
		c := 0.5 * math.Exp((t-mu)/b)
		return c, 1 - c
	}
	s := 0.5 * math.Exp(-(t-mu)/b)
	return 1 - s, s
}

// poissonLaplaceAdd: P = (1−q)Lap(0,b) + qLap(1,b), Q = Lap(0,b),
// L(x) = log(1 − q + q·r(x)) with r = e^{(|x|−|x−1|)/b}. L has atoms at
// L₋ = log(1−q+qe^{−1/b}) (x ≤ 0) and L₊ = log(1−q+qe^{1/b}) (x ≥ 1) and
// is continuous between, where L ≤ l ⟺ x ≤ (b·log((e^l−1+q)/q) + 1)/2.
func poissonLaplaceAdd(q, b float64) lossDist {
	lo := math.Log1p(q * math.Expm1(-1/b))
	hi := logMix(q, 1/b)
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			switch {
			case l < lo:
				return 0, 1, 0, 1
			case l >= hi:
				return 1, 0, 1, 0
			}
			x := (b*mixLogit(q, l) + 1) / 2
			f0, s0 := lapTails(0, b, x)
			f1, s1 := lapTails(1, b, x)
			return (1-q)*f0 + q*f1, (1-q)*s0 + q*s1, f0, s0
		},
		lmin: lo, lmax: hi,
		scale: hi - lo, centre: 0,
		jumps: []float64{lo, hi},
	}
}

// poissonLaplaceRemove: P = Lap(0,b), Q = (1−q)Lap(0,b) + qLap(1,b),
// L(x) = −log(1 − q + q·r(x)): decreasing, atoms at −L₊ (x ≥ 1) and −L₋
// (x ≤ 0); L ≤ l ⟺ x ≥ (b·log((e^{−l}−1+q)/q) + 1)/2.
func poissonLaplaceRemove(q, b float64) lossDist {
	lo := -logMix(q, 1/b)
	hi := -math.Log1p(q * math.Expm1(-1/b))
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			switch {
			case l < lo:
				return 0, 1, 0, 1
			case l >= hi:
				return 1, 0, 1, 0
			}
			x := (b*mixLogit(q, -l) + 1) / 2
			f0, s0 := lapTails(0, b, x)
			f1, s1 := lapTails(1, b, x)
			// P(L ≤ l) = P(X ≥ x); X is continuous, so ≥ and > agree.
			return s0, f0, (1-q)*s0 + q*s1, (1-q)*f0 + q*f1
		},
		lmin: lo, lmax: hi,
		scale: hi - lo, centre: 0,
		jumps: []float64{lo, hi},
	}
}

// discreteGaussianLoss is the atomic loss of (N_ℤ(0,σ²), N_ℤ(Δ,σ²)):
// L(x) = (Δ² − 2xΔ)/(2σ²) with P-mass p(x). The pair is symmetric. The
// atoms are x = −k … k, with P[X > k] ≤ dgAtomTail (dgCut), normalised
// to sum to one; in addition the sub-Gaussian bound on the mass of
// x < −k, the largest losses, is put at +∞ (counted as truncated), so
// what the table leaves out can only raise the curve.
func discreteGaussianLoss(sigma float64, d int) lossDist {
	k := dgCut(sigma, dgAtomTail)
	tail := dgTailBound(sigma, float64(k+1))
	df := float64(d)
	inv := 1 / (2 * sigma * sigma)
	n := 2*k + 1
	ls, ps := make([]float64, 0, n), make([]float64, 0, n)
	z := 0.0
	for x := k; x >= -k; x-- { // increasing loss: decreasing x
		fx := float64(x)
		p := math.Exp(-fx * fx * inv)
		if p == 0 {
			continue
		}
		ls = append(ls, (df*df-2*fx*df)*inv)
		ps = append(ps, p)
		z += p
	}
	for i := range ps {
		ps[i] /= z
	}
	return lossDist{atomL: ls, atomP: ps, lmin: ls[0], lmax: ls[len(ls)-1], inf: tail, trunc: tail}
}

// atomLoss is a distribution with all finite mass 1 − inf at loss l.
func atomLoss(l, inf float64) lossDist {
	d := lossDist{inf: inf, lmin: l, lmax: l}
	if inf < 1 {
		d.atomL, d.atomP = []float64{l}, []float64{1 - inf}
	}
	return d
}
