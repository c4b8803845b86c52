package accountant

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Property tests (issue 20 item 1) over the documented domain: q ∈ [0, 1],
// σ ∈ [0, 1e6], T ∈ [1, 1e12], δ ∈ (0, 1), every mechanism and relation.
//
// Inputs are drawn as base-10 exponents (log-uniform values), so that
// gopter shrinks a failure towards σ = q = T = 1 and the edges are reached
// with fixed probability: an exponent below the range's low end reads as
// q = 0 or σ = 0, one above its high end as q = 1. The PLD and PRV work
// caps are lowered to 2^14 points for these tests (propWork): the
// invariants must hold at any cap, and the small grids exercise the
// coarsening and fallback paths that a large cap reaches only at extreme
// inputs, at a cost the ordinary test run can afford. The number of cases
// is the runtime knob (propCases).
//
// Tolerances. An accountant's value is a guarantee (an upper bound) or a
// proven lower bound, so most invariants compare a lower bound with an
// upper bound and need no tolerance beyond round-off, taken as
// relTol = 1e-9 relative plus absTol = 1e-9 (the exact curves are solved
// by bisection to ~1e-12 relative, the RDP conversion is closed-form).
// Monotonicity of a pessimistic estimate (PLD) is not exact: its
// discretization error differs between two inputs, so ε_PLD(σ₂) may exceed
// ε_PLD(σ₁) for σ₁ < σ₂ by up to the error of the larger value, which
// connect-the-dots keeps below a few grid intervals in ε; the tests allow
// 4 intervals of the coarser grid used (pldMonoTol).

const (
	relTol = 1e-9
	absTol = 1e-9
)

// propCases is the number of random cases per property.
func propCases(n int) *gopter.TestParameters {
	p := gopter.DefaultTestParametersWithSeed(20)
	p.MinSuccessfulTests = n
	if testing.Short() {
		p.MinSuccessfulTests = max(5, n/4)
	}
	return p
}

// propWork is the work cap (Config.WorkPoints) of the property tests.
const propWork = 1 << 14

// input is one point of the domain, drawn as exponents.
type input struct {
	mech  int // 0 gaussian, 1 laplace, 2 discrete-gaussian, 3 tree, 4 wor-gaussian
	nb    Neighbouring
	lq    float64 // log10 q in [−6.5, 0.2]: < −6 → q = 0, > 0 → q = 1
	ls    float64 // log10 σ in [−4.5, 6]: < −4 → σ = 0
	lt    float64 // log10 T in [0, 12]
	ld    float64 // log10 δ in [−15, −0.01]
	extra float64 // a second draw in [0, 1] for the monotonicity steps
}

func (in input) q() float64 {
	switch {
	case in.lq < -6:
		return 0
	case in.lq > 0:
		return 1
	}
	return math.Pow(10, in.lq)
}

func (in input) sigma() float64 {
	if in.ls < -4 {
		return 0
	}
	return math.Pow(10, in.ls)
}

func (in input) steps() int     { return int(math.Round(math.Pow(10, in.lt))) }
func (in input) delta() float64 { return math.Pow(10, in.ld) }

func (in input) point() sweepPoint {
	p := sweepPoint{mech: []string{"gaussian", "laplace", "discrete-gaussian", "tree", "wor-gaussian"}[in.mech],
		q: in.q(), sigma: in.sigma(), steps: in.steps(), del: in.delta(), nb: in.nb}
	if p.mech == "tree" {
		p.q, p.steps = 1, min(p.steps, 1<<20)
	}
	if p.mech == "wor-gaussian" {
		p.nb = ReplaceOne
	}
	return p
}

func (in input) String() string { return in.point().String() }

// genInput draws inputs over the whole domain; mechs lists the mechanisms
// allowed.
func genInput(mechs ...int) gopter.Gen {
	return gopter.CombineGens(
		gen.IntRange(0, len(mechs)-1),
		gen.IntRange(0, 1),
		gen.Float64Range(-6.5, 0.2),
		gen.Float64Range(-4.5, 6),
		gen.Float64Range(0, 12),
		gen.Float64Range(-15, -0.01),
		gen.Float64Range(0, 1),
	).Map(func(v []any) input {
		return input{mech: mechs[v[0].(int)], nb: Neighbouring(v[1].(int)), lq: v[2].(float64), ls: v[3].(float64),
			lt: v[4].(float64), ld: v[5].(float64), extra: v[6].(float64)}
	})
}

// answer is one accountant's ε at δ.
type answer struct {
	kind         Kind
	upper, lower float64 // lower: PRV's lower bound, exact's value, else 0
	interval     float64 // PLD grid used
	epsErr       float64 // PRV ε error used
	ok           bool    // a number (finite or +Inf) that is a guarantee
	err          error
}

// accountAll runs every accountant on e at δ. A panic is returned as an
// error message; it fails every property.
func accountAll(e Event, delta float64, nb Neighbouring) (map[Kind]answer, string) {
	out := map[Kind]answer{}
	for _, k := range Kinds {
		var est Estimate
		var err error
		r := sweepCall(func() (float64, error) {
			est, err = Config{Kind: k, Neighbouring: nb, WorkPoints: propWork}.Account(e, delta)
			return est.Value, err
		})
		if r.panic != nil {
			return nil, fmt.Sprintf("%v panicked: %v", k, r.panic)
		}
		a := answer{kind: k, upper: est.Value, lower: est.Lower, interval: est.Interval, epsErr: est.EpsError, err: err}
		a.ok = err == nil || errors.Is(err, ErrInfinite)
		if est.Fallback {
			// A fallback value is an upper bound but not this accountant's.
			a.ok, a.lower = false, 0
		}
		if err == nil && k != KindPRV && k != KindExact {
			a.lower = 0
		}
		out[k] = a
	}
	return out, ""
}

// sane checks that every answer is a number ≥ 0 or +Inf (never NaN), that
// +Inf comes with ErrInfinite or a fallback error, and lower ≤ upper.
func sane(as map[Kind]answer) string {
	for k, a := range as {
		if a.err != nil && !a.ok {
			continue
		}
		if math.IsNaN(a.upper) || a.upper < 0 || math.IsNaN(a.lower) || a.lower < 0 {
			return fmt.Sprintf("%v: upper %v lower %v", k, a.upper, a.lower)
		}
		if math.IsInf(a.upper, 1) && a.err == nil {
			return fmt.Sprintf("%v: ε = +Inf without a reason", k)
		}
		if a.lower > a.upper*(1+relTol)+absTol {
			return fmt.Sprintf("%v: lower %v > upper %v", k, a.lower, a.upper)
		}
	}
	return ""
}

// ordered checks that every proven lower bound (PRV's lower end, the exact
// value) is at most every guarantee, fallbacks included.
func ordered(as map[Kind]answer) string {
	for kl, l := range as {
		if !l.ok || l.lower == 0 {
			continue
		}
		for ku, u := range as {
			if u.err != nil && !errors.Is(u.err, ErrInfinite) && !errors.Is(u.err, ErrGridCap) && !errors.Is(u.err, ErrPrecision) {
				continue
			}
			if math.IsNaN(u.upper) || (u.err != nil && !u.ok && u.upper == 0) {
				continue
			}
			if l.lower > u.upper*(1+relTol)+absTol {
				return fmt.Sprintf("lower bound of %v (%.12g) > upper bound of %v (%.12g, %v)", kl, l.lower, ku, u.upper, u.err)
			}
		}
	}
	return ""
}

// TestPropSaneAndOrdered: over the whole domain and every mechanism, no
// accountant panics, every value is ≥ 0 or +Inf (never NaN, +Inf with a
// reason), and PRV lower ≤ exact ≤ every upper bound (RDP, PLD, PRV
// upper, zCDP, pure, and the RDP values shown as fallbacks).
func TestPropSaneAndOrdered(t *testing.T) {
	props := gopter.NewProperties(propCases(60))
	props.Property("sane and ordered", prop.ForAll(func(in input) string {
		p := in.point()
		as, pan := accountAll(p.event(), p.del, p.nb)
		if pan != "" {
			return pan
		}
		if s := sane(as); s != "" {
			return s
		}
		return ordered(as)
	}, genInput(0, 1, 2, 3, 4)))
	props.TestingRun(t)
}

// TestPropEdges: σ = 0 gives ε = +Inf (ErrInfinite) under every
// accountant that supports the event, whenever δ is below the probability
// that the record is used at all (1 − (1 − q)^T; with q = 1 every δ);
// q = 0 gives ε = 0 (nothing about the record is released).
func TestPropEdges(t *testing.T) {
	props := gopter.NewProperties(propCases(40))
	props.Property("σ = 0 is ∞, q = 0 is 0", prop.ForAll(func(in input) string {
		for _, edge := range []string{"sigma0", "q0"} {
			p := in.point()
			if edge == "sigma0" {
				if p.q == 0 {
					continue // nothing released: ε = 0 whatever σ
				}
				p.sigma = 0
			} else {
				if p.mech == "tree" || p.mech == "wor-gaussian" {
					continue
				}
				p.q = 0
			}
			// Without noise the output reveals the record whenever it is
			// used, which happens with probability used: ε = ∞ for every
			// δ below it, while δ ≥ used is met already at ε = 0.
			rate := p.q
			if p.mech == "wor-gaussian" {
				rate = float64(max(1, int(math.Round(p.q*1000)))) / 1000
			}
			used := -math.Expm1(float64(p.steps) * math.Log1p(-rate))
			as, pan := accountAll(p.event(), p.del, p.nb)
			if pan != "" {
				return pan
			}
			for k, a := range as {
				if errors.Is(a.err, ErrUnsupported) {
					continue
				}
				if edge == "sigma0" && p.del < used && !(math.IsInf(a.upper, 1) && errors.Is(a.err, ErrInfinite)) {
					return fmt.Sprintf("%v at σ = 0: ε = %v (%v)", k, a.upper, a.err)
				}
				if edge == "q0" && !(a.upper == 0 && a.err == nil) {
					return fmt.Sprintf("%v at q = 0: ε = %v (%v)", k, a.upper, a.err)
				}
			}
		}
		return ""
	}, genInput(0, 1, 2, 3, 4)))
	props.TestingRun(t)
}

// monotone compares two answers of one accountant where the first input
// is at most as private as the second (smaller σ, or larger T or q): the
// first ε must not be smaller. Where the accountant gives a lower bound
// (PRV) the check is lower(second) ≤ upper(first), which soundness
// implies without tolerance; for RDP, zCDP, exact and pure the values are
// monotone by construction up to round-off; for PLD up to pldMonoTol.
func monotone(k Kind, a, b answer) string {
	if !a.ok || !b.ok {
		return ""
	}
	switch k {
	case KindPRV:
		if b.lower > a.upper*(1+relTol)+absTol {
			return fmt.Sprintf("PRV: lower %.12g at the more private input > upper %.12g at the less private one", b.lower, a.upper)
		}
		return ""
	case KindPLD:
		if math.IsInf(b.upper, 1) && !math.IsInf(a.upper, 1) {
			if errors.Is(b.err, ErrInfinite) {
				return fmt.Sprintf("PLD: ∞ (%v) at the more private input, %v at the less private one", b.err, a.upper)
			}
			return ""
		}
		if tol := pldMonoTol(a, b); b.upper > a.upper*(1+1e-6)+tol {
			return fmt.Sprintf("PLD: %.12g (interval %g) at the more private input > %.12g (interval %g) + %g", b.upper, b.interval, a.upper, a.interval, tol)
		}
		return ""
	}
	if b.upper > a.upper*(1+relTol)+absTol {
		return fmt.Sprintf("%v: %.12g at the more private input > %.12g at the less private one", k, b.upper, a.upper)
	}
	return ""
}

// pldMonoTol is the slack of a PLD comparison: 4 intervals of the coarser
// grid of the two.
func pldMonoTol(a, b answer) float64 { return 4 * math.Max(a.interval, b.interval) }

// TestPropMonotone: ε is non-increasing in σ and non-decreasing in T and
// in q, for every accountant (the second input of each pair is the more
// private one).
func TestPropMonotone(t *testing.T) {
	props := gopter.NewProperties(propCases(40))
	props.Property("monotone in σ, T and q", prop.ForAll(func(in input) string {
		p := in.point()
		step := 1 + 3*in.extra // a factor in [1, 4]
		less, more := p, p
		var what string
		switch int(in.extra*1000) % 3 {
		case 0:
			what, more.sigma = "σ", p.sigma*step
		case 1:
			what, less.steps = "T", int(math.Min(1e12, math.Ceil(float64(p.steps)*step)))
			if p.mech == "tree" {
				less.steps = min(less.steps, 1<<20)
			}
		default:
			what, more.q = "q", p.q/step
			if p.mech == "tree" {
				return ""
			}
		}
		la, pan := accountAll(less.event(), p.del, p.nb)
		if pan != "" {
			return pan
		}
		ma, pan := accountAll(more.event(), p.del, p.nb)
		if pan != "" {
			return pan
		}
		for _, k := range Kinds {
			if s := monotone(k, la[k], ma[k]); s != "" {
				return fmt.Sprintf("in %s (%v vs %v): %s", what, less, more, s)
			}
		}
		return ""
	}, genInput(0, 1, 2, 3, 4)))
	props.TestingRun(t)
}

// TestPropRoundTrip: δ(ε(δ)) = δ. For RDP and zCDP the optimal order at
// ε(δ) gives back δ exactly (up to round-off, relative 1e-6 allowing for
// the order search), for the exact curve up to its solver's precision
// (1e-6 relative); for one PLD accountant Delta inverts Epsilon on its
// grid; for PRV, Delta's bounds at ε's upper (lower) end put the true δ
// below (above) the target: Delta(upper ε).Lower ≤ δ ≤ Delta(lower ε).Upper.
func TestPropRoundTrip(t *testing.T) {
	props := gopter.NewProperties(propCases(40))
	props.Property("δ(ε(δ)) = δ", prop.ForAll(func(in input) string {
		p := in.point()
		e := p.event()
		for _, k := range []Kind{KindRDP, KindZCDP, KindExact} {
			c := Config{Kind: k, Neighbouring: p.nb, WorkPoints: propWork}
			r, err := c.Account(e, p.del)
			if err != nil || r.Value == 0 {
				continue // ε = 0: δ(0) ≤ δ is all that holds
			}
			d, err := c.AccountDelta(e, r.Value)
			if err != nil {
				return fmt.Sprintf("%v: δ at ε = %v: %v", k, r.Value, err)
			}
			if !(math.Abs(d.Value-p.del) <= 1e-6*p.del) {
				return fmt.Sprintf("%v: δ(ε(%g)) = %g (ε = %v)", k, p.del, d.Value, r.Value)
			}
		}
		a := NewPLD(PLDOptions{Neighbouring: p.nb, MaxPoints: propWork})
		if err := a.Compose(e); err == nil {
			if eps, err := a.Epsilon(p.del); err == nil && eps > 0 {
				if d, err := a.Delta(eps); err != nil || !(math.Abs(d-p.del) <= 1e-6*p.del) {
					return fmt.Sprintf("PLD: δ(ε(%g)) = %g (ε = %v, %v)", p.del, d, eps, err)
				}
			}
		}
		c := Config{Kind: KindPRV, Neighbouring: p.nb, WorkPoints: propWork}
		if r, err := c.Account(e, p.del); err == nil && r.Lower > 0 && !math.IsInf(r.Value, 1) {
			hi, err1 := c.AccountDelta(e, r.Value)
			lo, err2 := c.AccountDelta(e, r.Lower)
			if err1 == nil && !(hi.Lower <= p.del*(1+relTol)) {
				return fmt.Sprintf("PRV: δ bounds at the upper ε %v: lower %g > δ = %g", r.Value, hi.Lower, p.del)
			}
			if err2 == nil && !(lo.Value >= p.del*(1-relTol)) {
				return fmt.Sprintf("PRV: δ bounds at the lower ε %v: upper %g < δ = %g", r.Lower, lo.Value, p.del)
			}
		}
		return ""
	}, genInput(0, 1, 2, 3)))
	props.TestingRun(t)
}

// TestPropPLDAboveExact: wherever an exact curve exists (compositions of
// Gaussian mechanisms, q = 1, tree aggregation, one Laplace, one discrete
// Gaussian), the PLD's pessimistic δ(ε) is at least the exact δ(ε) at
// every ε (the whole curve, not one point), up to double-precision
// round-off in the FFT (absolute 1e-14·√points).
func TestPropPLDAboveExact(t *testing.T) {
	props := gopter.NewProperties(propCases(60))
	props.Property("PLD curve ≥ exact curve", prop.ForAll(func(in input) string {
		p := in.point()
		if p.mech == "gaussian" || p.mech == "laplace" || p.mech == "discrete-gaussian" {
			p.q = 1
		}
		if p.mech == "laplace" || p.mech == "discrete-gaussian" {
			p.steps = 1
		}
		e := p.event()
		if p.mech == "wor-gaussian" {
			return ""
		}
		a := NewPLD(PLDOptions{Neighbouring: p.nb, MaxPoints: propWork, Interval: 1e-4 * (1 + 99*in.extra)})
		if err := a.Compose(e); err != nil {
			if errors.Is(err, ErrGridCap) || errors.Is(err, ErrUnsupported) {
				return ""
			}
			return fmt.Sprintf("compose: %v", err)
		}
		eps0, err := ExactEpsilon(e, p.del, p.nb)
		if err != nil || math.IsInf(eps0, 1) {
			return ""
		}
		for _, f := range []float64{0, 0.25, 0.5, 1, 1.5, 2, 4} {
			eps := eps0 * f
			want, err := ExactDelta(e, eps, p.nb)
			if err != nil {
				return fmt.Sprintf("exact δ at %v: %v", eps, err)
			}
			got, err := a.Delta(eps)
			if err != nil {
				return fmt.Sprintf("PLD δ at %v: %v", eps, err)
			}
			n := float64(len(a.dir[0].p) + len(a.dir[1].p))
			if got < want-1e-14*math.Sqrt(n+1) {
				return fmt.Sprintf("PLD δ(%v) = %.6g < exact %.6g", eps, got, want)
			}
		}
		return ""
	}, genInput(0, 1, 2, 3)))
	props.TestingRun(t)
}
