package accountant

import (
	"fmt"
	"math"
)

// pldAccountant is the Accountant of KindPLD. Events are recorded and
// composed at query time: "ε at δ" coarsens the grid until the losses fit
// (PLDEpsilonAdaptive), so the composition depends on the question.
type pldAccountant struct {
	cfg    Config
	events eventLog
}

func (p *pldAccountant) Kind() Kind { return KindPLD }

func (p *pldAccountant) Supports(e Event) error { return lossSupported(e, p.cfg.Neighbouring, "pld") }

// Compose checks e as the PLD accountant itself does (its errors name
// "PLD") and records it.
func (p *pldAccountant) Compose(e Event) error {
	return p.events.add(e, func(e Event) error { return lossSupported(e, p.cfg.Neighbouring, "PLD") })
}

func (p *pldAccountant) Epsilon(delta float64) (Estimate, error) {
	o := p.cfg.pldOptions()
	eps, iv, err := PLDEpsilonAdaptive(p.events.event(), delta, o)
	r := Estimate{Kind: KindPLD, Value: eps, Estimate: eps, Interval: iv}
	if err == nil && iv != o.withDefaults().Interval {
		r.Note = fmt.Sprintf("PLD grid coarsened from interval %g to %g to fit %d points (still an upper bound)", o.withDefaults().Interval, iv, o.MaxPoints)
	}
	return r, err
}

func (p *pldAccountant) Delta(eps float64) (Estimate, error) {
	r := Estimate{Kind: KindPLD}
	o := p.cfg.pldOptions().withDefaults()
	first := o.Interval
	for {
		a := NewPLD(o)
		if err := a.Compose(p.events.event()); err != nil {
			return r, err
		}
		d, err := a.Delta(eps)
		if err != nil {
			return r, err
		}
		if r.Interval == 0 || d < r.Value {
			r.Value, r.Estimate, r.Interval = d, d, o.Interval
		}
		// δ = 1 says nothing: at this interval the grid cap moved the
		// losses that matter to +∞. Every interval's pessimistic δ bounds
		// the true δ, so a coarser grid (which fits more of the loss
		// range) may answer; the smallest answer is kept, as ε at δ
		// coarsens (PLDEpsilonAdaptive).
		if r.Value < 1 || o.Interval*4 > maxAdaptiveInterval {
			break
		}
		// Coarsen ×4, or by as many factors of 4 as the widest grid this
		// attempt asked for needs to fit the cap: the grids in between
		// would cap the same losses again (a level skipped this way can
		// only leave δ larger, never below the truth).
		step := 4.0
		for a.need/step > float64(o.MaxPoints) && o.Interval*step*4 <= maxAdaptiveInterval {
			step *= 4
		}
		o.Interval *= step
	}
	if r.Interval != first {
		r.Note = fmt.Sprintf("PLD grid coarsened from interval %g to %g, where the finer grid's cap left only the trivial δ = 1 (still an upper bound)", first, r.Interval)
	} else if r.Value >= 1 {
		r.Note = fmt.Sprintf("δ = 1, the trivial bound, at every PLD interval tried up to %g (the true δ may be 1, or the grid cap of %d points may leave the deciding losses at +∞)", maxAdaptiveInterval, o.MaxPoints)
	}
	return r, nil
}

// lossSupported reports whether the PLD or PRV accountant (which share
// the privacy-loss distributions of leafLoss) can take e.
func lossSupported(e Event, nb Neighbouring, name string) error {
	if err := validate(e); err != nil {
		return err
	}
	leaves, err := flatten(e)
	if err != nil {
		return err
	}
	for _, lf := range leaves {
		if _, _, _, err := leafLoss(lf.event, nb, name, math.Inf(1)); err != nil {
			return err
		}
	}
	return nil
}
