package accountant

import (
	"fmt"
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
	// LaplacePanels, when > 0, caps the Gauss–Legendre panels of the RDP
	// of the Poisson-sampled Laplace mechanism (RDP, and the RDP bound by
	// which PRV chooses its domain; default 4000):
	// an order needing more takes the amplified pure-DP level instead, a
	// valid upper bound (Mironov 2017, Prop. 3). At small scales the
	// quadrature costs up to ~0.5 s an evaluation; CalibrateCapped sets
	// 256 for its RDP and PRV searches. 0 keeps the values the goldens record.
	LaplacePanels int
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
	if o.LaplacePanels == 0 {
		o.LaplacePanels = c.LaplacePanels
	}
	if o.MaxPoints == 0 && c.WorkPoints > 0 {
		o.MaxPoints = c.WorkPoints
	}
	return o
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
