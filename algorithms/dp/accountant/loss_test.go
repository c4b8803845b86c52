package accountant

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// TestLossDistributionsTilt: for every privacy-loss distribution, Q is the
// e^{−L} tilt of P — on any loss interval (l0, l1], the Q-mass lies
// between e^{−l1} and e^{−l0} times the P-mass — the CDFs are monotone
// with complementary tails, and the atoms of the Laplace-based losses sit
// where the mechanism puts them with the masses it gives them.
func TestLossDistributionsTilt(t *testing.T) {
	cases := []struct {
		name string
		d    lossDist
	}{
		{"gaussian", gaussianLoss(0.8)},
		{"laplace", laplaceLoss(0.7)},
		{"poisson-gaussian add", poissonGaussianAdd(0.1, 0.9)},
		{"poisson-gaussian remove", poissonGaussianRemove(0.1, 0.9)},
		{"substitution", substitutionGaussian(0.2, 0.7)},
		{"poisson-laplace add", poissonLaplaceAdd(0.3, 0.6)},
		{"poisson-laplace remove", poissonLaplaceRemove(0.3, 0.6)},
	}
	for _, c := range cases {
		lo, hi := -8.0, 8.0
		if !math.IsInf(c.d.lmin, -1) {
			lo = c.d.lmin - 0.5
		}
		if !math.IsInf(c.d.lmax, 1) {
			hi = c.d.lmax + 0.5
		}
		const n = 4000
		w := (hi - lo) / n
		f0P, s0P, f0Q, s0Q := c.d.eval(lo)
		for i := 1; i <= n; i++ {
			l0, l1 := lo+float64(i-1)*w, lo+float64(i)*w
			f1P, s1P, f1Q, s1Q := c.d.eval(l1)
			if !(math.Abs(f1P+s1P-1) <= 1e-12) || !(math.Abs(f1Q+s1Q-1) <= 1e-12) || f1P < f0P-1e-15 || f1Q < f0Q-1e-15 {
				t.Fatalf("%s at %v: CDFs (%v, %v), (%v, %v)", c.name, l1, f1P, s1P, f1Q, s1Q)
			}
			mP, mQ := f1P-f0P, f1Q-f0Q
			if f1P > 0.5 {
				mP = s0P - s1P
			}
			if f1Q > 0.5 {
				mQ = s0Q - s1Q
			}
			if mP > 1e-13 && (mQ < math.Exp(-l1)*mP*(1-1e-6)-1e-15 || mQ > math.Exp(-l0)*mP*(1+1e-6)+1e-15) {
				t.Fatalf("%s on (%.4f, %.4f]: P-mass %.6g, Q-mass %.6g not within e^{-l} of it", c.name, l0, l1, mP, mQ)
			}
			f0P, s0P, f0Q, s0Q = f1P, s1P, f1Q, s1Q
		}
	}
	// Poisson-Laplace (q = 0.3, b = 0.6) atoms: add direction x ≤ 0 at
	// log(1 − q + q e^{−1/b}) with P-mass ½(1−q) + ½q e^{−1/b}, x ≥ 1 at
	// log(1 − q + q e^{1/b}) with P-mass ½(1−q)e^{−1/b} + ½q.
	q, b := 0.3, 0.6
	add := poissonLaplaceAdd(q, b)
	jump := func(d lossDist, l float64) float64 {
		fa, _, _, _ := d.eval(l - 1e-12)
		fb, _, _, _ := d.eval(l)
		return fb - fa
	}
	lLo, lHi := math.Log(1-q+q*math.Exp(-1/b)), math.Log(1-q+q*math.Exp(1/b))
	if m := jump(add, lLo); !near(m, 0.5*(1-q)+0.5*q*math.Exp(-1/b), 0, 1e-9) {
		t.Errorf("add atom at %v: mass %v", lLo, m)
	}
	if m := jump(add, lHi); !near(m, 0.5*(1-q)*math.Exp(-1/b)+0.5*q, 0, 1e-9) {
		t.Errorf("add atom at %v: mass %v", lHi, m)
	}
	rem := poissonLaplaceRemove(q, b)
	if m := jump(rem, -lHi); !near(m, 0.5*math.Exp(-1/b), 0, 1e-9) {
		t.Errorf("remove atom at %v: mass %v", -lHi, m)
	}
	if m := jump(rem, -lLo); !near(m, 0.5, 0, 1e-9) {
		t.Errorf("remove atom at %v: mass %v", -lLo, m)
	}
}

// TestPRVMeanShift: after the PRV's discretization the discrete mean
// plus the shift equals the loss's mean — for the Gaussian the KL
// divergence 1/(2σ²), for the Poisson-subsampled Gaussian
// E_P[log(1 − q + q e^{(2x−1)/(2σ²)})] integrated independently in x.
func TestPRVMeanShift(t *testing.T) {
	check := func(name string, d lossDist, want float64) {
		// Coarse meshes make the shift large enough to see.
		for _, h := range []float64{0.05, 0.2} {
			m, lo, s, err := prvDiscretize(d, h, int(20/h), 1e-30)
			if err != nil {
				t.Fatal(err)
			}
			mean := s
			for i, v := range m {
				mean += float64(lo+i) * h * v
			}
			if !near(mean, want, 1e-12, 1e-9) || math.Abs(s) >= h/2 || s == 0 {
				t.Errorf("%s, mesh %v: mean %.12g (shift %.3g), want %.12g", name, h, mean, s, want)
			}
		}
	}
	check("gaussian", gaussianLoss(1.3), 1/(2*1.3*1.3))
	q, sigma := 0.05, 0.9
	f := func(x float64) float64 {
		p := (1-q)*math.Exp(-x*x/(2*sigma*sigma)) + q*math.Exp(-(x-1)*(x-1)/(2*sigma*sigma))
		p /= sigma * math.Sqrt(2*math.Pi)
		return p * math.Log1p(q*math.Expm1((2*x-1)/(2*sigma*sigma)))
	}
	kl := 0.0
	for i := 0; i < 400; i++ {
		a := -15 + 32*float64(i)/400
		kl += quad.Fixed(f, a, a+32.0/400, 30, nil, 0)
	}
	check("poisson-gaussian add", poissonGaussianAdd(q, sigma), kl)
}

// TestFlattenMerges: equal leaves anywhere in a schedule are one leaf with
// the summed count, and every accountant gives the same answer for the
// merged and the spelled-out schedule.
func TestFlattenMerges(t *testing.T) {
	a := PoissonSampled{Q: 0.05, Event: Gaussian{Sigma: 1.2}}
	e := Composed{Events: []Event{a, SelfComposed{Event: Composed{Events: []Event{a, Gaussian{Sigma: 9}}}, Count: 3}, a}}
	leaves, err := flatten(e)
	if err != nil || len(leaves) != 2 || leaves[0].count != 5 || leaves[1].count != 3 {
		t.Fatalf("flatten: %+v %v", leaves, err)
	}
	same := Composed{Events: []Event{SelfComposed{Event: a, Count: 5}, SelfComposed{Event: Gaussian{Sigma: 9}, Count: 3}}}
	for _, k := range []Kind{KindRDP, KindPLD, KindPRV} {
		x, _, err1 := Config{Kind: k}.Epsilon(e, 1e-6)
		y, _, err2 := Config{Kind: k}.Epsilon(same, 1e-6)
		if err1 != nil || err2 != nil || !near(x, y, 0, 1e-9) {
			t.Errorf("%v: %v vs %v (%v %v)", k, x, y, err1, err2)
		}
	}
	seq := NewPLD(PLDOptions{})
	for i := 0; i < 5; i++ {
		_ = seq.Compose(a)
	}
	_ = seq.Compose(SelfComposed{Event: Gaussian{Sigma: 9}, Count: 3})
	p, _ := seq.Epsilon(1e-6)
	if x, _, _ := (Config{Kind: KindPLD}).Epsilon(e, 1e-6); !near(x, p, 0, 1e-6) {
		t.Errorf("merged %v, sequential %v", x, p)
	}
}

// TestConfigAccountFields: Config.Account reports each accountant's
// answer in the documented fields — the PRV guarantee is its upper bound,
// with the estimate and the lower bound beside it; the exact value is its
// own lower bound; the PLD reports the interval it used.
func TestConfigAccountFields(t *testing.T) {
	e := poissonSteps(0.04, 1.5, 2249)
	p := prvEps(t, AddRemove, e, 1e-5, PRVOptions{})
	r, err := Config{Kind: KindPRV}.Account(e, 1e-5)
	if err != nil || r.Value != p.Upper || r.Estimate != p.Estimate || r.Lower != p.Lower || r.Mesh != p.Mesh || r.Domain != p.Domain {
		t.Errorf("PRV: %+v vs %+v (%v)", r, p, err)
	}
	if eps, _, _ := (Config{Kind: KindPRV}).Epsilon(e, 1e-5); eps != p.Upper {
		t.Errorf("Config.Epsilon for PRV %v, want the upper bound %v", eps, p.Upper)
	}
	g := SelfComposed{Event: Gaussian{Sigma: 2}, Count: 10}
	x, err := Config{Kind: KindExact}.Account(g, 1e-5)
	want, _ := GaussianEpsilon(2/math.Sqrt(10), 1e-5)
	if err != nil || !near(x.Value, want, 0, 1e-12) || x.Lower != x.Value || x.Estimate != x.Value {
		t.Errorf("exact: %+v, want %v", x, want)
	}
	l, err := Config{Kind: KindPLD, PLD: PLDOptions{Interval: 1e-3}}.Account(g, 1e-5)
	if err != nil || l.Interval != 1e-3 || l.Value < want || l.Lower != 0 {
		t.Errorf("PLD: %+v", l)
	}
	d, err := Config{Kind: KindPRV}.AccountDelta(e, 6)
	if err != nil || !(d.Lower <= d.Estimate && d.Estimate <= d.Value) || d.Value > 1 {
		t.Errorf("PRV δ: %+v (%v)", d, err)
	}
	// Pure: δ = 0 above the pure ε, 1 below it.
	if v, _ := (Config{Kind: KindPure}).AccountDelta(Laplace{Scale: 1}, 1); v.Value != 0 {
		t.Errorf("pure δ at ε = 1/b: %v", v.Value)
	}
	if v, _ := (Config{Kind: KindPure}).AccountDelta(Laplace{Scale: 1}, 0.9); v.Value != 1 {
		t.Errorf("pure δ below 1/b: %v", v.Value)
	}
}
