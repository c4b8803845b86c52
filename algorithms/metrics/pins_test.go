package metrics

// Unit pins (issue 12, item 4): Fréchet distance, MMD², the median
// bandwidth and mode coverage on tiny inputs, with the expected values
// derived by hand in the comments. Tolerance 1e-12 absolute.

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const pinTol = 1e-12

func pinNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !(math.Abs(got-want) <= pinTol) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}

// TestPinFrechet:
//
//	1-D: x = {0, 2}: μ = 1, s² = (1 + 1)/1 = 2; y = {3, 5, 7}: μ = 5,
//	s² = (4 + 0 + 4)/2 = 4. FD = (1 − 5)² + 2 + 4 − 2√(2·4) = 22 − 4√2.
//
//	2-D, equal covariances: x = corners of [0,2]², y = corners of [1,3]²:
//	both have Σ = (4/3)·I (Σ(±1)² / 3), means (1,1) and (2,2);
//	FD = 2 + 8/3 + 8/3 − 2·tr((4/3)²I)^{1/2} = 2.
//
//	2-D, non-commuting: A = [[2,1],[1,2]], B = diag(1, 3). For 2×2
//	matrices tr M^{1/2} = √(tr M + 2√det M), and A^{1/2}BA^{1/2} is similar
//	to AB = [[2,3],[1,6]] (trace 8, determinant 9): tr = √(8 + 6) = √14.
//	With means 0 and (1, −1): FD = 2 + 4 + 4 − 2√14.
func TestPinFrechet(t *testing.T) {
	r, err := Frechet([]float64{0, 2}, 2, []float64{3, 5, 7}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	pinNear(t, "1-D FD", r.Distance, 22-4*math.Sqrt2)
	pinNear(t, "1-D mean term", r.MeanTerm, 16)
	pinNear(t, "1-D trace term", r.TraceSqrt, math.Sqrt(8))
	if r.Clamped != 0 || r.MinEig != 0 {
		t.Errorf("clamping on positive definite inputs: %+v", r)
	}
	r, err = Frechet([]float64{0, 0, 2, 0, 0, 2, 2, 2}, 4, []float64{1, 1, 1, 3, 3, 1, 3, 3}, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	pinNear(t, "2-D FD (equal covariances)", r.Distance, 2)
	pinNear(t, "2-D trace term", r.TraceSqrt, 8.0/3)
	a := mat.NewSymDense(2, []float64{2, 1, 1, 2})
	b := mat.NewSymDense(2, []float64{1, 0, 0, 3})
	r, err = FrechetFromMoments([]float64{0, 0}, a, []float64{1, -1}, b)
	if err != nil {
		t.Fatal(err)
	}
	pinNear(t, "non-commuting FD", r.Distance, 10-2*math.Sqrt(14))
	pinNear(t, "non-commuting trace term", r.TraceSqrt, math.Sqrt(14))
	// A singular Σ1 = diag(1, 0) and Σ2 = I: S = diag(1, 0), M = diag(1, 0),
	// tr = 1; FD = 0 + 1 + 2 − 2 = 1.
	r, _ = FrechetFromMoments([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, 0}), []float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, 1}))
	pinNear(t, "singular FD", r.Distance, 1)
	// A covariance with a negative eigenvalue (−1) is clamped and reported.
	r, _ = FrechetFromMoments([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, -1}), []float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, 1}))
	if r.Clamped != 1 || r.MinEig != -1 {
		t.Errorf("negative eigenvalue: Clamped %d, MinEig %v; want 1, −1", r.Clamped, r.MinEig)
	}
	if _, err := FrechetFromMoments([]float64{0}, a, []float64{0, 0}, b); err == nil {
		t.Error("mismatched dimensions accepted")
	}
	if _, err := Frechet([]float64{0}, 1, []float64{3, 5}, 2, 1); err == nil {
		t.Error("one-row sample accepted")
	}
	if _, err := Frechet([]float64{0, 1}, 2, []float64{3}, 1, 1); err == nil {
		t.Error("one-row second sample accepted")
	}
	// Moments: mean and unbiased covariance of {(0,1), (2,5), (4,3)}:
	// μ = (2, 3); deviations (−2,−2), (0,2), (2,0): Σ = [[8,4],[4,8]]/2.
	mu, cov, err := Moments([]float64{0, 1, 2, 5, 4, 3}, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	pinNear(t, "μ_0", mu[0], 2)
	pinNear(t, "μ_1", mu[1], 3)
	pinNear(t, "Σ_00", cov.At(0, 0), 4)
	pinNear(t, "Σ_01", cov.At(0, 1), 2)
	pinNear(t, "Σ_11", cov.At(1, 1), 4)
	if _, _, err := Moments([]float64{0, 1, 2}, 2, 2); err == nil {
		t.Error("short data accepted")
	}
	if _, _, err := Moments([]float64{0, 1}, 2, 0); err == nil {
		t.Error("zero columns accepted")
	}
}

// TestPinMMD: x = {0, 1}, y = {0, 3} (1-D), h = 1, k(a, b) = e^{−(a−b)²/2}:
// within x = k(0,1) = e^{−1/2}; within y = k(0,3) = e^{−9/2};
// cross = (k(0,0) + k(0,3) + k(1,0) + k(1,3))/4 = (1 + e^{−9/2} + e^{−1/2} + e^{−2})/4;
// MMD² = e^{−1/2} + e^{−9/2} − 2·cross = (e^{−1/2} + e^{−9/2} − 1 − e^{−2})/2.
// With h = 2 every exponent is divided by 4.
func TestPinMMD(t *testing.T) {
	e := math.Exp
	got, err := MMD2([]float64{0, 1}, 2, []float64{0, 3}, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	pinNear(t, "MMD² (h = 1)", got, (e(-0.5)+e(-4.5)-1-e(-2))/2)
	got, _ = MMD2([]float64{0, 1}, 2, []float64{0, 3}, 2, 1, 2)
	pinNear(t, "MMD² (h = 2)", got, (e(-0.125)+e(-1.125)-1-e(-0.5))/2)
	// Three rows against two in 2-D: x = {(0,0), (1,0), (0,1)}, y = {(0,0), (2,0)}, h = 1.
	// within x: pairs at distances² 1, 1, 2: 2·(2e^{−1/2} + e^{−1})/(3·2);
	// within y: e^{−2}; cross: x_0: 1 + e^{−2}; x_1: e^{−1/2} + e^{−1/2};
	// x_2: e^{−1/2} + e^{−5/2}; divided by 6, times 2.
	got, _ = MMD2([]float64{0, 0, 1, 0, 0, 1}, 3, []float64{0, 0, 2, 0}, 2, 2, 1)
	want := (2*e(-0.5)+e(-1))/3 + e(-2) - 2*(1+e(-2)+3*e(-0.5)+e(-2.5))/6
	pinNear(t, "MMD² (3 vs 2 rows, 2-D)", got, want)
	if _, err := MMD2([]float64{0}, 1, []float64{0, 3}, 2, 1, 1); err == nil {
		t.Error("one-row sample accepted")
	}
	if _, err := MMD2([]float64{0, 1}, 2, []float64{0}, 2, 1, 1); err == nil {
		t.Error("short second sample accepted")
	}
	if _, err := MMD2([]float64{0, 1}, 2, []float64{0, 3}, 2, 1, 0); err == nil {
		t.Error("zero bandwidth accepted")
	}
}

// TestPinMedianBandwidth: pool {0, 1} ∪ {0, 3}: distances 1, 0, 3, 1, 2, 3
// → sorted 0 1 1 2 3 3 → median (1 + 2)/2 = 1.5. With maxRows = 1 the pool
// is {0} ∪ {0}: one distance, 0. Pool {0, 1} ∪ {4} (odd count 3: 1, 4, 3)
// → 3. A pool of one row has no distance: 1.
func TestPinMedianBandwidth(t *testing.T) {
	pinNear(t, "even", MedianBandwidth([]float64{0, 1}, 2, []float64{0, 3}, 2, 1, 0), 1.5)
	pinNear(t, "maxRows 1", MedianBandwidth([]float64{0, 1}, 2, []float64{0, 3}, 2, 1, 1), 0)
	pinNear(t, "maxRows 2 = all", MedianBandwidth([]float64{0, 1}, 2, []float64{0, 3}, 2, 1, 2), 1.5)
	pinNear(t, "odd", MedianBandwidth([]float64{0, 1}, 2, []float64{4}, 1, 1, 0), 3)
	pinNear(t, "one row", MedianBandwidth([]float64{5}, 1, nil, 0, 1, 0), 1)
}

// TestPinModeCoverage: means (0, 0) and (10, 0), weights (0.25, 0.75),
// radius 1, minCount 2. Rows: (0.5, 0) → mode 0; (10, 1) (distance exactly
// 1 = radius) → mode 1; (9.5, 0) → mode 1; (5, 0) (tie at distance 5, lower
// index, but outside the radius) → outlier.
// Counts (1, 2), outliers 1, covered 1 (mode 0 has 1 < 2).
// TV = ½(|1/4 − 1/4| + |2/4 − 3/4|) + ½·1/4 = 1/8 + 1/8 = 1/4.
// TVAssigned = ½(|1/3 − 1/4| + |2/3 − 3/4|) = 1/12. HighQuality = 3/4.
func TestPinModeCoverage(t *testing.T) {
	means := [][]float64{{0, 0}, {10, 0}}
	x := []float64{0.5, 0, 10, 1, 9.5, 0, 5, 0}
	st, err := ModeCoverage(x, 4, 2, means, []float64{0.25, 0.75}, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts[0] != 1 || st.Counts[1] != 2 || st.Outliers != 1 || st.Covered != 1 {
		t.Errorf("stats %+v", st)
	}
	pinNear(t, "TV", st.TV, 0.25)
	pinNear(t, "TVAssigned", st.TVAssigned, 1.0/12)
	pinNear(t, "HighQuality", st.HighQuality, 0.75)
	// Ties go to the lower index: radius 6 assigns (5, 0) to mode 0.
	st, _ = ModeCoverage(x, 4, 2, means, []float64{0.25, 0.75}, 6, 0)
	if st.Counts[0] != 2 || st.Counts[1] != 2 || st.Outliers != 0 || st.Covered != 2 {
		t.Errorf("radius 6: %+v", st)
	}
	// Nothing assigned: TVAssigned is 1.
	st, _ = ModeCoverage([]float64{50, 50}, 1, 2, means, []float64{0.25, 0.75}, 1, 1)
	if st.TVAssigned != 1 || st.Outliers != 1 || st.HighQuality != 0 {
		t.Errorf("no assignment: %+v", st)
	}
	pinNear(t, "TV with only an outlier", st.TV, 0.5*(0.25+0.75)+0.5)
	for _, bad := range []struct {
		means [][]float64
		w     []float64
		n     int
	}{{nil, nil, 1}, {means, []float64{1}, 1}, {[][]float64{{0}}, []float64{1}, 1}, {means, []float64{0.5, 0.5}, 0}} {
		if _, err := ModeCoverage(x, bad.n, 2, bad.means, bad.w, 1, 1); err == nil {
			t.Errorf("bad input accepted: %+v", bad)
		}
	}
}
