package accountant

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestPLDBelowRDP: the PLD accountant is tight, RDP is not: PLD ε ≤ RDP ε.
func TestPLDBelowRDP(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 20260203, 30, 8))
	props.Property("PLD ε ≤ RDP ε", prop.ForAllNoShrink(
		func(lq, sigma float64, steps int, ld float64) string {
			e := poissonSteps(math.Pow(10, lq), sigma, steps)
			d := math.Pow(10, ld)
			r, _, err := RDPEpsilon(e, d)
			if err != nil {
				return err.Error()
			}
			p, err := PLDEpsilon(e, d)
			if err != nil {
				return err.Error()
			}
			if p > r {
				return "PLD " + ftoa(p) + " > RDP " + ftoa(r)
			}
			return ""
		}, gen.Float64Range(-2, math.Log10(0.3)), gen.Float64Range(0.8, 3), gen.IntRange(1, 300), gen.Float64Range(-8, -3)))
	props.TestingRun(t)
}

// TestPLDGaussianExact: for the Gaussian mechanism the exact curve is known;
// the PLD must never be below it (pessimistic) and be within 1e-3 in ε.
func TestPLDGaussianExact(t *testing.T) {
	cases := []struct {
		sigma float64
		k     int
	}{{0.8, 1}, {5, 1}, {1, 10}, {2, 100}, {5, 100}}
	for _, c := range cases {
		sigma, k := c.sigma, c.k
		{
			e := SelfComposed{Event: Gaussian{Sigma: sigma}, Count: k}
			a := NewPLD(PLDOptions{})
			if err := a.Compose(e); err != nil {
				t.Fatal(err)
			}
			for _, d := range []float64{1e-9, 1e-5, 1e-2} {
				exact, _ := GaussianEpsilon(sigma/math.Sqrt(float64(k)), d)
				got, err := a.Epsilon(d)
				if err != nil || got < exact-1e-9 || got > exact+1e-3 {
					t.Errorf("σ=%v k=%d δ=%v: PLD ε=%.7g, exact %.7g (%v)", sigma, k, d, got, exact, err)
				}
			}
			for _, eps := range []float64{0, 0.5, 2} {
				exact, _ := GaussianDelta(sigma/math.Sqrt(float64(k)), eps)
				got, _ := a.Delta(eps)
				if got < exact*(1-1e-9)-1e-15 {
					t.Errorf("σ=%v k=%d ε=%v: PLD δ=%.7g below exact %.7g", sigma, k, eps, got, exact)
				}
			}
		}
	}
}

// TestPLDSelfComposeMatchesSequential: the FFT-power self-composition
// agrees with composing one event at a time.
func TestPLDSelfComposeMatchesSequential(t *testing.T) {
	ev := PoissonSampled{Q: 0.05, Event: Gaussian{Sigma: 1}}
	self := NewPLD(PLDOptions{})
	if err := self.Compose(SelfComposed{Event: ev, Count: 20}); err != nil {
		t.Fatal(err)
	}
	seq := NewPLD(PLDOptions{})
	for i := 0; i < 20; i++ {
		if err := seq.Compose(ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, eps := range []float64{0.1, 0.5, 1, 2} {
		a, _ := self.Delta(eps)
		b, _ := seq.Delta(eps)
		if !near(a, b, 1e-12, 1e-6) {
			t.Errorf("ε=%v: self-composed δ=%.10g, sequential %.10g", eps, a, b)
		}
	}
}

func TestPLDReplaceOne(t *testing.T) {
	// q = 1 under replace-one is the Gaussian with sensitivity 2 (σ/2).
	a := NewPLD(PLDOptions{Neighbouring: ReplaceOne})
	if err := a.Compose(PoissonSampled{Q: 1, Event: Gaussian{Sigma: 2}}); err != nil {
		t.Fatal(err)
	}
	got, _ := a.Epsilon(1e-5)
	exact, _ := GaussianEpsilon(1, 1e-5)
	if got < exact-1e-9 || got > exact+1e-3 {
		t.Errorf("replace-one q=1 σ=2: %v, exact σ=1 gives %v", got, exact)
	}
	// Replacing is at least as revealing as adding or removing.
	e := poissonSteps(0.05, 1.5, 50)
	ar, _ := PLDEpsilon(e, 1e-5)
	if ro := pldEps(t, ReplaceOne, e, 1e-5); ro < ar {
		t.Errorf("replace-one ε %v below add-remove %v", ro, ar)
	}
}

func TestPLDLaplaceAndOptions(t *testing.T) {
	if e, err := PLDEpsilon(Laplace{Scale: 1}, 1e-12); err != nil || !near(e, 1, 1e-9, 0) {
		t.Errorf("Laplace b=1: ε=%v (%v), want 1", e, err)
	}
	for _, o := range []PLDOptions{{Interval: -1}, {Interval: math.Inf(1)}, {TailMass: 0.5}, {MaxPoints: 3}} {
		if err := NewPLD(o).Compose(Gaussian{Sigma: 1}); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	// A grid too small for the losses truncates them to infinity; when
	// that decides ε, Epsilon says so (and the adaptive form coarsens).
	// σ = 0.71: loss sd 1.4 against a grid of 1000 points at 1e-3.
	capped := NewPLD(PLDOptions{MaxPoints: 1000, Interval: 1e-3})
	if err := capped.Compose(Gaussian{Sigma: 0.71}); err != nil {
		t.Fatal(err)
	}
	if p := capped.dir[0]; !(p.trunc > 0.1) || p.trunc != p.inf {
		t.Errorf("truncated mass %v of infinity mass %v: the cut tail is truncation", p.trunc, p.inf)
	}
	if _, err := capped.Epsilon(1e-5); !errors.Is(err, ErrGridCap) || !strings.Contains(err.Error(), "coarser discretization") {
		t.Errorf("grid above MaxPoints: %v, want ErrGridCap", err)
	}
	if d, _ := capped.Delta(1); d < 0.5 {
		t.Errorf("truncated grid: δ(1) = %v should carry the truncated mass", d)
	}
	if _, err := NewPLD(PLDOptions{}).Epsilon(0); err == nil {
		t.Error("δ=0 accepted")
	}
	if err := NewPLD(PLDOptions{Neighbouring: ReplaceOne}).Compose(PoissonSampled{Q: 0.1, Event: Laplace{Scale: 1}}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Poisson-sampled Laplace under replace-one: %v", err)
	}
	// q = 0 is a no-op.
	if e, err := PLDEpsilon(poissonSteps(0, 1, 100), 1e-5); err != nil || e != 0 {
		t.Errorf("q=0: %v %v", e, err)
	}
}

// TestPLDLargeLosses: ε in the hundreds, where e^{−l} underflows, must
// still be solved exactly (a regression test: the solver once returned
// the bottom of the grid).
func TestPLDLargeLosses(t *testing.T) {
	a := NewPLD(PLDOptions{Interval: 1e-2})
	if err := a.Compose(SelfComposed{Event: Gaussian{Sigma: 0.5}, Count: 400}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Epsilon(1e-5)
	exact, _ := GaussianEpsilon(0.5/20, 1e-5)
	if err != nil || got < exact-1e-9 || got > exact+0.05 {
		t.Errorf("σ_eff = 0.025: PLD ε = %v (%v), exact %v", got, err, exact)
	}
	d, _ := a.Delta(got)
	if d > 1e-5*(1+1e-6) {
		t.Errorf("δ(ε(1e-5)) = %v", d)
	}
}

// TestPLDHugeLossesNeverBelowExact guards two failures seen at very small
// noise multipliers: a NaN in the connect-the-dots split made ε come out
// as 0, and a grid too wide for the point cap aborted the computation. PLD
// must return a finite upper bound on the exact Gaussian ε (grid coarsened
// as needed) and not exceed it by more than the discretization allows.
func TestPLDHugeLossesNeverBelowExact(t *testing.T) {
	for _, sigma := range []float64{0.0073, 0.0078, 0.03, 0.0735, 0.2} {
		exact, err := GaussianEpsilon(sigma, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		eps, interval, err := PLDEpsilonAdaptive(Gaussian{Sigma: sigma}, 1e-5, PLDOptions{})
		if err != nil {
			t.Fatalf("σ=%g: %v", sigma, err)
		}
		if eps < exact*(1-1e-9) || eps > exact+2*interval+1e-6*exact {
			t.Errorf("σ=%g: PLD ε %.6g (interval %g), exact %.6g", sigma, eps, interval, exact)
		}
	}
}

// TestPLDMassAtInfinityAboveOne: rounding can leave the mass at +∞ a hair
// above one (every finite atom beyond a small grid cap). That once made
// log1p(−inf) NaN in the self-composition and the answer ε = 0 for ten
// steps of a discrete Gaussian with ε ≈ 1,700 (sweep, session 30). A mass
// at +∞ of one or more, or NaN, must give ∞, and the composed ε can
// never fall below one step's exact ε.
func TestPLDMassAtInfinityAboveOne(t *testing.T) {
	if e := gridEpsilon([]float64{0.5}, math.NaN(), 1e-5, 1e-4, func(int) float64 { return 1 }, func(int) float64 { return 0 }); !math.IsInf(e, 1) {
		t.Errorf("gridEpsilon with NaN mass at ∞: %v, want +Inf", e)
	}
	a := NewPLD(PLDOptions{})
	p, err := a.selfCompose(pmf{lo: 0, p: []float64{0.25, 0.25}, inf: 1 + 0x1p-52}, 10)
	if err != nil || p.inf != 1 || len(p.p) != 0 {
		t.Errorf("self-composition of a mass 1+2⁻⁵² at ∞: %+v (%v), want all mass at ∞", p, err)
	}
	ev := DiscreteGaussian{Sigma: 1, Sensitivity: 18}
	one, err := ExactEpsilon(ev, 0.04, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	for _, steps := range []int{10, 1000} {
		for _, mp := range []int{1 << 16, 1 << 20} {
			eps, _, err := PLDEpsilonAdaptive(SelfComposed{Event: ev, Count: steps}, 0.04, PLDOptions{MaxPoints: mp})
			if err != nil && !errors.Is(err, ErrGridCap) {
				t.Fatal(err)
			}
			if err == nil && eps < one {
				t.Errorf("%d steps, cap %d: PLD ε %v below one step's exact ε %v", steps, mp, eps, one)
			}
		}
	}
}
