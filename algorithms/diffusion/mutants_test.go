package diffusion

// Checks aimed at mutants gremlins left alive (issue 12, item 5).

import (
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// TestScheduleErrorMessages: each precondition reports its own error.
func TestScheduleErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"ScaledLinear(0)", func() error { _, e := ScaledLinear(0); return e }(), "needs T ≥ 1 steps, got 0"},
		// T = 1 passes the step check and fails on β = 20 (0.02·1000).
		{"ScaledLinear(1)", func() error { _, e := ScaledLinear(1); return e }(), "β endpoints must lie in (0,1)"},
		{"Linear(0)", func() error { _, e := Linear(0, 0.1, 0.2); return e }(), "needs T ≥ 1 steps, got 0"},
		// Linear rejects its endpoints itself (not only through FromBetas).
		{"Linear β_1 = 0", func() error { _, e := Linear(3, 0, 0.2); return e }(), "β endpoints must lie in (0,1), got 0 and 0.2"},
		{"Linear β_1 = 1", func() error { _, e := Linear(3, 1, 0.2); return e }(), "β endpoints must lie in (0,1), got 1 and 0.2"},
		{"Linear β_T = 0", func() error { _, e := Linear(3, 0.1, 0); return e }(), "β endpoints must lie in (0,1), got 0.1 and 0"},
		{"Linear β_T = 1", func() error { _, e := Linear(3, 0.1, 1); return e }(), "β endpoints must lie in (0,1), got 0.1 and 1"},
		{"FromBetas β_2 = 1", func() error { _, e := FromBetas([]float64{0.5, 1}); return e }(), "β_2 = 1 outside (0,1)"},
		{"FromBetas β_1 = 0", func() error { _, e := FromBetas([]float64{0}); return e }(), "β_1 = 0 outside (0,1)"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}

// TestSampleReusesDst: a dst with enough capacity is filled in place and
// a short one is replaced; both give the same samples.
func TestSampleReusesDst(t *testing.T) {
	s, _ := Linear(3, 0.1, 0.3)
	smp := NewSampler(s, VarBeta)
	p := constPred{[]float64{0.5, -1}}
	dst := make([]float64, 6)
	out := smp.Sample(p, 3, rng.Stream(1), dst)
	if &out[0] != &dst[0] {
		t.Error("Sample did not reuse a dst of exactly n·d values")
	}
	short := make([]float64, 5)
	out2 := smp.Sample(p, 3, rng.Stream(1), short)
	if len(out2) != 6 || &out2[0] == &short[0] {
		t.Errorf("short dst: len %d", len(out2))
	}
	nearVec(t, "same samples", out2, out)
}

// TestMixtureSampleReusesBuffers: Sample fills x and labels of exactly the
// right capacity in place.
func TestMixtureSampleReusesBuffers(t *testing.T) {
	g := &GaussianMixture{Means: [][]float64{{0, 0}, {5, 5}}, Stds: []float64{1, 1}, Weights: []float64{0.5, 0.5}}
	x, l := make([]float64, 4), make([]int, 2)
	x2, l2 := g.Sample(rng.Stream(2), 2, x, l)
	if &x2[0] != &x[0] || &l2[0] != &l[0] {
		t.Error("buffers of exactly the right size were replaced")
	}
	// Buffers shorter than n·d values and n labels are replaced.
	x4, l4 := g.Sample(rng.Stream(2), 2, make([]float64, 2, 3), make([]int, 1, 1))
	if len(x4) != 4 || len(l4) != 2 {
		t.Errorf("short buffers: %d values, %d labels", len(x4), len(l4))
	}
	x3, l3 := g.Sample(rng.Stream(2), 2, nil, nil)
	nearVec(t, "same draws", x3, x2)
	if l3[0] != l2[0] || l3[1] != l2[1] {
		t.Error("labels differ")
	}
}

// TestSecondCallDoesNotAllocate: after one call with a batch size, a
// second call with the same size allocates nothing (the buffers are kept
// at exactly the size seen). testing.AllocsPerRun(1, f) runs f once to
// warm up and measures the second run.
func TestSecondCallDoesNotAllocate(t *testing.T) {
	s, _ := Linear(3, 0.1, 0.3)
	den, _ := NewDenoiser(NetConfig{Dim: 2, Hidden: []int{3}, TimeDim: 2}, s)
	p := make([]float64, den.NumParams())
	den.Init(p, rng.Stream(1))
	g := make([]float64, len(p))
	x, ts, eps := []float64{1, 2, 3, 4}, []int{1, 3}, []float64{0.1, 0.2, 0.3, 0.4}
	if n := testing.AllocsPerRun(1, func() { den.LossAt(p, x, 2, ts, eps, g) }); n != 0 {
		t.Errorf("second LossAt allocates %v times", n)
	}
	smp := NewSampler(s, VarBeta)
	smp.Chunk = 2
	dst := make([]float64, 4)
	r := rng.Stream(2)
	var pred Predictor = constPred{[]float64{0.5, -1}} // boxed once
	if n := testing.AllocsPerRun(1, func() { smp.Sample(pred, 2, r, dst) }); n != 0 {
		t.Errorf("second Sample allocates %v times", n)
	}
}

// TestOracleFarFromModes: the posterior weights are normalised after
// subtracting the largest log-weight, so a point hundreds of standard
// deviations from every mode still gets a finite ε̂ — the component
// nearest to it takes all the weight: ε̂ = √(1−ᾱ)(x − √ᾱμ_k)/v_k.
func TestOracleFarFromModes(t *testing.T) {
	s, _ := Linear(3, 0.1, 0.3)
	g := &GaussianMixture{Means: [][]float64{{0}, {1}}, Stds: []float64{0.01, 0.01}, Weights: []float64{0.5, 0.5}}
	out := make([]float64, 1)
	g.Optimal(s).PredictEps([]float64{50}, 1, 1, out)
	a := 0.9
	v := a*1e-4 + 1 - a
	want := math.Sqrt(1-a) * (50 - math.Sqrt(a)) / v
	if math.IsNaN(out[0]) || !(math.Abs(out[0]-want) <= 1e-12*math.Abs(want)) {
		t.Errorf("ε̂(50) = %v, want %v", out[0], want)
	}
}
