package accountant

import (
	"fmt"
	"math"
	"math/bits"
)

// Composition of discretized privacy-loss distributions: the loss of a
// composition is the sum of independent losses, so its distribution is the
// convolution of the parts. Products of two distributions use an FFT of
// the full support and then truncate; n-fold self-composition raises the
// Fourier coefficients to the n-th power on a window chosen by Chernoff
// bounds (as dp_accounting does), which costs two FFTs whatever n is.

// fftSize returns the smallest length ≥ n of the form 2^k or 3·2^k (both
// fast for gonum's FFT), so that padding wastes at most a third.
func fftSize(n int) int {
	if n <= 1 {
		return 1
	}
	p := 1 << bits.Len(uint(n-1)) // next power of two
	if t := 3 * (p / 4); t >= n && p >= 4 {
		return t
	}
	return p
}

// convolve returns the distribution of the sum of independent losses.
func (a *PLD) convolve(x, y pmf) (pmf, error) {
	inf := x.inf + y.inf - x.inf*y.inf
	trunc := math.Min(inf, x.trunc+y.trunc)
	if len(x.p) == 0 || len(y.p) == 0 {
		return pmf{p: []float64{}, inf: 1, trunc: trunc}, nil
	}
	if len(x.p) == 1 && x.p[0] == 1 {
		return pmf{lo: x.lo + y.lo, p: append([]float64(nil), y.p...), inf: inf, trunc: trunc}, nil
	}
	if len(y.p) == 1 && y.p[0] == 1 {
		return pmf{lo: x.lo + y.lo, p: append([]float64(nil), x.p...), inf: inf, trunc: trunc}, nil
	}
	if err := checkOffset(float64(x.lo) + float64(y.lo)); err != nil {
		return pmf{}, err
	}
	n := len(x.p) + len(y.p) - 1
	out := make([]float64, n)
	if len(x.p)*len(y.p) <= 1<<16 {
		for i, u := range x.p {
			if u == 0 {
				continue
			}
			for j, v := range y.p {
				out[i+j] += u * v
			}
		}
	} else {
		N := fftSize(n)
		f := getFFT(N)
		defer putFFT(f)
		bx := make([]float64, N)
		copy(bx, x.p)
		cx := f.Coefficients(nil, bx)
		clear(bx)
		copy(bx, y.p)
		cy := f.Coefficients(nil, bx)
		for i := range cx {
			cx[i] *= cy[i]
		}
		f.Sequence(bx, cx)
		inv := 1 / float64(N)
		for i := range out {
			out[i] = math.Max(0, bx[i]*inv)
		}
	}
	p := pmf{lo: x.lo + y.lo, p: out, inf: inf, trunc: trunc}
	if n > a.opts.MaxPoints {
		// Keep the lowest MaxPoints losses; the rest go to infinity.
		high := 0.0
		for _, v := range out[a.opts.MaxPoints:] {
			high += v
		}
		p.p = out[:a.opts.MaxPoints]
		p.inf += high
		p.trunc += high
	}
	return a.truncate(p), nil
}

// checkOffset rejects grid offsets beyond the int range of the grid.
func checkOffset(lo float64) error {
	if !(math.Abs(lo) < maxGridIndex) {
		return fmt.Errorf("%w: the composed losses lie %.3g grid intervals from 0; use a coarser discretization interval", ErrGridCap, lo)
	}
	return nil
}

// truncate drops tails of at most TailMass each: the lower tail's mass is
// added to the lowest kept loss (which is higher than the dropped losses,
// so pessimistic) and the upper tail's mass to infinity.
func (a *PLD) truncate(p pmf) pmf {
	tau := a.opts.TailMass
	i, low := 0, 0.0
	for i < len(p.p)-1 && low+p.p[i] <= tau {
		low += p.p[i]
		i++
	}
	j, high := len(p.p), 0.0
	for j > i+1 && high+p.p[j-1] <= tau {
		high += p.p[j-1]
		j--
	}
	q := p.p[i:j]
	q[0] += low
	return pmf{lo: p.lo + i, p: q, inf: p.inf + high, trunc: p.trunc}
}

// selfCompose returns the n-fold convolution of p with itself.
//
// The sum S of n draws lies in [n·lo, n·hi] but almost all of it in a much
// narrower window [L, U], found by Chernoff bounds P(S ≥ u) ≤ M(λ)^n e^{−λu}
// and P(S ≤ v) ≤ M(−λ)^n e^{λv} (M the moment generating function of one
// draw) so that each excluded tail has mass ≤ TailMass. The n-th power of
// the Fourier coefficients on a circle of N ≥ U−L+1 points gives the sum
// modulo N. Mass from below the window wraps to a higher loss (pessimistic)
// or falls outside the window; the lower-tail bound is therefore added to
// the lowest window point. Mass from above the window may wrap to a lower
// loss (optimistic), so the upper-tail bound is added to infinity. When
// the window exceeds MaxPoints, U is lowered to L + MaxPoints − 1 and the
// (then larger) upper-tail bound goes to infinity as truncated mass.
func (a *PLD) selfCompose(p pmf, n int) (pmf, error) { return a.selfComposeCheck(p, n, a.doomed) }

// selfComposeMemo is selfCompose of the leaf grid pldMemo knows as key,
// through the memo.
func (a *PLD) selfComposeMemo(key string, p pmf, n int) (pmf, error) {
	if n == 1 {
		return p, nil
	}
	return a.memoStep(fmt.Sprintf("%s|×%d", key, n), func(check func(float64) error) (pmf, error) { return a.selfComposeCheck(p, n, check) })
}

// selfComposeCheck is selfCompose with the grid-cap early exit asked of
// check, once, about the truncated mass (see memoStep).
func (a *PLD) selfComposeCheck(p pmf, n int, check func(float64) error) (pmf, error) {
	if n == 1 {
		return p, nil
	}
	nf := float64(n)
	inf := -math.Expm1(nf * math.Log1p(-p.inf))
	trunc := 0.0
	if p.inf > 0 {
		trunc = inf * p.trunc / p.inf
	}
	if p.inf >= 1 || len(p.p) == 0 { // ≥: rounding may leave p.inf a hair above 1
		return pmf{p: []float64{}, inf: 1, trunc: math.Min(1, trunc)}, nil
	}
	if err := checkOffset(nf * float64(p.lo)); err != nil {
		return pmf{}, err
	}
	if len(p.p) == 1 {
		return pmf{lo: n * p.lo, p: []float64{math.Exp(nf * math.Log(p.p[0]))}, inf: inf, trunc: trunc}, nil
	}
	tau := a.opts.TailMass
	// Moments of one draw in index units (relative to lo).
	var m0, m1, m2 float64
	logw := make([]float64, len(p.p))
	for j, w := range p.p {
		m0 += w
		m1 += w * float64(j)
		m2 += w * float64(j) * float64(j)
		logw[j] = math.Log(w)
	}
	mean := m1 / m0
	variance := math.Max(m2/m0-mean*mean, 1e-12)
	width := float64(len(p.p) - 1)
	logM := func(lam float64) float64 { return logMGF(logw, p.p, lam) }
	lt := math.Log(1 / tau)
	lam0 := math.Sqrt(2 * lt / (nf * variance))
	U, L := nf*width, 0.0
	for k := -4; k <= 4; k++ {
		lam := lam0 * math.Exp2(float64(k)/2)
		if u := (nf*logM(lam) + lt) / lam; u < U {
			U = u
		}
		if v := -(nf*logM(-lam) + lt) / lam; v > L {
			L = v
		}
	}
	if math.IsNaN(L) || math.IsNaN(U) {
		// A Chernoff bound that did not evaluate (round-off in logM): fall
		// back to the whole support, which the cap below still bounds.
		L, U = 0, nf*width
	}
	L = math.Max(math.Floor(L), 0)
	U = math.Min(math.Ceil(U), nf*width)
	if U < L {
		// The two tail bounds overlap: the finite part of the sum has
		// total mass below 2·TailMass (e.g. most of one draw's mass is
		// infinite and n is large). Moving that mass to infinity is
		// pessimistic; it stands for finite losses, so it is truncation.
		fin := 1 - inf
		return pmf{p: []float64{}, inf: 1, trunc: math.Min(1, trunc+fin)}, nil
	}
	if err := checkOffset(nf*float64(p.lo) + U); err != nil {
		return pmf{}, err
	}
	tauLow, tauHigh := tau, tau
	if L == 0 {
		tauLow = 0
	}
	if U == nf*width {
		tauHigh = 0
	}
	cap := float64(a.opts.MaxPoints)
	a.need = math.Max(a.need, U-L+1)
	if U-L+1 > cap {
		U = L + cap - 1
		// Chernoff bound on P(S > U) over a grid of λ, at most 1.
		b := 1.0
		for k := -8; k <= 8; k++ {
			lam := lam0 * math.Exp2(float64(k)/2)
			b = math.Min(b, math.Exp(nf*logM(lam)-lam*U))
		}
		tauHigh = b
		trunc += b
		if b >= 1 {
			// Nothing is known below the cap: δ(ε) = 1 for every ε.
			return pmf{p: []float64{}, inf: 1, trunc: 1}, nil
		}
	}
	if err := check(trunc); err != nil {
		return pmf{}, err
	}
	lo, hi := int(L), int(U)
	span := hi - lo + 1
	N := fftSize(max(span, len(p.p)))
	f := getFFT(N)
	defer putFFT(f)
	buf := make([]float64, N)
	copy(buf, p.p)
	c := f.Coefficients(nil, buf)
	// |c|^n underflows (below e^{−700}) for |c|² < e^{−1400/n}: those
	// coefficients are zero to double precision and skip the powers.
	powSpectrum(c, n)
	f.Sequence(buf, c)
	out := make([]float64, span)
	invN := 1 / float64(N)
	for y := lo; y <= hi; y++ {
		out[y-lo] = math.Max(0, buf[y%N]*invN)
	}
	out[0] += tauLow
	return a.truncate(trimZeros(pmf{lo: n*p.lo + lo, p: out, inf: math.Min(1, inf+tauHigh), trunc: math.Min(1, trunc)})), nil
}

// powSpectrum raises each Fourier coefficient to the n-th power in place.
// |c|^n underflows (below e^{−700}) for |c|² < e^{−1400/n}: those
// coefficients are zero to double precision and are set to zero; the
// others are powered by binary exponentiation (at most 2·log₂n complex
// products, relative error ~log₂n ulps — as accurate as the polar form
// and several times faster).
func powSpectrum(c []complex128, n int) {
	if n == 1 {
		return
	}
	tiny := math.Exp(-1400 / float64(n))
	for i, z := range c {
		r2 := real(z)*real(z) + imag(z)*imag(z)
		if r2 < tiny {
			c[i] = 0
			continue
		}
		c[i] = cpow(z, n)
	}
}

// cpow returns z^n for n ≥ 1 by binary exponentiation.
func cpow(z complex128, n int) complex128 {
	out := complex(1, 0)
	for {
		if n&1 == 1 {
			out *= z
		}
		n >>= 1
		if n == 0 {
			return out
		}
		z *= z
	}
}

// logMGF returns log Σ_j w_j e^{λj} (w_j = e^{logw_j}), scaled at the
// largest term so nothing overflows. Within blocks of 32 points the factor
// e^{λ(j−ref)} is updated by multiplication, so the cost is one exp per
// block rather than per point.
func logMGF(logw, w []float64, lam float64) float64 {
	ref, best := 0, math.Inf(-1)
	for j, lw := range logw {
		if v := lw + lam*float64(j); v > best {
			ref, best = j, v
		}
	}
	g := math.Exp(lam)
	s := 0.0
	const block = 32
	for j0 := 0; j0 < len(w); j0 += block {
		j1 := min(j0+block, len(w))
		e0, e1 := lam*float64(j0-ref), lam*float64(j1-1-ref)
		if math.Max(e0, e1) > 700 || math.Min(e0, e1) < -700 {
			for j := j0; j < j1; j++ {
				// ≤ w_ref: no overflow; below −746 e^x is 0 in
				// float64, so those terms are skipped without a call.
				if a := logw[j] + lam*float64(j-ref); w[j] > 0 && a > -746 {
					s += math.Exp(a)
				}
			}
			continue
		}
		f := math.Exp(e0)
		for j := j0; j < j1; j++ {
			s += w[j] * f
			f *= g
		}
	}
	return lam*float64(ref) + math.Log(s)
}
