package accountant

// zcdpAccountant is the Accountant of KindZCDP: ρ and ξ add up under
// composition; the conversion is c's.
type zcdpAccountant struct {
	cfg    Config
	events eventLog
}

func (z *zcdpAccountant) Kind() Kind { return KindZCDP }

func (z *zcdpAccountant) Supports(e Event) error {
	_, _, err := ZCDPOf(e, z.cfg.Neighbouring)
	return err
}

func (z *zcdpAccountant) Compose(e Event) error { return z.events.add(e, z.Supports) }

func (z *zcdpAccountant) Epsilon(delta float64) (Estimate, error) {
	r := Estimate{Kind: KindZCDP}
	rho, xi, err := ZCDPOf(z.events.event(), z.cfg.Neighbouring)
	if err != nil {
		return r, err
	}
	eps, order, err := ZCDPEpsilon(rho, xi, delta, z.cfg.Conversion)
	r.Value, r.Estimate, r.Order = eps, eps, order
	return r, err
}

func (z *zcdpAccountant) Delta(eps float64) (Estimate, error) {
	r := Estimate{Kind: KindZCDP}
	rho, xi, err := ZCDPOf(z.events.event(), z.cfg.Neighbouring)
	if err != nil {
		return r, err
	}
	d, order, err := ZCDPDelta(rho, xi, eps, z.cfg.Conversion)
	r.Value, r.Estimate, r.Order = d, d, order
	return r, err
}
