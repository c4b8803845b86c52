package accountant

import (
	"errors"
	"fmt"
	"math"
)

// This file ties what a private run did to the accounting that is valid
// for it (issue 20 item 4). A Run is recorded by the code that sampled
// (algorithms/fl, algorithms/dpfl, algorithms/normec), ValidEvent is the
// one place that maps it to accountant events, and CheckRun / AccountRun
// refuse an accounting request that assumes another sampling or another
// neighbouring relation than the run had. Opacus (issue 813) and
// jax_privacy (PR 272) only warn when a fixed-size or shuffled run is
// accounted as Poisson; here it is an error wrapping ErrSamplingMismatch.

// ErrSamplingMismatch is wrapped by the errors of ValidEvent, CheckRun and
// AccountRun: the accounting asked for is not valid for how the run
// sampled or for the neighbouring relation its sensitivity assumes.
var ErrSamplingMismatch = errors.New("accounting does not match the run")

// Unit is what two neighbouring datasets differ in: one example
// (sample-level DP, e.g. DP-SGD) or all the data of one user or client
// (user-level DP, e.g. DP-FedAvg, Fed-α-NormEC).
type Unit int

const (
	// UnitExample: neighbours differ in one training example.
	UnitExample Unit = iota
	// UnitUser: neighbours differ in one user's (client's) data.
	UnitUser
)

// String returns "example" or "user".
func (u Unit) String() string {
	switch u {
	case UnitExample:
		return "example"
	case UnitUser:
		return "user"
	}
	return fmt.Sprintf("Unit(%d)", int(u))
}

// SamplingKind is how the protected units of each release were chosen.
type SamplingKind int

const (
	// SampleFull: every unit takes part in every release (full batch,
	// every client every round).
	SampleFull SamplingKind = iota
	// SamplePoisson: each unit independently with probability Q in each
	// release (Poisson lots of DP-SGD, Bernoulli client cohorts).
	SamplePoisson
	// SampleFixed: a fresh uniformly random subset of exactly Size of the
	// Population units in each release (fixed K of N cohorts, fixed-size
	// batches drawn without replacement).
	SampleFixed
	// SampleShuffled: each epoch a random permutation of the Population
	// units is cut into consecutive batches of Size; a unit is in exactly
	// one release per epoch.
	SampleShuffled
)

// String returns "full", "poisson", "fixed" or "shuffled".
func (k SamplingKind) String() string {
	switch k {
	case SampleFull:
		return "full"
	case SamplePoisson:
		return "poisson"
	case SampleFixed:
		return "fixed"
	case SampleShuffled:
		return "shuffled"
	}
	return fmt.Sprintf("SamplingKind(%d)", int(k))
}

// Sampling is how one run chose the units of each release.
type Sampling struct {
	Kind SamplingKind
	// Q is the inclusion probability (SamplePoisson).
	Q float64
	// Size and Population: the sample (batch) size and the number of
	// units (SampleFixed, SampleShuffled).
	Size, Population int
}

// String describes the sampling for error messages.
func (s Sampling) String() string {
	switch s.Kind {
	case SamplePoisson:
		return fmt.Sprintf("poisson(q=%g)", s.Q)
	case SampleFixed:
		return fmt.Sprintf("fixed(%d of %d)", s.Size, s.Population)
	case SampleShuffled:
		return fmt.Sprintf("shuffled(batches of %d of %d)", s.Size, s.Population)
	}
	return s.Kind.String()
}

// Run is what a private run did, as its samplers recorded it: which unit
// it protects, how that unit was sampled for each release, whether the
// adversary sees which units took part, the neighbouring relation the
// sensitivity (clip bound) was derived for, and the number of releases.
type Run struct {
	Unit     Unit
	Sampling Sampling
	// Visible: the adversary learns which units took part in each
	// release (e.g. a server that receives each client's message). Then
	// participation is public: there is no amplification by sampling,
	// and AddRemove is read as zero-out (the unit stays in the cohort and
	// sends a message carrying no data), the only reading under which its
	// visible participation does not itself reveal it.
	Visible bool
	// Neighbouring is the relation the sensitivity assumes.
	Neighbouring Neighbouring
	// Releases is the number of releases the unit can take part in (DP-SGD
	// steps, training rounds).
	Releases int
}

// String describes the run for error messages.
func (r Run) String() string {
	vis := "hidden"
	if r.Visible {
		vis = "visible"
	}
	return fmt.Sprintf("%s-level %v sampling (%s participation), %v, %d releases", r.Unit, r.Sampling, vis, r.Neighbouring, r.Releases)
}

// validateRun rejects descriptions no accountant can use.
func validateRun(r Run) error {
	if r.Unit != UnitExample && r.Unit != UnitUser {
		return fmt.Errorf("unknown unit %v", r.Unit)
	}
	if r.Neighbouring != AddRemove && r.Neighbouring != ReplaceOne {
		return fmt.Errorf("unknown neighbouring relation %v", r.Neighbouring)
	}
	if r.Releases < 0 {
		return fmt.Errorf("run with %d releases: want ≥ 0", r.Releases)
	}
	s := r.Sampling
	switch s.Kind {
	case SampleFull:
	case SamplePoisson:
		if !(s.Q >= 0 && s.Q <= 1) {
			return fmt.Errorf("poisson sampling q = %v: want 0 ≤ q ≤ 1", s.Q)
		}
	case SampleFixed, SampleShuffled:
		if s.Population < 1 || s.Size < 1 || s.Size > s.Population {
			return fmt.Errorf("%v sampling: want 1 ≤ size ≤ population", s)
		}
	default:
		return fmt.Errorf("unknown sampling %v", s.Kind)
	}
	return nil
}

// Participations is the largest number of releases one unit of r can
// take part in: Releases, except for shuffled batches, where a unit is in
// one release per epoch of ⌈Population/Size⌉ releases, so
// ⌈Releases/⌈Population/Size⌉⌉.
func (r Run) Participations() int {
	if r.Sampling.Kind != SampleShuffled {
		return r.Releases
	}
	per := (r.Sampling.Population + r.Sampling.Size - 1) / r.Sampling.Size
	return (r.Releases + per - 1) / per
}

// ValidEvent is the accountant event valid for r when each release runs
// the mechanism m (Gaussian, Laplace, … with its multiplier relative to
// the per-unit clip bound), to be accounted under r.Neighbouring; it is
// the only place the repository maps sampling to amplification. Rows:
//
//   - full: Releases-fold composition of m (no sampling; the sequential
//     composition theorem, Dwork and Roth 2014 Thm 3.16, or its RDP form,
//     Mironov 2017 Prop. 1).
//   - Poisson(q), hidden, either relation: Releases × PoissonSampled{q, m}
//     — amplification by Poisson subsampling (Abadi et al. 2016;
//     Mironov, Talwar and Zhang 2019 for RDP under add/remove; Zhu, Dong
//     and Wang 2022 for the PLD of both relations). The accountant itself
//     refuses the kinds without a bound (RDP under replace-one).
//   - fixed(k of n), hidden, replace-one: Releases ×
//     SampledWithoutReplacement{k, n, m} (Wang, Balle and Kasiviswanathan
//     2019 Thm 27 / Thm 9; Balle, Barthe and Gaboardi 2018 Thm 9: sampling
//     without replacement amplifies under substitution).
//   - fixed, hidden, add/remove: refused. Adding a unit changes which
//     others are drawn, so the sample can differ in a replacement, and no
//     add/remove amplification theorem for it is implemented; record the
//     sensitivity as replace-one.
//   - shuffled, hidden, replace-one: Participations() × m. Coupling the
//     permutations, a replaced unit changes one batch per epoch (parallel
//     composition within an epoch, McSherry 2009, then sequential
//     composition). No amplification by shuffling is claimed: Chua et al.
//     2024 ("How private are DP-SGD implementations?") show that Poisson
//     accounting under-reports ε for shuffled batches.
//   - shuffled, hidden, add/remove: refused. Adding a unit shifts the
//     batch boundaries, so many batches change.
//   - any sampling, visible participation: Participations() × m. The
//     cohort is public and data-independent (zero-out reading of
//     add/remove), so nothing is amplified and the worst-case unit takes
//     part in every release it can (a tighter valid curve is the mixture
//     over the number of participations, normec.EpsilonVisibleParticipation).
//
// Refusals wrap ErrSamplingMismatch and name the run.
func ValidEvent(r Run, m Event) (Event, error) {
	if err := validateRun(r); err != nil {
		return nil, err
	}
	if err := validate(m); err != nil {
		return nil, err
	}
	switch m.(type) {
	case PoissonSampled, SampledWithoutReplacement, SelfComposed, Composed:
		return nil, fmt.Errorf("per-release mechanism %v must be unsampled and uncomposed: ValidEvent adds the sampling and the releases", m)
	}
	s := r.Sampling
	if r.Visible || s.Kind == SampleFull {
		return SelfComposed{Event: m, Count: r.Participations()}, nil
	}
	switch s.Kind {
	case SamplePoisson:
		return SelfComposed{Event: PoissonSampled{Q: s.Q, Event: m}, Count: r.Releases}, nil
	case SampleFixed:
		if r.Neighbouring != ReplaceOne {
			return nil, fmt.Errorf("%w: %v: fixed-size sampling amplifies only under replace-one (Wang, Balle and Kasiviswanathan 2019 Thm 27); no add/remove bound", ErrSamplingMismatch, r)
		}
		return SelfComposed{Event: SampledWithoutReplacement{SampleSize: s.Size, PopulationSize: s.Population, Event: m}, Count: r.Releases}, nil
	case SampleShuffled:
		if r.Neighbouring != ReplaceOne {
			return nil, fmt.Errorf("%w: %v: adding a unit shifts the shuffled batches; account shuffled batches under replace-one", ErrSamplingMismatch, r)
		}
		return SelfComposed{Event: m, Count: r.Participations()}, nil
	}
	return nil, fmt.Errorf("unknown sampling %v", s.Kind)
}

// CheckRun returns nil when accounting e under relation nb is valid for
// the run r, and otherwise an error wrapping ErrSamplingMismatch that
// names both. Valid means: nb is the run's relation; every
// PoissonSampled in e with q < 1 has the run's q and the run is hidden
// Poisson (q = 1 amplifies nothing and counts as unsampled);
// every SampledWithoutReplacement has the run's k of n and the run is
// hidden fixed-size under replace-one; an unsampled mechanism is allowed
// wherever ValidEvent does not refuse the run (no amplification is always
// an upper bound then); and e composes at least Participations() releases
// per composed mechanism block (fewer would under-count). e may compose
// several blocks (a schedule); the count check applies to their sum.
func CheckRun(r Run, e Event, nb Neighbouring) error {
	if err := validateRun(r); err != nil {
		return err
	}
	if err := validate(e); err != nil {
		return err
	}
	mismatch := func(format string, a ...any) error {
		return fmt.Errorf("%w: run %v, accounting asked for %v under %v: %s", ErrSamplingMismatch, r, e, nb, fmt.Sprintf(format, a...))
	}
	if nb != r.Neighbouring {
		return mismatch("the sensitivity assumes %v", r.Neighbouring)
	}
	if _, err := ValidEvent(r, Gaussian{Sigma: 1}); err != nil {
		return mismatch("no accounting is valid for this run")
	}
	s := r.Sampling
	var count float64
	var walk func(ev Event, mult float64) error
	walk = func(ev Event, mult float64) error {
		switch ev := ev.(type) {
		case SelfComposed:
			return walk(ev.Event, mult*float64(ev.Count))
		case Composed:
			for _, x := range ev.Events {
				if err := walk(x, mult); err != nil {
					return err
				}
			}
			return nil
		case PoissonSampled:
			if ev.Q == 1 {
				// Poisson sampling with q = 1 keeps every unit: the
				// unamplified mechanism, valid wherever that is.
				return walk(ev.Event, mult)
			}
			if r.Visible || s.Kind != SamplePoisson {
				return mismatch("Poisson amplification needs hidden Poisson sampling")
			}
			if ev.Q != s.Q {
				return mismatch("the run sampled with q = %g, not %g", s.Q, ev.Q)
			}
			if err := unsampled(ev.Event, mismatch); err != nil {
				return err
			}
		case SampledWithoutReplacement:
			if r.Visible || s.Kind != SampleFixed || ev.SampleSize != s.Size || ev.PopulationSize != s.Population {
				return mismatch("sampling-without-replacement amplification needs hidden fixed(%d of %d) sampling", ev.SampleSize, ev.PopulationSize)
			}
			if err := unsampled(ev.Event, mismatch); err != nil {
				return err
			}
		}
		count += mult
		return nil
	}
	if err := walk(e, 1); err != nil {
		return err
	}
	if need := r.Participations(); count < float64(need) && !math.IsInf(count, 1) {
		return mismatch("it composes %g releases, the run has %d per unit", count, need)
	}
	return nil
}

// unsampled rejects a sampling wrapper nested inside another.
func unsampled(e Event, mismatch func(string, ...any) error) error {
	switch e.(type) {
	case PoissonSampled, SampledWithoutReplacement, SelfComposed, Composed:
		return mismatch("nested sampling or composition inside a sampled event")
	}
	return nil
}

// AccountRun is Config.Account after CheckRun(r, e, c.Neighbouring): the
// (ε, δ) of e at delta, or an error wrapping ErrSamplingMismatch when e or
// the configured relation is not valid for how r sampled.
func (c Config) AccountRun(r Run, e Event, delta float64) (Estimate, error) {
	if err := CheckRun(r, e, c.Neighbouring); err != nil {
		return Estimate{Value: math.NaN()}, err
	}
	return c.Account(e, delta)
}
