package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"gonum.org/v1/gonum/mat"
)

const propSeed = 20240727

func properties(t *testing.T) *gopter.Properties {
	params := gopter.DefaultTestParametersWithSeed(propSeed)
	params.MinSuccessfulTests = 50
	if testing.Short() {
		params.MinSuccessfulTests = 20
	}
	return gopter.NewProperties(params)
}

// randomSPD returns a random symmetric positive-definite d × d matrix.
func randomSPD(r *rand.Rand, d int) *mat.SymDense {
	g := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.Set(i, j, r.NormFloat64())
		}
	}
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1/float64(d), g)
	for i := 0; i < d; i++ {
		s.SetSym(i, i, s.At(i, i)+0.1)
	}
	return s
}

// gaussianSample draws n rows from N(mu, L Lᵀ) with L the Cholesky factor of cov.
func gaussianSample(r *rand.Rand, n int, mu []float64, cov *mat.SymDense) []float64 {
	d := len(mu)
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		panic("not SPD")
	}
	var l mat.TriDense
	ch.LTo(&l)
	x := make([]float64, n*d)
	z := make([]float64, d)
	for i := 0; i < n; i++ {
		rng.FillNormal(r, z, 1)
		for a := 0; a < d; a++ {
			s := mu[a]
			for b := 0; b <= a; b++ {
				s += l.At(a, b) * z[b]
			}
			x[i*d+a] = s
		}
	}
	return x
}

func TestFrechetIdenticalSampleIsZero(t *testing.T) {
	r := rng.Stream(1, "fd-identical")
	x := gaussianSample(r, 500, []float64{1, 2, 3, 4}, randomSPD(r, 4))
	res, err := Frechet(x, 500, x, 500, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(res.Distance) <= 1e-9) {
		t.Errorf("FD(x, x) = %g, want 0", res.Distance)
	}
}

// Diagonal (commuting) covariances: FD = ‖μ1−μ2‖² + Σ(√a_i − √b_i)².
// 2×2 general covariances: tr (M)^{1/2} = √(tr M + 2√det M) with
// tr M = tr Σ1Σ2 and det M = det Σ1 det Σ2.
func TestFrechetClosedForms(t *testing.T) {
	t.Run("diagonal", func(t *testing.T) {
		a := []float64{1, 4, 0.25}
		b := []float64{9, 1, 0.25}
		s1, s2 := mat.NewSymDense(3, nil), mat.NewSymDense(3, nil)
		for i := range a {
			s1.SetSym(i, i, a[i])
			s2.SetSym(i, i, b[i])
		}
		res, err := FrechetFromMoments([]float64{0, 1, 2}, s1, []float64{1, 1, 0}, s2)
		if err != nil {
			t.Fatal(err)
		}
		want := 1.0 + 4
		for i := range a {
			want += (math.Sqrt(a[i]) - math.Sqrt(b[i])) * (math.Sqrt(a[i]) - math.Sqrt(b[i]))
		}
		if !(math.Abs(res.Distance-want) <= 1e-12) {
			t.Errorf("FD %.15g, want %.15g", res.Distance, want)
		}
	})
	props := properties(t)
	props.Property("2×2 closed form and symmetry", prop.ForAll(func(seed uint64) bool {
		r := rng.New(seed, "fd-2x2").Rand()
		s1, s2 := randomSPD(r, 2), randomSPD(r, 2)
		mu1 := []float64{r.NormFloat64(), r.NormFloat64()}
		mu2 := []float64{r.NormFloat64(), r.NormFloat64()}
		var p mat.Dense
		p.Mul(s1, s2)
		trM := mat.Trace(&p)
		detM := mat.Det(s1) * mat.Det(s2)
		want := sqDist(mu1, mu2) + mat.Trace(s1) + mat.Trace(s2) - 2*math.Sqrt(trM+2*math.Sqrt(detM))
		ab, err1 := FrechetFromMoments(mu1, s1, mu2, s2)
		ba, err2 := FrechetFromMoments(mu2, s2, mu1, s1)
		if err1 != nil || err2 != nil {
			return false
		}
		return math.Abs(ab.Distance-want) < 1e-10*(1+want) && math.Abs(ab.Distance-ba.Distance) < 1e-10*(1+want)
	}, gen.UInt64()))
	props.Property("symmetric in d = 6 and non-negative", prop.ForAll(func(seed uint64) bool {
		r := rng.New(seed, "fd-sym").Rand()
		s1, s2 := randomSPD(r, 6), randomSPD(r, 6)
		mu1, mu2 := make([]float64, 6), make([]float64, 6)
		rng.FillNormal(r, mu1, 1)
		rng.FillNormal(r, mu2, 1)
		ab, _ := FrechetFromMoments(mu1, s1, mu2, s2)
		ba, _ := FrechetFromMoments(mu2, s2, mu1, s1)
		self, _ := FrechetFromMoments(mu1, s1, mu1, s1)
		return math.Abs(ab.Distance-ba.Distance) < 1e-9*(1+ab.Distance) && ab.Distance > -1e-9 && math.Abs(self.Distance) < 1e-9
	}, gen.UInt64()))
	props.TestingRun(t)
}

// Samples of two Gaussians: the sample FD approaches the closed form (the
// plug-in estimator's bias is O(d/n)).
func TestFrechetSamplesApproachClosedForm(t *testing.T) {
	r := rng.Stream(2, "fd-samples")
	d, n := 3, 40000
	s1, s2 := randomSPD(r, d), randomSPD(r, d)
	mu1, mu2 := []float64{0, 0, 0}, []float64{1, -1, 0.5}
	want, _ := FrechetFromMoments(mu1, s1, mu2, s2)
	res, err := Frechet(gaussianSample(r, n, mu1, s1), n, gaussianSample(r, n, mu2, s2), n, d)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(res.Distance-want.Distance) <= 0.03*(1+want.Distance)) {
		t.Errorf("sample FD %.4f, closed form %.4f", res.Distance, want.Distance)
	}
	same, _ := Frechet(gaussianSample(r, n, mu1, s1), n, gaussianSample(r, n, mu1, s1), n, d)
	if same.Distance > 0.01 {
		t.Errorf("FD of two samples of one Gaussian %.4f, want ≈ 0", same.Distance)
	}
}

// A rank-deficient covariance exercises the clamp: eigenvalues are zero up
// to rounding and the result stays finite and close to the exact value.
func TestFrechetRankDeficient(t *testing.T) {
	n, d := 50, 3
	x := make([]float64, n*d)
	for i := 0; i < n; i++ {
		v := float64(i) / 10
		x[i*d], x[i*d+1], x[i*d+2] = v, 2*v, -v // rank one
	}
	res, err := Frechet(x, n, x, n, d)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(res.Distance) || !(math.Abs(res.Distance) <= 1e-6) {
		t.Errorf("FD of a rank-one sample with itself %g (clamped %d, min eig %g)", res.Distance, res.Clamped, res.MinEig)
	}
}

// The unbiased MMD² of 1-D Gaussians averages to the closed form
// h/√(h²+2s1²) + h/√(h²+2s2²) − 2h/√(h²+s1²+s2²)·exp(−Δ²/(2(h²+s1²+s2²))).
func TestMMD2UnbiasedClosedForm(t *testing.T) {
	cases := []struct{ m1, s1, m2, s2, h float64 }{
		{0, 1, 0, 1, 1},
		{0, 1, 1, 1, 1},
		{0, 0.5, 0.3, 2, 0.7},
	}
	reps := 200
	if testing.Short() {
		reps = 80
	}
	for _, c := range cases {
		h2 := c.h * c.h
		want := c.h/math.Sqrt(h2+2*c.s1*c.s1) + c.h/math.Sqrt(h2+2*c.s2*c.s2) -
			2*c.h/math.Sqrt(h2+c.s1*c.s1+c.s2*c.s2)*math.Exp(-(c.m1-c.m2)*(c.m1-c.m2)/(2*(h2+c.s1*c.s1+c.s2*c.s2)))
		r := rng.Stream(3, "mmd", c.m1, c.s1, c.m2, c.s2)
		const n = 40
		var sum, sq float64
		x, y := make([]float64, n), make([]float64, n)
		for k := 0; k < reps; k++ {
			for i := range x {
				x[i] = c.m1 + c.s1*r.NormFloat64()
				y[i] = c.m2 + c.s2*r.NormFloat64()
			}
			v, err := MMD2(x, n, y, n, 1, c.h)
			if err != nil {
				t.Fatal(err)
			}
			sum += v
			sq += v * v
		}
		mean := sum / float64(reps)
		se := math.Sqrt((sq/float64(reps) - mean*mean) / float64(reps))
		if !(math.Abs(mean-want) <= 4.5*se+1e-12) {
			t.Errorf("%+v: mean MMD² %.5f ± %.5f, closed form %.5f", c, mean, se, want)
		}
	}
}

func TestMedianBandwidth(t *testing.T) {
	// Points 0, 1, 3 (x) and 6 (y): distances 1, 3, 6, 2, 5, 3 → median 3.
	if h := MedianBandwidth([]float64{0, 1, 3}, 3, []float64{6}, 1, 1, 0); h != 3 {
		t.Errorf("median bandwidth %g, want 3", h)
	}
	// With maxRows = 1: points 0 and 6 → 6.
	if h := MedianBandwidth([]float64{0, 1, 3}, 3, []float64{6}, 1, 1, 1); h != 6 {
		t.Errorf("median bandwidth with one row each %g, want 6", h)
	}
}

func TestModeCoverage(t *testing.T) {
	means := [][]float64{{0, 0}, {10, 0}, {0, 10}}
	weights := []float64{0.5, 0.25, 0.25}
	x := []float64{
		0.1, 0, // mode 0
		-0.2, 0.1, // mode 0
		9.9, 0.3, // mode 1
		5, 5, // outlier (7.07 from every mean)
		0.3, -0.1, // mode 0
	}
	st, err := ModeCoverage(x, 5, 2, means, weights, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts[0] != 3 || st.Counts[1] != 1 || st.Counts[2] != 0 || st.Outliers != 1 || st.Covered != 2 {
		t.Fatalf("stats %+v", st)
	}
	// TV = ½(|0.6−0.5| + |0.2−0.25| + |0−0.25| + 0.2) = 0.3.
	if !(math.Abs(st.TV-0.3) <= 1e-12) {
		t.Errorf("TV %g, want 0.3", st.TV)
	}
	// Assigned only: ½(|0.75−0.5| + |0.25−0.25| + |0−0.25|) = 0.25.
	if !(math.Abs(st.TVAssigned-0.25) <= 1e-12) || !(math.Abs(st.HighQuality-0.8) <= 1e-12) {
		t.Errorf("TVAssigned %g (want 0.25), HighQuality %g (want 0.8)", st.TVAssigned, st.HighQuality)
	}
	if _, err := ModeCoverage(x, 5, 2, means, weights[:2], 1, 1); err == nil {
		t.Error("expected an error for mismatched weights")
	}
}

// BenchmarkFrechet10kx64 is the Fréchet distance of two 10,000 × 64 samples
// (moments included), the size of a feature-space FID proxy.
func BenchmarkFrechet10kx64(b *testing.B) {
	r := rng.Stream(4, "bench")
	const n, d = 10000, 64
	x, y := make([]float64, n*d), make([]float64, n*d)
	rng.FillNormal(r, x, 1)
	rng.FillNormal(r, y, 1.1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Frechet(x, n, y, n, d); err != nil {
			b.Fatal(err)
		}
	}
}
