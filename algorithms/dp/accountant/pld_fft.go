package accountant

import (
	"fmt"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Composition of discretized privacy-loss distributions: the loss of a
// composition is the sum of independent losses, so its distribution is the
// convolution of the parts. Products of two distributions use an FFT of
// the full support and then truncate; n-fold self-composition raises the
// Fourier coefficients to the n-th power on a window chosen by Chernoff
// bounds (as dp_accounting does), which costs two FFTs whatever n is.

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// convolve returns the distribution of the sum of independent losses.
func (a *PLD) convolve(x, y pmf) (pmf, error) {
	inf := x.inf + y.inf - x.inf*y.inf
	if len(x.p) == 0 || len(y.p) == 0 {
		return pmf{p: []float64{}, inf: 1}, nil
	}
	if len(x.p) == 1 && x.p[0] == 1 {
		return pmf{lo: x.lo + y.lo, p: append([]float64(nil), y.p...), inf: inf}, nil
	}
	if len(y.p) == 1 && y.p[0] == 1 {
		return pmf{lo: x.lo + y.lo, p: append([]float64(nil), x.p...), inf: inf}, nil
	}
	n := len(x.p) + len(y.p) - 1
	if n > a.opts.MaxPoints {
		return pmf{}, fmt.Errorf("%w: composition spans %d grid points (cap %d); use a coarser discretization interval", ErrGridCap, n, a.opts.MaxPoints)
	}
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
		N := nextPow2(n)
		f := a.fft(N)
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
	return a.truncate(pmf{lo: x.lo + y.lo, p: out, inf: inf}), nil
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
	return pmf{lo: p.lo + i, p: q, inf: p.inf + high}
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
// loss (optimistic), so the upper-tail bound is added to infinity.
func (a *PLD) selfCompose(p pmf, n int) (pmf, error) {
	if n == 1 {
		return p, nil
	}
	inf := -math.Expm1(float64(n) * math.Log1p(-p.inf))
	if p.inf == 1 || len(p.p) == 0 {
		return pmf{p: []float64{}, inf: 1}, nil
	}
	if len(p.p) == 1 {
		return pmf{lo: n * p.lo, p: []float64{math.Exp(float64(n) * math.Log(p.p[0]))}, inf: inf}, nil
	}
	tau := a.opts.TailMass
	nf := float64(n)
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
	width := len(p.p) - 1
	logM := func(lam float64) float64 { return logMGF(logw, p.p, lam) }
	lt := math.Log(1 / tau)
	lam0 := math.Sqrt(2 * lt / (nf * variance))
	U, L := nf*float64(width), 0.0
	for k := -4; k <= 4; k++ {
		lam := lam0 * math.Exp2(float64(k)/2)
		if u := (nf*logM(lam) + lt) / lam; u < U {
			U = u
		}
		if v := -(nf*logM(-lam) + lt) / lam; v > L {
			L = v
		}
	}
	lo, hi := int(math.Floor(L)), int(math.Ceil(U))
	lo = max(lo, 0)
	hi = min(hi, n*width)
	tauLow, tauHigh := tau, tau
	if lo == 0 {
		tauLow = 0
	}
	if hi == n*width {
		tauHigh = 0
	}
	span := hi - lo + 1
	if span > a.opts.MaxPoints {
		return pmf{}, fmt.Errorf("%w: %d-fold composition spans %d grid points (cap %d); use a coarser discretization interval", ErrGridCap, n, span, a.opts.MaxPoints)
	}
	N := nextPow2(max(span, len(p.p)))
	f := a.fft(N)
	buf := make([]float64, N)
	copy(buf, p.p)
	c := f.Coefficients(nil, buf)
	for i, z := range c {
		r := math.Hypot(real(z), imag(z))
		if r == 0 {
			continue
		}
		th := math.Atan2(imag(z), real(z))
		rn := math.Exp(nf * math.Log(r))
		s, co := math.Sincos(math.Mod(nf*th, 2*math.Pi))
		c[i] = complex(rn*co, rn*s)
	}
	f.Sequence(buf, c)
	out := make([]float64, span)
	invN := 1 / float64(N)
	for y := lo; y <= hi; y++ {
		out[y-lo] = math.Max(0, buf[y%N]*invN)
	}
	out[0] += tauLow
	return a.truncate(trimZeros(pmf{lo: n*p.lo + lo, p: out, inf: math.Min(1, inf+tauHigh)})), nil
}

// fft returns a cached FFT plan of length n (plans cost O(n) to build).
func (a *PLD) fft(n int) *fourier.FFT {
	if a.plans == nil {
		a.plans = map[int]*fourier.FFT{}
	}
	f, ok := a.plans[n]
	if !ok {
		f = fourier.NewFFT(n)
		a.plans[n] = f
	}
	return f
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
				if w[j] > 0 {
					s += math.Exp(logw[j] + lam*float64(j-ref)) // ≤ w_ref: no overflow
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
