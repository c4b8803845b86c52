package accountant

import (
	"errors"
	"fmt"
	"math"
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
	// MaxPoints caps the number of grid points of any distribution. Mass
	// beyond the cap is moved to the infinity bucket (still an upper
	// bound); when that mass decides ε, Epsilon returns an error wrapping
	// ErrGridCap. Default 1<<23.
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
// discretized on the grid Δ·ℤ by "connect the dots" (see discretize), plus
// an "infinity" mass for losses beyond the grid. Composition convolves the
// distributions (by FFT). The discretization dominates the true pair and
// truncated upper tails go to infinity, so δ(ε) = P[L = ∞] +
// E[(1 − e^{ε−L})₊] is an upper bound on the true hockey-stick divergence
// and the ε it reports is pessimistic, to within floating-point error of
// the FFT.
//
// Under AddRemove the two directions (adding and removing a record) differ
// for Poisson-sampled events and both are tracked; δ is the larger.
// A PLD (like an RDP accountant) is not safe for concurrent use.
type PLD struct {
	opts      PLDOptions
	dir       [2]pmf // the two directions of the neighbouring relation
	symmetric bool   // dir[1] equals dir[0] (every event so far is symmetric)
	err       error
	infReason string
	// stopAt, when > 0, is the δ that PLDEpsilonAdaptive solves for: as
	// soon as the mass moved to infinity by the grid cap (which only
	// grows under composition) reaches it, ε at this interval is decided
	// by the cap (ErrGridCap, or ErrInfinite when the genuinely infinite
	// mass is as large, which a coarser grid then finds too), and the
	// composition stops early instead of filling grids of millions of
	// points whose answer is already known.
	stopAt float64
	// need is the most grid points any step of the composition asked for
	// before the MaxPoints cap (a leaf's loss range, a composition's
	// Chernoff window): how much coarser a grid must be to hold them.
	need float64
}

// doomed returns an ErrGridCap error when truncated mass trunc has
// reached stopAt.
func (a *PLD) doomed(trunc float64) error {
	if a.stopAt > 0 && trunc >= a.stopAt {
		return fmt.Errorf("%w: privacy losses beyond the grid (%d points at interval %g) carry probability %.3g ≥ δ; use a coarser discretization interval", ErrGridCap, a.opts.MaxPoints, a.opts.Interval, trunc)
	}
	return nil
}

// pmf is a discretized privacy-loss distribution: p[i] is the mass at loss
// (lo+i)·Δ, inf the mass at +∞, of which trunc stands for finite losses
// beyond the grid cap.
type pmf struct {
	lo         int
	p          []float64
	inf, trunc float64
}

func identityPMF() pmf { return pmf{p: []float64{1}} }

// NewPLD returns an empty PLD accountant.
func NewPLD(opts PLDOptions) *PLD {
	o := opts.withDefaults()
	a := &PLD{opts: o, dir: [2]pmf{identityPMF(), identityPMF()}, symmetric: true}
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
	leaves, err := flatten(e)
	if err != nil {
		return err
	}
	next, sym := a.dir, a.symmetric
	reason := ""
	for _, lf := range leaves {
		d, keys, s, r, err := a.leafPMF(lf.event)
		if err != nil {
			return err
		}
		if reason == "" {
			reason = r
		}
		sym = sym && s
		for i := range next {
			if i == 1 && sym {
				next[1] = next[0]
				break
			}
			c, err := a.selfComposeMemo(keys[i], d[i], lf.count)
			if err != nil {
				return err
			}
			if next[i], err = a.convolve(next[i], c); err != nil {
				return err
			}
			if err := a.doomed(next[i].trunc); err != nil {
				return err
			}
		}
	}
	a.dir, a.symmetric = next, sym
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
		return 0, errNaNEps
	}
	d := 0.0
	for _, p := range a.dir {
		d = math.Max(d, p.delta(eps, a.opts.Interval))
	}
	return math.Min(1, d), nil
}

// Epsilon returns the smallest ε ≥ 0 for which the composed events are
// (ε, δ)-DP according to the discretized distributions. If the genuinely
// infinite losses alone have probability ≥ δ it returns +Inf and an error
// wrapping ErrInfinite; if losses moved to infinity by the grid cap decide
// the answer, an error wrapping ErrGridCap.
func (a *PLD) Epsilon(delta float64) (float64, error) {
	if a.err != nil {
		return 0, a.err
	}
	if !(delta > 0 && delta < 1) {
		return 0, errDelta(delta)
	}
	eps := 0.0
	for _, p := range a.dir {
		e := p.epsilon(delta, a.opts.Interval)
		if math.IsInf(e, 1) {
			if p.inf-p.trunc < delta {
				return e, fmt.Errorf("%w: privacy losses beyond the grid (%d points at interval %g) carry probability up to %.3g ≥ δ; use a coarser discretization interval", ErrGridCap, a.opts.MaxPoints, a.opts.Interval, p.trunc)
			}
			why := fmt.Sprintf("the probability of an unbounded privacy loss (%.3g) is at least δ", p.inf)
			if a.infReason != "" {
				why = a.infReason + "; " + why
			}
			return e, infinite("%s", why)
		}
		eps = math.Max(eps, e)
	}
	return eps, nil
}

// dirEpsilon is Epsilon for direction i alone.
func (a *PLD) dirEpsilon(i int, delta float64) (float64, error) {
	e := a.dir[i].epsilon(delta, a.opts.Interval)
	if math.IsInf(e, 1) {
		return e, infinite("direction %d", i)
	}
	return e, nil
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
// whenever the grid cap decides the answer (very large privacy losses,
// e.g. σ ≪ 1, or very many compositions). Pessimistic discretization on a
// coarser grid is still an upper bound on ε, only a looser one; the
// interval used is returned so callers can say so.
func PLDEpsilonAdaptive(e Event, delta float64, o PLDOptions) (eps, interval float64, err error) {
	o = o.withDefaults()
	stop := delta
	if g := genuineInfBound(e, o); !(g < delta) {
		stop = 0 // the early stop could mistake an ∞ for a grid cap
	}
	for {
		a := NewPLD(o)
		if o.Interval*4 <= maxAdaptiveInterval {
			a.stopAt = stop // the last attempt runs in full
		}
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

// genuineInfBound bounds the probability of a genuinely infinite loss
// (not a truncation) that composing e can leave in the infinity bucket:
// Σ count·P[L = ∞] over the leaves (a union bound). Only when it is below
// δ may an attempt stop early on truncated mass ≥ δ. The TailMass that
// discretization and composition move to +∞ is left out: an attempt that
// stops early on it only reads "grid cap" where a full one might have
// read "infinite", and the ladder then tries a coarser grid, whose answer
// is an upper bound too — while the last attempt always runs in full and
// classifies its infinite mass itself. (Counting it once kept every
// attempt at δ below 8·TailMass from stopping early: seven full
// million-point attempts for a Laplace of scale 1e-6, 2.3 s.) +Inf when
// the event cannot be flattened.
func genuineInfBound(e Event, o PLDOptions) float64 {
	leaves, err := flatten(e)
	if err != nil {
		return math.Inf(1)
	}
	g := 0.0
	for _, lf := range leaves {
		ld, _, _, err := leafLoss(lf.event, o.Neighbouring, "PLD", math.Inf(1))
		if err != nil {
			return math.Inf(1)
		}
		for _, d := range ld {
			g += float64(lf.count) * (d.inf - d.trunc)
		}
	}
	return g
}

// delta is P[L=∞] + Σ_{l_i > ε} p_i (1 − e^{ε − l_i}).
func (p pmf) delta(eps, dx float64) float64 {
	return gridDeltaSum(p.p, func(i int) float64 { return float64(p.lo+i) * dx }, eps) + p.inf
}

// epsilon solves delta(ε) = target for ε ≥ 0 (see gridEpsilon), exactly
// for the discretized distribution.
func (p pmf) epsilon(target, dx float64) float64 {
	return gridEpsilon(p.p, p.inf, target, dx,
		func(i int) float64 { return float64(p.lo+i) * dx },
		func(i int) float64 { return float64(p.lo+i-1) * dx })
}

// maxGridIndex bounds |loss/Δ|: grid indices are ints and offsets of
// compositions must not overflow.
const maxGridIndex = 1 << 52

// gridIndex returns ⌈x/dx⌉ (up) or ⌊x/dx⌋, exact for the float products
// used by the grid, or an error when |x/dx| is beyond maxGridIndex.
func gridIndex(x, dx float64, up bool) (int, error) {
	r := x / dx
	if !(math.Abs(r) < maxGridIndex) {
		return 0, fmt.Errorf("%w: privacy loss %.3g is %.3g grid intervals from 0; use a coarser discretization interval", ErrGridCap, x, r)
	}
	if up {
		i := int(math.Ceil(r))
		for float64(i)*dx < x {
			i++
		}
		for float64(i-1)*dx >= x {
			i--
		}
		return i, nil
	}
	i := int(math.Floor(r))
	for float64(i)*dx > x {
		i--
	}
	for float64(i+1)*dx <= x {
		i++
	}
	return i, nil
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
// mass above the last goes to infinity. The grid is capped at MaxPoints
// points from the lower end; mass above the cap goes to infinity too and
// is recorded in trunc.
func (a *PLD) discretize(d lossDist) (pmf, error) { return a.discretizeCheck(d, a.doomed) }

// discretizeCheck is discretize with the grid-cap early exit asked of
// check, once, about the truncated mass (see memoStep).
func (a *PLD) discretizeCheck(d lossDist, check func(float64) error) (pmf, error) {
	if d.eval == nil {
		return a.discretizeAtoms(d)
	}
	lo, hi, truncated, beyond, err := a.gridPlan(d)
	if err != nil {
		return pmf{}, err
	}
	if truncated {
		// Mass beyond the last point stands for finite losses; when it
		// alone reaches the δ being solved for, ε will be decided by the
		// grid cap whatever else happens, so stop before the work.
		if err := check(d.trunc + beyond); err != nil {
			return pmf{}, err
		}
	}
	dx := a.opts.Interval
	n := hi - lo + 1
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
		a, b := ctdSplit(math.Max(massP, 0), math.Max(massQ, 0), l0, den)
		p[i-1] += a
		p[i] += b
		f0P, s0P, f0Q, s0Q = f1P, s1P, f1Q, s1Q
	}
	// Mass beyond the last point; under P it is at losses above it.
	out := pmf{lo: lo, p: p, inf: s0P + d.inf, trunc: d.trunc}
	if truncated {
		out.trunc += s0P
	}
	return trimZeros(out), nil
}

// gridPlan is the cheap first part of discretizing a continuous loss
// distribution: the grid's index range [lo, hi] (the TailMass quantiles,
// at most MaxPoints points from the lower end), whether the cap cut it
// short, and then the P-mass beyond its last point. leafPMF asks it of
// every direction before discretizing any, so that an attempt the grid
// cap dooms stops before the first costly grid.
func (a *PLD) gridPlan(d lossDist) (lo, hi int, truncated bool, beyond float64, err error) {
	dx, tau, cap := a.opts.Interval, a.opts.TailMass, a.opts.MaxPoints
	span := float64(cap-1) * dx // the widest loss range the grid holds
	fP := func(l float64) float64 { f, _, _, _ := d.eval(l); return f }
	sP := func(l float64) float64 { _, s, _, _ := d.eval(l); return s }
	scale := d.scale
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	lLo := d.lmin
	if math.IsInf(lLo, -1) {
		l := d.centre - scale
		for step := scale; fP(l) > tau && d.centre-l < span; step *= 2 {
			l -= step
		}
		lLo = math.Max(l, d.centre-span)
	}
	lHi := d.lmax
	if math.IsInf(lHi, 1) {
		l := math.Max(d.centre, lLo) + scale
		for step := scale; sP(l) > tau && l-lLo <= span; step *= 2 {
			l += step
		}
		lHi = l
	}
	a.need = math.Max(a.need, (lHi-lLo)/dx+1)
	if lHi-lLo > span {
		lHi, truncated = lLo+span, true
	}
	if lo, err = gridIndex(lLo, dx, false); err != nil {
		return 0, 0, false, 0, err
	}
	if hi, err = gridIndex(lHi, dx, true); err != nil {
		return 0, 0, false, 0, err
	}
	if hi-lo+1 > cap {
		hi, truncated = lo+cap-1, true
	}
	if hi == lo {
		hi++
	}
	if truncated {
		_, beyond = tailAt(d, float64(hi)*dx)
	}
	return lo, hi, truncated, beyond, nil
}

// ctdSplit splits a cell's P-mass into a at its lower end l0 and b at
// l0 + Δ (den = 1 − e^{−Δ}) so that a + b = massP and
// a·e^{−l0} + b·e^{−l0−Δ} = massQ: b = (massP − e^{l0}·massQ)/den. The
// product e^{l0}·massQ is formed in logs: for losses in the hundreds
// e^{l0} overflows while massQ underflows, and Inf·0 = NaN would poison
// the distribution. Q-masses below ~1e-280 have lost most of their
// significant bits, so the split would be imprecise in the optimistic
// direction as often as not; such cells are rounded up whole (b = massP),
// which is pessimistic and therefore safe.
func ctdSplit(massP, massQ, l0, den float64) (a, b float64) {
	b = massP
	if massQ > 1e-280 {
		b = (massP - math.Exp(l0+math.Log(massQ))) / den
	}
	if math.IsNaN(b) {
		b = massP
	}
	b = math.Min(math.Max(b, 0), massP)
	return massP - b, b
}

// discretizeAtoms applies connect-the-dots to an atomic distribution: an
// atom at l (P-mass p, Q-mass p·e^{−l}) strictly inside a cell is split
// between its ends as in ctdSplit, b = p·(1 − e^{l0−l})/(1 − e^{−Δ}) at
// the upper end; one on the upper end gets b = p from the same formula.
// The atoms of one cell are summed before the split is applied, which
// matters when σ is large and a cell holds thousands of atoms.
func (a *PLD) discretizeAtoms(d lossDist) (pmf, error) {
	dx := a.opts.Interval
	if len(d.atomL) == 0 {
		return pmf{p: []float64{}, inf: d.inf, trunc: d.trunc}, nil
	}
	lo, err := gridIndex(d.atomL[0], dx, false)
	if err != nil {
		return pmf{}, err
	}
	hi, err := gridIndex(d.atomL[len(d.atomL)-1], dx, true)
	if err != nil {
		return pmf{}, err
	}
	trunc := d.trunc
	a.need = math.Max(a.need, float64(hi-lo+1))
	if hi-lo+1 > a.opts.MaxPoints {
		hi = lo + a.opts.MaxPoints - 1
	}
	p := make([]float64, hi-lo+1)
	den := -math.Expm1(-dx)
	inf := d.inf
	// The open cell (cell−1, cell], its P-mass and the numerator of its
	// upper share, Σ p·(1 − e^{l0−l}): written with expm1 it has no
	// cancellation, unlike p − e^{l0}·(p·e^{−l}) when l − l0 is small.
	cell, mP, mB := lo, 0.0, 0.0
	flush := func() {
		if cell > lo && mP > 0 {
			b := math.Min(math.Max(mB/den, 0), mP)
			p[cell-1-lo] += mP - b
			p[cell-lo] += b
		}
		mP, mB = 0, 0
	}
	for k, l := range d.atomL {
		m := d.atomP[k]
		i, err := gridIndex(l, dx, true)
		if err != nil {
			return pmf{}, err
		}
		if i > hi {
			inf += m
			trunc += m
			continue
		}
		if i == lo {
			p[0] += m // at the first grid point
			continue
		}
		if i != cell {
			flush()
			cell = i
		}
		mP += m
		mB += m * -math.Expm1(float64(cell-1)*dx-l)
	}
	flush()
	// Rounding in the sums must not push the mass at +∞ past one.
	inf = math.Min(inf, 1)
	return trimZeros(pmf{lo: lo, p: p, inf: inf, trunc: math.Min(trunc, inf)}), nil
}

func trimZeros(p pmf) pmf {
	if len(p.p) == 0 {
		return p
	}
	i, j := 0, len(p.p)
	for i < j-1 && p.p[i] == 0 {
		i++
	}
	for j > i+1 && p.p[j-1] == 0 {
		j--
	}
	return pmf{lo: p.lo + i, p: p.p[i:j], inf: p.inf, trunc: p.trunc}
}

// leafPMF returns the discretized loss distributions of a leaf event for
// both directions, the names pldMemo knows them by, whether they are the
// same, and a reason if the event gives no privacy at all.
func (a *PLD) leafPMF(e Event) (d [2]pmf, keys [2]string, symmetric bool, reason string, err error) {
	ld, symmetric, reason, err := leafLoss(e, a.opts.Neighbouring, "PLD", 2*float64(a.opts.MaxPoints)*a.opts.Interval)
	if err != nil {
		return d, keys, false, "", err
	}
	if a.stopAt > 0 {
		// Ask the grid-cap question of both directions before building
		// either grid: a doomed second direction would otherwise cost
		// the first one's full grid, at every interval of the ladder.
		for i := range ld {
			if i == 1 && symmetric || ld[i].eval == nil {
				continue
			}
			_, _, truncated, beyond, err := a.gridPlan(ld[i])
			if err != nil {
				return d, keys, false, "", err
			}
			if truncated {
				if err := a.doomed(ld[i].trunc + beyond); err != nil {
					return d, keys, false, "", err
				}
			}
		}
	}
	for i := range d {
		if i == 1 && symmetric {
			d[1], keys[1] = d[0], keys[0]
			break
		}
		keys[i] = a.leafKey(e, i)
		if d[i], err = a.memoStep(keys[i], func(check func(float64) error) (pmf, error) { return a.discretizeCheck(ld[i], check) }); err != nil {
			return d, keys, false, "", err
		}
	}
	return d, keys, symmetric, reason, nil
}
