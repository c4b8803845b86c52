package accountant

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// DefaultOrders returns the RDP orders Opacus uses by default
// (opacus/accountants/rdp.py DEFAULT_ALPHAS): 1.1, 1.2, …, 10.9 and then
// 12, 13, …, 63 — 151 orders, no 11 and nothing above 63. Reproducing
// Opacus numbers needs exactly this grid; dp_accounting adds 128…1024 and
// TF Privacy uses another grid, which matters only when the optimum lies
// between or beyond grid points.
func DefaultOrders() []float64 {
	out := make([]float64, 0, 151)
	for x := 1; x <= 99; x++ {
		out = append(out, 1+float64(x)/10)
	}
	for a := 12; a <= 63; a++ {
		out = append(out, float64(a))
	}
	return out
}

// RDP is a Rényi-DP accountant: it keeps, for each order α of a fixed
// grid, the sum of the composed events' RDP ε(α), and converts to (ε, δ)
// on demand. Composition is exact (RDP adds); the slack is in the
// conversion and the finite order grid.
//
// Set Neighbouring, Series and WOR before the first Compose.
type RDP struct {
	// Neighbouring is the relation the guarantee is for (default AddRemove).
	Neighbouring Neighbouring
	// Series selects the fractional-order series (default Signed; see
	// FractionalSeries).
	Series FractionalSeries
	// WOR selects the bound for sampling without replacement (default
	// WORTheorem27).
	WOR WORBound
	// LaplacePanels caps the quadrature of the Poisson-sampled Laplace
	// RDP (0: 4000 panels); see Config.LaplacePanels.
	LaplacePanels int

	orders    []float64
	rdp       []float64
	err       error  // sticky: invalid orders
	infReason string // why some order became +Inf, if one did
	memo      rdpMemo
}

// NewRDP returns an empty RDP accountant over orders (nil or empty: the
// DefaultOrders). Orders must be > 1 (+Inf is allowed); an invalid grid is
// reported by every later call.
func NewRDP(orders []float64) *RDP {
	if len(orders) == 0 {
		orders = DefaultOrders()
	}
	a := &RDP{orders: slices.Clone(orders), rdp: make([]float64, len(orders))}
	for _, o := range orders {
		if err := checkOrder(o); err != nil {
			a.err = err
			break
		}
	}
	return a
}

// Orders returns a copy of the accountant's order grid.
func (a *RDP) Orders() []float64 { return slices.Clone(a.orders) }

// Values returns a copy of the accumulated RDP, aligned with Orders.
func (a *RDP) Values() []float64 { return slices.Clone(a.rdp) }

// RDPAt returns the accumulated RDP at order, which must be on the grid.
func (a *RDP) RDPAt(order float64) (float64, error) {
	if a.err != nil {
		return 0, a.err
	}
	for i, o := range a.orders {
		if o == order {
			return a.rdp[i], nil
		}
	}
	return 0, fmt.Errorf("order %v is not on the accountant's grid", order)
}

// Compose adds the RDP of e. On error the accountant is unchanged.
func (a *RDP) Compose(e Event) error {
	if a.err != nil {
		return a.err
	}
	if err := validate(e); err != nil {
		return err
	}
	v, reason, err := eventRDP(e, a.orders, rdpOpts{nb: a.Neighbouring, series: a.Series, wor: a.WOR, memo: a.memo, laplacePanels: a.LaplacePanels})
	if err != nil {
		return err
	}
	for i := range a.rdp {
		a.rdp[i] += v[i]
	}
	if reason != "" && a.infReason == "" {
		a.infReason = reason
	}
	return nil
}

// Epsilon returns the smallest ε over the grid for which the composed
// events are (ε, δ)-DP under conversion c, and the order that achieves it.
// If every order is infinite it returns ε = +Inf and an error wrapping
// ErrInfinite that says why.
func (a *RDP) Epsilon(delta float64, c Conversion) (eps, order float64, err error) {
	if a.err != nil {
		return 0, 0, a.err
	}
	eps, order, err = EpsilonFromRDP(a.orders, a.rdp, delta, c)
	if errors.Is(err, ErrInfinite) && a.infReason != "" {
		err = fmt.Errorf("%w: %s", ErrInfinite, a.infReason)
	}
	return eps, order, err
}

// Delta returns the smallest δ over the grid for which the composed events
// are (ε, δ)-DP under conversion c, and the order that achieves it.
func (a *RDP) Delta(eps float64, c Conversion) (delta, order float64, err error) {
	if a.err != nil {
		return 0, 0, a.err
	}
	delta, order, err = DeltaFromRDP(a.orders, a.rdp, eps, c)
	if errors.Is(err, ErrInfinite) && a.infReason != "" {
		err = fmt.Errorf("%w: %s", ErrInfinite, a.infReason)
	}
	return delta, order, err
}

// RDPEpsilon is the one-call form: ε at δ for event e under add/remove
// neighbouring, the improved conversion and the default orders, with the
// optimal order.
func RDPEpsilon(e Event, delta float64) (eps, order float64, err error) {
	a := NewRDP(nil)
	if err := a.Compose(e); err != nil {
		return 0, 0, err
	}
	return a.Epsilon(delta, Improved)
}

// EventRDP returns the RDP of e at each order under relation nb (signed
// series), without building an accountant.
func EventRDP(e Event, orders []float64, nb Neighbouring) ([]float64, error) {
	for _, o := range orders {
		if err := checkOrder(o); err != nil {
			return nil, err
		}
	}
	if err := validate(e); err != nil {
		return nil, err
	}
	v, _, err := eventRDP(e, orders, rdpOpts{nb: nb})
	return v, err
}

// rdpOpts are the choices an RDP computation depends on.
type rdpOpts struct {
	nb     Neighbouring
	series FractionalSeries
	wor    WORBound
	memo   rdpMemo // nil: none
	// laplacePanels caps the Poisson-sampled Laplace quadrature (0:
	// laplaceMaxPanels); see Config.LaplacePanels.
	laplacePanels int
}

// rdpMemo remembers the RDP vectors of leaf events (by their String) for
// one order grid and one set of options: the PRV accountant asks for the
// same leaves' RDP several times (the domain bound of the composition and
// of each leaf, for each ε error it tries), and the subsampled Laplace's
// quadrature costs up to a second each time.
type rdpMemo map[string]rdpMemoEntry

type rdpMemoEntry struct {
	v      []float64
	reason string
}

// eventRDP computes the RDP vector of a validated event. reason is
// non-empty when every value is +Inf and says why.
func eventRDP(e Event, orders []float64, o rdpOpts) (v []float64, reason string, err error) {
	leaf := false
	switch e.(type) {
	case SelfComposed, Composed:
	default:
		leaf = o.memo != nil
	}
	if leaf {
		if m, ok := o.memo[e.String()]; ok {
			return slices.Clone(m.v), m.reason, nil
		}
		defer func() {
			if err == nil {
				o.memo[e.String()] = rdpMemoEntry{slices.Clone(v), reason}
			}
		}()
	}
	v, reason, err = eventRDPParts(e, orders, o)
	if err != nil || reason != "" {
		return v, reason, err
	}
	all, finite := true, false
	for i, x := range v {
		if math.IsInf(orders[i], 1) {
			continue // +Inf is the normal value of most events at α = ∞
		}
		finite = true
		if !math.IsInf(x, 1) {
			all = false
		}
	}
	if finite && all {
		reason = fmt.Sprintf("%v: the RDP overflows double precision at every order", e)
	}
	return v, reason, nil
}

func eventRDPParts(e Event, orders []float64, o rdpOpts) (v []float64, reason string, err error) {
	nb := o.nb
	v = make([]float64, len(orders))
	fill := func(f func(a float64) float64) {
		for i, a := range orders {
			v[i] = f(a)
		}
	}
	switch e := e.(type) {
	case Gaussian:
		s := effSigma(e.Sigma, nb)
		fill(func(a float64) float64 { return gaussianRDP(s, a) })
		if e.Sigma == 0 {
			reason = "σ = 0: no noise"
		}
	case TreeAggregation:
		s := effSigma(treeGaussianSigma(e), nb)
		fill(func(a float64) float64 {
			if math.IsInf(s, 1) {
				return 0 // no leaves: the release ignores the data
			}
			return gaussianRDP(s, a)
		})
		if s == 0 {
			reason = "σ = 0: no noise"
		}
	case Laplace:
		b := e.Scale
		if nb == ReplaceOne {
			b /= 2
		}
		fill(func(a float64) float64 { return laplaceRDP(b, a) })
		if b == 0 {
			reason = "Laplace scale 0: no noise"
		}
	case PoissonSampled:
		if nb != AddRemove {
			return nil, "", unsupported("RDP of Poisson sampling is implemented under add-remove neighbouring only (use the PLD or PRV accountant for replace-one)")
		}
		switch in := e.Event.(type) {
		case Gaussian:
			fill(func(a float64) float64 { return poissonGaussianRDP(e.Q, in.Sigma, a, o.series) })
			if in.Sigma == 0 && e.Q > 0 {
				reason = "σ = 0: no noise"
			}
		case Laplace:
			fill(func(a float64) float64 { return poissonLaplaceRDPCap(e.Q, in.Scale, a, o.laplacePanels) })
			if in.Scale == 0 && e.Q > 0 {
				reason = "Laplace scale 0: no noise"
			}
		default:
			return nil, "", unsupported("RDP of Poisson sampling is implemented for a Gaussian or Laplace inner event, not %v", e.Event)
		}
	case SampledWithoutReplacement:
		if nb != ReplaceOne {
			return nil, "", unsupported("sampling without replacement has an RDP bound under replace-one neighbouring only (Wang–Balle–Kasiviswanathan 2019)")
		}
		return worRDPVector(e, orders, o.wor)
	case DiscreteGaussian:
		d := float64(e.Sensitivity)
		if nb == ReplaceOne {
			d *= 2
		}
		// CKS 2020 Thm 4: (Δ²/(2σ²))-zCDP, i.e. RDP ≤ α·Δ²/(2σ²).
		fill(func(a float64) float64 { return gaussianRDP(e.Sigma/d, a) })
		if e.Sigma == 0 {
			reason = "σ = 0: no noise"
		}
	case DistributedDiscreteGaussian:
		fill(func(a float64) float64 { return ddgRDP(e, a, nb) })
		if e.Sigma == 0 {
			reason = "σ = 0: no noise"
		}
	case ZCDP:
		fill(func(a float64) float64 {
			if math.IsInf(a, 1) {
				if e.Rho == 0 && e.Xi == 0 {
					return 0
				}
				return math.Inf(1)
			}
			return e.Xi + e.Rho*a
		})
	case SelfComposed:
		if e.Count == 0 {
			return v, "", nil
		}
		inner, r, err := eventRDP(e.Event, orders, o)
		if err != nil {
			return nil, "", err
		}
		for i := range v {
			v[i] = inner[i] * float64(e.Count)
		}
		reason = r
	case Composed:
		for _, x := range e.Events {
			inner, r, err := eventRDP(x, orders, o)
			if err != nil {
				return nil, "", err
			}
			for i := range v {
				v[i] += inner[i]
			}
			if reason == "" {
				reason = r
			}
		}
	default:
		return nil, "", fmt.Errorf("unknown event %T", e)
	}
	return v, reason, nil
}

// effSigma is the noise multiplier relative to the sensitivity of nb.
func effSigma(sigma float64, nb Neighbouring) float64 {
	if nb == ReplaceOne {
		return sigma / 2
	}
	return sigma
}

// laplaceRDP is Mironov 2017 Prop 6: for scale b (sensitivity 1),
// ε(α) = 1/(α−1)·log(α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b}),
// and ε(∞) = 1/b.
func laplaceRDP(b, alpha float64) float64 {
	if b == 0 {
		return math.Inf(1)
	}
	if math.IsInf(alpha, 1) {
		return 1 / b
	}
	l := logAdd(math.Log(alpha/(2*alpha-1))+(alpha-1)/b, math.Log((alpha-1)/(2*alpha-1))-alpha/b)
	return l / (alpha - 1)
}

// rdpRoundoff is how far below zero an RDP value may lie and still be
// read as 0: Rényi divergences are ≥ 0, and sums of many tiny per-step
// values computed in floating point can end a few ulps below zero.
const rdpRoundoff = 1e-9

// cleanRDP clamps round-off below zero to 0 and rejects NaN and clearly
// negative values.
func cleanRDP(r, order float64) (float64, error) {
	switch {
	case math.IsNaN(r):
		return 0, fmt.Errorf("RDP value NaN at order %v", order)
	case r < -rdpRoundoff:
		return 0, fmt.Errorf("RDP value %v at order %v: want ≥ 0", r, order)
	case r < 0:
		return 0, nil
	}
	return r, nil
}

// EpsilonFromRDP converts an RDP curve (rdp[i] at orders[i]) into the
// smallest ε at δ over the grid, and the order achieving it.
//
// Improved (Balle et al. 2020 Thm 21): ε_α = r + log1p(−1/α) − (log δ +
// log α)/(α−1), used for α > 1.01 only (it is numerically unstable as
// α → 1 and useless there), and ε_α = 0 when δ² ≥ 1 − e^{−r} (then the KL
// bound δ ≤ √(1 − e^{−KL}) already gives (0, δ)). Classic (Mironov 2017):
// ε_α = r + log(1/δ)/(α−1). An infinite order contributes its RDP value.
// The result is clamped at 0. Values in [−1e-9, 0) are round-off and read
// as 0; NaN or anything lower is an error.
func EpsilonFromRDP(orders, rdp []float64, delta float64, c Conversion) (eps, order float64, err error) {
	if len(orders) != len(rdp) || len(orders) == 0 {
		return 0, 0, fmt.Errorf("need one RDP value per order (got %d orders, %d values)", len(orders), len(rdp))
	}
	if !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("δ = %v: want 0 < δ < 1", delta)
	}
	if c != Improved && c != Classic {
		return 0, 0, fmt.Errorf("unknown conversion %v", c)
	}
	best, bestOrder := math.Inf(1), 0.0
	logDelta := math.Log(delta)
	for i, a := range orders {
		if err := checkOrder(a); err != nil {
			return 0, 0, err
		}
		r, err := cleanRDP(rdp[i], a)
		if err != nil {
			return 0, 0, err
		}
		var e float64
		switch {
		case math.IsInf(r, 1):
			continue
		case math.IsInf(a, 1):
			e = r
		case c == Classic:
			e = r - logDelta/(a-1)
		case delta*delta+math.Expm1(-r) >= 0:
			e = 0
		case a > 1.01:
			e = r + math.Log1p(-1/a) - (logDelta+math.Log(a))/(a-1)
		default:
			continue
		}
		if e < best {
			best, bestOrder = e, a
		}
	}
	if math.IsInf(best, 1) {
		return best, 0, fmt.Errorf("%w: the RDP is infinite at every order", ErrInfinite)
	}
	return math.Max(0, best), bestOrder, nil
}

// DeltaFromRDP converts an RDP curve into the smallest δ at ε over the
// grid, and the order achieving it. Improved: log δ = min_α (α−1)(r − ε +
// log1p(−1/α)) − log α, capped by the KL bound δ ≤ √(1 − e^{−r}); Classic:
// δ = min_α e^{(α−1)(r−ε)}. δ is capped at 1.
func DeltaFromRDP(orders, rdp []float64, eps float64, c Conversion) (delta, order float64, err error) {
	if len(orders) != len(rdp) || len(orders) == 0 {
		return 0, 0, fmt.Errorf("need one RDP value per order (got %d orders, %d values)", len(orders), len(rdp))
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, 0, fmt.Errorf("ε = %v: want a finite value ≥ 0", eps)
	}
	if c != Improved && c != Classic {
		return 0, 0, fmt.Errorf("unknown conversion %v", c)
	}
	bestLog, bestOrder := 0.0, 0.0 // log δ = 0: δ = 1 is always true
	allInf := true
	for i, a := range orders {
		if err := checkOrder(a); err != nil {
			return 0, 0, err
		}
		r, err := cleanRDP(rdp[i], a)
		if err != nil {
			return 0, 0, err
		}
		if math.IsInf(r, 1) {
			continue
		}
		allInf = false
		var ld float64
		switch {
		case math.IsInf(a, 1):
			if r <= eps {
				ld = math.Inf(-1)
			} else {
				continue
			}
		case c == Classic:
			ld = (a - 1) * (r - eps)
		default:
			ld = (a-1)*(r-eps+math.Log1p(-1/a)) - math.Log(a)
			if r > 0 {
				ld = math.Min(ld, 0.5*math.Log(-math.Expm1(-r)))
			} else {
				ld = math.Inf(-1)
			}
		}
		if ld < bestLog {
			bestLog, bestOrder = ld, a
		}
	}
	if allInf {
		return 1, 0, fmt.Errorf("%w: the RDP is infinite at every order", ErrInfinite)
	}
	return math.Exp(bestLog), bestOrder, nil
}
