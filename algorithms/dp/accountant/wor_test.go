package accountant

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// substitutionRenyi is D_α(P‖Q) for P = (1−γ)N(0,σ²) + γN(1,σ²) and
// Q = (1−γ)N(0,σ²) + γN(−1,σ²), by plain quadrature: the output of a
// Gaussian sum query on a batch drawn without replacement when one record
// (+1 in D, −1 in D′, everything else 0) is replaced. Any bound on the
// mechanism's RDP under replace-one must be at least this.
func substitutionRenyi(gamma, sigma, alpha float64) float64 {
	phi := func(x, m float64) float64 {
		return math.Exp(-(x-m)*(x-m)/(2*sigma*sigma)) / (sigma * math.Sqrt(2*math.Pi))
	}
	f := func(x float64) float64 {
		p := (1-gamma)*phi(x, 0) + gamma*phi(x, 1)
		q := (1-gamma)*phi(x, 0) + gamma*phi(x, -1)
		return q * math.Pow(p/q, alpha)
	}
	lo, hi := -2-30*sigma, 2+30*sigma+alpha*4
	s := 0.0
	const pieces = 400
	w := (hi - lo) / pieces
	for i := 0; i < pieces; i++ {
		s += quad.Fixed(f, lo+float64(i)*w, lo+float64(i+1)*w, 30, nil, 0)
	}
	return math.Log(s) / (alpha - 1)
}

// TestWORTheorem27: Wang–Balle–Kasiviswanathan Theorem 27 never exceeds
// Theorem 9 on a grid of (γ, σ, α), and both stay above the Rényi
// divergence of an actual replace-one pair of the subsampled Gaussian
// (independent quadrature) at small orders. Theorem 27 is strictly
// tighter somewhere (else the option would be pointless).
func TestWORTheorem27(t *testing.T) {
	tighter := false
	for _, gamma := range []float64{0.001, 0.01, 0.1, 0.5} {
		for _, sigma := range []float64{0.7, 1, 2, 5} {
			orders := []float64{2, 2.5, 3, 4, 5, 8, 16, 32, 63}
			e := SampledWithoutReplacement{SampleSize: int(gamma * 100000), PopulationSize: 100000, Event: Gaussian{Sigma: sigma}}
			v27, _, err := worRDPVector(e, orders, WORTheorem27)
			if err != nil {
				t.Fatal(err)
			}
			v9, _, _ := worRDPVector(e, orders, WORTheorem9)
			for i, a := range orders {
				if v27[i] > v9[i]*(1+1e-12) {
					t.Errorf("γ=%v σ=%v α=%v: Thm 27 %.6g > Thm 9 %.6g", gamma, sigma, a, v27[i], v9[i])
				}
				if v27[i] < v9[i]*(1-1e-6) {
					tighter = true
				}
				if a <= 8 && a == math.Trunc(a) {
					low := substitutionRenyi(gamma, sigma, a)
					if v27[i] < low*(1-1e-6) {
						t.Errorf("γ=%v σ=%v α=%v: Thm 27 %.6g below an actual pair's divergence %.6g", gamma, sigma, a, v27[i], low)
					}
				}
			}
		}
	}
	if !tighter {
		t.Error("Theorem 27 never tighter than Theorem 9")
	}
	// The default RDP accountant uses Theorem 27; Theorem 9 on request.
	// Theorem 27 helps when the noise is large (its forward differences
	// are then far below Theorem 9's 2e^{(j−1)ε(j)}).
	e := SelfComposed{Event: SampledWithoutReplacement{SampleSize: 100, PopulationSize: 10000, Event: Gaussian{Sigma: 5}}, Count: 1000}
	eps := func(b WORBound) float64 {
		a := NewRDP(nil)
		a.Neighbouring, a.WOR = ReplaceOne, b
		if err := a.Compose(e); err != nil {
			t.Fatal(err)
		}
		v, _, _ := a.Epsilon(1e-5, Improved)
		return v
	}
	e27, e9 := eps(WORTheorem27), eps(WORTheorem9)
	if !(e27 < e9) {
		t.Errorf("accountant: Thm 27 ε %v not below Thm 9 ε %v", e27, e9)
	}
}

// TestGaussianForwardDiffs: Δ_k = E[(e^Y − 1)^k] of the Gaussian pair,
// against the alternating sum Σ_i C(k,i)(−1)^{k−i}e^{i(i−1)/(2s²)} where
// it is well conditioned (small s: large divergences) and against the
// leading term (k−1)!!·v^{k/2} (v = 1/s²) where it is not (large s).
func TestGaussianForwardDiffs(t *testing.T) {
	d := gaussianForwardDiffs(0.7, 8)
	for _, k := range []int{2, 4, 6, 8} {
		sum, c := 0.0, 1.0
		for i := 0; i <= k; i++ {
			if i > 0 {
				c *= float64(k-i+1) / float64(i)
			}
			sign := 1.0
			if (k-i)%2 == 1 {
				sign = -1
			}
			sum += sign * c * math.Exp(float64(i*(i-1))/(2*0.49))
		}
		if !near(math.Exp(d[k]), sum, 0, 1e-9) {
			t.Errorf("s=0.7 k=%d: %.10g, alternating sum %.10g", k, math.Exp(d[k]), sum)
		}
	}
	big := gaussianForwardDiffs(1e4, 6)
	v := 1e-8
	for _, c := range []struct {
		k  int
		df float64
	}{{2, 1}, {4, 3}, {6, 15}} {
		want := c.df * math.Pow(v, float64(c.k)/2)
		if !near(math.Exp(big[c.k]), want, 0, 1e-6) {
			t.Errorf("s=1e4 k=%d: %.6g, leading term %.6g", c.k, math.Exp(big[c.k]), want)
		}
	}
}

// thm27Plain writes WBK Theorem 27 out for the Gaussian with noise s (in
// units of the sensitivity) at integer α ≤ 12, with the forward
// differences Δ_k = Σ_i C(k,i)(−1)^{k−i} e^{i(i−1)/(2s²)} summed directly
// (well conditioned for the moderate s used here).
func thm27Plain(gamma, s float64, alpha int) float64 {
	eps := func(j float64) float64 { return j / (2 * s * s) }
	binom := func(n, k int) float64 {
		c := 1.0
		for i := 1; i <= k; i++ {
			c = c * float64(n-k+i) / float64(i)
		}
		return c
	}
	diff := func(k int) float64 {
		v := 0.0
		for i := 0; i <= k; i++ {
			sign := 1.0
			if (k-i)%2 == 1 {
				sign = -1
			}
			v += sign * binom(k, i) * math.Exp(float64(i*(i-1))/(2*s*s))
		}
		return v
	}
	sum := 1 + gamma*gamma*binom(alpha, 2)*math.Min(4*math.Expm1(eps(2)), 2*math.Exp(eps(2)))
	for j := 3; j <= alpha; j++ {
		lo, hi := 2*(j/2), 2*((j+1)/2)
		term := math.Min(4*math.Sqrt(diff(lo)*diff(hi)), 2*math.Exp(float64(j-1)*eps(float64(j))))
		sum += math.Pow(gamma, float64(j)) * binom(alpha, j) * term
	}
	return math.Log(sum) / float64(alpha-1)
}

// TestWORTheorem27Formula pins the implementation to the formula written
// out, where its forward-difference terms are the active ones.
func TestWORTheorem27Formula(t *testing.T) {
	for _, s := range []float64{2.5, 3.5} {
		base := worGaussianBase(s, 12, WORTheorem27)
		for _, gamma := range []float64{0.01, 0.1} {
			for a := 2; a <= 12; a++ {
				got := worRDPInt(gamma, base, a)
				if want := thm27Plain(gamma, s, a); !near(got, want, 0, 1e-8) {
					t.Errorf("s=%v γ=%v α=%d: %.12g, formula %.12g", s, gamma, a, got, want)
				}
			}
		}
	}
}
