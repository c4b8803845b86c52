package accountant

// exactAccountant is the Accountant of KindExact: the exact curve where
// one exists (its value is also its proven lower bound).
type exactAccountant struct {
	cfg    Config
	events eventLog
}

func (x *exactAccountant) Kind() Kind { return KindExact }

func (x *exactAccountant) Supports(e Event) error {
	_, err := exactOf(e, x.cfg.Neighbouring)
	return err
}

func (x *exactAccountant) Compose(e Event) error { return x.events.add(e, x.Supports) }

func (x *exactAccountant) Epsilon(delta float64) (Estimate, error) {
	eps, err := ExactEpsilon(x.events.event(), delta, x.cfg.Neighbouring)
	return Estimate{Kind: KindExact, Value: eps, Estimate: eps, Lower: eps}, err
}

func (x *exactAccountant) Delta(eps float64) (Estimate, error) {
	d, err := ExactDelta(x.events.event(), eps, x.cfg.Neighbouring)
	return Estimate{Kind: KindExact, Value: d, Estimate: d, Lower: d}, err
}
