package accountant

import (
	"errors"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestPinZCDPTFPrivacy: TF Privacy tree_aggregation_accountant_test
// test_gaussian_zcdp_to_epsilon — ρ = 0.81 (the Gboard DP-FTRL
// announcement) is ε ≈ 8.92 (±0.01) at δ = 1e-10 through the RDP
// accountant on Opacus' orders. The tight conversion over real α is no
// larger; the classic one is ρ + 2√(ρ·log(1/δ)) (Bun–Steinke Prop 1.3).
func TestPinZCDPTFPrivacy(t *testing.T) {
	a := NewRDP(nil)
	if err := a.Compose(ZCDP{Rho: 0.81}); err != nil {
		t.Fatal(err)
	}
	grid, _, err := a.Epsilon(1e-10, Improved)
	if err != nil || !near(grid, 8.92, 0.01, 0) {
		t.Errorf("RDP of ρ = 0.81: %v (%v), want 8.92 ± 0.01", grid, err)
	}
	g, _, _ := RDPEpsilon(Gaussian{Sigma: 1 / math.Sqrt(2*0.81)}, 1e-10)
	if !near(g, grid, 1e-12, 0) {
		t.Errorf("the equivalent Gaussian gives %v, ρ gives %v", g, grid)
	}
	tight, alpha, err := ZCDPEpsilon(0.81, 0, 1e-10, Improved)
	if err != nil || tight > grid || tight < grid-0.01 || !(alpha > 1) {
		t.Errorf("tight conversion %v at α=%v (%v), grid %v", tight, alpha, err, grid)
	}
	classic, _, _ := ZCDPEpsilon(0.81, 0, 1e-10, Classic)
	if want := 0.81 + 2*math.Sqrt(0.81*math.Log(1e10)); !near(classic, want, 0, 1e-14) || classic < tight {
		t.Errorf("classic %v, want %v (≥ tight %v)", classic, want, tight)
	}
	// The exact Gaussian with μ = √(2ρ) is below every zCDP conversion.
	exact, _ := GDPEpsilon(math.Sqrt(2*0.81), 1e-10)
	if exact > tight {
		t.Errorf("exact %v above the tight zCDP conversion %v", exact, tight)
	}
}

// TestZCDPProperties: ρ of each event, composition by sums, the tight
// conversion never above the classic, and ε ↔ δ inverse.
func TestZCDPProperties(t *testing.T) {
	cases := []struct {
		e   Event
		nb  Neighbouring
		rho float64
	}{
		{Gaussian{Sigma: 2}, AddRemove, 1.0 / 8},
		{Gaussian{Sigma: 2}, ReplaceOne, 1.0 / 2},
		{Laplace{Scale: 0.5}, AddRemove, 2},
		{DiscreteGaussian{Sigma: 4, Sensitivity: 2}, AddRemove, 4.0 / 32},
		{TreeAggregation{Sigma: 1, Trees: []int{1600}}, AddRemove, 11.0 / 2},
		{SelfComposed{Event: Gaussian{Sigma: 1}, Count: 10}, AddRemove, 5},
		{Composed{Events: []Event{Gaussian{Sigma: 1}, ZCDP{Rho: 0.25}}}, AddRemove, 0.75},
		{PoissonSampled{Q: 1, Event: Gaussian{Sigma: 1}}, AddRemove, 0.5},
	}
	for _, c := range cases {
		rho, xi, err := ZCDPOf(c.e, c.nb)
		if err != nil || !near(rho, c.rho, 0, 1e-12) || xi != 0 {
			t.Errorf("%v (%v): ρ = %v ξ = %v (%v), want %v", c.e, c.nb, rho, xi, err, c.rho)
		}
	}
	if _, _, err := ZCDPOf(PoissonSampled{Q: 0.1, Event: Gaussian{Sigma: 1}}, AddRemove); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Poisson: %v", err)
	}
	if _, _, err := ZCDPEpsilon(math.Inf(1), 0, 1e-5, Improved); !errors.Is(err, ErrInfinite) {
		t.Errorf("ρ = ∞: %v", err)
	}
	props := gopter.NewProperties(propParams(t, 20261125, 100, 30))
	props.Property("tight ≤ classic; δ(ε(δ)) = δ", prop.ForAllNoShrink(
		func(lrho, ld float64) string {
			rho, d := math.Pow(10, lrho), math.Pow(10, ld)
			for _, c := range []Conversion{Improved, Classic} {
				e, _, err := ZCDPEpsilon(rho, 0, d, c)
				if err != nil {
					return err.Error()
				}
				back, _, _ := ZCDPDelta(rho, 0, e, c)
				if e > 0 && !near(back, d, 0, 1e-6) {
					return c.String() + ": δ(ε(δ)) = " + ftoa(back) + " vs " + ftoa(d)
				}
			}
			tight, _, _ := ZCDPEpsilon(rho, 0, d, Improved)
			classic, _, _ := ZCDPEpsilon(rho, 0, d, Classic)
			if tight > classic*(1+1e-12) {
				return "tight " + ftoa(tight) + " > classic " + ftoa(classic)
			}
			// The improved conversion on a fine order grid is never better
			// than the continuous optimum.
			orders := make([]float64, 0, 400)
			for u := -6.0; u <= 8; u += 0.05 {
				orders = append(orders, 1+math.Exp(u))
			}
			rdp := make([]float64, len(orders))
			for i, a := range orders {
				rdp[i] = rho * a
			}
			g, _, _ := EpsilonFromRDP(orders, rdp, d, Improved)
			if tight > g*(1+1e-9)+1e-12 {
				return "continuous optimum " + ftoa(tight) + " above a grid value " + ftoa(g)
			}
			return ""
		}, gen.Float64Range(-6, 2), gen.Float64Range(-12, -1)))
	props.TestingRun(t)
}

// TestPureDP: pure ε of Laplace compositions (Σ 1/b), replace-one, the
// amplification formulas, and ∞ with a reason for the Gaussian family.
func TestPureDP(t *testing.T) {
	cases := []struct {
		e    Event
		nb   Neighbouring
		want float64
	}{
		{Composed{Events: []Event{SelfComposed{Event: Laplace{Scale: 1}, Count: 3}, SelfComposed{Event: Laplace{Scale: 2}, Count: 2}}}, AddRemove, 4},
		{Laplace{Scale: 2}, ReplaceOne, 1},
		{PoissonSampled{Q: 0.1, Event: Laplace{Scale: 0.5}}, AddRemove, math.Log1p(0.1 * math.Expm1(2))},
		{SampledWithoutReplacement{SampleSize: 10, PopulationSize: 100, Event: Laplace{Scale: 1}}, ReplaceOne, math.Log1p(0.1 * math.Expm1(2))},
		{PoissonSampled{Q: 0, Event: Gaussian{Sigma: 1}}, AddRemove, 0},
		{ZCDP{}, AddRemove, 0},
	}
	for _, c := range cases {
		got, err := PureEpsilon(c.e, c.nb)
		if err != nil || !near(got, c.want, 0, 1e-14) {
			t.Errorf("%v (%v): %v (%v), want %v", c.e, c.nb, got, err, c.want)
		}
	}
	for _, e := range []Event{Gaussian{Sigma: 10}, poissonSteps(0.01, 1, 10), DiscreteGaussian{Sigma: 5, Sensitivity: 1}, TreeAggregation{Sigma: 1, Trees: []int{4}}, ZCDP{Rho: 0.1}} {
		got, err := PureEpsilon(e, AddRemove)
		if !math.IsInf(got, 1) || !errors.Is(err, ErrInfinite) {
			t.Errorf("%v: %v (%v), want ∞", e, got, err)
		}
	}
	if _, err := PureEpsilon(PoissonSampled{Q: 0.1, Event: Laplace{Scale: 1}}, ReplaceOne); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Poisson under replace-one: %v", err)
	}
	// δ = 0 ⇒ every δ: the pure ε bounds the PLD ε at every δ.
	e := SelfComposed{Event: Laplace{Scale: 0.5}, Count: 5}
	if p := pldEps(t, AddRemove, e, 1e-9); p > 10+5e-4 {
		t.Errorf("PLD %v above pure 10", p)
	}
}

// TestExactCurves: compositions of Gaussians (GDP), one Laplace
// (δ = 1 − e^{(ε − 1/b)/2}), and what has none.
func TestExactCurves(t *testing.T) {
	e := Composed{Events: []Event{SelfComposed{Event: Gaussian{Sigma: 3}, Count: 9}, TreeAggregation{Sigma: 2, Trees: []int{7}}}}
	mu := math.Sqrt(9.0/9 + 3.0/4)
	want, _ := GDPEpsilon(mu, 1e-5)
	if got, err := ExactEpsilon(e, 1e-5, AddRemove); err != nil || !near(got, want, 0, 1e-12) {
		t.Errorf("GDP composition: %v (%v), want %v", got, err, want)
	}
	if p := pldEps(t, AddRemove, e, 1e-5); p < want-1e-9 || p > want+1e-3 {
		t.Errorf("PLD %v, exact %v", p, want)
	}
	for _, b := range []float64{0.5, 1, 3} {
		for _, eps := range []float64{0, 0.2, 1} {
			d, err := ExactDelta(Laplace{Scale: b}, eps, AddRemove)
			pld := pldDelta(t, AddRemove, Laplace{Scale: b}, eps)
			if err != nil || pld < d-1e-12 || pld > d+1e-3 {
				t.Errorf("Laplace b=%v ε=%v: exact δ %v, PLD %v (%v)", b, eps, d, pld, err)
			}
			if back, _ := ExactEpsilon(Laplace{Scale: b}, math.Max(d, 1e-12), AddRemove); d > 1e-12 && !near(back, eps, 1e-9, 0) {
				t.Errorf("Laplace b=%v: ε(δ(%v)) = %v", b, eps, back)
			}
		}
	}
	for _, e := range []Event{poissonSteps(0.1, 1, 2), SelfComposed{Event: Laplace{Scale: 1}, Count: 2}, Composed{Events: []Event{Gaussian{Sigma: 1}, Laplace{Scale: 1}}}} {
		if _, err := ExactEpsilon(e, 1e-5, AddRemove); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%v: %v, want ErrUnsupported", e, err)
		}
	}
}
