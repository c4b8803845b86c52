package accountant

import (
	"errors"
	"fmt"
	"math"
)

// Accountant composes events and answers "ε at δ" and "δ at ε" — the
// PrivacyAccountant of Google's dp_accounting (supports / compose /
// get_epsilon / get_delta), one implementation per Kind, each in its own
// file (acct_rdp.go, acct_pld.go, acct_prv.go, acct_zcdp.go,
// acct_exact.go, acct_pure.go). Config.New builds one; Config.Account,
// AccountDelta and Supported are written once on top of it.
//
// An Accountant is not safe for concurrent use.
type Accountant interface {
	// Kind names the accountant.
	Kind() Kind
	// Supports returns nil when the accountant can account for e, else
	// an error wrapping ErrUnsupported with the reason (or a validation
	// error). It does no accounting beyond what deciding needs.
	Supports(e Event) error
	// Compose adds e (after Supports); on error nothing is added.
	Compose(e Event) error
	// Epsilon is the guarantee ε at δ for everything composed so far: an
	// unbounded ε is Value = +Inf with an error wrapping ErrInfinite.
	Epsilon(delta float64) (Estimate, error)
	// Delta is the guarantee δ at ε (ε finite and ≥ 0).
	Delta(eps float64) (Estimate, error)
}

// New returns an empty accountant of c's kind with c's options.
func (c Config) New() (Accountant, error) {
	switch c.Kind {
	case KindRDP:
		return newRDPAccountant(c), nil
	case KindPLD:
		return &pldAccountant{cfg: c}, nil
	case KindPRV:
		return &prvAccountant{cfg: c}, nil
	case KindZCDP:
		return &zcdpAccountant{cfg: c}, nil
	case KindExact:
		return &exactAccountant{cfg: c}, nil
	case KindPure:
		return &pureAccountant{cfg: c}, nil
	}
	return nil, fmt.Errorf("unknown accountant kind %v", c.Kind)
}

// Account returns c's answer to "ε at δ" for e. Unsupported combinations
// return an error wrapping ErrUnsupported that says why; an unbounded ε
// returns Value = +Inf with an error wrapping ErrInfinite. When the PLD
// or PRV accountant hits its grid cap the error (wrapping ErrGridCap) is
// returned with the RDP upper bound in Value (Estimate.Fallback).
func (c Config) Account(e Event, delta float64) (Estimate, error) {
	r := Estimate{Kind: c.Kind}
	a, err := c.New()
	if err != nil {
		return r, err
	}
	if err := a.Compose(e); err != nil {
		return r, err
	}
	r, err = a.Epsilon(delta)
	r.Kind = c.Kind
	return c.withFallback(r, e, delta, err)
}

// AccountDelta returns c's answer to "δ at ε" for e. For KindPure it is
// 0 when ε is at least the pure-DP ε and 1 otherwise (pure DP alone says
// nothing below it).
func (c Config) AccountDelta(e Event, eps float64) (Estimate, error) {
	r := Estimate{Kind: c.Kind}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return r, fmt.Errorf("ε = %v: want a finite value ≥ 0", eps)
	}
	a, err := c.New()
	if err != nil {
		return r, err
	}
	if err := a.Compose(e); err != nil {
		return r, err
	}
	r, err = a.Delta(eps)
	r.Kind = c.Kind
	return r, err
}

// Supported reports whether c can account for e: nil, or an error
// wrapping ErrUnsupported with the reason (or a validation error). It
// does no accounting beyond what deciding needs.
func (c Config) Supported(e Event) error {
	if err := validate(e); err != nil {
		return err
	}
	a, err := c.New()
	if err != nil {
		return err
	}
	return a.Supports(e)
}

// withFallback fills r with the RDP accountant's ε at δ when err says the
// grid cap or the numerical precision stopped c's accountant.
func (c Config) withFallback(r Estimate, e Event, delta float64, err error) (Estimate, error) {
	if (c.Kind != KindPLD && c.Kind != KindPRV) || (!errors.Is(err, ErrGridCap) && !errors.Is(err, ErrPrecision)) {
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

// eventLog records composed events for the accountants that evaluate at
// query time; one event is kept as is, several become Composed.
type eventLog []Event

func (l eventLog) event() Event {
	if len(l) == 1 {
		return l[0]
	}
	return Composed{Events: l}
}

func (l *eventLog) add(e Event, supports func(Event) error) error {
	if err := validate(e); err != nil {
		return err
	}
	if err := supports(e); err != nil {
		return err
	}
	*l = append(*l, e)
	return nil
}
