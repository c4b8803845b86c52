package accountant

import (
	"errors"
	"fmt"
	"math"
)

// PRVOptions configure the privacy-random-variable accountant.
type PRVOptions struct {
	// EpsError is the allowed error ε_error of the ε estimate (default
	// 0.01, as in Opacus' PRVAccountant.get_epsilon).
	EpsError float64
	// DeltaError is the allowed error δ_error in δ. 0 means δ/1000 for
	// Epsilon(δ) (Opacus' default) and, for Delta(ε), 1/1000 of a first
	// estimate of δ (at least 1e-15).
	DeltaError float64
	// Neighbouring is the relation the guarantee is for (default AddRemove).
	Neighbouring Neighbouring
	// MaxPoints caps the size of the discretization domain (default 1<<24).
	MaxPoints int
	// LaplacePanels caps the Poisson-sampled Laplace quadrature of the RDP
	// bound that chooses the domain (0: the RDP default; see
	// Config.LaplacePanels). A capped bound is larger, so the domain is
	// wider and the PRV bounds stay proven.
	LaplacePanels int
}

func (o PRVOptions) withDefaults() PRVOptions {
	if o.EpsError == 0 {
		o.EpsError = 0.01
	}
	if o.MaxPoints == 0 {
		o.MaxPoints = 1 << 24
	}
	return o
}

// PRV is the accountant of Gopi, Lee and Wutschitz 2021 ("Numerical
// composition of differential privacy", arXiv:2106.02848), Opacus'
// default. Each event's privacy random variable Y = log(P(o)/Q(o)),
// o ∼ P (the same privacy-loss distribution the PLD accountant uses) is
// truncated to [−L, L], discretized on a mesh h by putting each cell's
// mass at its centre and then shifting all points so that the discrete
// mean equals the continuous one, and the k discretized variables are
// summed by FFT on the circle of the domain. With
//
//	h = ε_error / √(k/2 · log(12/δ_error)),
//	L = max(ε_up(composition, δ_error/4), max_i ε_up(Y_i, δ_error/(8k)), ε_error) + 3
//
// (ε_up a valid upper bound: the RDP accountant, or the PLD accountant
// for events RDP cannot take; this is Remark 5.6 as implemented by the
// authors and Opacus), the paper's Theorem 5.5 gives for the true curve δ
// and the computed one δ̃:
//
//	δ̃(ε + ε_error) − δ_error ≤ δ(ε) ≤ δ̃(ε − ε_error) + δ_error,
//
// hence ε(δ) ∈ [ε̃(δ + δ_error) − ε_error, ε̃(δ − δ_error) + ε_error].
// Epsilon returns the estimate ε̃(δ) with these bounds; the upper bound
// is the guarantee (what Opacus reports). Under AddRemove the two
// directions are composed separately and the larger is reported, as by
// the PLD accountant (Opacus tracks the add direction only; it is the
// larger one for the Poisson-subsampled Gaussian in every case we
// checked).
//
// Events are recorded by Compose and the computation happens at query
// time, because the mesh and the domain depend on δ_error.
type PRV struct {
	opts   PRVOptions
	leaves []leafCount
	err    error
	memo   rdpMemo // the leaves' RDP, for the domain bounds
}

// PRVEstimate is an ε (or δ) estimate with bounds that hold for the true
// value: Lower ≤ true ≤ Upper.
type PRVEstimate struct {
	Lower, Estimate, Upper float64
	// Mesh and Domain describe the discretization (h and L).
	Mesh, Domain float64
}

// NewPRV returns an empty PRV accountant.
func NewPRV(opts PRVOptions) *PRV {
	o := opts.withDefaults()
	a := &PRV{opts: o, memo: rdpMemo{}}
	switch {
	case !(o.EpsError > 0) || math.IsInf(o.EpsError, 0):
		a.err = fmt.Errorf("PRV ε error %v: want a finite value > 0", o.EpsError)
	case !(o.DeltaError >= 0 && o.DeltaError < 1):
		a.err = fmt.Errorf("PRV δ error %v: want 0 ≤ δ error < 1", o.DeltaError)
	case o.MaxPoints < 16:
		a.err = fmt.Errorf("PRV point cap %d is too small", o.MaxPoints)
	}
	return a
}

// Compose records event e after checking that the PRV accountant supports
// it. On error the accountant is unchanged.
func (a *PRV) Compose(e Event) error {
	if a.err != nil {
		return a.err
	}
	if err := validate(e); err != nil {
		return err
	}
	leaves, err := flatten(e)
	if err != nil {
		return err
	}
	kept := leaves[:0:0]
	for _, lf := range leaves {
		ld, _, _, err := leafLoss(lf.event, a.opts.Neighbouring, "PRV", math.Inf(1))
		if err != nil {
			return err
		}
		if !zeroLoss(ld[0]) || !zeroLoss(ld[1]) {
			kept = append(kept, lf) // a loss that is 0 surely (q = 0) adds nothing
		}
	}
	merged, err := flatten(Composed{Events: append(toEvents(a.leaves), toEvents(kept)...)})
	if err != nil {
		return err
	}
	a.leaves = merged
	return nil
}

// zeroLoss reports whether d is the loss 0 with probability 1.
func zeroLoss(d lossDist) bool {
	return d.eval == nil && d.inf == 0 && len(d.atomL) == 1 && d.atomL[0] == 0
}

func toEvents(ls []leafCount) []Event {
	out := make([]Event, len(ls))
	for i, l := range ls {
		out[i] = SelfComposed{Event: l.event, Count: l.count}
	}
	return out
}

// Epsilon returns ε at δ: the estimate and bounds of Theorem 5.5. An
// unbounded ε (the probability of an infinite loss is ≥ δ) is an error
// wrapping ErrInfinite with all three values +Inf.
func (a *PRV) Epsilon(delta float64) (PRVEstimate, error) {
	if a.err != nil {
		return PRVEstimate{}, a.err
	}
	if !(delta > 0 && delta < 1) {
		return PRVEstimate{}, errDelta(delta)
	}
	de := a.opts.DeltaError
	if de == 0 {
		de = delta / 1000
	}
	if de >= delta {
		return PRVEstimate{}, fmt.Errorf("PRV δ error %g must be below δ = %g", de, delta)
	}
	if len(a.leaves) == 0 {
		return PRVEstimate{}, nil // nothing released about the record: ε = 0
	}
	c, err := a.setup(de)
	if errors.Is(err, ErrInfinite) {
		// The domain's upper bound (RDP) is ∞ (σ = 0, or σ so small that
		// the RDP overflows): so is ours; 0 is all that is proven below.
		return PRVEstimate{Estimate: math.Inf(1), Upper: math.Inf(1)}, err
	}
	if err != nil {
		return PRVEstimate{}, err
	}
	out := PRVEstimate{Mesh: c.h, Domain: c.L}
	infOut := PRVEstimate{Lower: math.Inf(1), Estimate: math.Inf(1), Upper: math.Inf(1), Mesh: c.h, Domain: c.L}
	add, err := c.build(0)
	if err != nil {
		return out, err
	}
	r, err := add.epsilonBounds(delta, de, a.opts.EpsError)
	if err != nil {
		return infOut, err
	}
	out.Lower, out.Estimate, out.Upper = r[0], r[1], r[2]
	if c.symmetric {
		return out, nil
	}
	// The remove direction matters only if it can exceed the add
	// direction's estimate; a pessimistic PLD value of it settles that
	// cheaply in the usual case (small q, where it is much smaller).
	if u, err := c.pldRemove(func(p *PLD) (float64, error) { return p.dirEpsilon(1, delta) }); err == nil && u <= out.Estimate {
		return out, nil
	}
	rem, err := c.build(1)
	if err != nil {
		return out, err
	}
	r, err = rem.epsilonBounds(delta, de, a.opts.EpsError)
	if err != nil {
		return infOut, err
	}
	out.Lower = math.Max(out.Lower, r[0])
	out.Estimate = math.Max(out.Estimate, r[1])
	out.Upper = math.Max(out.Upper, r[2])
	return out, nil
}

// Delta returns δ at ε with bounds: [δ̃(ε + ε_error) − δ_error,
// δ̃(ε − ε_error) + δ_error], clamped to [0, 1].
func (a *PRV) Delta(eps float64) (PRVEstimate, error) {
	if a.err != nil {
		return PRVEstimate{}, a.err
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return PRVEstimate{}, fmt.Errorf("ε = %v: want a finite value ≥ 0", eps)
	}
	if len(a.leaves) == 0 {
		return PRVEstimate{}, nil // nothing released about the record: δ = 0
	}
	de := a.opts.DeltaError
	if de == 0 {
		// A first pass at δ_error = 1e-10 locates δ; the second uses
		// 1/1000 of it, as Epsilon does.
		est, err := a.delta1(eps, 1e-10)
		if err != nil {
			return PRVEstimate{}, err
		}
		de = math.Min(1e-3, math.Max(est.Estimate/1000, 1e-15))
	}
	return a.delta1(eps, de)
}

// delta1 is Delta with δ_error = de.
func (a *PRV) delta1(eps, de float64) (PRVEstimate, error) {
	c, err := a.setup(de)
	if errors.Is(err, ErrInfinite) {
		return PRVEstimate{Estimate: 1, Upper: 1}, err // see Epsilon
	}
	if err != nil {
		return PRVEstimate{}, err
	}
	out := PRVEstimate{Mesh: c.h, Domain: c.L}
	ee := a.opts.EpsError
	bounds := func(d prvPMF) (float64, float64, float64) {
		return math.Max(0, d.delta(eps+ee)-de), d.delta(eps), math.Min(1, d.delta(math.Max(0, eps-ee))+de)
	}
	add, err := c.build(0)
	if err != nil {
		return out, err
	}
	out.Lower, out.Estimate, out.Upper = bounds(add)
	if c.symmetric {
		return out, nil
	}
	if u, err := c.pldRemove(func(p *PLD) (float64, error) { return p.dir[1].delta(eps, p.opts.Interval), nil }); err == nil && u <= out.Estimate {
		return out, nil
	}
	rem, err := c.build(1)
	if err != nil {
		return out, err
	}
	l, e, u := bounds(rem)
	out.Lower, out.Estimate, out.Upper = math.Max(out.Lower, l), math.Max(out.Estimate, e), math.Max(out.Upper, u)
	return out, nil
}

// prvSetup holds what both directions share: the mesh, the domain and
// the events' loss distributions.
type prvSetup struct {
	h, L      float64
	J, M      int
	tau       float64
	leaves    []leafCount
	losses    [][2]lossDist
	symmetric bool
	nb        Neighbouring
	maxPoints int // the PRV's point cap (bounds the PLD of pldRemove too)
}

// prvPMF is a discrete PRV: mass p[j] at t0 + j·h, plus mass inf at +∞.
type prvPMF struct {
	t0, h float64
	p     []float64
	inf   float64
}

// setup chooses the mesh and the domain for δ_error = de.
func (a *PRV) setup(de float64) (*prvSetup, error) {
	nb, ee := a.opts.Neighbouring, a.opts.EpsError
	c := &prvSetup{leaves: a.leaves, symmetric: true, nb: nb, maxPoints: a.opts.MaxPoints}
	if len(a.leaves) == 0 {
		return c, nil
	}
	k := 0.0
	for _, lf := range a.leaves {
		k += float64(lf.count)
	}
	h := ee / math.Sqrt(k/2*math.Log(12/de))
	// The domain: upper bounds on ε of the composition at δ_error/4 and of
	// each event at δ_error/(8k).
	L := ee
	lc, err := upperEpsilon(Composed{Events: toEvents(a.leaves)}, de/4, nb, a.opts.MaxPoints, a.memo, a.opts.LaplacePanels)
	if err != nil {
		return nil, err
	}
	L = math.Max(L, lc)
	for _, lf := range a.leaves {
		li, err := upperEpsilon(lf.event, de/(8*k), nb, a.opts.MaxPoints, a.memo, a.opts.LaplacePanels)
		if err != nil {
			return nil, err
		}
		L = math.Max(L, li)
	}
	L += 3
	J := math.Ceil(L / h)
	if !(2*J+1 <= float64(a.opts.MaxPoints)) {
		return nil, fmt.Errorf("%w: the PRV domain [−%.3g, %.3g] at mesh %.3g needs %.3g points (cap %d); raise the ε error", ErrGridCap, L, L, h, 2*J+1, a.opts.MaxPoints)
	}
	c.h, c.L, c.J = h, L, int(J)
	c.M = fftSize(2*c.J + 1)
	// Mass below 1e-6·δ_error/k per event is dropped with the truncation.
	c.tau = 1e-6 * de / k
	for _, lf := range a.leaves {
		ld, sym, _, err := leafLoss(lf.event, nb, "PRV", math.Inf(1))
		if err != nil {
			return nil, err
		}
		if sym {
			ld[1] = ld[0]
		}
		c.symmetric = c.symmetric && sym
		c.losses = append(c.losses, ld)
	}
	return c, nil
}

// build composes direction d on the circle of the domain.
func (c *prvSetup) build(d int) (prvPMF, error) {
	if len(c.leaves) == 0 {
		return prvPMF{p: []float64{1}, h: 1}, nil
	}
	M, h := c.M, c.h
	f := getFFT(M)
	defer putFFT(f)
	buf := make([]float64, M)
	var spec []complex128
	shift, inf := 0.0, 0.0
	for i, lf := range c.leaves {
		ld := c.losses[i][d]
		m, lo, s, err := prvDiscretize(ld, h, c.J, c.tau)
		if err != nil {
			return prvPMF{}, fmt.Errorf("PRV discretization of %v: %w", lf.event, err)
		}
		clear(buf)
		for i, v := range m {
			j := lo + i
			buf[((j%M)+M)%M] += v
		}
		cs := f.Coefficients(nil, buf)
		powSpectrum(cs, lf.count)
		if spec == nil {
			spec = cs
		} else {
			for i := range cs {
				spec[i] *= cs[i]
			}
		}
		shift += float64(lf.count) * s
		inf = 1 - (1-inf)*math.Exp(float64(lf.count)*math.Log1p(-ld.inf))
	}
	f.Sequence(buf, spec)
	out := make([]float64, M)
	inv := 1 / float64(M)
	// The sum of the rounded losses is the composed PRV less the mean
	// correction, so its mass lies in [−L, L] − shift, not in [−L, L]:
	// the circle is unrolled around jc = round(−shift/h). Circle position
	// i holds index j ≡ i (mod M) with j ∈ [jc − M/2, jc + M/2). (Unrolled
	// around 0, a correction of many cells — a coarse mesh over millions
	// of steps, where each step's rounding shifts its mean by up to h/2 —
	// folded the distribution onto itself: ε 185 where the truth is 4.3.)
	half := M / 2
	jc := int(math.Round(-shift / h))
	j0 := jc - half
	for i := 0; i < M; i++ {
		j := ((i-j0)%M+M)%M + j0
		out[j-j0] = math.Max(0, buf[i]*inv)
	}
	return prvPMF{t0: float64(j0)*h + shift, h: h, p: out, inf: inf}, nil
}

// pldRemove evaluates q on a PLD accountant (interval 1e-3) of the same
// events: a cheap upper bound for the remove direction.
func (c *prvSetup) pldRemove(q func(*PLD) (float64, error)) (float64, error) {
	p := NewPLD(PLDOptions{Interval: 1e-3, Neighbouring: c.nb, MaxPoints: min(c.maxPoints, PLDOptions{}.withDefaults().MaxPoints)})
	if err := p.Compose(Composed{Events: toEvents(c.leaves)}); err != nil {
		return 0, err
	}
	return q(p)
}

// upperEpsilon is a valid upper bound on ε at δ for the domain choice:
// the RDP accountant (improved conversion, default orders) when it
// supports the event, else the PLD accountant. +Inf (σ = 0) is an error:
// the PRV domain cannot be chosen.
func upperEpsilon(e Event, delta float64, nb Neighbouring, maxPoints int, memo rdpMemo, laplacePanels int) (float64, error) {
	r := NewRDP(nil)
	r.Neighbouring, r.memo, r.LaplacePanels = nb, memo, laplacePanels
	err := r.Compose(e)
	var eps float64
	if err == nil {
		eps, _, err = r.Epsilon(delta, Improved)
	}
	if errors.Is(err, ErrUnsupported) {
		eps, _, err = PLDEpsilonAdaptive(e, delta, PLDOptions{Neighbouring: nb, Interval: 1e-2, MaxPoints: min(maxPoints, PLDOptions{}.withDefaults().MaxPoints)})
	}
	if err != nil {
		return 0, fmt.Errorf("PRV domain: %w", err)
	}
	return eps, nil
}

// prvDiscretize truncates a loss distribution's finite part to the cells
// j = −J … J of width h centred at j·h, renormalises, and returns the cell
// masses m (for j = lo … lo+len(m)−1) with the shift s that makes the
// discrete mean equal the truncated continuous mean (|s| < h/2). Cells
// whose mass is below tau are skipped at the ends.
func prvDiscretize(d lossDist, h float64, J int, tau float64) (m []float64, lo int, s float64, err error) {
	a, b := (float64(-J)-0.5)*h, (float64(J)+0.5)*h
	if d.eval == nil {
		return prvDiscretizeAtoms(d, h, J)
	}
	if d.inf > 0 {
		return nil, 0, 0, errors.New("a continuous loss with an infinite part is not supported")
	}
	// The range of cells with non-negligible mass.
	lLo, lHi := math.Max(a, d.lmin), math.Min(b, d.lmax)
	scale := d.scale
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	if math.IsInf(d.lmin, -1) {
		l := d.centre - scale
		for step := scale; l > a; step *= 2 {
			if f, _ := tailAt(d, l); f <= tau {
				break
			}
			l -= step
		}
		lLo = math.Max(a, l)
	}
	if math.IsInf(d.lmax, 1) {
		l := d.centre + scale
		for step := scale; l < b; step *= 2 {
			if _, sv := tailAt(d, l); sv <= tau {
				break
			}
			l += step
		}
		lHi = math.Min(b, l)
	}
	if lLo >= lHi {
		return nil, 0, 0, fmt.Errorf("%w: no mass inside the PRV domain", ErrPrecision)
	}
	lo = int(math.Floor(lLo/h + 0.5))
	hi := int(math.Floor(lHi/h + 0.5))
	lo, hi = max(lo, -J), min(hi, J)
	n := hi - lo + 1
	m = make([]float64, n)
	edge := func(j int) float64 { return (float64(j) - 0.5) * h }
	// Cell masses from CDF differences on the small side; mass outside
	// (edge(lo), edge(hi+1)] is below tau or outside [−L, L]: truncated.
	fA, sA := tailAt(d, edge(lo))
	f0, s0 := fA, sA
	for i := 0; i < n; i++ {
		f1, s1 := tailAt(d, edge(lo+i+1))
		v := f1 - f0
		if f1 > 0.5 {
			v = s0 - s1
		}
		m[i] = math.Max(v, 0)
		f0, s0 = f1, s1
	}
	fB, sB := f0, s0
	rem := fB - fA // the mass kept, renormalised to 1
	if fB > 0.5 {
		rem = sA - sB
	}
	if !(rem > 0) {
		return nil, 0, 0, fmt.Errorf("%w: no mass inside the PRV domain", ErrPrecision)
	}
	mean := 0.0
	for i := range m {
		m[i] /= rem
		mean += float64(lo+i) * h * m[i]
	}
	cm := truncatedMean(d, edge(lo), edge(hi+1), fA, sA, fB, sB) / rem
	s = cm - mean
	if !(math.Abs(s) < h/2) {
		return nil, 0, 0, fmt.Errorf("%w: discrete mean differs from the continuous mean by %.3g (mesh %.3g)", ErrPrecision, s, h)
	}
	return m, lo, s, nil
}

// tailAt returns P(L ≤ l), P(L > l).
func tailAt(d lossDist, l float64) (float64, float64) {
	if d.evalP != nil {
		return d.evalP(l)
	}
	f, s, _, _ := d.eval(l)
	return f, s
}

// truncatedMean returns ∫_{(a,b]} t dF(t) for a < b from the CDF:
// ∫_0^b (S(t) − S(b)) dt − ∫_a^0 (F(t) − F(a)) dt when a < 0 < b (and the
// one-sided forms otherwise), integrands ≥ 0 evaluated on their small side,
// by Gauss–Legendre on panels that break at the distribution's jumps.
func truncatedMean(d lossDist, a, b, fA, sA, fB, sB float64) float64 {
	upper := func(c float64) float64 { // ∫_c^b t dF for c ≥ 0
		_, sc := tailAt(d, c)
		return c*(sc-sB) + integrate(func(t float64) float64 { _, s := tailAt(d, t); return s - sB }, c, b, d)
	}
	lower := func(c float64) float64 { // ∫_a^c t dF for c ≤ 0
		fc, _ := tailAt(d, c)
		return c*(fc-fA) - integrate(func(t float64) float64 { f, _ := tailAt(d, t); return f - fA }, a, c, d)
	}
	switch {
	case a >= 0:
		return upper(a)
	case b <= 0:
		return lower(b)
	}
	return upper(0) + lower(0)
}

// integrate is ∫_a^b f by adaptive Gauss–Kronrod (absolute tolerance
// 1e-14), starting from 16 panels split at d's jumps.
func integrate(f func(float64) float64, a, b float64, d lossDist) float64 {
	return adaptiveIntegral(f, a, b, 16, d.jumps, 1e-14)
}

// prvDiscretizeAtoms discretizes an atomic distribution: each atom's mass
// goes to the nearest cell centre; the mean shift is computed exactly.
func prvDiscretizeAtoms(d lossDist, h float64, J int) (m []float64, lo int, s float64, err error) {
	a, b := (float64(-J)-0.5)*h, (float64(J)+0.5)*h
	lo, hi := J+1, -J-1
	for _, l := range d.atomL {
		if l > a && l <= b {
			j := int(math.Floor(l/h + 0.5))
			lo, hi = min(lo, j), max(hi, j)
		}
	}
	if lo > hi {
		return nil, 0, 0, fmt.Errorf("%w: no mass inside the PRV domain", ErrPrecision)
	}
	m = make([]float64, hi-lo+1)
	rem, cm, dm := 0.0, 0.0, 0.0
	for k, l := range d.atomL {
		if !(l > a && l <= b) {
			continue
		}
		j := int(math.Floor(l/h + 0.5))
		p := d.atomP[k]
		m[j-lo] += p
		rem += p
		cm += l * p
		dm += float64(j) * h * p
	}
	for i := range m {
		m[i] /= rem
	}
	return m, lo, (cm - dm) / rem, nil
}

// delta is δ̃(ε) = inf + (1 − inf)·Σ_{t_j > ε} p_j (1 − e^{ε − t_j}).
func (d prvPMF) delta(eps float64) float64 {
	s := gridDeltaSum(d.p, func(j int) float64 { return d.t0 + float64(j)*d.h }, eps)
	return math.Min(1, d.inf+(1-d.inf)*s)
}

// epsilonAt solves δ̃_fin(ε) = target for the finite part, exactly for
// the discrete distribution (see gridEpsilon).
func (d prvPMF) epsilonAt(target float64) float64 {
	return gridEpsilon(d.p, 0, target, d.h,
		func(j int) float64 { return d.t0 + float64(j)*d.h },
		func(j int) float64 { return d.t0 + float64(j)*d.h - d.h })
}

// epsilonBounds returns (lower, estimate, upper) of ε at δ.
func (d prvPMF) epsilonBounds(delta, de, ee float64) ([3]float64, error) {
	inf := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	fin := func(x float64) float64 { return (x - d.inf) / (1 - d.inf) }
	if fin(delta) <= 0 {
		return inf, infinite("the probability of an unbounded privacy loss (%.3g) is at least δ", d.inf)
	}
	// Rounding in the FFT and the sums is ~1e-16 per point; Gopi et al.'s
	// implementation refuses δ this close to it, and so do we.
	if float64(len(d.p))*2.2e-16 > fin(delta)-de {
		return inf, fmt.Errorf("%w: PRV: δ = %g is too small for %d points of double precision (floating-point error would dominate); raise δ or the ε error", ErrPrecision, delta, len(d.p))
	}
	up := math.Inf(1)
	if x := fin(delta - de); x > 0 {
		up = d.epsilonAt(x) + ee
	}
	est := d.epsilonAt(fin(delta))
	low := math.Max(0, d.epsilonAt(fin(delta+de))-ee)
	return [3]float64{low, est, up}, nil
}
