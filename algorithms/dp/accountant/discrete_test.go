package accountant

import (
	"errors"
	"math"
	"testing"
)

// dgHockeyStick is δ(ε) of the discrete Gaussian mechanism by direct
// summation of the hockey-stick divergence Σ_x max(0, p(x) − e^ε p(x−Δ)),
// with its own normalisation over |x| ≤ 60σ + 60.
func dgHockeyStick(sigma float64, d int, eps float64) float64 {
	k := int(60*sigma) + 60
	w := func(x int) float64 { return math.Exp(-float64(x) * float64(x) / (2 * sigma * sigma)) }
	z := 0.0
	for x := -k; x <= k; x++ {
		z += w(x)
	}
	s := 0.0
	for x := -k; x <= k+d; x++ {
		if v := w(x) - math.Exp(eps)*w(x-d); v > 0 {
			s += v
		}
	}
	return s / z
}

// TestDiscreteGaussianExact pins the exact (ε, δ) of the discrete Gaussian
// (Canonne, Kamath and Steinke 2020 Thm 7) to direct summation of the
// hockey-stick divergence, and checks the inverse.
func TestDiscreteGaussianExact(t *testing.T) {
	for _, sigma := range []float64{0.5, 1, 3, 10} {
		for _, d := range []int{1, 2, 5} {
			for _, eps := range []float64{0, 0.5, 2} {
				got, err := DiscreteGaussianDelta(sigma, d, eps)
				want := dgHockeyStick(sigma, d, eps)
				if err != nil || !near(got, want, 1e-300, 1e-10) {
					t.Errorf("σ=%v Δ=%d ε=%v: δ %.12g, direct sum %.12g (%v)", sigma, d, eps, got, want, err)
				}
			}
			for _, delta := range []float64{1e-9, 1e-5, 1e-2} {
				e, err := DiscreteGaussianEpsilon(sigma, d, delta)
				if err != nil {
					t.Fatal(err)
				}
				back := dgHockeyStick(sigma, d, e)
				if e > 0 && !near(back, delta, 0, 1e-8) {
					t.Errorf("σ=%v Δ=%d: δ(ε(%v)) = %v", sigma, d, delta, back)
				}
			}
		}
	}
	if _, err := DiscreteGaussianEpsilon(0, 1, 1e-5); !errors.Is(err, ErrInfinite) {
		t.Errorf("σ = 0: %v", err)
	}
	if _, err := DiscreteGaussianDelta(1, 0, 1); err == nil {
		t.Error("sensitivity 0 accepted")
	}
	// The accountants: RDP (CKS zCDP bound) ≥ exact, PLD pessimistic and
	// close, PRV brackets it; replace-one doubles the sensitivity.
	e := DiscreteGaussian{Sigma: 3, Sensitivity: 2}
	exact, _ := DiscreteGaussianEpsilon(3, 2, 1e-6)
	if ex, err := ExactEpsilon(e, 1e-6, AddRemove); err != nil || ex != exact {
		t.Errorf("ExactEpsilon %v (%v), want %v", ex, err, exact)
	}
	if ro, _ := ExactEpsilon(e, 1e-6, ReplaceOne); ro != mustDG(t, 3, 4, 1e-6) {
		t.Errorf("replace-one: %v", ro)
	}
	// CKS Thm 4: (Δ²/(2σ²))-zCDP, RDP α·Δ²/(2σ²); replace-one doubles Δ.
	for _, c := range []struct {
		nb   Neighbouring
		want float64
	}{{AddRemove, 2 * 4.0 / 18}, {ReplaceOne, 2 * 16.0 / 18}} {
		if v, err := EventRDP(e, []float64{2}, c.nb); err != nil || !near(v[0], c.want, 0, 1e-14) {
			t.Errorf("RDP(2) under %v: %v (%v), want %v", c.nb, v, err, c.want)
		}
	}
	if r, _, _ := RDPEpsilon(e, 1e-6); r < exact {
		t.Errorf("RDP %v below exact %v", r, exact)
	}
	if p := pldEps(t, AddRemove, e, 1e-6); p < exact-1e-9 || p > exact+1e-3 {
		t.Errorf("PLD %v, exact %v", p, exact)
	}
	if r := prvEps(t, AddRemove, SelfComposed{Event: e, Count: 1}, 1e-6, PRVOptions{}); exact < r.Lower || exact > r.Upper {
		t.Errorf("PRV %+v, exact %v", r, exact)
	}
}

func mustDG(t *testing.T, sigma float64, d int, delta float64) float64 {
	t.Helper()
	e, err := DiscreteGaussianEpsilon(sigma, d, delta)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// dgSumRenyi is D_α(Z + Δ ‖ Z) for Z the sum of n independent N_ℤ(0,σ²),
// by convolving the PMFs and summing Σ_z p(z−Δ)^α p(z)^{1−α}.
func dgSumRenyi(sigma float64, n, d int, alpha float64) float64 {
	k := int(40*sigma) + 40
	one := make([]float64, 2*k+1)
	z := 0.0
	for x := -k; x <= k; x++ {
		one[x+k] = math.Exp(-float64(x) * float64(x) / (2 * sigma * sigma))
		z += one[x+k]
	}
	for i := range one {
		one[i] /= z
	}
	sum := []float64{1}
	for i := 0; i < n; i++ {
		next := make([]float64, len(sum)+len(one)-1)
		for a, u := range sum {
			for b, v := range one {
				next[a+b] += u * v
			}
		}
		sum = next
	}
	at := func(i int) float64 {
		if i < 0 || i >= len(sum) {
			return 0
		}
		return sum[i]
	}
	s := 0.0
	for i := range sum {
		p, q := at(i-d), at(i)
		if p > 0 && q > 0 {
			s += math.Exp(alpha*math.Log(p) + (1-alpha)*math.Log(q))
		}
	}
	return math.Log(s) / (alpha - 1)
}

// TestDistributedDiscreteGaussian: Kairouz–Liu–Steinke Prop. 14 is an
// upper bound on the Rényi divergence of the actual sum of n discrete
// Gaussians (computed by convolution); for one client it is the discrete
// Gaussian's zCDP bound; τ is as their Thm 1 defines it.
func TestDistributedDiscreteGaussian(t *testing.T) {
	for _, sigma := range []float64{0.5, 1, 2} {
		for _, n := range []int{2, 5, 10} {
			for _, d := range []int{1, 3} {
				e := DistributedDiscreteGaussian{Sigma: sigma, Clients: n, L2: float64(d), L1: float64(d), Dim: 1}
				for _, a := range []float64{2, 4, 8} {
					bound := ddgRDP(e, a, AddRemove)
					actual := dgSumRenyi(sigma, n, d, a)
					if bound < actual*(1-1e-9) {
						t.Errorf("σ=%v n=%d Δ=%d α=%v: bound %.6g below the actual %.6g", sigma, n, d, a, bound, actual)
					}
				}
			}
		}
	}
	one := DistributedDiscreteGaussian{Sigma: 2, Clients: 1, L2: 3, Dim: 1}
	v, _ := EventRDP(one, []float64{2, 5}, AddRemove)
	dg, _ := EventRDP(DiscreteGaussian{Sigma: 2, Sensitivity: 3}, []float64{2, 5}, AddRemove)
	if !near(v[0], dg[0], 0, 1e-15) || !near(v[1], dg[1], 0, 1e-15) {
		t.Errorf("one client %v, discrete Gaussian %v", v, dg)
	}
	tau := 10 * (math.Exp(-2*math.Pi*math.Pi*0.25*0.5) + math.Exp(-2*math.Pi*math.Pi*0.25*2.0/3))
	if !near(ddgTau(0.5, 3), tau, 0, 1e-15) {
		t.Errorf("τ(0.5, 3) = %v, want %v", ddgTau(0.5, 3), tau)
	}
	// PLD and PRV have no distribution for it; zCDP does.
	if err := NewPLD(PLDOptions{}).Compose(one); !errors.Is(err, ErrUnsupported) {
		t.Errorf("PLD: %v", err)
	}
	if rho, _, err := ZCDPOf(one, AddRemove); err != nil || !near(rho, 9.0/8, 0, 1e-15) {
		t.Errorf("zCDP ρ = %v (%v), want 9/8", rho, err)
	}
}

// TestDiscreteGaussianLargeSigma checks the exact curve where σ is near its
// bound, where dgDelta sums only the terms within reach of the target and
// takes them from re-anchored recurrences: δ(ε) against direct summation
// of the hockey-stick divergence over |x| ≤ 60σ + 60, and ε(δ) as the
// smallest ε meeting δ (to its 1e-12 tolerance) under that same sum.
func TestDiscreteGaussianLargeSigma(t *testing.T) {
	for _, c := range []struct {
		sigma float64
		d     int
	}{{2500, 1}, {8000, 3}} {
		for _, f := range []float64{0, 0.3, 1, 3} {
			eps := f * float64(c.d) / c.sigma
			got, err := DiscreteGaussianDelta(c.sigma, c.d, eps)
			want := dgHockeyStick(c.sigma, c.d, eps)
			if err != nil || !near(got, want, 1e-300, 1e-9) {
				t.Errorf("σ=%v Δ=%d ε=%.4g: δ %.12g, direct sum %.12g (%v)", c.sigma, c.d, eps, got, want, err)
			}
		}
		for _, delta := range []float64{1e-12, 1e-5} {
			e, err := DiscreteGaussianEpsilon(c.sigma, c.d, delta)
			if err != nil {
				t.Fatal(err)
			}
			if at, below := dgHockeyStick(c.sigma, c.d, e), dgHockeyStick(c.sigma, c.d, e*(1-1e-9)); e > 0 && (at > delta*(1+1e-9) || below < delta*(1-1e-9)) {
				t.Errorf("σ=%v Δ=%d δ=%v: ε %.12g gives δ %.12g, ε(1−1e-9) gives %.12g", c.sigma, c.d, delta, e, at, below)
			}
		}
	}
}

// TestDgNorm checks the normaliser from Poisson summation against the
// direct sum on both sides of the switch at σ = 1.
func TestDgNorm(t *testing.T) {
	for _, sigma := range []float64{0.2, 0.7, 0.999, 1, 1.3, 4, 50} {
		k := int(60*sigma) + 60
		z := 0.0
		for x := k; x >= -k; x-- {
			z += math.Exp(-float64(x) * float64(x) / (2 * sigma * sigma))
		}
		if got := dgNorm(sigma); !near(got, z, 0, 1e-14) {
			t.Errorf("σ=%v: Z %.17g, direct %.17g", sigma, got, z)
		}
	}
}

// dgDirect is δ(ε) by the privacy-loss form Σ_x p(x)·(1 − e^{ε−L(x)})₊
// over the whole table |x| ≤ 60σ + 60, every term exact (no cut-off, no
// recurrence), in the form that stays finite at huge ε (unlike
// dgHockeyStick's e^ε).
func dgDirect(sigma float64, d int, eps float64) float64 {
	k := int(60*sigma) + 60
	inv := 1 / (2 * sigma * sigma)
	df := float64(d)
	z, s := 0.0, 0.0
	for x := -k; x <= k; x++ {
		fx := float64(x)
		w := math.Exp(-fx * fx * inv)
		z += w
		if l := (df*df - 2*fx*df) * inv; l > eps {
			s += w * -math.Expm1(eps-l)
		}
	}
	return s / z
}

// TestDiscreteGaussianTinySigma: below σ = 2 the exact curve takes every
// term exactly (the recurrences' ratios leave the double range: at
// σ = 1e-6 they once made 0·∞ = NaN and the sum never ended).
func TestDiscreteGaussianTinySigma(t *testing.T) {
	for _, sigma := range []float64{1e-6, 0.01, 0.3, 1.99} {
		for _, d := range []int{1, 4} {
			for _, delta := range []float64{1.5e-9, 1e-3} {
				e, err := DiscreteGaussianEpsilon(sigma, d, delta)
				if err != nil || math.IsNaN(e) || math.IsInf(e, 0) {
					t.Fatalf("σ=%v Δ=%d δ=%v: ε %v (%v)", sigma, d, delta, e, err)
				}
				// ε meets δ, and 2e-12 below it does not (the solve's
				// tolerance is 1e-12 relative).
				if at := dgDirect(sigma, d, e); at > delta*(1+1e-9) {
					t.Errorf("σ=%v Δ=%d δ=%v: ε %.15g gives δ %.6g", sigma, d, delta, e, at)
				}
				if below := dgDirect(sigma, d, e*(1-2e-12)); e > 0 && below <= delta {
					t.Errorf("σ=%v Δ=%d δ=%v: ε %.15g is not the smallest (δ %.6g at ε(1−2e-12))", sigma, d, delta, e, below)
				}
			}
		}
	}
}
