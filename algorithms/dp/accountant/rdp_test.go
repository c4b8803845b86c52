package accountant

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"gonum.org/v1/gonum/integrate/quad"
)

// propParams returns seeded gopter parameters; the seed is logged so a
// failure can be replayed, and -short shrinks the number of cases.
func propParams(t *testing.T, seed int64, full, short int) *gopter.TestParameters {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = full
	if testing.Short() {
		p.MinSuccessfulTests = short
	}
	t.Logf("gopter seed %d, %d cases", seed, p.MinSuccessfulTests)
	return p
}

// quadLogAm1 computes log(A_α − 1), A_α − 1 = E_{z∼N(0,σ²)}[(1−q+q·e^{(2z−1)/(2σ²)})^α − 1],
// by Gauss–Legendre quadrature on many short intervals. Subtracting
// α·q·u, u = e^{(2z−1)/(2σ²)} − 1, which has mean 0, leaves the
// non-negative integrand (1+qu)^α − 1 − αqu with no cancellation. The
// integrand is handled in log space and scaled by its maximum, because A_α
// itself can exceed the double range.
func quadLogAm1(q, sigma, alpha float64) float64 {
	s2 := sigma * sigma
	logNorm := math.Log(sigma * math.Sqrt(2*math.Pi))
	logf := func(z float64) float64 {
		u := math.Expm1((2*z - 1) / (2 * s2))
		x := q * u
		var lg float64
		if math.Abs(x) < 1e-3 {
			// Σ_{k≥2} C(α,k) x^k
			c, p, g := alpha, x, 0.0
			for k := 2; k < 12; k++ {
				c *= (alpha - float64(k-1)) / float64(k)
				p *= x
				g += c * p
			}
			lg = math.Log(g)
		} else if l := alpha * math.Log1p(x); l < 30 {
			lg = math.Log(math.Expm1(l) - alpha*x)
		} else {
			lg = l + math.Log1p(-(1+alpha*x)*math.Exp(-l))
		}
		return lg - z*z/(2*s2) - logNorm
	}
	lo, hi := -14*sigma, alpha+14*sigma+1
	m := math.Inf(-1)
	for i := 0; i <= 4000; i++ {
		m = math.Max(m, logf(lo+(hi-lo)*float64(i)/4000))
	}
	f := func(z float64) float64 { return math.Exp(logf(z) - m) }
	pieces := int(math.Ceil((hi - lo) / (sigma / 2)))
	w := (hi - lo) / float64(pieces)
	sum := 0.0
	for i := 0; i < pieces; i++ {
		sum += quad.Fixed(f, lo+float64(i)*w, lo+float64(i+1)*w, 40, nil, 0)
	}
	return m + math.Log(sum)
}

// quadRDP is the RDP of order alpha from quadLogAm1.
func quadRDP(q, sigma, alpha float64) float64 {
	return logAdd(0, quadLogAm1(q, sigma, alpha)) / (alpha - 1)
}

// TestFractionalRDPMatchesQuadrature checks the signed series against the
// integral to 1e-6 relative over random (q, σ, α) — the evidence that the
// signed series is exact and the absolute one is not.
func TestFractionalRDPMatchesQuadrature(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 20260201, 200, 40))
	props.Property("signed series = quadrature", prop.ForAllNoShrink(
		func(lq, sigma, alpha float64) string {
			q := math.Pow(10, lq)
			if alpha == math.Trunc(alpha) {
				alpha += 0.5
			}
			got := logAFrac(q, sigma, alpha, Signed) / (alpha - 1)
			want := quadRDP(q, sigma, alpha)
			if !near(got, want, 0, 1e-6) {
				return "series " + ftoa(got) + " vs quadrature " + ftoa(want) +
					" at q=" + ftoa(q) + " σ=" + ftoa(sigma) + " α=" + ftoa(alpha)
			}
			return ""
		},
		gen.Float64Range(-3, math.Log10(0.5)), gen.Float64Range(0.5, 5), gen.Float64Range(1.02, 40),
	))
	props.TestingRun(t)
}

func ftoa(x float64) string { return strings.TrimRight(strings.TrimRight(fmtG(x), "0"), ".") }

// TestSpecB4Values: spec §B4's quadrature values.
func TestSpecB4Values(t *testing.T) {
	cases := []struct{ q, sigma, alpha, exact, abs float64 }{
		{0.01, 2.5, 1.5, 1.30014e-5, 1.34116e-5},
		{0.04, 1.5, 3.9, 1.833202e-3, 1.833302e-3},
	}
	for _, c := range cases {
		signed, _ := PoissonGaussianRDP(c.q, c.sigma, c.alpha)
		abs := logAFrac(c.q, c.sigma, c.alpha, Absolute) / (c.alpha - 1)
		quadV := quadRDP(c.q, c.sigma, c.alpha)
		if !near(signed, c.exact, 0, 5e-6) || !near(quadV, c.exact, 0, 5e-6) || !near(abs, c.abs, 0, 5e-6) {
			t.Errorf("q=%v σ=%v α=%v: signed %.7g, quadrature %.7g, absolute %.7g; spec %.7g / %.7g",
				c.q, c.sigma, c.alpha, signed, quadV, abs, c.exact, c.abs)
		}
	}
}

func TestIntegerOrderMatchesQuadrature(t *testing.T) {
	for _, c := range []struct{ q, sigma, alpha float64 }{{0.01, 1, 2}, {0.1, 2, 5}, {0.3, 0.8, 7}, {0.01, 3, 32}} {
		got, _ := PoissonGaussianRDP(c.q, c.sigma, c.alpha)
		want := quadRDP(c.q, c.sigma, c.alpha)
		if !near(got, want, 0, 1e-6) {
			t.Errorf("%+v: binomial sum %.12g, quadrature %.12g", c, got, want)
		}
	}
}

func TestRDPSpecialCases(t *testing.T) {
	for _, a := range []float64{1.5, 2, 7.3, 63} {
		if v, _ := PoissonGaussianRDP(0, 1, a); v != 0 {
			t.Errorf("q=0, α=%v: %v, want 0", a, v)
		}
		if v, _ := PoissonGaussianRDP(1, 2, a); v != a/8 {
			t.Errorf("q=1, α=%v: %v, want α/(2σ²) = %v", a, v, a/8)
		}
		if v, _ := PoissonGaussianRDP(0.1, 0, a); !math.IsInf(v, 1) {
			t.Errorf("σ=0, α=%v: %v, want +Inf", a, v)
		}
	}
	// Replace-one doubles the Gaussian's sensitivity: σ = 2 acts as σ = 1.
	if v, err := EventRDP(Gaussian{Sigma: 2}, []float64{2}, ReplaceOne); err != nil || v[0] != 1 {
		t.Errorf("replace-one Gaussian σ=2, α=2: %v (%v), want 1", v, err)
	}
	if v, _ := PoissonGaussianRDP(0.1, 1, math.Inf(1)); !math.IsInf(v, 1) {
		t.Errorf("α=∞: %v, want +Inf", v)
	}
	for _, a := range []float64{1, 0.5, -2, math.NaN()} {
		if _, err := PoissonGaussianRDP(0.1, 1, a); err == nil {
			t.Errorf("order %v accepted", a)
		}
		acc := NewRDP([]float64{2, a})
		if err := acc.Compose(Gaussian{Sigma: 1}); err == nil {
			t.Errorf("accountant with order %v accepted", a)
		}
	}
	for _, e := range []Event{
		Gaussian{Sigma: -1}, Gaussian{Sigma: math.NaN()}, PoissonSampled{Q: 1.5, Event: Gaussian{Sigma: 1}},
		PoissonSampled{Q: -0.1, Event: Gaussian{Sigma: 1}}, SelfComposed{Event: Gaussian{Sigma: 1}, Count: -1},
		SampledWithoutReplacement{SampleSize: 5, PopulationSize: 3, Event: Gaussian{Sigma: 1}}, nil,
	} {
		if err := NewRDP(nil).Compose(e); err == nil {
			t.Errorf("invalid event %v accepted", e)
		}
	}
}

// TestNoNoiseIsInfinite: σ = 0 must come out as +Inf with a reason, never NaN.
func TestNoNoiseIsInfinite(t *testing.T) {
	for _, e := range []Event{
		Gaussian{Sigma: 0},
		poissonSteps(0.01, 0, 100),
		Composed{Events: []Event{Gaussian{Sigma: 1}, SelfComposed{Event: Gaussian{Sigma: 0}, Count: 3}}},
	} {
		eps, _, err := RDPEpsilon(e, 1e-5)
		if !math.IsInf(eps, 1) || !errors.Is(err, ErrInfinite) || !strings.Contains(err.Error(), "no noise") {
			t.Errorf("RDP %v: ε=%v err=%v, want +Inf with a no-noise reason", e, eps, err)
		}
		d, _, err := func() (float64, float64, error) {
			a := NewRDP(nil)
			_ = a.Compose(e)
			return a.Delta(1, Improved)
		}()
		if d != 1 || !errors.Is(err, ErrInfinite) {
			t.Errorf("RDP δ %v: %v %v", e, d, err)
		}
	}
	if eps, err := PLDEpsilon(Gaussian{Sigma: 0}, 1e-5); !math.IsInf(eps, 1) || !errors.Is(err, ErrInfinite) || !strings.Contains(err.Error(), "no noise") {
		t.Errorf("PLD σ=0: %v %v", eps, err)
	}
	// A Poisson-sampled mechanism without noise is still (ε, δ)-DP for δ ≥ q.
	if eps, err := PLDEpsilon(poissonSteps(0.01, 0, 1), 0.02); err != nil || math.IsInf(eps, 0) || math.IsNaN(eps) {
		t.Errorf("PLD q=0.01 σ=0 at δ=0.02: %v %v, want finite", eps, err)
	}
	if eps, err := PLDEpsilon(poissonSteps(0.01, 0, 1), 0.005); !math.IsInf(eps, 1) || !errors.Is(err, ErrInfinite) {
		t.Errorf("PLD q=0.01 σ=0 at δ=0.005: %v %v, want +Inf", eps, err)
	}
}

func TestConversionErrors(t *testing.T) {
	o, r := []float64{2, 3}, []float64{0.1, 0.2}
	for _, d := range []float64{0, 1, -1, math.NaN()} {
		if _, _, err := EpsilonFromRDP(o, r, d, Improved); err == nil {
			t.Errorf("δ=%v accepted", d)
		}
	}
	if _, _, err := EpsilonFromRDP(o, r[:1], 1e-5, Improved); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, _, err := EpsilonFromRDP(o, []float64{-1, 0}, 1e-5, Improved); err == nil {
		t.Error("negative RDP accepted")
	}
	if _, _, err := DeltaFromRDP(o, r, -1, Improved); err == nil {
		t.Error("ε<0 accepted")
	}
	// Laplace: RDP at ∞ is the pure ε = 1/b; conversion at ∞ returns it.
	a := NewRDP([]float64{2, math.Inf(1)})
	if err := a.Compose(Laplace{Scale: 0.5}); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.RDPAt(math.Inf(1)); v != 2 {
		t.Errorf("Laplace RDP(∞) = %v, want 2", v)
	}
	if _, err := a.RDPAt(5); err == nil {
		t.Error("RDPAt off-grid accepted")
	}
	if eps, order, _ := a.Epsilon(1e-9, Classic); eps > 2 || (eps == 2 && !math.IsInf(order, 1)) {
		t.Errorf("Laplace ε = %v at %v, want ≤ 2", eps, order)
	}
}

// TestRDPProperties: ε decreases in σ, increases in q and steps; classic ≥
// improved; RDP ε ≥ exact Gaussian ε at q = 1; δ(ε(δ)) ≤ δ.
func TestRDPProperties(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 20260202, 100, 30))
	eps := func(q, sigma float64, steps int, delta float64, c Conversion) float64 {
		a := NewRDP(nil)
		if err := a.Compose(poissonSteps(q, sigma, steps)); err != nil {
			return math.NaN()
		}
		e, _, _ := a.Epsilon(delta, c)
		return e
	}
	gens := []gopter.Gen{gen.Float64Range(-4, 0), gen.Float64Range(0.3, 10), gen.IntRange(1, 100000), gen.Float64Range(-12, -2)}
	props.Property("monotone in σ, q, steps; classic ≥ improved", prop.ForAllNoShrink(
		func(lq, sigma float64, steps int, ld float64) string {
			q, d := math.Pow(10, lq), math.Pow(10, ld)
			e := eps(q, sigma, steps, d, Improved)
			if math.IsNaN(e) || e < 0 {
				return "bad ε " + ftoa(e)
			}
			if e2 := eps(q, sigma*1.1, steps, d, Improved); e2 > e*(1+1e-12) {
				return "ε increased with σ"
			}
			if e2 := eps(math.Min(1, q*1.2), sigma, steps, d, Improved); e2 < e*(1-1e-12) {
				return "ε decreased with q"
			}
			if e2 := eps(q, sigma, steps+steps/5+1, d, Improved); e2 < e*(1-1e-12) {
				return "ε decreased with steps"
			}
			if c := eps(q, sigma, steps, d, Classic); c < e*(1-1e-12) {
				return "classic below improved"
			}
			return ""
		}, gens...))
	props.Property("RDP ≥ exact Gaussian at q=1", prop.ForAllNoShrink(
		func(lsigma float64, k int, ld float64) string {
			sigma, d := math.Pow(10, lsigma), math.Pow(10, ld)
			e, _, err := RDPEpsilon(SelfComposed{Event: Gaussian{Sigma: sigma}, Count: k}, d)
			exact, err2 := GaussianEpsilon(sigma/math.Sqrt(float64(k)), d)
			if err != nil || err2 != nil {
				return "error"
			}
			if e < exact-1e-9 {
				return "RDP " + ftoa(e) + " below exact " + ftoa(exact)
			}
			return ""
		}, gen.Float64Range(-0.5, 1.5), gen.IntRange(1, 1000), gen.Float64Range(-12, -1)))
	props.Property("δ(ε(δ)) ≤ δ", prop.ForAllNoShrink(
		func(lq, sigma float64, steps int, ld float64) string {
			d := math.Pow(10, ld)
			a := NewRDP(nil)
			_ = a.Compose(poissonSteps(math.Pow(10, lq), sigma, steps))
			for _, c := range []Conversion{Improved, Classic} {
				e, _, _ := a.Epsilon(d, c)
				back, _, _ := a.Delta(e, c)
				if back > d*(1+1e-9) {
					return c.String() + ": δ(ε(δ)) = " + ftoa(back) + " > δ = " + ftoa(d)
				}
			}
			return ""
		}, gens...))
	props.TestingRun(t)
}

func TestSampledWithoutReplacement(t *testing.T) {
	e := SelfComposed{Event: SampledWithoutReplacement{SampleSize: 100, PopulationSize: 10000, Event: Gaussian{Sigma: 2}}, Count: 1000}
	if err := NewRDP(nil).Compose(e); !errors.Is(err, ErrUnsupported) {
		t.Errorf("WOR under add-remove: %v, want ErrUnsupported", err)
	}
	if err := NewPLD(PLDOptions{Neighbouring: ReplaceOne}).Compose(e); !errors.Is(err, ErrUnsupported) {
		t.Errorf("WOR in PLD: %v, want ErrUnsupported", err)
	}
	a := NewRDP(nil)
	a.Neighbouring = ReplaceOne
	if err := a.Compose(e); err != nil {
		t.Fatal(err)
	}
	eps, _, err := a.Epsilon(1e-5, Improved)
	if err != nil || !(eps > 0) {
		t.Fatalf("WOR ε = %v (%v)", eps, err)
	}
	// Subsampling helps: below the unsampled Gaussian (σ/2 under replace-one).
	full := NewRDP(nil)
	full.Neighbouring = ReplaceOne
	_ = full.Compose(SelfComposed{Event: Gaussian{Sigma: 2}, Count: 1000})
	fe, _, _ := full.Epsilon(1e-5, Improved)
	if eps >= fe {
		t.Errorf("WOR ε %v not below unsampled %v", eps, fe)
	}
	// Poisson under replace-one is RDP-unsupported, PLD-supported.
	if err := a.Compose(poissonSteps(0.01, 1, 10)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Poisson under replace-one RDP: %v", err)
	}
	// Monotone in the sampling fraction, and in order (RDP non-decreasing).
	prev := 0.0
	for _, m := range []int{1, 10, 100, 1000, 10000} {
		v, err := EventRDP(SampledWithoutReplacement{SampleSize: m, PopulationSize: 10000, Event: Gaussian{Sigma: 2}}, []float64{2, 2.5, 3, 10, 10.5}, ReplaceOne)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(v); i++ {
			if v[i] < v[i-1]*(1-1e-12) {
				t.Errorf("m=%d: RDP not monotone in order: %v", m, v)
			}
		}
		if v[3] < prev {
			t.Errorf("m=%d: RDP %v decreased with the sample size", m, v[3])
		}
		prev = v[3]
	}
}

func TestGDP(t *testing.T) {
	for _, mu := range []float64{0.1, 0.5, 1, 2, 5} {
		for _, d := range []float64{1e-12, 1e-6, 1e-3, 0.1} {
			e, err := GDPEpsilon(mu, d)
			if err != nil {
				t.Fatal(err)
			}
			back, _ := GDPDelta(mu, e)
			if e > 0 && !near(back, d, 0, 1e-7) {
				t.Errorf("μ=%v: δ(ε(%v)) = %v", mu, d, back)
			}
		}
	}
	// Large ε must not overflow into NaN.
	for _, e := range []float64{50, 500, 5000} {
		if d, err := GDPDelta(1, e); err != nil || math.IsNaN(d) || d < 0 || d > 1e-100 {
			t.Errorf("GDPDelta(1, %v) = %v %v", e, d, err)
		}
	}
	// The exact Gaussian curve: spec §B2 value δ(1) at σ=1 is 0.1269367.
	if d, _ := GaussianDelta(1, 1); !near(d, 0.1269367, 1e-7, 0) {
		t.Errorf("GaussianDelta(1, 1) = %.8g", d)
	}
}

func TestNeighbouringParse(t *testing.T) {
	for _, n := range []Neighbouring{AddRemove, ReplaceOne} {
		if got, err := ParseNeighbouring(n.String()); err != nil || got != n {
			t.Errorf("round trip %v: %v %v", n, got, err)
		}
	}
	if _, err := ParseNeighbouring("swap"); err == nil {
		t.Error("unknown relation accepted")
	}
	if len(DefaultOrders()) != 151 || DefaultOrders()[0] != 1.1 || DefaultOrders()[150] != 63 {
		t.Errorf("DefaultOrders: %v", DefaultOrders())
	}
	for _, o := range DefaultOrders() {
		if o == 11 {
			t.Error("Opacus' default orders have no 11")
		}
	}
}
