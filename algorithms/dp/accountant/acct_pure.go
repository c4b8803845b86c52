package accountant

import "errors"

// pureAccountant is the Accountant of KindPure: ε with δ = 0, valid for
// every δ; δ at ε is 0 at or above the pure ε and 1 below (pure DP alone
// says nothing there).
type pureAccountant struct {
	cfg    Config
	events eventLog
}

func (p *pureAccountant) Kind() Kind { return KindPure }

func (p *pureAccountant) Supports(e Event) error {
	_, err := PureEpsilon(e, p.cfg.Neighbouring)
	if errors.Is(err, ErrInfinite) {
		return nil // supported: the answer is ∞
	}
	return err
}

func (p *pureAccountant) Compose(e Event) error { return p.events.add(e, p.Supports) }

func (p *pureAccountant) Epsilon(delta float64) (Estimate, error) {
	r := Estimate{Kind: KindPure}
	if !(delta >= 0 && delta < 1) {
		return r, errDelta(delta)
	}
	eps, err := PureEpsilon(p.events.event(), p.cfg.Neighbouring)
	r.Value, r.Estimate = eps, eps
	return r, err
}

func (p *pureAccountant) Delta(eps float64) (Estimate, error) {
	r := Estimate{Kind: KindPure}
	pe, err := PureEpsilon(p.events.event(), p.cfg.Neighbouring)
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
