package accountant

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/integrate/quad"
)

// laplaceMoment is E_{Lap(0,b)}[(1 − q + q·r(x))^β], r = Lap(1,b)/Lap(0,b),
// by plain Gauss–Legendre quadrature of the density on [−60b, 0], [0, 1]
// and [1, 1 + 60b] (r has kinks at 0 and 1) — written independently of
// the package's piecewise closed forms.
func laplaceMoment(q, b, beta float64) float64 {
	f := func(x float64) float64 {
		p0 := math.Exp(-math.Abs(x)/b) / (2 * b)
		r := math.Exp((math.Abs(x) - math.Abs(x-1)) / b)
		return p0 * math.Pow(1-q+q*r, beta)
	}
	s := 0.0
	for _, iv := range [][2]float64{{-60 * b, 0}, {0, 1}, {1, 1 + 60*b}} {
		const pieces = 200
		w := (iv[1] - iv[0]) / pieces
		for i := 0; i < pieces; i++ {
			s += quad.Fixed(f, iv[0]+float64(i)*w, iv[0]+float64(i+1)*w, 30, nil, 0)
		}
	}
	return s
}

// zhuWangLaplace is Zhu & Wang 2019 ("Poisson subsampled Rényi
// differential privacy") Thm 8, the exact RDP of the Poisson-subsampled
// Laplace mechanism at integer α:
// (α−1)ε = log[(1−q)^{α−1}(1+(α−1)q) + Σ_{j=2}^{α} C(α,j) q^j (1−q)^{α−j} e^{(j−1)ε_L(j)}],
// with Mironov's e^{(j−1)ε_L(j)} = j/(2j−1)·e^{(j−1)/b} + (j−1)/(2j−1)·e^{−j/b}.
func zhuWangLaplace(q, b float64, alpha int) float64 {
	// Written as A − 1 = Σ_{j≥2} C(α,j) q^j (1−q)^{α−j} (m_j − 1) (the
	// j = 0, 1 terms of the binomial sum have m = 1 and the weights sum to
	// one), so that tiny divergences keep their digits.
	a := float64(alpha)
	s := 0.0
	c := a // C(α,1)
	for j := 2; j <= alpha; j++ {
		jf := float64(j)
		c *= (a - jf + 1) / jf
		m1 := jf/(2*jf-1)*math.Expm1((jf-1)/b) + (jf-1)/(2*jf-1)*math.Expm1(-jf/b)
		s += c * math.Pow(q, jf) * math.Pow(1-q, a-jf) * m1
	}
	return math.Log1p(s) / (a - 1)
}

// TestPoissonLaplaceRDP pins the RDP of the Poisson-subsampled Laplace
// mechanism to Zhu–Wang Thm 8 at integer orders and to independent
// quadrature of both directions at fractional ones, and checks Zhu–Wang's
// claim that the add direction is the larger one.
func TestPoissonLaplaceRDP(t *testing.T) {
	for _, c := range []struct{ q, b float64 }{{0.01, 1}, {0.1, 0.5}, {0.5, 2}, {0.05, 0.2}, {0.001, 4}} {
		for _, a := range []int{2, 3, 5, 10, 32} {
			got := poissonLaplaceRDP(c.q, c.b, float64(a))
			want := zhuWangLaplace(c.q, c.b, a)
			if !near(got, want, 1e-15, 1e-9) {
				t.Errorf("q=%v b=%v α=%d: %.12g, Zhu–Wang %.12g", c.q, c.b, a, got, want)
			}
		}
		for _, a := range []float64{1.1, 1.5, 2.5, 7.3} {
			add := math.Log(laplaceMoment(c.q, c.b, a)) / (a - 1)
			rem := math.Log(laplaceMoment(c.q, c.b, 1-a)) / (a - 1)
			if rem > add*(1+1e-9) {
				t.Errorf("q=%v b=%v α=%v: remove %.6g > add %.6g", c.q, c.b, a, rem, add)
			}
			if got := poissonLaplaceRDP(c.q, c.b, a); !near(got, add, 1e-14, 1e-7) {
				t.Errorf("q=%v b=%v α=%v: %.10g, quadrature %.10g", c.q, c.b, a, got, add)
			}
		}
		// Pure DP: the RDP at ∞ is the amplified ε.
		if v := poissonLaplaceRDP(c.q, c.b, math.Inf(1)); !near(v, math.Log1p(c.q*math.Expm1(1/c.b)), 0, 1e-14) {
			t.Errorf("q=%v b=%v: RDP(∞) = %v", c.q, c.b, v)
		}
	}
	// Tiny divergences keep their relative precision (A − 1 ~ 1e-14).
	v := poissonLaplaceRDP(1e-4, 100, 2)
	if want := zhuWangLaplace(1e-4, 100, 2); !near(v, want, 0, 1e-6) || v <= 0 {
		t.Errorf("tiny: %v, want %v", v, want)
	}
}

// mcDeltas estimates δ(ε) = E_P[(1 − e^{ε−S})₊] at each ε of a
// composition by sampling the privacy loss S directly from the mechanisms
// (independent of any discretization); it returns the estimates and their
// standard errors.
func mcDeltas(n int, epss []float64, sample func(r interface{ Float64() float64 }) float64, seed uint64) (mean, se []float64) {
	r := rng.New(seed, "accountant-test", "monte-carlo").Rand()
	s, s2 := make([]float64, len(epss)), make([]float64, len(epss))
	for i := 0; i < n; i++ {
		l := sample(r)
		for k, eps := range epss {
			if l > eps {
				v := -math.Expm1(eps - l)
				s[k] += v
				s2[k] += v * v
			}
		}
	}
	mean, se = make([]float64, len(epss)), make([]float64, len(epss))
	for k := range epss {
		mean[k] = s[k] / float64(n)
		se[k] = math.Sqrt((s2[k]/float64(n) - mean[k]*mean[k]) / float64(n))
	}
	return mean, se
}

func lapSample(r interface{ Float64() float64 }, mu, b float64) float64 {
	u := r.Float64() - 0.5
	if u < 0 {
		return mu + b*math.Log1p(2*u)
	}
	return mu - b*math.Log1p(-2*u)
}

// TestPoissonLaplacePLD: the PLD of the Poisson-subsampled Laplace
// composed heterogeneously agrees with Monte Carlo (independent sampling
// of the losses) within 5 standard errors, stays below RDP, and at tiny δ
// reaches the pure-DP amplification bound log(1 + q(e^{1/b} − 1)) per step.
func TestPoissonLaplacePLD(t *testing.T) {
	e := Composed{Events: []Event{
		SelfComposed{Event: PoissonSampled{Q: 0.2, Event: Laplace{Scale: 0.5}}, Count: 8},
		SelfComposed{Event: PoissonSampled{Q: 0.05, Event: Laplace{Scale: 0.25}}, Count: 20},
	}}
	a := NewPLD(PLDOptions{})
	if err := a.Compose(e); err != nil {
		t.Fatal(err)
	}
	loss := func(r interface{ Float64() float64 }, q, b float64, add bool) float64 {
		var x float64
		if add && r.Float64() < q {
			x = lapSample(r, 1, b)
		} else {
			x = lapSample(r, 0, b)
		}
		l := math.Log1p(q * math.Expm1((math.Abs(x)-math.Abs(x-1))/b))
		if add {
			return l
		}
		return -l
	}
	n := 200000
	if testing.Short() {
		n = 50000
	}
	epss := []float64{1, 2}
	for dir, add := range []bool{true, false} {
		mc, se := mcDeltas(n, epss, func(r interface{ Float64() float64 }) float64 {
			s := 0.0
			for i := 0; i < 8; i++ {
				s += loss(r, 0.2, 0.5, add)
			}
			for i := 0; i < 20; i++ {
				s += loss(r, 0.05, 0.25, add)
			}
			return s
		}, uint64(7+dir))
		for k, eps := range epss {
			got := a.dir[dir].delta(eps, a.opts.Interval)
			if !(math.Abs(got-mc[k]) <= 5*se[k]+1e-4*mc[k]) {
				t.Errorf("ε=%v dir %d: PLD δ %.5g, Monte Carlo %.5g ± %.2g", eps, dir, got, mc[k], se[k])
			}
		}
	}
	r, _, err := RDPEpsilon(e, 1e-6)
	p, _ := a.Epsilon(1e-6)
	if err != nil || p > r {
		t.Errorf("PLD %v above RDP %v (%v)", p, r, err)
	}
	pure, _ := PureEpsilon(e, AddRemove)
	if want := 8*math.Log1p(0.2*math.Expm1(2)) + 20*math.Log1p(0.05*math.Expm1(4)); !near(pure, want, 0, 1e-14) {
		t.Errorf("pure ε %v, want %v", pure, want)
	}
	// The largest privacy loss is the pure ε: beyond it (plus the
	// discretization, at most one interval per composition) only the
	// pessimistic tail masses (≤ 1e-15 each) remain.
	for dir := range a.dir {
		if d := a.dir[dir].delta(pure+28*a.opts.Interval, a.opts.Interval); d > 1e-12 {
			t.Errorf("direction %d: δ above the pure ε = %v", dir, d)
		}
	}
	if d := a.dir[0].delta(pure-1, a.opts.Interval); !(d > 0) {
		t.Errorf("no mass near the pure ε: δ(pure − 1) = %v", d)
	}
}
