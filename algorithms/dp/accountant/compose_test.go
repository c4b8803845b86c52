package accountant

import (
	"errors"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// A DP-SGD schedule with three phases of different q and σ (the
// heterogeneous composition papers describe) for the composition tests.
var phases = Composed{Events: []Event{
	poissonSteps(0.02, 1.2, 100),
	poissonSteps(0.05, 2, 40),
	poissonSteps(0.01, 0.9, 300),
}}

// TestHeterogeneousComposition: every accountant composes phases with
// different (q, σ). Independent computations: RDP must equal the sum of
// the phases' separately computed RDP curves; the PLD's δ(ε) must agree
// with Monte Carlo sampling of the summed losses (within 5 standard
// errors); PRV's bounds must contain the PLD value; for pure Gaussian
// phases the exact GDP value (μ² = Σ steps/σ²) sits inside PRV's bounds,
// at or just below the PLD and below RDP.
func TestHeterogeneousComposition(t *testing.T) {
	orders := DefaultOrders()
	all, err := EventRDP(phases, orders, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	sum := make([]float64, len(orders))
	for _, p := range phases.Events {
		v, _ := EventRDP(p, orders, AddRemove)
		for i := range v {
			sum[i] += v[i]
		}
	}
	for i := range all {
		if !near(all[i], sum[i], 0, 1e-12) {
			t.Fatalf("α=%v: composed %v, sum of phases %v", orders[i], all[i], sum[i])
		}
	}
	a := NewPLD(PLDOptions{})
	if err := a.Compose(phases); err != nil {
		t.Fatal(err)
	}
	// Monte Carlo on a shorter schedule with the same three phases.
	short := Composed{Events: []Event{poissonSteps(0.2, 1.2, 10), poissonSteps(0.5, 2, 4), poissonSteps(0.1, 0.9, 30)}}
	b := NewPLD(PLDOptions{})
	if err := b.Compose(short); err != nil {
		t.Fatal(err)
	}
	n := 200000
	if testing.Short() {
		n = 50000
	}
	type ph struct {
		q, s  float64
		steps int
	}
	list := []ph{{0.2, 1.2, 10}, {0.5, 2, 4}, {0.1, 0.9, 30}}
	epss := []float64{0.5, 1.5}
	mc, se := mcDeltas(n, epss, func(r interface{ Float64() float64 }) float64 {
		total := 0.0
		for _, p := range list {
			for i := 0; i < p.steps; i++ {
				x := p.s * gaussSample(r)
				if r.Float64() < p.q {
					x += 1
				}
				total += math.Log1p(p.q * math.Expm1((2*x-1)/(2*p.s*p.s)))
			}
		}
		return total
	}, 11)
	for i, eps := range epss {
		got := b.dir[0].delta(eps, b.opts.Interval)
		if !(math.Abs(got-mc[i]) <= 5*se[i]+1e-4*mc[i]) {
			t.Errorf("ε=%v: PLD δ %.5g, Monte Carlo %.5g ± %.2g", eps, got, mc[i], se[i])
		}
	}
	pld, _ := a.Epsilon(1e-5)
	r := prvEps(t, AddRemove, phases, 1e-5, PRVOptions{})
	if pld < r.Lower || pld > r.Upper {
		t.Errorf("PLD %v outside PRV [%v, %v]", pld, r.Lower, r.Upper)
	}
	rdp, _, _ := RDPEpsilon(phases, 1e-5)
	if pld > rdp {
		t.Errorf("PLD %v above RDP %v", pld, rdp)
	}
	gauss := Composed{Events: []Event{
		SelfComposed{Event: Gaussian{Sigma: 20}, Count: 100},
		SelfComposed{Event: Gaussian{Sigma: 40}, Count: 300},
		TreeAggregation{Sigma: 8, Trees: []int{100, 100}},
	}}
	mu := math.Sqrt(100.0/400 + 300.0/1600 + 2*7.0/64)
	exact, _ := GDPEpsilon(mu, 1e-5)
	if ex, _ := ExactEpsilon(gauss, 1e-5, AddRemove); !near(ex, exact, 0, 1e-12) {
		t.Errorf("exact %v, GDP %v", ex, exact)
	}
	if p := pldEps(t, AddRemove, gauss, 1e-5); p < exact-1e-9 || p > exact+1e-3 {
		t.Errorf("PLD %v, exact %v", p, exact)
	}
	if r := prvEps(t, AddRemove, gauss, 1e-5, PRVOptions{}); exact < r.Lower || exact > r.Upper {
		t.Errorf("PRV %+v, exact %v", r, exact)
	}
	if g, _, _ := RDPEpsilon(gauss, 1e-5); g < exact {
		t.Errorf("RDP %v below exact %v", g, exact)
	}
	if z, _ := (Config{Kind: KindZCDP}).Account(gauss, 1e-5); z.Value < exact {
		t.Errorf("zCDP %v below exact %v", z.Value, exact)
	}
}

// gaussSample draws N(0, 1) by Box–Muller.
func gaussSample(r interface{ Float64() float64 }) float64 {
	u := 1 - r.Float64()
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*r.Float64())
}

// TestAccountantProperties (gopter): for every accountant that supports
// the event, δ(ε) is non-increasing in ε, ε(δ) and δ(ε) are inverse
// (δ(ε(δ)) ≤ δ, and equal for exact curves), and composing one more
// event never decreases ε.
func TestAccountantProperties(t *testing.T) {
	props := gopter.NewProperties(propParams(t, 20261126, 5, 3))
	kinds := []Kind{KindRDP, KindPLD, KindZCDP, KindExact}
	props.Property("monotone, inverse, composition never helps", prop.ForAllNoShrink(
		func(lq, sigma float64, steps int, ld float64) string {
			q := math.Pow(10, lq)
			d := math.Pow(10, ld)
			events := []Event{poissonSteps(q, sigma, steps), SelfComposed{Event: Gaussian{Sigma: sigma * 5}, Count: steps}}
			for _, e := range events {
				for _, k := range kinds {
					c := Config{Kind: k}
					if c.Supported(e) != nil {
						continue
					}
					eps, _, err := c.Epsilon(e, d)
					if err != nil {
						return k.String() + ": " + err.Error()
					}
					prev := 2.0
					for _, x := range []float64{0, eps, 2*eps + 0.1} {
						dd, err := c.Delta(e, x)
						if err != nil {
							return err.Error()
						}
						if dd > prev*(1+1e-12) {
							return k.String() + ": δ increased with ε"
						}
						prev = dd
					}
					back, _ := c.Delta(e, eps)
					if back > d*(1+1e-6) || (k == KindExact && eps > 0 && !near(back, d, 0, 1e-6)) {
						return k.String() + ": δ(ε(δ)) = " + ftoa(back) + " vs δ = " + ftoa(d)
					}
					more, _, _ := c.Epsilon(Composed{Events: []Event{e, Gaussian{Sigma: 10}}}, d)
					if more < eps*(1-1e-9) {
						return k.String() + ": composing another event lowered ε"
					}
				}
			}
			return ""
		}, gen.Float64Range(-2.5, -0.5), gen.Float64Range(0.8, 3), gen.IntRange(1, 200), gen.Float64Range(-8, -3)))
	props.TestingRun(t)
}

// TestSupportedMatrix checks Config.Supported against the table in the
// Event documentation.
func TestSupportedMatrix(t *testing.T) {
	pl := PoissonSampled{Q: 0.1, Event: Laplace{Scale: 1}}
	wor := SampledWithoutReplacement{SampleSize: 1, PopulationSize: 10, Event: Gaussian{Sigma: 1}}
	ddg := DistributedDiscreteGaussian{Sigma: 1, Clients: 3, L2: 1, Dim: 4}
	cases := []struct {
		e  Event
		nb Neighbouring
		ok map[Kind]bool
	}{
		{Gaussian{Sigma: 1}, ReplaceOne, map[Kind]bool{KindRDP: true, KindPLD: true, KindPRV: true, KindZCDP: true, KindExact: true, KindPure: true}},
		{pl, AddRemove, map[Kind]bool{KindRDP: true, KindPLD: true, KindPRV: true, KindPure: true}},
		{pl, ReplaceOne, map[Kind]bool{}},
		{poissonSteps(0.1, 1, 3), ReplaceOne, map[Kind]bool{KindPLD: true, KindPRV: true, KindPure: true}},
		{wor, ReplaceOne, map[Kind]bool{KindRDP: true, KindPure: true}},
		{wor, AddRemove, map[Kind]bool{KindPure: true}}, // ∞: a Gaussian stays unbounded
		{ddg, AddRemove, map[Kind]bool{KindRDP: true, KindZCDP: true, KindPure: true}},
		{ZCDP{Rho: 1}, AddRemove, map[Kind]bool{KindRDP: true, KindZCDP: true, KindPure: true}},
		{SelfComposed{Event: Laplace{Scale: 1}, Count: 2}, AddRemove, map[Kind]bool{KindRDP: true, KindPLD: true, KindPRV: true, KindZCDP: true, KindPure: true}},
	}
	for _, c := range cases {
		for _, k := range Kinds {
			err := Config{Kind: k, Neighbouring: c.nb}.Supported(c.e)
			if (err == nil) != c.ok[k] {
				t.Errorf("%v %v %v: %v, want supported=%v", c.e, c.nb, k, err, c.ok[k])
			}
			if err != nil && !errors.Is(err, ErrUnsupported) {
				t.Errorf("%v %v %v: %v does not wrap ErrUnsupported", c.e, c.nb, k, err)
			}
		}
	}
}
