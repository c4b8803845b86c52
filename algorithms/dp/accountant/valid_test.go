package accountant

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// validSamplings are one representative of every sampling kind.
var validSamplings = []Sampling{
	{Kind: SampleFull},
	{Kind: SamplePoisson, Q: 0.01},
	{Kind: SampleFixed, Size: 10, Population: 1000},
	{Kind: SampleShuffled, Size: 10, Population: 1000},
}

// TestValidEventTable pins every sampling × visibility × relation row of
// ValidEvent: the event it maps to, or a refusal.
func TestValidEventTable(t *testing.T) {
	g := Gaussian{Sigma: 1.1}
	const T = 250 // 2.5 epochs of 100 shuffled batches: 3 participations
	full := SelfComposed{Event: g, Count: T}
	for _, tc := range []struct {
		s       int // index in validSamplings
		visible bool
		nb      Neighbouring
		want    Event // nil: refused
	}{
		{0, false, AddRemove, full},
		{0, false, ReplaceOne, full},
		{0, true, AddRemove, full},
		{1, false, AddRemove, SelfComposed{Event: PoissonSampled{Q: 0.01, Event: g}, Count: T}},
		{1, false, ReplaceOne, SelfComposed{Event: PoissonSampled{Q: 0.01, Event: g}, Count: T}},
		{1, true, AddRemove, full},
		{1, true, ReplaceOne, full},
		{2, false, AddRemove, nil},
		{2, false, ReplaceOne, SelfComposed{Event: SampledWithoutReplacement{SampleSize: 10, PopulationSize: 1000, Event: g}, Count: T}},
		{2, true, AddRemove, full},
		{3, false, AddRemove, nil},
		{3, false, ReplaceOne, SelfComposed{Event: g, Count: 3}},
		{3, true, AddRemove, SelfComposed{Event: g, Count: 3}},
	} {
		r := Run{Unit: UnitExample, Sampling: validSamplings[tc.s], Visible: tc.visible, Neighbouring: tc.nb, Releases: T}
		t.Run(r.String(), func(t *testing.T) {
			got, err := ValidEvent(r, g)
			if tc.want == nil {
				if !errors.Is(err, ErrSamplingMismatch) {
					t.Fatalf("ValidEvent = %v, %v; want a refusal wrapping ErrSamplingMismatch", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want.String() {
				t.Fatalf("ValidEvent = %v, want %v", got, tc.want)
			}
			if err := CheckRun(r, got, tc.nb); err != nil {
				t.Fatalf("CheckRun refuses ValidEvent's own event: %v", err)
			}
		})
	}
}

// TestCheckRunPlantedMismatches plants the mistakes Opacus issue 813 and
// jax_privacy PR 272 only warn about, and others; each must be an error
// naming the run and the request.
func TestCheckRunPlantedMismatches(t *testing.T) {
	g := Gaussian{Sigma: 1}
	pois := func(q float64, n int) Event { return SelfComposed{Event: PoissonSampled{Q: q, Event: g}, Count: n} }
	shuffled := Run{Sampling: Sampling{Kind: SampleShuffled, Size: 10, Population: 1000}, Neighbouring: ReplaceOne, Releases: 1000}
	fixed := Run{Unit: UnitUser, Sampling: Sampling{Kind: SampleFixed, Size: 10, Population: 100}, Neighbouring: ReplaceOne, Releases: 50}
	poisson := Run{Sampling: Sampling{Kind: SamplePoisson, Q: 0.01}, Neighbouring: AddRemove, Releases: 1000}
	visible := poisson
	visible.Visible = true
	for _, tc := range []struct {
		name string
		r    Run
		e    Event
		nb   Neighbouring
		want string // a fragment of the error
	}{
		{"shuffled accounted as Poisson", shuffled, pois(0.01, 1000), ReplaceOne, "needs hidden Poisson"},
		{"fixed cohort accounted as Poisson", fixed, pois(0.1, 50), ReplaceOne, "needs hidden Poisson"},
		{"visible participation amplified", visible, pois(0.01, 1000), AddRemove, "needs hidden Poisson"},
		{"wrong q", poisson, pois(0.02, 1000), AddRemove, "q = 0.01, not 0.02"},
		{"other relation", poisson, pois(0.01, 1000), ReplaceOne, "sensitivity assumes add-remove"},
		{"too few releases", poisson, pois(0.01, 999), AddRemove, "composes 999 releases"},
		{"too few epochs", shuffled, SelfComposed{Event: g, Count: 9}, ReplaceOne, "composes 9 releases, the run has 10"},
		{"WOR on a Poisson run", poisson, SelfComposed{Event: SampledWithoutReplacement{SampleSize: 10, PopulationSize: 1000, Event: g}, Count: 1000}, AddRemove, "needs hidden fixed"},
		{"WOR with other sizes", fixed, SelfComposed{Event: SampledWithoutReplacement{SampleSize: 10, PopulationSize: 200, Event: g}, Count: 50}, ReplaceOne, "needs hidden fixed(10 of 200)"},
		{"shuffled under add/remove", Run{Sampling: shuffled.Sampling, Neighbouring: AddRemove, Releases: 1000}, SelfComposed{Event: g, Count: 10}, AddRemove, "no accounting is valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRun(tc.r, tc.e, tc.nb)
			if !errors.Is(err, ErrSamplingMismatch) {
				t.Fatalf("CheckRun = %v, want ErrSamplingMismatch", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, tc.r.String()) || !strings.Contains(msg, tc.e.String()) {
				t.Fatalf("error %q should name the run %q, the request %q and say %q", msg, tc.r, tc.e, tc.want)
			}
			if strings.Contains(msg, "\n") {
				t.Fatalf("error is not one line: %q", msg)
			}
			if _, err := (Config{Kind: KindRDP, Neighbouring: tc.nb}).AccountRun(tc.r, tc.e, 1e-5); !errors.Is(err, ErrSamplingMismatch) {
				t.Fatalf("AccountRun accounted a mismatched request: %v", err)
			}
		})
	}
	// The valid request passes and gives Account's number.
	e := pois(0.01, 1000)
	got, err := Config{Kind: KindRDP}.AccountRun(poisson, e, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Config{Kind: KindRDP}.Account(e, 1e-5)
	if err != nil || got.Value != want.Value {
		t.Fatalf("AccountRun = %v, Account = %v (%v)", got.Value, want.Value, err)
	}
}

// validRunGen draws a run: any sampling kind, visibility, relation and unit,
// q on a log scale, sizes up to the population, 1 … 2000 releases.
func validRunGen() gopter.Gen {
	return gopter.CombineGens(
		gen.IntRange(0, 3), gen.Bool(), gen.IntRange(0, 1), gen.IntRange(0, 1),
		gen.Float64Range(-4, 0), gen.IntRange(1, 500), gen.IntRange(1, 500), gen.IntRange(1, 2000),
	).Map(func(v []any) Run {
		a, b := v[5].(int), v[6].(int)
		s := Sampling{Kind: SamplingKind(v[0].(int)), Q: math.Pow(10, v[4].(float64)), Size: min(a, b), Population: max(a, b)}
		return Run{Unit: Unit(v[3].(int)), Sampling: s, Visible: v[1].(bool), Neighbouring: Neighbouring(v[2].(int)), Releases: v[7].(int)}
	})
}

// requests are the accountings one might ask for a run r: its own q or
// sizes in every wrapper, unamplified, at its release count, under both
// relations.
func validRequests(r Run, g Event) []struct {
	e  Event
	nb Neighbouring
} {
	s := r.Sampling
	q := s.Q
	if s.Kind != SamplePoisson {
		q = float64(s.Size) / float64(max(s.Population, 1))
	}
	k, n := s.Size, s.Population
	if s.Kind == SamplePoisson || s.Kind == SampleFull {
		k, n = 1, 10
	}
	evs := []Event{
		SelfComposed{Event: g, Count: r.Participations()},
		SelfComposed{Event: PoissonSampled{Q: q, Event: g}, Count: r.Releases},
		SelfComposed{Event: SampledWithoutReplacement{SampleSize: k, PopulationSize: n, Event: g}, Count: r.Releases},
	}
	var out []struct {
		e  Event
		nb Neighbouring
	}
	for _, e := range evs {
		for _, nb := range []Neighbouring{AddRemove, ReplaceOne} {
			out = append(out, struct {
				e  Event
				nb Neighbouring
			}{e, nb})
		}
	}
	return out
}

// TestValidityProperties checks over random runs that (1) ValidEvent
// either refuses (ErrSamplingMismatch) or returns an event CheckRun
// accepts under the run's relation; (2) CheckRun accepts a request only
// when its relation is the run's, its amplification wrapper is the one
// ValidEvent would use (or none), and ValidEvent does not refuse the run;
// (3) amplification never costs privacy: under RDP the valid event's ε
// is at most the unamplified composition's.
func TestValidityProperties(t *testing.T) {
	g := Gaussian{Sigma: 1.3}
	props := gopter.NewProperties(propCases(300))
	props.Property("valid event accepted, every other request justified", prop.ForAll(func(r Run) string {
		valid, verr := ValidEvent(r, g)
		if verr != nil && !errors.Is(verr, ErrSamplingMismatch) {
			return fmt.Sprintf("ValidEvent(%v) failed outside the table: %v", r, verr)
		}
		if verr == nil {
			if err := CheckRun(r, valid, r.Neighbouring); err != nil {
				return fmt.Sprintf("CheckRun refuses ValidEvent(%v) = %v: %v", r, valid, err)
			}
		}
		for _, rq := range validRequests(r, g) {
			err := CheckRun(r, rq.e, rq.nb)
			inner := rq.e.(SelfComposed).Event
			want := verr == nil && rq.nb == r.Neighbouring
			if want {
				switch inner.(type) {
				case PoissonSampled:
					want = !r.Visible && r.Sampling.Kind == SamplePoisson || inner.(PoissonSampled).Q == 1
				case SampledWithoutReplacement:
					want = !r.Visible && r.Sampling.Kind == SampleFixed
				}
			}
			if (err == nil) != want {
				return fmt.Sprintf("run %v, request %v under %v: CheckRun = %v, want accepted = %v", r, rq.e, rq.nb, err, want)
			}
			if err != nil && !errors.Is(err, ErrSamplingMismatch) {
				return fmt.Sprintf("run %v: refusal %v does not wrap ErrSamplingMismatch", r, err)
			}
		}
		return ""
	}, validRunGen()))
	props.Property("amplification never costs privacy (RDP, add/remove, hidden Poisson)", prop.ForAll(func(r Run) string {
		if r.Sampling.Kind != SamplePoisson || r.Visible || r.Neighbouring != AddRemove {
			return ""
		}
		valid, err := ValidEvent(r, g)
		if err != nil {
			return err.Error()
		}
		amp, _, err1 := RDPEpsilon(valid, 1e-5)
		plain, _, err2 := RDPEpsilon(SelfComposed{Event: g, Count: r.Releases}, 1e-5)
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("%v / %v", err1, err2)
		}
		if amp > plain*(1+1e-12) {
			return fmt.Sprintf("run %v: amplified ε %g > unamplified %g", r, amp, plain)
		}
		return ""
	}, validRunGen()))
	props.TestingRun(t)
}

// TestValidEventRejectsComposedMechanism: the per-release mechanism must
// be bare, so sampling cannot be applied twice.
func TestValidEventRejectsComposedMechanism(t *testing.T) {
	r := Run{Sampling: Sampling{Kind: SamplePoisson, Q: 0.1}, Releases: 3}
	for _, m := range []Event{PoissonSampled{Q: 0.1, Event: Gaussian{Sigma: 1}}, SelfComposed{Event: Gaussian{Sigma: 1}, Count: 2}} {
		if _, err := ValidEvent(r, m); err == nil {
			t.Errorf("ValidEvent accepted the mechanism %v", m)
		}
	}
	for _, bad := range []Run{
		{Sampling: Sampling{Kind: SamplePoisson, Q: 1.5}},
		{Sampling: Sampling{Kind: SampleFixed, Size: 5, Population: 3}},
		{Sampling: Sampling{Kind: SampleFull}, Releases: -1},
		{Sampling: Sampling{Kind: SamplingKind(9)}},
	} {
		if _, err := ValidEvent(bad, Gaussian{Sigma: 1}); err == nil || errors.Is(err, ErrSamplingMismatch) {
			t.Errorf("ValidEvent(%v) = %v, want a validation error", bad, err)
		}
	}
}
