package accountant

import (
	"errors"
	"fmt"
	"math"
)

// Event describes what a private computation did, separately from how its
// privacy is accounted — the design of Google's dp_accounting. An accountant
// (RDP, PLD) composes events; the same event can be given to either. The
// interface is sealed: only the types in this package implement it.
//
// Supported combinations (anything else returns an error wrapping
// ErrUnsupported):
//
//	event                         RDP                  PLD
//	Gaussian                      both relations       both relations
//	Laplace                       both relations       both relations
//	PoissonSampled{Gaussian}      AddRemove            AddRemove, ReplaceOne
//	SampledWithoutReplacement{G}  ReplaceOne           —
//	SelfComposed, Composed        as their parts       as their parts
type Event interface {
	isEvent()
	String() string
}

// Gaussian is the Gaussian mechanism. Sigma is the noise multiplier: the
// noise standard deviation divided by C, the L2 bound on one record's
// contribution (the clip norm). C is the L2 sensitivity under AddRemove;
// under ReplaceOne a record's contribution can flip from +C to −C, the
// sensitivity is 2C, and the accountants therefore use Sigma/2. (Opacus and
// dp_accounting do not halve: they read Sigma as std / sensitivity under
// whichever relation is chosen. Pass 2σ to reproduce their replace-one
// numbers.) Sigma = 0 means no noise: ε = ∞.
type Gaussian struct{ Sigma float64 }

// Laplace is the Laplace mechanism: Scale is the noise scale b divided by
// the L1 bound on one record's contribution, so alone it is (1/Scale, 0)-DP
// under AddRemove. Under ReplaceOne the accountants use Scale/2, as for
// Gaussian.
type Laplace struct{ Scale float64 }

// PoissonSampled runs Event on a Poisson subsample: each record is included
// independently with probability Q. This is the sampling DP-SGD accounting
// assumes; fixed-size or shuffled batches are not Poisson (spec §E4).
type PoissonSampled struct {
	Q     float64
	Event Event
}

// SampledWithoutReplacement runs Event on a uniformly random subset of
// exactly SampleSize of PopulationSize records. Its RDP bound is Wang,
// Balle and Kasiviswanathan (2019) Theorem 9, which holds under ReplaceOne
// only.
type SampledWithoutReplacement struct {
	SampleSize, PopulationSize int
	Event                      Event
}

// SelfComposed is Count sequential runs of the same Event (e.g. the steps of
// DP-SGD). Count = 0 is a no-op.
type SelfComposed struct {
	Event Event
	Count int
}

// Composed is the sequential composition of several events.
type Composed struct{ Events []Event }

func (Gaussian) isEvent()                  {}
func (Laplace) isEvent()                   {}
func (PoissonSampled) isEvent()            {}
func (SampledWithoutReplacement) isEvent() {}
func (SelfComposed) isEvent()              {}
func (Composed) isEvent()                  {}

// String describes the event for logs and error messages.
func (e Gaussian) String() string { return fmt.Sprintf("Gaussian(σ=%g)", e.Sigma) }

// String describes the event for logs and error messages.
func (e Laplace) String() string { return fmt.Sprintf("Laplace(b=%g)", e.Scale) }

// String describes the event for logs and error messages.
func (e PoissonSampled) String() string {
	return fmt.Sprintf("PoissonSampled(q=%g, %v)", e.Q, e.Event)
}

// String describes the event for logs and error messages.
func (e SampledWithoutReplacement) String() string {
	return fmt.Sprintf("SampledWithoutReplacement(%d of %d, %v)", e.SampleSize, e.PopulationSize, e.Event)
}

// String describes the event for logs and error messages.
func (e SelfComposed) String() string { return fmt.Sprintf("%d×%v", e.Count, e.Event) }

// String describes the event for logs and error messages.
func (e Composed) String() string { return fmt.Sprintf("Composed%v", e.Events) }

// Neighbouring is the relation between datasets that differential privacy
// protects.
type Neighbouring int

const (
	// AddRemove: D′ is D with one record added or removed (the default; the
	// relation of Poisson-sampled DP-SGD accounting).
	AddRemove Neighbouring = iota
	// ReplaceOne: D′ is D with one record replaced by another (same size);
	// the relation sampling without replacement needs.
	ReplaceOne
)

// String returns the flag spelling: "add-remove" or "replace-one".
func (n Neighbouring) String() string {
	switch n {
	case AddRemove:
		return "add-remove"
	case ReplaceOne:
		return "replace-one"
	}
	return fmt.Sprintf("Neighbouring(%d)", int(n))
}

// ParseNeighbouring reads "add-remove" or "replace-one".
func ParseNeighbouring(s string) (Neighbouring, error) {
	switch s {
	case "add-remove":
		return AddRemove, nil
	case "replace-one":
		return ReplaceOne, nil
	}
	return 0, fmt.Errorf("unknown neighbouring relation %q (want add-remove or replace-one)", s)
}

// Conversion chooses how an RDP curve is turned into (ε, δ).
type Conversion int

const (
	// Improved is Balle et al. 2020 ("Hypothesis testing interpretations
	// and Rényi DP") Thm 21, as Opacus and dp_accounting use:
	// ε = min_α RDP(α) + log((α−1)/α) − (log δ + log α)/(α−1).
	Improved Conversion = iota
	// Classic is Mironov 2017 Prop 3: ε = min_α RDP(α) + log(1/δ)/(α−1).
	Classic
)

// String returns "improved" or "classic".
func (c Conversion) String() string {
	switch c {
	case Improved:
		return "improved"
	case Classic:
		return "classic"
	}
	return fmt.Sprintf("Conversion(%d)", int(c))
}

// ErrUnsupported is wrapped by errors for event/accountant/relation
// combinations that have no (implemented) bound.
var ErrUnsupported = errors.New("unsupported")

// ErrInfinite is wrapped by the error an accountant returns alongside
// ε = +Inf (or δ = 1): the composed events give no privacy, and the
// error's text says why (for example "σ = 0: no noise").
var ErrInfinite = errors.New("ε is infinite")

// ErrUnreachable is wrapped by Calibrate's error when no noise level meets
// the target.
var ErrUnreachable = errors.New("target unreachable")

func unsupported(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, a...))
}

// validate checks the parameters of e (recursively) and returns a
// descriptive error for values no accountant can use.
func validate(e Event) error {
	switch e := e.(type) {
	case nil:
		return errors.New("nil event")
	case Gaussian:
		if !(e.Sigma >= 0) || math.IsInf(e.Sigma, 0) {
			return fmt.Errorf("gaussian noise multiplier σ = %v: want a finite value ≥ 0", e.Sigma)
		}
	case Laplace:
		if !(e.Scale >= 0) || math.IsInf(e.Scale, 0) {
			return fmt.Errorf("laplace scale b = %v: want a finite value ≥ 0", e.Scale)
		}
	case PoissonSampled:
		if !(e.Q >= 0 && e.Q <= 1) {
			return fmt.Errorf("sampling probability q = %v: want 0 ≤ q ≤ 1", e.Q)
		}
		return validate(e.Event)
	case SampledWithoutReplacement:
		if e.PopulationSize < 1 || e.SampleSize < 0 || e.SampleSize > e.PopulationSize {
			return fmt.Errorf("sample of %d out of %d: want 0 ≤ sample ≤ population, population ≥ 1", e.SampleSize, e.PopulationSize)
		}
		return validate(e.Event)
	case SelfComposed:
		if e.Count < 0 {
			return fmt.Errorf("composition count %d: want ≥ 0", e.Count)
		}
		return validate(e.Event)
	case Composed:
		for _, x := range e.Events {
			if err := validate(x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown event %T", e)
	}
	return nil
}
