package accountant

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// PLDOptions configure a privacy-loss-distribution accountant.
type PLDOptions struct {
	// Interval is the value discretization interval Δ: privacy losses are
	// rounded up to multiples of Δ (pessimistic). Default 1e-4, as in
	// dp_accounting. A smaller Δ is tighter and slower.
	Interval float64
	// TailMass is the probability mass each discretization or truncation
	// step may move to a pessimistic place (the infinity bucket for upper
	// tails, the lowest kept loss for lower tails). Default 1e-15.
	TailMass float64
	// Neighbouring is the relation the guarantee is for (default AddRemove).
	Neighbouring Neighbouring
	// MaxPoints caps the number of grid points of any distribution, so a
	// mis-scaled call fails with an error instead of exhausting memory.
	// Default 1<<23.
	MaxPoints int
}

func (o PLDOptions) withDefaults() PLDOptions {
	if o.Interval == 0 {
		o.Interval = 1e-4
	}
	if o.TailMass == 0 {
		o.TailMass = 1e-15
	}
	if o.MaxPoints == 0 {
		o.MaxPoints = 1 << 23
	}
	return o
}

// PLD is a privacy-loss-distribution accountant (Meiser and Mohammadi
// 2018; Koskela, Jälkö and Honkela 2020; Doroshenko et al. 2022, as in
// dp_accounting). For each direction of the neighbouring relation it keeps
// the distribution of the privacy loss L = log(p_D(o)/p_D′(o)), o ∼ M(D),
// discretized on the grid Δ·ℤ by rounding every loss up, plus an
// "infinity" mass for losses beyond the grid. Composition convolves the
// distributions (by FFT). Rounding up and sending truncated upper tails to
// infinity make δ(ε) = P[L = ∞] + E[(1 − e^{ε−L})₊] an upper bound on the
// true hockey-stick divergence, so the ε it reports is pessimistic, to
// within floating-point error of the FFT.
//
// Under AddRemove the two directions (adding and removing a record) differ
// for Poisson-sampled events and both are tracked; δ is the larger.
// A PLD (like an RDP accountant) is not safe for concurrent use.
type PLD struct {
	opts      PLDOptions
	dir       [2]pmf // the two directions of the neighbouring relation
	err       error
	infReason string
	plans     map[int]*fourier.FFT
}

// pmf is a discretized privacy-loss distribution: p[i] is the mass at loss
// (lo+i)·Δ, inf the mass at +∞.
type pmf struct {
	lo  int
	p   []float64
	inf float64
}

func identityPMF() pmf { return pmf{p: []float64{1}} }

// NewPLD returns an empty PLD accountant.
func NewPLD(opts PLDOptions) *PLD {
	o := opts.withDefaults()
	a := &PLD{opts: o, dir: [2]pmf{identityPMF(), identityPMF()}}
	switch {
	case !(o.Interval > 0) || math.IsInf(o.Interval, 0):
		a.err = fmt.Errorf("PLD discretization interval %v: want a finite value > 0", o.Interval)
	case !(o.TailMass > 0 && o.TailMass < 1e-3):
		a.err = fmt.Errorf("PLD tail mass %v: want 0 < tail mass < 1e-3", o.TailMass)
	case o.MaxPoints < 16:
		a.err = fmt.Errorf("PLD point cap %d is too small", o.MaxPoints)
	}
	return a
}

// Compose adds event e. On error the accountant is unchanged.
func (a *PLD) Compose(e Event) error {
	if a.err != nil {
		return a.err
	}
	if err := validate(e); err != nil {
		return err
	}
	d, reason, err := a.eventPMF(e)
	if err != nil {
		return err
	}
	var next [2]pmf
	for i := range next {
		next[i], err = a.convolve(a.dir[i], d[i])
		if err != nil {
			return err
		}
	}
	a.dir = next
	if reason != "" && a.infReason == "" {
		a.infReason = reason
	}
	return nil
}

// Delta returns the smallest δ for which the composed events are (ε, δ)-DP
// according to the (pessimistic) discretized distributions.
func (a *PLD) Delta(eps float64) (float64, error) {
	if a.err != nil {
		return 0, a.err
	}
	if math.IsNaN(eps) {
		return 0, errors.New("ε is NaN")
	}
	d := 0.0
	for _, p := range a.dir {
		d = math.Max(d, p.delta(eps, a.opts.Interval))
	}
	return math.Min(1, d), nil
}

// Epsilon returns the smallest ε ≥ 0 for which the composed events are
// (ε, δ)-DP according to the discretized distributions. If the infinity
// mass alone exceeds δ it returns +Inf and an error wrapping ErrInfinite.
func (a *PLD) Epsilon(delta float64) (float64, error) {
	if a.err != nil {
		return 0, a.err
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("δ = %v: want 0 < δ < 1", delta)
	}
	eps := 0.0
	for _, p := range a.dir {
		e := p.epsilon(delta, a.opts.Interval)
		if math.IsInf(e, 1) {
			why := fmt.Sprintf("the probability of an unbounded privacy loss (%.3g) is at least δ", p.inf)
			if a.infReason != "" {
				why = a.infReason + "; " + why
			}
			return e, fmt.Errorf("%w: %s", ErrInfinite, why)
		}
		eps = math.Max(eps, e)
	}
	return eps, nil
}

// PLDEpsilon is the one-call form: ε at δ for event e under add/remove
// neighbouring with default options (coarsening the grid when needed, see
// PLDEpsilonAdaptive).
func PLDEpsilon(e Event, delta float64) (float64, error) {
	eps, _, err := PLDEpsilonAdaptive(e, delta, PLDOptions{})
	return eps, err
}

// ErrGridCap reports a privacy-loss distribution too wide for the grid.
var ErrGridCap = errors.New("PLD grid cap exceeded")

// maxAdaptiveInterval bounds how far PLDEpsilonAdaptive coarsens the grid.
const maxAdaptiveInterval = 1.0

// PLDEpsilonAdaptive is ε at δ for event e with the PLD accountant, where
// the discretization interval starts at o.Interval and is multiplied by 4
// whenever a distribution or a composition exceeds the point cap (very
// large privacy losses, e.g. σ ≪ 1). Pessimistic discretization on a
// coarser grid is still an upper bound on ε, only a looser one (by about
// the number of compositions times the interval); the interval used is
// returned so callers can say so.
func PLDEpsilonAdaptive(e Event, delta float64, o PLDOptions) (eps, interval float64, err error) {
	o = o.withDefaults()
	for {
		a := NewPLD(o)
		err = a.Compose(e)
		if err == nil {
			eps, err = a.Epsilon(delta)
		}
		if !errors.Is(err, ErrGridCap) || o.Interval*4 > maxAdaptiveInterval {
			return eps, o.Interval, err
		}
		o.Interval *= 4
	}
}

// delta is P[L=∞] + Σ_{l_i > ε} p_i (1 − e^{ε − l_i}).
func (p pmf) delta(eps, dx float64) float64 {
	d := 0.0
	for i := len(p.p) - 1; i >= 0; i-- {
		l := float64(p.lo+i) * dx
		if l <= eps {
			break
		}
		d += p.p[i] * -math.Expm1(eps-l)
	}
	return d + p.inf
}

// epsilon solves delta(ε) = target for ε ≥ 0. Between consecutive grid
// losses l_{k−1} ≤ ε ≤ l_k, δ(ε) = inf + P_k − e^{ε−l_k}·E_k with
// P_k = Σ_{i≥k} p_i and E_k = Σ_{i≥k} p_i e^{l_k−l_i} (kept relative to
// l_k so that nothing underflows at large losses), so the solution is exact
// for the discretized distribution.
func (p pmf) epsilon(target, dx float64) float64 {
	if p.inf >= target {
		return math.Inf(1)
	}
	var P, E float64
	shrink := math.Exp(-dx)
	for i := len(p.p) - 1; i >= 0; i-- {
		l := float64(p.lo+i) * dx
		if l <= 0 {
			break
		}
		P += p.p[i]
		E += p.p[i] // E is now Σ_{j≥i} p_j e^{l_i − l_j}
		lower := 0.0
		if i > 0 {
			lower = math.Max(0, float64(p.lo+i-1)*dx)
		}
		if p.inf+P-math.Exp(lower-l)*E >= target {
			// The root lies in [lower, l].
			e := l + math.Log((p.inf+P-target)/E)
			return math.Min(l, math.Max(lower, e))
		}
		E *= shrink // relative to the next lower grid point
	}
	return 0
}

// ceilIndex returns the smallest integer i with i·dx ≥ x.
func ceilIndex(x, dx float64) int {
	i := int(math.Ceil(x / dx))
	for float64(i)*dx < x {
		i++
	}
	for float64(i-1)*dx >= x {
		i--
	}
	return i
}

// floorIndex returns the largest integer i with i·dx ≤ x.
func floorIndex(x, dx float64) int {
	i := int(math.Floor(x / dx))
	for float64(i)*dx > x {
		i--
	}
	for float64(i+1)*dx <= x {
		i++
	}
	return i
}

// lossDist describes a privacy-loss random variable L = log(P(o)/Q(o)) by
// its distribution functions under both P (o ∼ P, the privacy-loss
// distribution proper) and Q; the Q side is what connect-the-dots needs.
type lossDist struct {
	// eval returns P(L ≤ l), P(L > l), Q(L ≤ l), Q(L > l); each pair is
	// computed directly so that small tails keep full relative precision.
	eval       func(l float64) (fP, sP, fQ, sQ float64)
	lmin, lmax float64 // support bounds (±Inf if unbounded)
	scale      float64 // a typical spread, to start tail searches
	centre     float64
}

// discretize maps a loss distribution onto the grid Δ·ℤ by the
// "connect the dots" construction (Doroshenko, Ghazi, Kamath, Kumar and
// Manurangsi 2022, the dp_accounting default): the mass of each cell
// (l_j, l_{j+1}] is split between its two end points so that both its
// P-mass and its Q-mass are preserved. The resulting discrete pair has the
// privacy curve that linearly interpolates (in e^ε) the true curve δ(ε)
// between grid points; δ(e^ε) is convex, so the chord lies above it and the
// discrete pair dominates the true one — pessimistic, and since it is a
// genuine pair the error does not grow linearly with the number of
// compositions (plain rounding up adds up to Δ of loss per composition).
// Mass below the first grid point goes to it (rounding up, pessimistic);
// mass above the last goes to infinity.
func (a *PLD) discretize(d lossDist) (pmf, error) {
	dx, tau := a.opts.Interval, a.opts.TailMass
	fP := func(l float64) float64 { f, _, _, _ := d.eval(l); return f }
	sP := func(l float64) float64 { _, s, _, _ := d.eval(l); return s }
	var lo, hi int
	if math.IsInf(d.lmin, -1) {
		l := d.centre - d.scale
		for step := d.scale; fP(l) > tau; step *= 2 {
			l -= step
			if step > 1e9 {
				return pmf{}, errors.New("PLD: cannot find the lower tail of the privacy loss")
			}
		}
		lo = floorIndex(l, dx)
	} else {
		lo = floorIndex(d.lmin, dx)
	}
	if math.IsInf(d.lmax, 1) {
		l := d.centre + d.scale
		for step := d.scale; sP(l) > tau; step *= 2 {
			l += step
			if step > 1e9 {
				return pmf{}, errors.New("PLD: cannot find the upper tail of the privacy loss")
			}
		}
		hi = ceilIndex(l, dx)
	} else {
		hi = ceilIndex(d.lmax, dx)
	}
	if hi == lo {
		hi++
	}
	n := hi - lo + 1
	if n > a.opts.MaxPoints {
		return pmf{}, fmt.Errorf("%w: the privacy loss spans %d grid points (cap %d); use a coarser discretization interval", ErrGridCap, n, a.opts.MaxPoints)
	}
	p := make([]float64, n)
	f0P, s0P, f0Q, s0Q := d.eval(float64(lo) * dx)
	p[0] = f0P // everything at or below the first point, rounded up to it
	den := -math.Expm1(-dx)
	for i := 1; i < n; i++ {
		l0, l1 := float64(lo+i-1)*dx, float64(lo+i)*dx
		f1P, s1P, f1Q, s1Q := d.eval(l1)
		massP := f1P - f0P
		if f1P > 0.5 {
			massP = s0P - s1P
		}
		massQ := f1Q - f0Q
		if f1Q > 0.5 {
			massQ = s0Q - s1Q
		}
		massP = math.Max(massP, 0)
		massQ = math.Max(massQ, 0)
		// Split massP into a at l0 and b at l1 with a+b = massP and
		// a·e^{−l0} + b·e^{−l1} = massQ:  b = (massP − e^{l0}·massQ)/(1 − e^{−Δ}).
		// e^{l0}·massQ in log space: for losses in the hundreds e^{l0}
		// overflows while massQ underflows, and Inf·0 = NaN would poison
		// the whole distribution (it used to make ε come out as 0). When
		// the Q-mass underflows to 0 the split degenerates to rounding the
		// cell's mass up to l1, which is pessimistic and therefore safe.
		// Q-masses below ~1e-280 are near or in the subnormal range and have
		// lost most of their significant bits; the split would then be
		// imprecise in the optimistic direction as often as not, so such
		// cells are rounded up as well.
		b := massP
		if massQ > 1e-280 {
			b = (massP - math.Exp(l0+math.Log(massQ))) / den
		}
		if math.IsNaN(b) {
			b = massP
		}
		b = math.Min(math.Max(b, 0), massP)
		p[i-1] += massP - b
		p[i] += b
		_ = l1
		f0P, s0P, f0Q, s0Q = f1P, s1P, f1Q, s1Q
	}
	inf := s0P // mass beyond the last point
	return trimZeros(pmf{lo: lo, p: p, inf: inf}), nil
}

func trimZeros(p pmf) pmf {
	i, j := 0, len(p.p)
	for i < j-1 && p.p[i] == 0 {
		i++
	}
	for j > i+1 && p.p[j-1] == 0 {
		j--
	}
	return pmf{lo: p.lo + i, p: p.p[i:j], inf: p.inf}
}

// atomPMF puts all finite mass 1−inf at loss l (rounded up).
func (a *PLD) atomPMF(l, inf float64) pmf {
	return pmf{lo: ceilIndex(l, a.opts.Interval), p: []float64{1 - inf}, inf: inf}
}

// eventPMF returns the discretized loss distributions of e for both
// directions, and a reason if e gives no privacy at all.
func (a *PLD) eventPMF(e Event) (d [2]pmf, reason string, err error) {
	nb := a.opts.Neighbouring
	switch e := e.(type) {
	case Gaussian:
		s := effSigma(e.Sigma, nb)
		if s == 0 {
			p := pmf{p: []float64{}, inf: 1}
			return [2]pmf{p, p}, "σ = 0: no noise", nil
		}
		p, err := a.discretize(gaussianLoss(s))
		return [2]pmf{p, p}, "", err
	case Laplace:
		b := e.Scale
		if nb == ReplaceOne {
			b /= 2
		}
		if b == 0 {
			p := pmf{p: []float64{}, inf: 1}
			return [2]pmf{p, p}, "Laplace scale 0: no noise", nil
		}
		p, err := a.discretize(laplaceLoss(b))
		return [2]pmf{p, p}, "", err
	case PoissonSampled:
		g, ok := e.Event.(Gaussian)
		if !ok {
			return d, "", unsupported("PLD of Poisson sampling is implemented for a Gaussian inner event only, not %v", e.Event)
		}
		if e.Q == 0 {
			return [2]pmf{identityPMF(), identityPMF()}, "", nil
		}
		if e.Q == 1 {
			return a.eventPMF(g)
		}
		if nb == ReplaceOne {
			if g.Sigma == 0 {
				// Outputs ±1 with probability q each side, 0 otherwise: loss ±∞ w.p. q.
				p := a.atomPMF(0, e.Q)
				return [2]pmf{p, p}, "σ = 0: no noise", nil
			}
			p, err := a.discretize(substitutionLoss(e.Q, g.Sigma))
			return [2]pmf{p, p}, "", err
		}
		if g.Sigma == 0 {
			// P = δ₀, Q = (1−q)δ₀ + qδ₁: exact atoms.
			return [2]pmf{a.atomPMF(math.Log1p(-e.Q), e.Q), a.atomPMF(-math.Log1p(-e.Q), 0)}, "σ = 0: no noise", nil
		}
		pa, err := a.discretize(poissonLossAdd(e.Q, g.Sigma))
		if err != nil {
			return d, "", err
		}
		pr, err := a.discretize(poissonLossRemove(e.Q, g.Sigma))
		return [2]pmf{pa, pr}, "", err
	case SampledWithoutReplacement:
		return d, "", unsupported("the PLD accountant has no bound for sampling without replacement (use the RDP accountant)")
	case SelfComposed:
		if e.Count == 0 {
			return [2]pmf{identityPMF(), identityPMF()}, "", nil
		}
		inner, reason, err := a.eventPMF(e.Event)
		if err != nil {
			return d, "", err
		}
		for i := range d {
			if d[i], err = a.selfCompose(inner[i], e.Count); err != nil {
				return d, "", err
			}
		}
		return d, reason, nil
	case Composed:
		d = [2]pmf{identityPMF(), identityPMF()}
		for _, x := range e.Events {
			inner, r, err := a.eventPMF(x)
			if err != nil {
				return d, "", err
			}
			for i := range d {
				if d[i], err = a.convolve(d[i], inner[i]); err != nil {
					return d, "", err
				}
			}
			if reason == "" {
				reason = r
			}
		}
		return d, reason, nil
	}
	return d, "", fmt.Errorf("unknown event %T", e)
}

// gaussianLoss: P = N(0,σ²), Q = N(1,σ²), L = (1−2x)/(2σ²), so
// L ∼ N(1/(2σ²), 1/σ²) under P and N(−1/(2σ²), 1/σ²) under Q. The pair
// is symmetric: both directions have this distribution.
func gaussianLoss(sigma float64) lossDist {
	m, s := 1/(2*sigma*sigma), 1/sigma
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			zp, zq := (l-m)/s, (l+m)/s
			return normCDF(zp), normSF(zp), normCDF(zq), normSF(zq)
		},
		lmin:   math.Inf(-1),
		lmax:   math.Inf(1),
		scale:  s,
		centre: m,
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
		lmin:   -top,
		lmax:   top,
		scale:  top,
		centre: 0,
	}
}

// logMix returns log(1 − q + q·e^y).
func logMix(q, y float64) float64 { return logAdd(math.Log1p(-q), math.Log(q)+y) }

// mixCDF returns P(x ≤ t), P(x > t) for x ∼ (1−q)N(0,σ²) + qN(c,σ²).
func mixCDF(q, sigma, c, t float64) (float64, float64) {
	return (1-q)*normCDF(t/sigma) + q*normCDF((t-c)/sigma),
		(1-q)*normSF(t/sigma) + q*normSF((t-c)/sigma)
}

// poissonLossAdd is the "add" direction of the Poisson-subsampled Gaussian:
// P = (1−q)N(0,σ²) + qN(1,σ²) (with the record) against Q = N(0,σ²), loss
// L(x) = log(1−q + q e^{(2x−1)/(2σ²)}): increasing in x, bounded below by
// log(1−q). L ≤ l ⟺ x ≤ x(l) = σ²·log((e^l − 1 + q)/q) + ½.
func poissonLossAdd(q, sigma float64) lossDist {
	s2 := sigma * sigma
	inv := func(l float64) float64 { // x(l), −Inf at the lower support bound
		if l > 30 {
			return s2*(l+math.Log1p(-(1-q)*math.Exp(-l))-math.Log(q)) + 0.5
		}
		return s2*math.Log1p(math.Expm1(l)/q) + 0.5
	}
	lmin := math.Log1p(-q)
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			if l <= lmin {
				return 0, 1, 0, 1
			}
			x := inv(l)
			fp, sp := mixCDF(q, sigma, 1, x)
			return fp, sp, normCDF(x / sigma), normSF(x / sigma)
		},
		lmin: lmin, lmax: math.Inf(1),
		scale: q / sigma, centre: q * q / (2 * s2),
	}
}

// poissonLossRemove is the "remove" direction: P = N(0,σ²) (without the
// record) against Q = (1−q)N(0,σ²) + qN(1,σ²), loss
// L(x) = −log(1−q + q e^{(2x−1)/(2σ²)}): decreasing in x, bounded above
// by −log(1−q). L ≤ l ⟺ x ≥ σ²·log((e^{−l} − 1 + q)/q) + ½.
func poissonLossRemove(q, sigma float64) lossDist {
	s2 := sigma * sigma
	lmax := -math.Log1p(-q)
	inv := func(l float64) float64 {
		if -l > 30 {
			return s2*(-l+math.Log1p(-(1-q)*math.Exp(l))-math.Log(q)) + 0.5
		}
		return s2*math.Log1p(math.Expm1(-l)/q) + 0.5
	}
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			if l >= lmax {
				return 1, 0, 1, 0
			}
			x := inv(l)
			fq, sq := mixCDF(q, sigma, 1, x)
			return normSF(x / sigma), normCDF(x / sigma), sq, fq
		},
		lmin: math.Inf(-1), lmax: lmax,
		scale: q / sigma, centre: 0,
	}
}

// substitutionLoss is the replace-one pair of the Poisson-subsampled
// Gaussian (Koskela, Jälkö and Honkela 2020, "substitute" relation): the
// replaced record contributes +1 or −1 (in clip units) when sampled, so
// P = (1−q)N(0,σ²) + qN(1,σ²) against Q = (1−q)N(0,σ²) + qN(−1,σ²), loss
// L(x) = log(1−q+q e^{(2x−1)/(2σ²)}) − log(1−q+q e^{(−2x−1)/(2σ²)}),
// increasing and unbounded both ways; the pair is symmetric, so one
// distribution serves both directions. L is inverted numerically.
func substitutionLoss(q, sigma float64) lossDist {
	s2 := sigma * sigma
	loss := func(x float64) float64 {
		return logMix(q, (2*x-1)/(2*s2)) - logMix(q, (-2*x-1)/(2*s2))
	}
	// dL/dx = (w₊ + w₋)/σ², w± = q e^{y±}/(1−q+q e^{y±}) ∈ (0,1).
	slope := func(x float64) float64 {
		wp := math.Exp(math.Log(q) + (2*x-1)/(2*s2) - logMix(q, (2*x-1)/(2*s2)))
		wm := math.Exp(math.Log(q) + (-2*x-1)/(2*s2) - logMix(q, (-2*x-1)/(2*s2)))
		return (wp + wm) / s2
	}
	// inv solves L(x) = l by Newton's method safeguarded by bisection; the
	// grid is swept upwards, so the previous root is a good start.
	last := 0.0
	inv := func(l float64) float64 {
		lo, hi := last-1, last+1
		for loss(lo) > l {
			lo -= 2 * (last - lo)
		}
		for loss(hi) < l {
			hi += 2 * (hi - last)
		}
		x := last
		if x <= lo || x >= hi {
			x = 0.5 * (lo + hi)
		}
		for i := 0; i < 200; i++ {
			f := loss(x) - l
			if f == 0 {
				break
			}
			if f < 0 {
				lo = x
			} else {
				hi = x
			}
			nx := x - f/slope(x)
			if !(nx > lo && nx < hi) {
				nx = 0.5 * (lo + hi)
			}
			if math.Abs(nx-x) <= 1e-15*math.Max(1, math.Abs(x)) || hi-lo <= 1e-15*math.Max(1, math.Abs(lo)) {
				x = nx
				break
			}
			x = nx
		}
		last = x
		return x
	}
	return lossDist{
		eval: func(l float64) (float64, float64, float64, float64) {
			x := inv(l)
			fp, sp := mixCDF(q, sigma, 1, x)
			fq, sq := mixCDF(q, sigma, -1, x)
			return fp, sp, fq, sq
		},
		lmin: math.Inf(-1), lmax: math.Inf(1),
		scale: 2 * q / sigma, centre: 0,
	}
}
