package accountant

// rdpAccountant is the Accountant of KindRDP: an RDP accountant on c's
// orders, with c's series, WOR bound and conversion.
type rdpAccountant struct {
	cfg Config
	a   *RDP
}

func newRDPAccountant(c Config) *rdpAccountant {
	a := NewRDP(c.Orders)
	a.Neighbouring, a.Series, a.WOR, a.LaplacePanels = c.Neighbouring, c.Series, c.WOR, c.LaplacePanels
	return &rdpAccountant{cfg: c, a: a}
}

func (r *rdpAccountant) Kind() Kind { return KindRDP }

func (r *rdpAccountant) Supports(e Event) error {
	if err := validate(e); err != nil {
		return err
	}
	_, _, err := eventRDP(e, []float64{2}, rdpOpts{nb: r.cfg.Neighbouring, series: r.cfg.Series, wor: WORTheorem9})
	return err
}

func (r *rdpAccountant) Compose(e Event) error { return r.a.Compose(e) }

func (r *rdpAccountant) Epsilon(delta float64) (Estimate, error) {
	eps, order, err := r.a.Epsilon(delta, r.cfg.Conversion)
	return Estimate{Kind: KindRDP, Value: eps, Estimate: eps, Order: order}, err
}

func (r *rdpAccountant) Delta(eps float64) (Estimate, error) {
	d, order, err := r.a.Delta(eps, r.cfg.Conversion)
	return Estimate{Kind: KindRDP, Value: d, Estimate: d, Order: order}, err
}
