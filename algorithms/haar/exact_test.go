package haar

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/mat"
)

func TestMatricesAreInverse(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8, 13, 16} {
		a := ForwardMatrix(n)
		b := InverseMatrix(n)
		var p mat.Dense
		p.Mul(b, a) // n×n: reconstruct after transform
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if !near(p.At(i, j), want, 1e-12) {
					t.Fatalf("n=%d: (A⁻¹A)[%d,%d] = %g", n, i, j, p.At(i, j))
				}
			}
		}
	}
}

func TestCoordinateVariance(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7, 8, 100, 1024} {
		m := PaddedLen(n)
		v := CoordinateVariance(n, 2)
		want := 4.0
		if m > 1 {
			want = CoordinateVarianceClosedForm(m, 2)
		}
		for e, x := range v {
			if !near(x, want, 1e-12) {
				t.Fatalf("n=%d e=%d: %g, closed form %g", n, e, x, want)
			}
		}
		if n <= 16 { // and against the explicit covariance
			cov := NoiseCovariance(n, 2)
			for e := range v {
				if !near(cov.At(e, e), v[e], 1e-12) {
					t.Fatalf("n=%d: covariance diagonal %g vs %g", n, cov.At(e, e), v[e])
				}
			}
		}
	}
}

func TestRangeSumVarianceMatchesCovariance(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8, 11, 16, 32} {
		cov := NoiseCovariance(n, 1.5)
		best := -1.0
		for a := 0; a < n; a++ {
			for b := a; b < n; b++ {
				var s float64
				for i := a; i <= b; i++ {
					for k := a; k <= b; k++ {
						s += cov.At(i, k)
					}
				}
				got := RangeSumVariance(n, 1.5, a, b)
				if !near(got, s, 1e-10) {
					t.Fatalf("n=%d [%d,%d]: %g, brute force %g", n, a, b, got, s)
				}
				best = math.Max(best, s)
			}
		}
		if v, _, _ := MaxRangeSumVariance(n, 1.5); !near(v, best, 1e-10) {
			t.Fatalf("n=%d: max %g, brute force %g", n, v, best)
		}
	}
	// The full-length sum only sees the base coefficient: variance scale².
	for _, m := range []int{2, 8, 64, 512} {
		if v := RangeSumVariance(m, 1, 0, m-1); !near(v, 1, 1e-12) {
			t.Fatalf("m=%d: full-range variance %g, want 1", m, v)
		}
	}
}

func TestWeightedOperatorNorm(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 6, 8, 16, 33, 64} {
		a := ForwardMatrix(n)
		m := PaddedLen(n)
		w := mat.NewDiagDense(m, Weights(m))
		var wa mat.Dense
		wa.Mul(w, a)
		var svd mat.SVD
		if !svd.Factorize(&wa, mat.SVDNone) {
			t.Fatal("svd failed")
		}
		want := svd.Values(nil)[0]
		if got := WeightedOperatorNorm(n); !near(got, want, 1e-9*want) {
			t.Fatalf("n=%d: power iteration %g, SVD %g", n, got, want)
		}
		if n == m && !near(want, math.Sqrt(float64(m)), 1e-9) {
			t.Fatalf("m=%d: ‖diag(W)A‖ = %g, want √m", m, want)
		}
	}
}

func TestEffectiveMultipliers(t *testing.T) {
	for _, m := range []int{2, 8, 1024} {
		if got := CoefficientClipMultiplier(m, 1.5); !near(got, 1.5/float64(m), 1e-15) {
			t.Errorf("m=%d coefficient clip: %g", m, got)
		}
		if got := GradientClipMultiplier(m, 1.5); !near(got, 1.5/math.Sqrt(float64(m)), 1e-9) {
			t.Errorf("m=%d gradient clip: %g", m, got)
		}
	}
	if got := SigmaHaar(1, 8); !near(got, math.Sqrt(2.0/5), 1e-15) {
		t.Errorf("SigmaHaar(1,8) = %g", got)
	}
}

func TestWaveletNoiseMechanisms(t *testing.T) {
	const n = 37
	r := rng.Stream(4, "mech")
	grads := make([][]float64, 5)
	for i := range grads {
		grads[i] = make([]float64, n)
		for k := range grads[i] {
			grads[i][k] = 3 * r.NormFloat64()
		}
	}
	scr := make([]float64, 2*PaddedLen(n))
	for _, dom := range []ClipDomain{CoefficientDomain, GradientDomain} {
		// Without noise the mechanism returns the mean of the clipped gradients.
		got := WaveletNoise(r, grads, Alg1Params{C: 1, Sigma: 0, Domain: dom})
		want := make([]float64, n)
		for _, g := range grads {
			var nrm float64
			if dom == CoefficientDomain {
				nrm = CoefficientNorm(g, scr)
			} else {
				nrm = math.Sqrt(mat.Dot(mat.NewVecDense(n, g), mat.NewVecDense(n, g)))
			}
			s := 1 / math.Max(1, nrm)
			for k := range g {
				want[k] += s * g[k] / float64(len(grads))
			}
		}
		for k := range want {
			if !near(got[k], want[k], 1e-12) {
				t.Fatalf("%v: noiseless output %g, want %g", dom, got[k], want[k])
			}
		}
	}
	// With noise, output − noiseless = HWT⁻¹(ν)/lot from the same stream.
	p := Alg1Params{C: 2, Sigma: 1.3, Domain: CoefficientDomain, Lot: 4}
	noisy := WaveletNoise(rng.Stream(5, "n"), grads, p)
	p0 := p
	p0.Sigma = 0
	clean := WaveletNoise(rng.Stream(5, "n"), grads, p0)
	nu := make([]float64, n)
	ReconstructedNoiseInto(nu, rng.Stream(5, "n"), p.Sigma*p.C, scr)
	for k := range nu {
		if !near(noisy[k]-clean[k], nu[k]/4, 1e-12) {
			t.Fatalf("noise decomposition fails at %d", k)
		}
	}
	// Algorithm 2: ŵ = w + HWT⁻¹(ν).
	w := grads[0]
	what := WaveletNoiseAggregate(rng.Stream(6, "a"), w, 0.7)
	ReconstructedNoiseInto(nu, rng.Stream(6, "a"), 0.7, scr)
	for k := range w {
		if !near(what[k]-w[k], nu[k], 1e-12) {
			t.Fatalf("aggregate noise decomposition fails at %d", k)
		}
	}
}

// TestAuditGameMatchesEffectiveMultiplier plays the audit game on the
// actual mechanisms and checks that the standardised mean shift of the
// optimal score equals 1/EffectiveMultiplier — the effective-multiplier
// analysis, confirmed on the real code path.
func TestAuditGameMatchesEffectiveMultiplier(t *testing.T) {
	const trials = 4000
	for _, n := range []int{8, 37, 64} {
		for _, v := range Variants {
			g := NewAuditGame(v, n, 0.7)
			a := g.Scores(rng.Stream(7, "game", int(v), n, false), false, trials)
			b := g.Scores(rng.Stream(7, "game", int(v), n, true), true, trials)
			var ma, mb, va float64
			for i := range a {
				ma += a[i] / trials
				mb += b[i] / trials
			}
			for _, x := range a {
				va += (x - ma) * (x - ma) / (trials - 1)
			}
			mu := (mb - ma) / math.Sqrt(va)
			want := 1 / EffectiveMultiplier(v, n, 0.7)
			if !(math.Abs(mu/want-1) <= 0.06) {
				t.Errorf("%v n=%d: standardised shift %.4g, 1/effective multiplier %.4g", v, n, mu, want)
			}
		}
	}
}
