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
	// KindPLD is the privacy-loss-distribution accountant (tight; slower).
	KindPLD
)

// String returns "rdp" or "pld".
func (k Kind) String() string {
	switch k {
	case KindRDP:
		return "rdp"
	case KindPLD:
		return "pld"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Config says how to account for an event: which accountant, and for RDP
// the conversion, orders and series. The zero Config is RDP, improved
// conversion, default orders, signed series, add/remove neighbouring.
type Config struct {
	Kind         Kind
	Conversion   Conversion       // RDP only
	Orders       []float64        // RDP only; nil = DefaultOrders
	Series       FractionalSeries // RDP only
	Neighbouring Neighbouring
	PLD          PLDOptions // PLD only; its Neighbouring is taken from Config
}

// Epsilon returns ε at δ for event e under c, and for RDP the optimal order
// (0 for PLD).
func (c Config) Epsilon(e Event, delta float64) (eps, order float64, err error) {
	switch c.Kind {
	case KindRDP:
		a := NewRDP(c.Orders)
		a.Neighbouring, a.Series = c.Neighbouring, c.Series
		if err := a.Compose(e); err != nil {
			return 0, 0, err
		}
		return a.Epsilon(delta, c.Conversion)
	case KindPLD:
		o := c.PLD
		o.Neighbouring = c.Neighbouring
		eps, _, err := PLDEpsilonAdaptive(e, delta, o)
		return eps, 0, err
	}
	return 0, 0, fmt.Errorf("unknown accountant kind %v", c.Kind)
}

// Calibration bounds: σ is searched in [calMinSigma, calMaxSigma].
const (
	calMinSigma = 1e-3
	calMaxSigma = 1e6
	calRelTol   = 1e-5
)

// Calibrate returns (to relative precision 1e-5) the smallest noise
// multiplier σ for which build(σ) is (targetEps, delta)-DP under c: the
// returned σ has been evaluated and meets the target (spec §E5: a binary
// search must not return a σ whose ε exceeds the target), and
// σ·(1 − 1e-4) does not meet it (ε is non-increasing in σ for the events of
// this package).
//
// A target that no σ ≤ 1e6 reaches (for example below the floor that the
// RDP conversion and a finite order grid impose even with infinite noise)
// returns an error wrapping ErrUnreachable that states the best ε found. A
// target already met at σ = 1e-3 returns an error too: σ is then not
// determined by the target.
func Calibrate(build func(sigma float64) Event, targetEps, delta float64, c Config) (float64, error) {
	if !(targetEps > 0) || math.IsInf(targetEps, 1) {
		return 0, fmt.Errorf("target ε = %v: want a finite value > 0", targetEps)
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("δ = %v: want 0 < δ < 1", delta)
	}
	f := func(s float64) (float64, error) {
		eps, _, err := c.Epsilon(build(s), delta)
		if errors.Is(err, ErrInfinite) {
			return math.Inf(1), nil
		}
		return eps, err
	}
	meets := func(s float64) (bool, float64, error) {
		e, err := f(s)
		return e <= targetEps, e, err
	}
	lo, hi := 1.0, 1.0
	ok, e, err := meets(hi)
	if err != nil {
		return 0, err
	}
	if ok {
		for {
			lo = hi / 2
			if lo < calMinSigma {
				return 0, fmt.Errorf("target ε = %g is met even at σ = %g (ε = %.4g): the noise level is not determined by this target", targetEps, hi, e)
			}
			okLo, eLo, err := meets(lo)
			if err != nil {
				return 0, err
			}
			if !okLo {
				break
			}
			hi, e = lo, eLo
		}
	} else {
		for !ok {
			lo = hi
			hi *= 2
			if hi > calMaxSigma {
				return 0, fmt.Errorf("%w: target ε = %g at δ = %g: even σ = %g gives ε = %.4g under the %v accountant", ErrUnreachable, targetEps, delta, lo, e, c.Kind)
			}
			if ok, e, err = meets(hi); err != nil {
				return 0, err
			}
		}
	}
	// Invariant: ε(lo) > target ≥ ε(hi). Bisect in log space.
	for hi/lo > 1+calRelTol {
		mid := math.Sqrt(lo * hi)
		okMid, _, err := meets(mid)
		if err != nil {
			return 0, err
		}
		if okMid {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
