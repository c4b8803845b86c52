package accountant

import (
	"errors"
	"fmt"
	"math"
)

// Kind selects an accountant.
type Kind int

const (
	// KindRDP is the Rényi-DP accountant (fast; loose by the conversion).
	KindRDP Kind = iota
	// KindPLD is the privacy-loss-distribution accountant (tight, a
	// pessimistic upper bound; slower).
	KindPLD
	// KindPRV is the privacy-random-variable accountant of Gopi et al.
	// (an estimate with proven bounds; its upper bound is the guarantee).
	KindPRV
	// KindZCDP converts the events' zero-concentrated DP (ρ, ξ) to (ε, δ).
	KindZCDP
	// KindExact is the exact curve where one exists (compositions of
	// Gaussian mechanisms, one Laplace, one discrete Gaussian).
	KindExact
	// KindPure is pure DP: the ε with δ = 0, valid for every δ.
	KindPure
)

// Kinds lists every accountant, in the order reports show them.
var Kinds = []Kind{KindRDP, KindPLD, KindPRV, KindZCDP, KindExact, KindPure}

// String returns "rdp", "pld", "prv", "zcdp", "exact" or "pure".
func (k Kind) String() string {
	switch k {
	case KindRDP:
		return "rdp"
	case KindPLD:
		return "pld"
	case KindPRV:
		return "prv"
	case KindZCDP:
		return "zcdp"
	case KindExact:
		return "exact"
	case KindPure:
		return "pure"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind reads the String form.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown accountant %q (want rdp, pld, prv, zcdp, exact or pure)", s)
}

// Config says how to account for an event: which accountant and its
// options. The zero Config is RDP, improved conversion, default orders,
// signed series, add/remove neighbouring.
type Config struct {
	Kind         Kind
	Conversion   Conversion       // RDP and zCDP
	Orders       []float64        // RDP only; nil = DefaultOrders
	Series       FractionalSeries // RDP only
	WOR          WORBound         // RDP only
	Neighbouring Neighbouring
	PLD          PLDOptions // PLD only; its Neighbouring is taken from Config
	PRV          PRVOptions // PRV only; its Neighbouring is taken from Config
	// WorkPoints, when > 0, caps the PLD and PRV grids (in points) where
	// PLD.MaxPoints and PRV.MaxPoints are left 0, bounding the work of
	// one call (DefaultWorkPoints: about a second). A PLD that does not
	// fit coarsens its grid (still pessimistic); a PRV raises its ε error
	// ×4 up to 4 times (its bounds still proven); both say so in
	// Estimate.Note. 0 keeps the accountants' own caps (PLD 2^23 points,
	// PRV 2^24), whose values the goldens record.
	WorkPoints int
}

// Estimate is one accountant's answer to "ε at δ" (Config.Account) or
// "δ at ε" (Config.AccountDelta).
type Estimate struct {
	Kind Kind
	// Value is the guarantee: an upper bound on the true ε (or δ) — the
	// exact value for KindExact, the upper end of the bounds for KindPRV.
	Value float64
	// Estimate is PRV's central estimate (Value for the others).
	Estimate float64
	// Lower is a proven lower bound on the true value: PRV's lower bound,
	// the value itself for KindExact, and the trivial 0 otherwise.
	Lower float64
	// Order is the optimal RDP order (RDP, zCDP; 0 otherwise).
	Order float64
	// Interval is the PLD grid interval used (after coarsening), Mesh and
	// Domain PRV's mesh h and truncation L.
	Interval, Mesh, Domain float64
	// EpsError is the ε error the PRV bounds were computed with (raised
	// from the requested one when the grid would exceed the work cap).
	EpsError float64
	// Note says what a work cap changed (a coarser PLD grid, a larger PRV
	// ε error) or, with Fallback, why another accountant answered.
	Note string
	// Fallback is set when the accountant hit its grid or work cap or its
	// numerical precision and could not answer: the error (wrapping
	// ErrGridCap or ErrPrecision) is still
	// returned, and Value is then a valid upper bound from the RDP
	// accountant (Kind FallbackKind), so a caller that wants a number
	// has one that is never below the truth.
	Fallback     bool
	FallbackKind Kind
}

// DefaultWorkPoints is a work cap for Config.WorkPoints: a PLD or PRV
// grid of at most 2^20 points costs well under a second of CPU, so every
// input of the documented domain answers within about a second per
// accountant (see TestSweep and BenchmarkSweep). `fedrepro account` uses
// it; library callers opt in, because it changes the values (to looser,
// still valid ones) wherever a grid of the accountants' own caps would be
// larger.
const DefaultWorkPoints = 1 << 20

// maxPRVEpsErrorRaises bounds how often a work-capped Config raises the
// PRV ε error ×4 to fit the cap before giving up (ErrGridCap, with the
// RDP fallback).
const maxPRVEpsErrorRaises = 4

// pldOptions returns c's PLD options with the relation and the work cap.
func (c Config) pldOptions() PLDOptions {
	o := c.PLD
	o.Neighbouring = c.Neighbouring
	if o.MaxPoints == 0 && c.WorkPoints > 0 {
		o.MaxPoints = c.WorkPoints
	}
	return o
}

// prvOptions returns c's PRV options with the relation and the work cap.
func (c Config) prvOptions() PRVOptions {
	o := c.PRV
	o.Neighbouring = c.Neighbouring
	if o.MaxPoints == 0 && c.WorkPoints > 0 {
		o.MaxPoints = c.WorkPoints
	}
	return o
}

// withFallback fills r with the RDP accountant's ε at δ when err says the
// grid cap stopped c's accountant.
func (c Config) withFallback(r Estimate, e Event, delta float64, err error) (Estimate, error) {
	if !errors.Is(err, ErrGridCap) && !errors.Is(err, ErrPrecision) {
		return r, err
	}
	fb := Config{Kind: KindRDP, Neighbouring: c.Neighbouring, Conversion: Improved}
	f, ferr := fb.Account(e, delta)
	if ferr == nil || errors.Is(ferr, ErrInfinite) {
		r.Value, r.Estimate, r.Lower, r.Order = f.Value, f.Value, 0, f.Order
		r.Fallback, r.FallbackKind = true, KindRDP
		r.Note = fmt.Sprintf("%v: %v; the RDP upper bound is shown instead", c.Kind, err)
	}
	return r, err
}

// Epsilon returns ε at δ for event e under c, and for RDP and zCDP the
// optimal order (0 otherwise). For PRV it is the upper bound (the
// guarantee, as Opacus reports it).
func (c Config) Epsilon(e Event, delta float64) (eps, order float64, err error) {
	r, err := c.Account(e, delta)
	return r.Value, r.Order, err
}

// Delta returns δ at ε for event e under c (for PRV the upper bound).
func (c Config) Delta(e Event, eps float64) (float64, error) {
	r, err := c.AccountDelta(e, eps)
	return r.Value, err
}

// Account returns c's answer to "ε at δ" for e. Unsupported combinations
// return an error wrapping ErrUnsupported that says why; an unbounded ε
// returns Value = +Inf with an error wrapping ErrInfinite.
func (c Config) Account(e Event, delta float64) (Estimate, error) {
	r := Estimate{Kind: c.Kind}
	switch c.Kind {
	case KindRDP:
		a := NewRDP(c.Orders)
		a.Neighbouring, a.Series, a.WOR = c.Neighbouring, c.Series, c.WOR
		if err := a.Compose(e); err != nil {
			return r, err
		}
		eps, order, err := a.Epsilon(delta, c.Conversion)
		r.Value, r.Estimate, r.Order = eps, eps, order
		return r, err
	case KindPLD:
		o := c.pldOptions()
		eps, iv, err := PLDEpsilonAdaptive(e, delta, o)
		r.Value, r.Estimate, r.Interval = eps, eps, iv
		if err == nil && iv != o.withDefaults().Interval {
			r.Note = fmt.Sprintf("PLD grid coarsened from interval %g to %g to fit %d points (still an upper bound)", o.withDefaults().Interval, iv, o.MaxPoints)
		}
		return c.withFallback(r, e, delta, err)
	case KindPRV:
		o := c.prvOptions()
		o.EpsError = o.withDefaults().EpsError
		var p PRVEstimate
		var err error
		a := NewPRV(o)
		if err := a.Compose(e); err != nil {
			return r, err
		}
		for raise := 0; ; raise++ {
			a.opts.EpsError = o.EpsError
			p, err = a.Epsilon(delta)
			if !errors.Is(err, ErrGridCap) || raise == maxPRVEpsErrorRaises || c.WorkPoints == 0 || c.PRV.MaxPoints != 0 {
				break
			}
			o.EpsError *= 4
		}
		r.Value, r.Estimate, r.Lower, r.Mesh, r.Domain = p.Upper, p.Estimate, p.Lower, p.Mesh, p.Domain
		r.EpsError = o.EpsError
		if err == nil && r.EpsError != c.PRV.withDefaults().EpsError {
			r.Note = fmt.Sprintf("PRV ε error raised to %g to fit %d points (bounds still proven)", r.EpsError, o.MaxPoints)
		}
		return c.withFallback(r, e, delta, err)
	case KindZCDP:
		rho, xi, err := ZCDPOf(e, c.Neighbouring)
		if err != nil {
			return r, err
		}
		eps, order, err := ZCDPEpsilon(rho, xi, delta, c.Conversion)
		r.Value, r.Estimate, r.Order = eps, eps, order
		return r, err
	case KindExact:
		eps, err := ExactEpsilon(e, delta, c.Neighbouring)
		r.Value, r.Estimate, r.Lower = eps, eps, eps
		return r, err
	case KindPure:
		if !(delta >= 0 && delta < 1) {
			return r, errDelta(delta)
		}
		eps, err := PureEpsilon(e, c.Neighbouring)
		r.Value, r.Estimate = eps, eps
		return r, err
	}
	return r, fmt.Errorf("unknown accountant kind %v", c.Kind)
}

// AccountDelta returns c's answer to "δ at ε" for e. For KindPure it is
// 0 when ε is at least the pure-DP ε and 1 otherwise (pure DP alone says
// nothing below it).
func (c Config) AccountDelta(e Event, eps float64) (Estimate, error) {
	r := Estimate{Kind: c.Kind}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return r, fmt.Errorf("ε = %v: want a finite value ≥ 0", eps)
	}
	switch c.Kind {
	case KindRDP:
		a := NewRDP(c.Orders)
		a.Neighbouring, a.Series, a.WOR = c.Neighbouring, c.Series, c.WOR
		if err := a.Compose(e); err != nil {
			return r, err
		}
		d, order, err := a.Delta(eps, c.Conversion)
		r.Value, r.Estimate, r.Order = d, d, order
		return r, err
	case KindPLD:
		a := NewPLD(c.pldOptions())
		if err := a.Compose(e); err != nil {
			return r, err
		}
		d, err := a.Delta(eps)
		r.Value, r.Estimate, r.Interval = d, d, a.opts.Interval
		return r, err
	case KindPRV:
		a := NewPRV(c.prvOptions())
		if err := a.Compose(e); err != nil {
			return r, err
		}
		p, err := a.Delta(eps)
		r.Value, r.Estimate, r.Lower, r.Mesh, r.Domain = p.Upper, p.Estimate, p.Lower, p.Mesh, p.Domain
		return r, err
	case KindZCDP:
		rho, xi, err := ZCDPOf(e, c.Neighbouring)
		if err != nil {
			return r, err
		}
		d, order, err := ZCDPDelta(rho, xi, eps, c.Conversion)
		r.Value, r.Estimate, r.Order = d, d, order
		return r, err
	case KindExact:
		d, err := ExactDelta(e, eps, c.Neighbouring)
		r.Value, r.Estimate, r.Lower = d, d, d
		return r, err
	case KindPure:
		pe, err := PureEpsilon(e, c.Neighbouring)
		if err != nil && !errors.Is(err, ErrInfinite) {
			return r, err
		}
		r.Value = 1
		if eps >= pe {
			r.Value = 0
		}
		r.Estimate = r.Value
		return r, nil
	}
	return r, fmt.Errorf("unknown accountant kind %v", c.Kind)
}

// Supported reports whether c can account for e: nil, or an error
// wrapping ErrUnsupported with the reason (or a validation error). It
// does no accounting beyond what deciding needs.
func (c Config) Supported(e Event) error {
	if err := validate(e); err != nil {
		return err
	}
	switch c.Kind {
	case KindRDP:
		_, _, err := eventRDP(e, []float64{2}, rdpOpts{nb: c.Neighbouring, series: c.Series, wor: WORTheorem9})
		return err
	case KindPLD, KindPRV:
		leaves, err := flatten(e)
		if err != nil {
			return err
		}
		for _, lf := range leaves {
			if _, _, _, err := leafLoss(lf.event, c.Neighbouring, c.Kind.String(), math.Inf(1)); err != nil {
				return err
			}
		}
		return nil
	case KindZCDP:
		_, _, err := ZCDPOf(e, c.Neighbouring)
		return err
	case KindExact:
		_, err := exactOf(e, c.Neighbouring)
		return err
	case KindPure:
		_, err := PureEpsilon(e, c.Neighbouring)
		if errors.Is(err, ErrInfinite) {
			return nil // supported: the answer is ∞
		}
		return err
	}
	return fmt.Errorf("unknown accountant kind %v", c.Kind)
}
