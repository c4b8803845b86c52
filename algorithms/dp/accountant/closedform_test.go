package accountant

import (
	"errors"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

func TestUpcycledOutputForms(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 20260205, 200, 50))
	props.Property("Thm 6.2 forms agree and invert", prop.ForAllNoShrink(
		func(rounds int, tau, sigma float64, n int, ld float64) string {
			d := math.Pow(10, ld)
			eps, err := UpcycledOutputEpsilon(rounds, tau, sigma, n, d)
			if err != nil {
				return err.Error()
			}
			back, err := UpcycledOutputDelta(rounds, tau, sigma, n, eps)
			if err != nil || !near(back, d, 0, 1e-9) {
				return "δ(ε(δ)) = " + ftoa(back)
			}
			dl, _, _ := UpcycledOutputDeltaLambda(rounds, tau, sigma, n, eps)
			if !near(dl, d, 0, 1e-9) {
				return "λ-form δ = " + ftoa(dl)
			}
			el, lam, _ := UpcycledOutputEpsilonLambda(rounds, tau, sigma, n, d)
			if !near(el, eps, 0, 1e-12) {
				return "λ-form ε = " + ftoa(el)
			}
			// The λ-form minimum: no λ on a grid around λ* does better.
			a := UpcycledOutputA(rounds, tau, sigma, n)
			for _, f := range []float64{0.5, 0.9, 1.1, 2} {
				l := lam * f
				if a*(l+1)+math.Log(1/d)/l < eps*(1-1e-12) {
					return "λ* is not the minimiser"
				}
			}
			s, err := UpcycledOutputSigma(rounds, tau, n, eps, d)
			if err != nil || !near(s, sigma, 0, 1e-9) {
				return "inverse σ = " + ftoa(s) + " want " + ftoa(sigma)
			}
			return ""
		}, gen.IntRange(1, 500), gen.Float64Range(0.1, 20), gen.Float64Range(0.01, 5), gen.IntRange(10, 10000), gen.Float64Range(-12, -1)))
	props.TestingRun(t)
	if _, err := UpcycledOutputDelta(10, 1, 1, 100, 0); !errors.Is(err, ErrAssumption) {
		t.Errorf("ε < a: %v", err)
	}
	if _, err := UpcycledOutputEpsilon(0, 1, 1, 100, 1e-5); err == nil {
		t.Error("0 rounds accepted")
	}
	// Lemma 6.1 / Fig. 3: Upcycled (M rounds, σ=0.8) vs baseline (2M, σ=1)
	// gives ε ratio → √(M_up σ_b²/(M_b σ_up²)) = 0.884 when a ≪ log(1/δ).
	up, _ := UpcycledOutputEpsilon(50, 10, 0.8, 10000, 1e-5)
	base, _ := UpcycledOutputEpsilon(100, 10, 1, 10000, 1e-5)
	if !near(up/base, math.Sqrt(0.5/0.64), 0, 1e-3) {
		t.Errorf("ratio %v, want ≈ 0.884", up/base)
	}
}

func TestUpcycledObjective(t *testing.T) {
	b := ObjectivePerturbationBound{Alphas: []float64{1, 1, 1}, U1: 1, U2: 0.25, Mu: 0.1, N: 100, FeaturesNormalised: true}
	eps, err := UpcycledObjectiveEpsilon(b)
	want := 3 * (2*1*1*0.1 + 2.8*0.25) / (100 * 0.1)
	if err != nil || !near(eps, want, 0, 1e-14) {
		t.Errorf("ε = %v (%v), want %v", eps, err, want)
	}
	alpha, err := UpcycledObjectiveAlpha(eps, 3, 1, 0.25, 0.1, 100)
	if err != nil || !near(alpha, 1, 0, 1e-12) {
		t.Errorf("inverse α = %v (%v)", alpha, err)
	}
	bad := b
	bad.U2 = 6 // > ½|D|μ = 5
	if _, err := UpcycledObjectiveEpsilon(bad); !errors.Is(err, ErrAssumption) {
		t.Errorf("u₂ > ½|D|μ: %v", err)
	}
	bad = b
	bad.FeaturesNormalised = false
	if v, err := UpcycledObjectiveEpsilon(bad); !errors.Is(err, ErrAssumption) || v != eps {
		t.Errorf("unnormalised features: %v %v", v, err)
	}
	for _, mu := range []float64{0, -1} {
		bad = b
		bad.Mu = mu
		if _, err := UpcycledObjectiveEpsilon(bad); err == nil || errors.Is(err, ErrAssumption) {
			t.Errorf("μ=%v: %v, want a plain error", mu, err)
		}
	}
	if _, err := UpcycledObjectiveAlpha(0.001, 3, 1, 0.25, 0.1, 100); !errors.Is(err, ErrUnreachable) {
		t.Errorf("budget below the Jacobian term: %v", err)
	}
	// −ln(1−x) < 1.4x on (0, ½], the inequality behind the 2.8 constant.
	for x := 1e-4; x <= 0.5; x += 1e-4 {
		if -math.Log1p(-x) >= 1.4*x {
			t.Fatalf("−ln(1−x) < 1.4x fails at %v", x)
		}
	}
}

func TestAbadi(t *testing.T) {
	s, err := AbadiSigma(0.01, 10000, 1, 1e-5, AbadiC2)
	if err != nil || !near(s, 2*0.01*math.Sqrt(10000*math.Log(1e5)), 0, 1e-14) {
		t.Errorf("AbadiSigma = %v (%v)", s, err)
	}
	// Lemma 3's log-moment q²λ(λ+1)/((1−q)σ²) is about twice the exact
	// leading term q²λ(λ+1)/(2σ²), so in its regime (σ ≥ 1, small q) the
	// closed form is looser than the RDP accountant, by less than √2·… ≈ 2×.
	e, err := AbadiEpsilon(0.01, 4, 10000, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	r, _, _ := RDPEpsilon(poissonSteps(0.01, 4, 10000), 1e-5)
	if e < r || e > 2*r {
		t.Errorf("Abadi %v vs RDP %v: want RDP ≤ Abadi ≤ 2·RDP", e, r)
	}
	if _, err := AbadiEpsilon(0.01, 0.5, 100, 1e-5); !errors.Is(err, ErrAssumption) {
		t.Errorf("σ < 1: %v", err)
	}
	if _, err := AbadiEpsilon(1, 2, 100, 1e-5); !errors.Is(err, ErrAssumption) {
		t.Errorf("q = 1: %v", err)
	}
	if _, err := AbadiSigma(0, 100, 1, 1e-5, 2); err == nil {
		t.Error("q = 0 accepted")
	}
}
