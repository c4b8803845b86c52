package accountant

import (
	"errors"
	"fmt"
)

// prvAccountant is the Accountant of KindPRV. With a work cap
// (Config.WorkPoints) a domain that does not fit raises the ε error ×4
// (up to maxPRVEpsErrorRaises times): the bounds stay proven, only wider.
type prvAccountant struct {
	cfg Config
	a   *PRV
}

func (p *prvAccountant) Kind() Kind { return KindPRV }

func (p *prvAccountant) Supports(e Event) error { return lossSupported(e, p.cfg.Neighbouring, "prv") }

func (p *prvAccountant) prv() *PRV {
	if p.a == nil {
		p.a = NewPRV(p.cfg.prvOptions())
	}
	return p.a
}

func (p *prvAccountant) Compose(e Event) error { return p.prv().Compose(e) }

func (p *prvAccountant) Epsilon(delta float64) (Estimate, error) {
	a := p.prv()
	ee := a.opts.EpsError
	var est PRVEstimate
	var err error
	for raise := 0; ; raise++ {
		a.opts.EpsError = ee
		est, err = a.Epsilon(delta)
		if !errors.Is(err, ErrGridCap) || raise == maxPRVEpsErrorRaises || p.cfg.WorkPoints == 0 || p.cfg.PRV.MaxPoints != 0 {
			break
		}
		ee *= 4
	}
	r := Estimate{Kind: KindPRV, Value: est.Upper, Estimate: est.Estimate, Lower: est.Lower, Mesh: est.Mesh, Domain: est.Domain, EpsError: ee}
	if err == nil && ee != p.cfg.PRV.withDefaults().EpsError {
		r.Note = fmt.Sprintf("PRV ε error raised to %g to fit %d points (bounds still proven)", ee, a.opts.MaxPoints)
	}
	return r, err
}

func (p *prvAccountant) Delta(eps float64) (Estimate, error) {
	est, err := p.prv().Delta(eps)
	return Estimate{Kind: KindPRV, Value: est.Upper, Estimate: est.Estimate, Lower: est.Lower, Mesh: est.Mesh, Domain: est.Domain}, err
}
