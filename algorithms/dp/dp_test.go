package dp

import (
	"math"
	"sort"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

func params(t *testing.T, seed int64, full, short int) *gopter.TestParameters {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = full
	if testing.Short() {
		p.MinSuccessfulTests = short
	}
	t.Logf("gopter seed %d", seed)
	return p
}

func TestClipL2(t *testing.T) {
	props := gopter.NewProperties(params(t, 301, 200, 50))
	props.Property("clip bounds the norm, keeps direction, reports the scale", prop.ForAll(
		func(v []float64, c float64) string {
			orig := append([]float64(nil), v...)
			n0 := Norm2(v)
			s := ClipL2(v, c)
			n1 := Norm2(v)
			if n1 > c*(1+1e-12) {
				return "norm above c"
			}
			if n0 <= c && (s != 1 || n1 != n0) {
				return "vector inside the ball changed"
			}
			if !(math.Abs(s-math.Min(1, c/n0)) <= 1e-12) && n0 > 0 {
				return "wrong scale"
			}
			for i := range v {
				if !(math.Abs(v[i]-s*orig[i]) <= 1e-12*math.Abs(orig[i])+1e-300) {
					return "direction changed"
				}
			}
			return ""
		}, gen.SliceOf(gen.Float64Range(-10, 10)), gen.Float64Range(0.01, 20)))
	props.TestingRun(t)
	if s := ClipL2([]float64{3, 4}, math.Inf(1)); s != 1 {
		t.Errorf("c=∞ scale %v", s)
	}
	if n := Norm2([]float64{1e200, 1e200}); !(math.Abs(n/1e200-math.Sqrt2) < 1e-15) {
		t.Errorf("Norm2 overflowed: %v", n)
	}
	defer func() {
		if recover() == nil {
			t.Error("negative clip norm did not panic")
		}
	}()
	ClipL2([]float64{1}, -1)
}

func TestClipRows(t *testing.T) {
	g := []float64{3, 4, 0.3, 0.4, 0, 0}
	scales := make([]float64, 3)
	if n := ClipRows(g, 2, 1, scales); n != 1 {
		t.Errorf("clipped %d rows, want 1", n)
	}
	want := []float64{0.6, 0.8, 0.3, 0.4, 0, 0}
	for i := range g {
		if !(math.Abs(g[i]-want[i]) <= 1e-15) {
			t.Errorf("g = %v, want %v", g, want)
			break
		}
	}
	if scales[0] != 0.2 || scales[1] != 1 || scales[2] != 1 {
		t.Errorf("scales %v", scales)
	}
	big := make([]float64, 64*128)
	r := rng.Stream(1, "dp", "clip-rows")
	for i := range big {
		big[i] = r.NormFloat64()
	}
	sc := make([]float64, 64)
	if a := testing.AllocsPerRun(20, func() { ClipRows(big, 128, 1, sc) }); a != 0 {
		t.Errorf("ClipRows allocates %v times", a)
	}
}

// ksCritical is the asymptotic one-sample Kolmogorov–Smirnov critical
// value at level 0.001: c(α)/√n with c = √(−ln(α/2)/2) = 1.9495.
func ksCritical(n int) float64 { return math.Sqrt(-math.Log(0.001/2)/2) / math.Sqrt(float64(n)) }

func TestGammaKS(t *testing.T) {
	const n = 20000
	for _, c := range []struct{ shape, rate float64 }{{0.3, 1}, {1, 2}, {2.5, 0.5}, {20, 4}, {784, 10}} {
		r := rng.Stream(7, "dp", "gamma", c.shape, c.rate)
		x := make([]float64, n)
		for i := range x {
			x[i] = Gamma(r, c.shape, c.rate)
		}
		sort.Float64s(x)
		ref := distuv.Gamma{Alpha: c.shape, Beta: c.rate}
		// One-sample KS statistic against the exact CDF.
		d := 0.0
		for i, v := range x {
			f := ref.CDF(v)
			d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
		}
		if d > ksCritical(n) {
			t.Errorf("Gamma(%v, %v): KS D = %.4g > %.4g", c.shape, c.rate, d, ksCritical(n))
		}
		// Two-sample KS against gonum's sampler on an independent stream.
		ref.Src = rng.New(7, "dp", "gamma-ref", c.shape, c.rate).Source()
		y := make([]float64, n)
		for i := range y {
			y[i] = ref.Rand()
		}
		sort.Float64s(y)
		d2 := stat.KolmogorovSmirnov(x, nil, y, nil)
		if crit := math.Sqrt(-math.Log(0.001/2)/2) * math.Sqrt(2.0/n); d2 > crit {
			t.Errorf("Gamma(%v, %v): two-sample KS D = %.4g > %.4g", c.shape, c.rate, d2, crit)
		}
	}
}

func TestObjectivePerturbation(t *testing.T) {
	const d, alpha, n = 20, 4.0, 5000
	r := rng.Stream(11, "dp", "objpert")
	o := ObjectivePerturbation{Alpha: alpha}
	v := make([]float64, d)
	radii := make([]float64, n)
	mean := make([]float64, d)
	var sq float64
	for i := range radii {
		radii[i] = o.Sample(r, v)
		if !(math.Abs(Norm2(v)-radii[i]) <= 1e-12*radii[i]) {
			t.Fatalf("‖n‖ = %v, radius %v", Norm2(v), radii[i])
		}
		for j := range v {
			mean[j] += v[j] / radii[i] / n
		}
		sq += v[0] * v[0] / (radii[i] * radii[i]) / n
	}
	// Radius ~ Gamma(d, α): mean d/α, KS against the CDF.
	if m := stat.Mean(radii, nil); !(math.Abs(m-d/alpha) <= 4*math.Sqrt(d)/alpha/math.Sqrt(n)) {
		t.Errorf("mean radius %v, want %v", m, d/alpha)
	}
	sort.Float64s(radii)
	ref := distuv.Gamma{Alpha: d, Beta: alpha}
	ks := 0.0
	for i, x := range radii {
		f := ref.CDF(x)
		ks = math.Max(ks, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	if ks > ksCritical(n) {
		t.Errorf("radius KS D = %v", ks)
	}
	// Direction uniform on the sphere: E[u] = 0, E[u₁²] = 1/d.
	for j, m := range mean {
		if !(math.Abs(m) <= 5/math.Sqrt(float64(d)*n)) {
			t.Errorf("E[u_%d] = %v", j, m)
		}
	}
	if !(math.Abs(sq-1.0/d) <= 5*math.Sqrt(2.0/n)/d) {
		t.Errorf("E[u₁²] = %v, want %v", sq, 1.0/d)
	}
	// Configurable shape (upstream uses the input dimension).
	o.Shape = 784
	if rad := o.Sample(r, v); rad < 100 || rad > 300 {
		t.Errorf("shape 784, α=4: radius %v, want ≈ 196", rad)
	}
}

func TestNoise(t *testing.T) {
	r := rng.Stream(3, "dp", "noise")
	const n = 50000
	v := make([]float64, n)
	AddGaussian(r, v, 2)
	m, s := stat.MeanStdDev(v, nil)
	if !(math.Abs(m) <= 4*2/math.Sqrt(n)) || !(math.Abs(s-2) <= 0.03) {
		t.Errorf("Gaussian noise mean %v std %v", m, s)
	}
	w := make([]float64, n)
	AddLaplace(r, w, 1.5)
	var mad float64
	for _, x := range w {
		mad += math.Abs(x) / n
	}
	if !(math.Abs(mad-1.5) <= 0.03) {
		t.Errorf("Laplace E|x| = %v, want 1.5", mad)
	}
	// Same stream, same bits.
	a, b := make([]float64, 8), make([]float64, 8)
	AddGaussian(rng.Stream(5, "x"), a, 1)
	AddGaussian(rng.Stream(5, "x"), b, 1)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("noise is not determined by the stream")
		}
	}
}
