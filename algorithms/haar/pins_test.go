package haar

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Unit pins (issue 12, item 4) of the transform and of every mechanism of
// the package. Expectations come from hand arithmetic in the comments or
// from the plain recursive transform below (refForward, refInverse,
// refWeights — written from the paper's §4.3 description, not from the
// package's in-place code), with noise recomputed from the same named
// stream. Tolerance: 1e-12 relative (absolute below 1), pinNear.

func pinNear(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func checkVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for j := range want {
		if len(got) != len(want) || !pinNear(got[j], want[j]) {
			t.Errorf("%s = %.17g, want %.17g", what, got, want)
			return
		}
	}
}

// refPad zero-pads x to the next power of two (1 for a single element).
func refPad(x []float64) []float64 {
	m := 1
	for m < len(x) {
		m *= 2
	}
	if len(x) == 0 {
		return nil
	}
	out := make([]float64, m)
	copy(out, x)
	return out
}

// refForward is the paper's transform, recursively: pair the inputs,
// store the half-differences (L − R)/2 of this pass, and transform the
// means; the result is [H_0 | this pass's details | coarser passes].
func refForward(x []float64) []float64 {
	m := len(x)
	if m <= 1 {
		return append([]float64(nil), x...)
	}
	s := make([]float64, m/2)
	d := make([]float64, m/2)
	for i := range s {
		s[i] = (x[2*i] + x[2*i+1]) / 2
		d[i] = (x[2*i] - x[2*i+1]) / 2
	}
	rest := refForward(s)
	out := []float64{rest[0]}
	out = append(out, d...)
	return append(out, rest[1:]...)
}

// refInverse undoes refForward: L = mean + detail, R = mean − detail.
func refInverse(h []float64) []float64 {
	m := len(h)
	if m <= 1 {
		return append([]float64(nil), h...)
	}
	rest := append([]float64{h[0]}, h[1+m/2:]...)
	s := refInverse(rest)
	x := make([]float64, m)
	for i := range s {
		x[2*i] = s[i] + h[1+i]
		x[2*i+1] = s[i] - h[1+i]
	}
	return x
}

// refWeights: W = m for H_0, 2 for the finest details, doubling per pass.
func refWeights(m int) []float64 {
	if m == 1 {
		return []float64{1}
	}
	inner := refWeights(m / 2)
	w := []float64{float64(m)}
	for i := 0; i < m/2; i++ {
		w = append(w, 2)
	}
	for _, v := range inner[1:] {
		w = append(w, 2*v)
	}
	return w
}

// By hand, n = 3 padded to 4: x = (4, 8, 1) → (4, 8, 1, 0).
// Pass 1: means (6, 0.5), details (−2, 0.5). Pass 2: mean 3.25, detail 2.75.
// Coefficients [3.25, −2, 0.5, 2.75]; weights [4, 2, 2, 4].
func TestPinTransformByHand(t *testing.T) {
	x := []float64{4, 8, 1}
	want := []float64{3.25, -2, 0.5, 2.75}
	checkVec(t, "Forward(4,8,1)", Forward(x), want)
	checkVec(t, "refForward(4,8,1,0)", refForward(refPad(x)), want)
	checkVec(t, "Inverse", Inverse(want, 3), x)
	checkVec(t, "Weights(4)", Weights(4), []float64{4, 2, 2, 4})
	checkVec(t, "refWeights(4)", refWeights(4), []float64{4, 2, 2, 4})
	checkVec(t, "Weights(8)", Weights(8), refWeights(8))
	for i, w := range []float64{4, 2, 2, 4} {
		if Weight(4, i) != w {
			t.Errorf("Weight(4, %d) = %g, want %g", i, Weight(4, i), w)
		}
	}
	// ‖(3.25, −2, 0.5, 2.75)‖ = √(10.5625 + 4 + 0.25 + 7.5625) = √22.375.
	if got := CoefficientNorm([]float64{4, 8, 1}, make([]float64, 2)); !pinNear(got, math.Sqrt(22.375)) {
		t.Errorf("CoefficientNorm = %.17g, want √22.375", got)
	}
	// Offsets of m = 8: pass 1 at 1, pass 2 at 5, pass 3 at 7; levels 3.
	for j, off := range []int{1, 5, 7} {
		if PassOffset(8, j+1) != off {
			t.Errorf("PassOffset(8, %d) = %d, want %d", j+1, PassOffset(8, j+1), off)
		}
	}
	if Levels(8) != 3 || Levels(1) != 0 {
		t.Errorf("Levels(8) = %d, Levels(1) = %d", Levels(8), Levels(1))
	}
	for _, m := range []int{0, 3, 6, -4} {
		if msg := catch(func() { Levels(m) }); !strings.Contains(msg, "not a power of two") {
			t.Errorf("Levels(%d): panic %q", m, msg)
		}
	}
	// Degenerate lengths: one element is its own coefficient; none is empty.
	checkVec(t, "Forward(7)", Forward([]float64{7}), []float64{7})
	checkVec(t, "Inverse(7)", Inverse([]float64{7}, 1), []float64{7})
	if len(Forward(nil)) != 0 || len(Inverse([]float64{1, 2}, 0)) != 0 {
		t.Error("empty transforms are not empty")
	}
	if got := CoefficientNorm([]float64{-3}, nil); got != 3 {
		t.Errorf("CoefficientNorm(−3) = %g", got)
	}
	if got := CoefficientNorm(nil, nil); got != 0 {
		t.Errorf("CoefficientNorm(∅) = %g", got)
	}
	if msg := catch(func() { Inverse([]float64{1, 2}, 3) }); !strings.Contains(msg, "cannot reconstruct 3 elements from 2") {
		t.Errorf("Inverse past the padded length: panic %q", msg)
	}
}

// Every length 1..40 against the recursive reference: forward, inverse,
// weights, coefficient norm, and the matrices.
func TestPinTransformMatchesReference(t *testing.T) {
	r := rng.Stream(2, "haar-pins")
	for n := 1; n <= 40; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		h := refForward(refPad(x))
		checkVec(t, fmt.Sprintf("Forward n=%d", n), Forward(x), h)
		checkVec(t, fmt.Sprintf("Inverse n=%d", n), Inverse(h, n), refInverse(h)[:n])
		checkVec(t, fmt.Sprintf("Weights n=%d", n), Weights(len(h)), refWeights(len(h)))
		var ss float64
		for _, v := range h {
			ss += v * v
		}
		if got := CoefficientNorm(append([]float64(nil), x...), make([]float64, len(h))); !pinNear(got, math.Sqrt(ss)) {
			t.Errorf("n=%d: CoefficientNorm %.17g, want %.17g", n, got, math.Sqrt(ss))
		}
		if n <= 9 {
			a, b := ForwardMatrix(n), InverseMatrix(n)
			for i := 0; i < n; i++ {
				e := make([]float64, n)
				e[i] = 1
				col := refForward(refPad(e))
				for j := range col {
					if !pinNear(a.At(j, i), col[j]) {
						t.Fatalf("n=%d: ForwardMatrix[%d,%d] = %g, want %g", n, j, i, a.At(j, i), col[j])
					}
				}
			}
			for j := 0; j < len(h); j++ {
				e := make([]float64, len(h))
				e[j] = 1
				col := refInverse(e)
				for i := 0; i < n; i++ {
					if !pinNear(b.At(i, j), col[i]) {
						t.Fatalf("n=%d: InverseMatrix[%d,%d] = %g, want %g", n, i, j, b.At(i, j), col[i])
					}
				}
			}
		}
	}
}

func catch(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// refNoise draws ν_j = scale/W_j·Z_j in coefficient order from r.
func refNoise(r interface{ NormFloat64() float64 }, m int, scale float64) []float64 {
	w := refWeights(m)
	nu := make([]float64, m)
	for j := range nu {
		nu[j] = scale / w[j] * r.NormFloat64()
	}
	return nu
}

// AddCoefficientNoise: coefficient j gets scale/W_j times the j-th normal
// draw, in index order.
func TestPinAddCoefficientNoise(t *testing.T) {
	for _, m := range []int{1, 2, 4, 8} {
		h := make([]float64, m)
		for j := range h {
			h[j] = float64(j)
		}
		AddCoefficientNoise(rng.Stream(3, "acn", m), h, 1.7)
		nu := refNoise(rng.Stream(3, "acn", m), m, 1.7)
		for j := range nu {
			nu[j] += float64(j)
		}
		checkVec(t, fmt.Sprintf("m=%d", m), h, nu)
	}
	AddCoefficientNoise(rng.Stream(1), nil, 1) // no panic on empty
}

// Algorithm 1 (WaveletNoiseInto), both clip domains, n = 3 (m = 4):
// clip each gradient by 1/max(1, ‖·‖/C) with the norm of the domain, sum,
// transform, add ν_j = σ_c·C/W_j·Z_j, invert, truncate, divide by the lot.
// Gradients (4, 8, 1) [coefficient norm √22.375, L2 norm 9], (0.3, 0, 0.4)
// [L2 0.5] and (0, −2, 0).
func TestPinWaveletNoiseAlg1(t *testing.T) {
	grads := [][]float64{{4, 8, 1}, {0.3, 0, 0.4}, {0, -2, 0}}
	const c, sigma = 1.5, 0.8
	for _, dom := range []ClipDomain{CoefficientDomain, GradientDomain} {
		for _, lot := range []float64{0, 1, 5} {
			sum := make([]float64, 3)
			for _, g := range grads {
				var norm float64
				if dom == CoefficientDomain {
					for _, v := range refForward(refPad(g)) {
						norm += v * v
					}
				} else {
					for _, v := range g {
						norm += v * v
					}
				}
				norm = math.Sqrt(norm)
				f := 1.0
				if norm > c {
					f = c / norm
				}
				for k := range g {
					sum[k] += f * g[k]
				}
			}
			h := refForward(refPad(sum))
			nu := refNoise(rng.Stream(4, "alg1"), 4, sigma*c)
			for j := range h {
				h[j] += nu[j]
			}
			want := refInverse(h)[:3]
			div := lot
			if lot == 0 {
				div = 3
			}
			for k := range want {
				want[k] /= div
			}
			in := make([][]float64, len(grads))
			for i, g := range grads {
				in[i] = append([]float64(nil), g...)
			}
			got := WaveletNoise(rng.Stream(4, "alg1"), in, Alg1Params{C: c, Sigma: sigma, Domain: dom, Lot: lot})
			checkVec(t, fmt.Sprintf("%v lot %g", dom, lot), got, want)
			for i, g := range grads { // gradients are read, not modified
				checkVec(t, "input gradient", in[i], g)
			}
		}
	}
	// An empty lot releases pure noise (lot 0 means 1 then).
	out := make([]float64, 3)
	WaveletNoiseInto(out, rng.Stream(4, "empty"), nil, Alg1Params{C: 2, Sigma: 0.5}, make([]float64, ScratchLen(3)))
	checkVec(t, "empty lot", out, refInverse(refNoise(rng.Stream(4, "empty"), 4, 1))[:3])
	if msg := catch(func() { WaveletNoise(rng.Stream(1), nil, Alg1Params{C: 1}) }); !strings.Contains(msg, "at least one gradient") {
		t.Errorf("WaveletNoise(∅): %q", msg)
	}
	if msg := catch(func() { WaveletNoise(rng.Stream(1), [][]float64{{1, 2}, {1}}, Alg1Params{C: 1}) }); !strings.Contains(msg, "gradient 1 has length 1, want 2") {
		t.Errorf("ragged lot: %q", msg)
	}
	if msg := catch(func() { WaveletNoise(rng.Stream(1), [][]float64{{1, 2}}, Alg1Params{C: 1, Domain: ClipDomain(4)}) }); !strings.Contains(msg, "unknown clip domain") {
		t.Errorf("unknown domain: %q", msg)
	}
}

// Algorithm 2 (WaveletNoiseAggregateInto) and the bare reconstructed
// noise, n = 3 and n = 5: ŵ = HWT⁻¹(HWT(w) + ν)[:n].
func TestPinWaveletNoiseAlg2(t *testing.T) {
	for _, w := range [][]float64{{1, -2, 0.5}, {0.1, 0.2, 0.3, 0.4, 0.5}} {
		m := len(refPad(w))
		h := refForward(refPad(w))
		nu := refNoise(rng.Stream(5, "alg2"), m, 0.6)
		for j := range h {
			h[j] += nu[j]
		}
		checkVec(t, "aggregate", WaveletNoiseAggregate(rng.Stream(5, "alg2"), w, 0.6), refInverse(h)[:len(w)])
		got := make([]float64, len(w))
		ReconstructedNoiseInto(got, rng.Stream(5, "alg2"), 0.6, make([]float64, ScratchLen(len(w))))
		checkVec(t, "reconstructed noise", got, refInverse(nu)[:len(w)])
	}
}

// Calibrations and sensitivities by hand. σ_Haar = σ·√(2/(2 + log2 m)):
// m = 4 → σ·√(1/2); m = 1 → σ. Alg. 2: σ = z·C/(q·d) = 2·3/(0.5·60) = 0.2.
func TestPinCalibrationsByHand(t *testing.T) {
	if got := SigmaHaar(2, 4); !pinNear(got, math.Sqrt2) {
		t.Errorf("SigmaHaar(2, 4) = %g, want √2", got)
	}
	if got := SigmaHaar(2, 1); got != 2 {
		t.Errorf("SigmaHaar(2, 1) = %g", got)
	}
	if got := SigmaHaar(1, 1024); !pinNear(got, math.Sqrt(2.0/12)) {
		t.Errorf("SigmaHaar(1, 1024) = %g", got)
	}
	if got := Alg2Sigma(2, 3, 0.5, 60); !pinNear(got, 0.2) {
		t.Errorf("Alg2Sigma = %g, want 0.2", got)
	}
	// Effective multipliers at scale 3: vanilla 3; coefficient clip 3/m;
	// gradient clip and Algorithm 2 3/√m — also for n = 3 (m = 4) and 5 (m = 8).
	for _, c := range []struct {
		n          int
		coef, grad float64
	}{{4, 0.75, 1.5}, {3, 0.75, 1.5}, {5, 3.0 / 8, 3 / math.Sqrt(8)}, {8, 3.0 / 8, 3 / math.Sqrt(8)}, {1, 3, 3}} {
		if got := EffectiveMultiplier(Vanilla, c.n, 3); got != 3 {
			t.Errorf("vanilla n=%d: %g", c.n, got)
		}
		if got := EffectiveMultiplier(CoefficientClip, c.n, 3); !pinNear(got, c.coef) {
			t.Errorf("coefficient clip n=%d: %.17g, want %.17g", c.n, got, c.coef)
		}
		for _, v := range []Variant{GradientClip, Aggregate} {
			if got := EffectiveMultiplier(v, c.n, 3); !(math.Abs(got-c.grad) <= 1e-9*c.grad) {
				t.Errorf("%v n=%d: %.17g, want %.17g", v, c.n, got, c.grad)
			}
		}
	}
	if got := WeightedOperatorNorm(0); got != 0 {
		t.Errorf("WeightedOperatorNorm(0) = %g", got)
	}
	if msg := catch(func() { EffectiveMultiplier(Variant(9), 4, 1) }); !strings.Contains(msg, "unknown variant") {
		t.Errorf("unknown variant: %q", msg)
	}
}

// Exact noise quantities for m = 4 and ν_j ~ N(0, (σ/W_j)²), W = (4, 2, 2, 4).
// x_0 = H0 + d0 + D, x_1 = H0 − d0 + D, x_2 = H0 + d1 − D, x_3 = H0 − d1 − D
// (d0, d1 the finest details, D the coarse one), so with σ = 2:
// Var(x_e) = 4(1/16 + 1/4 + 1/16) = 1.5 for every e (closed form (1 + 2/16)/3·4);
// Var(x_0 + x_1) = Var(2H0 + 2D) = 4·4/16·2 = 2;
// Var(x_1 + x_2) = Var(2H0 − d0 + d1) = 4(4/16 + 1/4 + 1/4) = 3;
// Var(x_0 + x_1 + x_2) = Var(3H0 + D + d1) = 4(9/16 + 1/16 + 1/4) = 3.5;
// Var(x_0 + … + x_3) = Var(4H0) = 4 — the maximum, on [0, 3].
// Cov(x_0, x_1) = 4(1/16 − 1/4 + 1/16) = −0.5.
func TestPinExactNoiseQuantitiesByHand(t *testing.T) {
	checkVec(t, "CoordinateVariance", CoordinateVariance(4, 2), []float64{1.5, 1.5, 1.5, 1.5})
	if got := CoordinateVarianceClosedForm(4, 2); !pinNear(got, 1.5) {
		t.Errorf("closed form %g, want 1.5", got)
	}
	for _, c := range []struct {
		a, b int
		want float64
	}{{0, 1, 2}, {1, 2, 3}, {0, 2, 3.5}, {1, 3, 3.5}, {0, 3, 4}, {2, 2, 1.5}, {2, 3, 2}} {
		if got := RangeSumVariance(4, 2, c.a, c.b); !pinNear(got, c.want) {
			t.Errorf("RangeSumVariance [%d,%d] = %g, want %g", c.a, c.b, got, c.want)
		}
	}
	if v, a, b := MaxRangeSumVariance(4, 2); !pinNear(v, 4) || a != 0 || b != 3 {
		t.Errorf("MaxRangeSumVariance = %g on [%d,%d], want 4 on [0,3]", v, a, b)
	}
	// n = 3 (m = 4): the ranges of the first three coordinates only.
	if v, a, b := MaxRangeSumVariance(3, 2); !pinNear(v, 3.5) || a != 0 || b != 2 {
		t.Errorf("MaxRangeSumVariance(3) = %g on [%d,%d], want 3.5 on [0,2]", v, a, b)
	}
	// Small noise: every variance is below 1 (the maximum is still found):
	// scale 0.5 → Var(4H0) = 16·0.25/16 = 0.25.
	if v, a, b := MaxRangeSumVariance(4, 0.5); !pinNear(v, 0.25) || a != 0 || b != 3 {
		t.Errorf("MaxRangeSumVariance(4, 0.5) = %g on [%d,%d], want 0.25 on [0,3]", v, a, b)
	}
	// m = 8, σ = 1, range [1,6]: base weight 6 (36/64); pass 1 (var 1/4):
	// the pairs (0,1) and (6,7) are cut, weights −1 and +1 (1/4 each);
	// pass 2 (var 1/16): blocks [0,3] and [4,7] have L − R = −1 and +1
	// (1/16 each); pass 3: L − R = 3 − 3 = 0. Total 0.5625 + 0.5 + 0.125
	// = 1.1875, the largest of all ranges.
	if v, a, b := MaxRangeSumVariance(8, 1); !pinNear(v, 1.1875) || a != 1 || b != 6 {
		t.Errorf("MaxRangeSumVariance(8, 1) = %g on [%d,%d], want 1.1875 on [1,6]", v, a, b)
	}
	// m = 1: the single coefficient is the value.
	if got := RangeSumVariance(1, 2, 0, 0); got != 4 {
		t.Errorf("m=1 range variance %g", got)
	}
	if v, a, b := MaxRangeSumVariance(1, 2); v != 4 || a != 0 || b != 0 {
		t.Errorf("m=1 max range variance %g [%d,%d]", v, a, b)
	}
	for _, r := range [][2]int{{-1, 0}, {2, 1}, {0, 4}} {
		if msg := catch(func() { RangeSumVariance(4, 1, r[0], r[1]) }); !strings.Contains(msg, "bad range") {
			t.Errorf("range %v: %q", r, msg)
		}
	}
	cov := NoiseCovariance(4, 2)
	if !pinNear(cov.At(0, 1), -0.5) || !pinNear(cov.At(0, 0), 1.5) || !pinNear(cov.At(2, 3), -0.5) || !pinNear(cov.At(0, 2), 0) {
		t.Errorf("covariance row 0 = %v, (2,3) = %g", []float64{cov.At(0, 0), cov.At(0, 1), cov.At(0, 2), cov.At(0, 3)}, cov.At(2, 3))
	}
	// Cov(x_0, x_2) = 4(1/16 − 1/16) = 0; Cov(x_0, x_3) = 0 as well.
	if !pinNear(cov.At(0, 3), 0) {
		t.Errorf("Cov(x0, x3) = %g", cov.At(0, 3))
	}
}

// Ancestors and eq. (6) by hand for m = 4, e = 3: finest detail index
// 1 + 3>>1 = 2 (right half: −1), coarse detail 3 (right half: −1).
func TestPinAncestors(t *testing.T) {
	idx, sign := Ancestors(4, 3)
	if fmt.Sprint(idx, sign) != "[2 3] [-1 -1]" {
		t.Errorf("Ancestors(4, 3) = %v %v", idx, sign)
	}
	h := []float64{3.25, -2, 0.5, 2.75}
	for e, want := range []float64{4, 8, 1, 0} {
		if got := ReconstructElement(h, e); !pinNear(got, want) {
			t.Errorf("eq. (6) element %d = %g, want %g", e, got, want)
		}
	}
	if ReconstructElement([]float64{5}, 0) != 5 {
		t.Error("m = 1")
	}
	for _, e := range []int{-1, 4} {
		if msg := catch(func() { Ancestors(4, e) }); !strings.Contains(msg, "outside [0,4)") {
			t.Errorf("Ancestors(4, %d): %q", e, msg)
		}
	}
}

// The audit game's neighbours and scores. g* for n = 3 (m = 4): vanilla
// e_0; coefficient clip √2 on the first half (HWT = (√2/2, 0, 0, √2/2),
// norm 1); gradient clip 1/√2 on the first half (L2 norm 1). The score is
// Σ_j HWT(g*)_j·W_j²·HWT(y)_j of one release y (vanilla: y_0).
func TestPinAuditGame(t *testing.T) {
	s2 := math.Sqrt2
	for _, c := range []struct {
		v    Variant
		star []float64
	}{{Vanilla, []float64{1, 0, 0}}, {CoefficientClip, []float64{s2, s2, 0}}, {GradientClip, []float64{1 / s2, 1 / s2, 0}}, {Aggregate, []float64{1 / s2, 1 / s2, 0}}} {
		g := NewAuditGame(c.v, 3, 0.9)
		checkVec(t, c.v.String()+" neighbour", g.Neighbour(), c.star)
		for _, present := range []bool{false, true} {
			got := g.Score(rng.Stream(6, "game", c.v.String(), present), present)
			r := rng.Stream(6, "game", c.v.String(), present)
			var want float64
			if c.v == Vanilla {
				want = 0.9 * r.NormFloat64()
				if present {
					want++
				}
			} else {
				in := []float64{0, 0, 0}
				if present {
					in = c.star
				}
				// Clip bound 1 and the lot/aggregate of norm ≤ 1: no scaling.
				h := refForward(refPad(in))
				nu := refNoise(r, 4, 0.9)
				for j := range h {
					h[j] += nu[j]
				}
				y := refInverse(h)[:3]
				hy := refForward(refPad(y))
				hs := refForward(refPad(c.star))
				w := refWeights(4)
				for j := range hy {
					want += hs[j] * w[j] * w[j] * hy[j]
				}
			}
			if !pinNear(got, want) {
				t.Errorf("%v present=%v: score %.17g, want %.17g", c.v, present, got, want)
			}
		}
	}
	// One element: the coefficient-clip neighbour is 1 (no half to spread on).
	checkVec(t, "n=1 coefficient neighbour", NewAuditGame(CoefficientClip, 1, 1).Neighbour(), []float64{1})
	checkVec(t, "n=1 gradient neighbour", NewAuditGame(GradientClip, 1, 1).Neighbour(), []float64{1})
	sc := NewAuditGame(Vanilla, 2, 1).Scores(rng.Stream(7, "s"), true, 3)
	r := rng.Stream(7, "s")
	for i := range sc {
		want := 1 + r.NormFloat64()
		r.NormFloat64() // the second coordinate's draw
		if !pinNear(sc[i], want) {
			t.Errorf("Scores[%d] = %g, want %g", i, sc[i], want)
		}
	}
	if msg := catch(func() { NewAuditGame(Vanilla, 0, 1) }); !strings.Contains(msg, "n ≥ 1") {
		t.Errorf("n = 0: %q", msg)
	}
	if msg := catch(func() { NewAuditGame(Variant(7), 3, 1) }); !strings.Contains(msg, "unknown variant") {
		t.Errorf("unknown variant: %q", msg)
	}
}

func TestPinNames(t *testing.T) {
	for v, want := range map[Variant]string{Vanilla: "vanilla", CoefficientClip: "alg1_coefficient_clip", GradientClip: "gradient_clip", Aggregate: "alg2_aggregate", Variant(9): "Variant(9)"} {
		if v.String() != want {
			t.Errorf("%d: %q, want %q", int(v), v.String(), want)
		}
	}
	for d, want := range map[ClipDomain]string{CoefficientDomain: "coefficient", GradientDomain: "gradient", ClipDomain(5): "ClipDomain(5)"} {
		if d.String() != want {
			t.Errorf("%d: %q, want %q", int(d), d.String(), want)
		}
	}
	if len(Variants) != 4 || Variants[0] != Vanilla {
		t.Errorf("Variants = %v", Variants)
	}
	if ScratchLen(3) != 8 || ScratchLen(8) != 16 || ScratchLen(0) != 0 {
		t.Errorf("ScratchLen: %d %d %d", ScratchLen(3), ScratchLen(8), ScratchLen(0))
	}
}
