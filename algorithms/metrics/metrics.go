// Package metrics compares a generated sample with a reference sample or
// distribution, for the generative-model papers of fedrepro:
//
//   - Fréchet distance between the Gaussians fitted to two sample sets (the
//     formula behind FID; applied to raw coordinates or to any fixed
//     feature embedding standing in for Inception);
//   - the unbiased RBF-kernel MMD² with an optional median-heuristic
//     bandwidth, which sees beyond two moments;
//   - mode coverage and the total-variation distance between the generated
//     mode histogram and the true weights of a Gaussian mixture.
//
// Samples are row-major []float64 matrices (n rows of d columns). The
// package is pure and deterministic.
package metrics

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Moments returns the mean and the unbiased (n−1) covariance of the n × d
// sample x. It needs n ≥ 2.
func Moments(x []float64, n, d int) ([]float64, *mat.SymDense, error) {
	if n < 2 || d < 1 || len(x) < n*d {
		return nil, nil, fmt.Errorf("metrics: moments need ≥ 2 rows of %d columns, got %d rows (len %d)", d, n, len(x))
	}
	mu := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	xc := make([]float64, n*d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			xc[i*d+j] = x[i*d+j] - mu[j]
		}
	}
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(1/float64(n-1), mat.NewDense(n, d, xc).T())
	return mu, cov, nil
}

// FrechetResult is the Fréchet distance between N(μ1, Σ1) and N(μ2, Σ2),
// ‖μ1 − μ2‖² + tr Σ1 + tr Σ2 − 2 tr (Σ1^{1/2} Σ2 Σ1^{1/2})^{1/2}, with its
// parts and a report of the eigenvalue clamping the square roots needed.
type FrechetResult struct {
	Distance  float64 // the Fréchet distance (squared 2-Wasserstein distance of the Gaussians)
	MeanTerm  float64 // ‖μ1 − μ2‖²
	TraceSqrt float64 // tr (Σ1^{1/2} Σ2 Σ1^{1/2})^{1/2} = tr (Σ1Σ2)^{1/2}
	// Clamped counts negative eigenvalues (of Σ1 and of Σ1^{1/2}Σ2Σ1^{1/2})
	// set to zero before taking square roots; MinEig is the most negative
	// one (0 when none). Sample covariances are positive semi-definite, so
	// only rounding-level negatives are expected; a large |MinEig| relative
	// to the spectrum signals an invalid covariance.
	Clamped int
	MinEig  float64
}

// Frechet fits Gaussians (mean, unbiased covariance) to the n × d sample x
// and the m × d sample y and returns their Fréchet distance.
func Frechet(x []float64, n int, y []float64, m int, d int) (FrechetResult, error) {
	mu1, s1, err := Moments(x, n, d)
	if err != nil {
		return FrechetResult{}, err
	}
	mu2, s2, err := Moments(y, m, d)
	if err != nil {
		return FrechetResult{}, err
	}
	return FrechetFromMoments(mu1, s1, mu2, s2)
}

// FrechetFromMoments returns the Fréchet distance of two Gaussians given by
// their moments. The trace of the matrix square root is computed from
// symmetric eigendecompositions: S = Σ1^{1/2} (eigenvalues clamped at 0),
// M = S Σ2 S (symmetrised), tr M^{1/2} = Σ √max(λ_i(M), 0). This equals
// tr (Σ1 Σ2)^{1/2} because Σ1Σ2 is similar to M, and avoids the
// non-symmetric square root (scipy's sqrtm) used by pytorch-fid.
func FrechetFromMoments(mu1 []float64, s1 *mat.SymDense, mu2 []float64, s2 *mat.SymDense) (FrechetResult, error) {
	d := len(mu1)
	if len(mu2) != d || s1.SymmetricDim() != d || s2.SymmetricDim() != d {
		return FrechetResult{}, fmt.Errorf("metrics: Fréchet inputs have mismatched dimensions (%d, %d, %d, %d)", d, len(mu2), s1.SymmetricDim(), s2.SymmetricDim())
	}
	var res FrechetResult
	for j := range mu1 {
		v := mu1[j] - mu2[j]
		res.MeanTerm += v * v
	}
	clamp := func(v float64) float64 {
		if v < 0 {
			res.Clamped++
			res.MinEig = math.Min(res.MinEig, v)
			return 0
		}
		return v
	}
	var es mat.EigenSym
	if !es.Factorize(s1, true) {
		return FrechetResult{}, fmt.Errorf("metrics: eigendecomposition of Σ1 failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	// S = V diag(√λ) Vᵀ.
	scaled := mat.NewDense(d, d, nil)
	for j := 0; j < d; j++ {
		r := math.Sqrt(clamp(vals[j]))
		for i := 0; i < d; i++ {
			scaled.Set(i, j, vecs.At(i, j)*r)
		}
	}
	var sq mat.Dense
	sq.Mul(scaled, vecs.T())
	var tmp, m mat.Dense
	tmp.Mul(&sq, s2)
	m.Mul(&tmp, &sq)
	msym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			msym.SetSym(i, j, 0.5*(m.At(i, j)+m.At(j, i)))
		}
	}
	if !es.Factorize(msym, false) {
		return FrechetResult{}, fmt.Errorf("metrics: eigendecomposition of Σ1^{1/2}Σ2Σ1^{1/2} failed")
	}
	for _, v := range es.Values(nil) {
		res.TraceSqrt += math.Sqrt(clamp(v))
	}
	res.Distance = res.MeanTerm + mat.Trace(s1) + mat.Trace(s2) - 2*res.TraceSqrt
	return res, nil
}

// MMD2 returns the unbiased estimate of the squared maximum mean
// discrepancy between the samples x (n × d) and y (m × d) under the
// Gaussian kernel k(a, b) = exp(−‖a − b‖²/(2h²)):
// 1/(n(n−1)) Σ_{i≠j} k(x_i,x_j) + 1/(m(m−1)) Σ_{i≠j} k(y_i,y_j) − 2/(nm) Σ k(x_i,y_j).
// It can be slightly negative when the distributions agree. n, m ≥ 2.
func MMD2(x []float64, n int, y []float64, m int, d int, h float64) (float64, error) {
	if n < 2 || m < 2 || len(x) < n*d || len(y) < m*d {
		return 0, fmt.Errorf("metrics: MMD² needs ≥ 2 rows per sample, got %d and %d", n, m)
	}
	if !(h > 0) {
		return 0, fmt.Errorf("metrics: MMD² bandwidth must be positive, got %g", h)
	}
	g := -1 / (2 * h * h)
	within := func(a []float64, k int) float64 {
		var s float64
		for i := 0; i < k; i++ {
			ai := a[i*d : (i+1)*d]
			for j := i + 1; j < k; j++ {
				s += math.Exp(g * sqDist(ai, a[j*d:(j+1)*d]))
			}
		}
		return 2 * s / float64(k*(k-1))
	}
	var cross float64
	for i := 0; i < n; i++ {
		xi := x[i*d : (i+1)*d]
		for j := 0; j < m; j++ {
			cross += math.Exp(g * sqDist(xi, y[j*d:(j+1)*d]))
		}
	}
	return within(x, n) + within(y, m) - 2*cross/float64(n*m), nil
}

// MedianBandwidth returns the median-heuristic bandwidth: the median
// Euclidean distance between distinct rows of the pooled sample made of the
// first min(n, maxRows) rows of x and the first min(m, maxRows) rows of y
// (maxRows ≤ 0 means all rows). Taking leading rows keeps it deterministic;
// pass shuffled samples if their order is structured.
func MedianBandwidth(x []float64, n int, y []float64, m int, d int, maxRows int) float64 {
	if maxRows > 0 {
		n, m = min(n, maxRows), min(m, maxRows)
	}
	pool := make([][]float64, 0, n+m)
	for i := 0; i < n; i++ {
		pool = append(pool, x[i*d:(i+1)*d])
	}
	for i := 0; i < m; i++ {
		pool = append(pool, y[i*d:(i+1)*d])
	}
	dists := make([]float64, 0, len(pool)*(len(pool)-1)/2)
	for i := range pool {
		for j := i + 1; j < len(pool); j++ {
			dists = append(dists, math.Sqrt(sqDist(pool[i], pool[j])))
		}
	}
	if len(dists) == 0 {
		return 1
	}
	sort.Float64s(dists)
	k := len(dists)
	if k%2 == 1 {
		return dists[k/2]
	}
	return 0.5 * (dists[k/2-1] + dists[k/2])
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

// ModeStats describes how a sample covers the components of a mixture.
type ModeStats struct {
	// Counts[k] is the number of samples whose nearest mean is component k
	// and that lie within the radius of it.
	Counts []int
	// Outliers is the number of samples farther than the radius from every
	// mean (low-quality samples).
	Outliers int
	// Covered is the number of components with at least MinCount samples.
	Covered int
	// TV is the total-variation distance between the empirical histogram
	// over K+1 bins (the K modes and "outlier") and the true weights (with
	// weight 0 on "outlier"): ½Σ_k|c_k/n − π_k| + ½·outliers/n. Off-mode
	// samples therefore count against the sample.
	TV float64
	// TVAssigned is the TV distance between the histogram of the assigned
	// samples only (renormalised) and the true weights; 1 when none is
	// assigned.
	TVAssigned float64
	// HighQuality is the fraction of samples within the radius of a mean.
	HighQuality float64
}

// ModeCoverage assigns every row of the n × d sample x to its nearest mean
// (ties to the lower index) if it lies within radius of it, and compares
// the resulting histogram with the mixture weights; a mode is covered when
// it receives at least minCount samples (minCount < 1 counts as 1).
func ModeCoverage(x []float64, n, d int, means [][]float64, weights []float64, radius float64, minCount int) (ModeStats, error) {
	K := len(means)
	if K == 0 || len(weights) != K {
		return ModeStats{}, fmt.Errorf("metrics: mode coverage needs matching means and weights (%d, %d)", K, len(weights))
	}
	if n < 1 || len(x) < n*d {
		return ModeStats{}, fmt.Errorf("metrics: mode coverage needs at least one row of %d columns", d)
	}
	for k, mu := range means {
		if len(mu) != d {
			return ModeStats{}, fmt.Errorf("metrics: mean %d has %d coordinates, want %d", k, len(mu), d)
		}
	}
	minCount = max(minCount, 1)
	st := ModeStats{Counts: make([]int, K)}
	r2 := radius * radius
	for i := 0; i < n; i++ {
		xi := x[i*d : (i+1)*d]
		best, bd := -1, math.Inf(1)
		for k, mu := range means {
			if dd := sqDist(xi, mu); dd < bd {
				best, bd = k, dd
			}
		}
		if bd <= r2 {
			st.Counts[best]++
		} else {
			st.Outliers++
		}
	}
	assigned := n - st.Outliers
	var tv, tva float64
	for k, c := range st.Counts {
		if c >= minCount {
			st.Covered++
		}
		tv += math.Abs(float64(c)/float64(n) - weights[k])
		if assigned > 0 {
			tva += math.Abs(float64(c)/float64(assigned) - weights[k])
		}
	}
	st.TV = 0.5*tv + 0.5*float64(st.Outliers)/float64(n)
	st.TVAssigned = 1
	if assigned > 0 {
		st.TVAssigned = 0.5 * tva
	}
	st.HighQuality = float64(assigned) / float64(n)
	return st, nil
}
