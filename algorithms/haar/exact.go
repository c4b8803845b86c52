package haar

import (
	"fmt"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/mat"
)

// ForwardMatrix returns the m×n matrix A of the forward transform of
// vectors of length n (m = PaddedLen(n)): column i is Forward(e_i). Meant
// for small n (checks, singular values); it costs O(m·n) memory.
func ForwardMatrix(n int) *mat.Dense {
	m := PaddedLen(n)
	a := mat.NewDense(m, n, nil)
	e := make([]float64, n)
	col := make([]float64, m)
	scr := make([]float64, m)
	for i := 0; i < n; i++ {
		e[i] = 1
		ForwardInto(col, e, scr)
		e[i] = 0
		a.SetCol(i, col)
	}
	return a
}

// InverseMatrix returns the n×m matrix of the inverse transform truncated
// to n elements: column j is Inverse(e_j, n). Meant for small n.
func InverseMatrix(n int) *mat.Dense {
	m := PaddedLen(n)
	b := mat.NewDense(n, m, nil)
	e := make([]float64, m)
	col := make([]float64, n)
	scr := make([]float64, m)
	for j := 0; j < m; j++ {
		e[j] = 1
		InverseInto(col, e, scr)
		e[j] = 0
		b.SetCol(j, col)
	}
	return b
}

// CoordinateVariance returns, for each of the first n coordinates, the
// exact variance of the reconstructed noise HWT⁻¹(ν)_e when
// ν_j ~ N(0, (scale/W_j)²) independently:
//
//	Var(X*_e) = Σ_j (A⁻¹)_{ej}² · scale²/W_j²
//
// computed column by column from the inverse-transform matrix (each column
// is an inverse transform of a unit vector), in O(m²) time and O(m) memory
// — exact up to rounding, and independent of any closed form.
func CoordinateVariance(n int, scale float64) []float64 {
	m := PaddedLen(n)
	v := make([]float64, n)
	e := make([]float64, m)
	col := make([]float64, n)
	scr := make([]float64, m)
	for j := 0; j < m; j++ {
		e[j] = 1
		InverseInto(col, e, scr)
		e[j] = 0
		s := scale / Weight(m, j)
		s2 := s * s
		for i, c := range col {
			v[i] += c * c * s2
		}
	}
	return v
}

// CoordinateVarianceClosedForm is the closed form of CoordinateVariance for
// padded length m: every coordinate has an ancestor with coefficient ±1 in
// each pass j (variance scale²/4^j) plus H_0 (scale²/m²), so
// Var = scale²·(1/m² + (1 − 1/m²)/3) = scale²·(1 + 2/m²)/3, the same for all
// coordinates.
func CoordinateVarianceClosedForm(m int, scale float64) float64 {
	Levels(m)
	mm := float64(m) * float64(m)
	return scale * scale * (1 + 2/mm) / 3
}

// rangeTables holds, for a transform of padded length m, the prefix
// imbalance f[p][x] = (#left-half − #right-half) positions of x's pass-p
// block that lie in [block start, x], and the per-pass noise variance.
type rangeTables struct {
	m, n int
	f    [][]int32
	w    []float64 // w[0] base variance (scale/m)², w[p] = (scale/2^p)²
}

func newRangeTables(m int, scale float64) *rangeTables {
	n := Levels(m)
	t := &rangeTables{m: m, n: n, f: make([][]int32, n+1), w: make([]float64, n+1)}
	t.w[0] = (scale / float64(m)) * (scale / float64(m))
	for p := 1; p <= n; p++ {
		s := scale / float64(int(1)<<p)
		t.w[p] = s * s
		h := 1 << (p - 1)
		fp := make([]int32, m)
		for x := 0; x < m; x++ {
			o := x & (2*h - 1)
			if o < h {
				fp[x] = int32(o + 1)
			} else {
				fp[x] = int32(2*h - o - 1)
			}
		}
		t.f[p] = fp
	}
	return t
}

// rangeVar is the variance of Σ_{e=a..b} X*_e: the base coefficient enters
// with weight (b−a+1); a pass-p detail with weight (#left − #right) of
// [a,b] in its support, which is non-zero only for the blocks containing a
// or b (a block strictly inside [a,b] has equal halves).
func (t *rangeTables) rangeVar(a, b int) float64 {
	l := float64(b - a + 1)
	v := t.w[0] * l * l
	split := bits.Len(uint(a ^ b)) // a, b share their pass-p block iff p ≥ split
	for p := 1; p <= t.n; p++ {
		fb := float64(t.f[p][b])
		var ga float64
		if a > 0 && (a-1)>>p == a>>p {
			ga = float64(t.f[p][a-1])
		}
		if p >= split {
			d := fb - ga
			v += t.w[p] * d * d
		} else {
			v += t.w[p] * (fb*fb + ga*ga)
		}
	}
	return v
}

// RangeSumVariance returns the exact variance of Σ_{e=a}^{b} X*_e, the sum
// of reconstructed noise over a contiguous range of the first n
// coordinates, when ν_j ~ N(0, (scale/W_j)²). This is the quantity
// Privelet's analysis (and the paper's proof of Lemma 1) bounds.
func RangeSumVariance(n int, scale float64, a, b int) float64 {
	if a < 0 || b < a || b >= n {
		panic(fmt.Sprintf("haar: bad range [%d,%d] for length %d", a, b, n))
	}
	m := PaddedLen(n)
	if m == 1 {
		return scale * scale
	}
	return newRangeTables(m, scale).rangeVar(a, b)
}

// MaxRangeSumVariance returns the largest RangeSumVariance over all
// contiguous ranges [a,b] of the first n coordinates, and a maximising
// range. It enumerates all n(n+1)/2 ranges in O(n² log m) time (about a
// second for n = 4096).
func MaxRangeSumVariance(n int, scale float64) (v float64, a, b int) {
	m := PaddedLen(n)
	if m == 1 {
		return scale * scale, 0, 0
	}
	t := newRangeTables(m, scale)
	v = -1
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if x := t.rangeVar(i, j); x > v {
				v, a, b = x, i, j
			}
		}
	}
	return v, a, b
}

// WeightedOperatorNorm returns ‖diag(W)·A‖₂ (largest singular value) for
// the forward transform A of vectors of length n. It measures how far a
// gradient of norm 1 can move the coefficient vector in units of the
// per-coefficient noise std, i.e. the Mahalanobis sensitivity of the
// wavelet mechanisms under gradient-domain clipping.
//
// It runs a matrix-free power iteration on (diag(W)A)ᵀ(diag(W)A) restricted
// to the first n coordinates. Each pass of A is ½·[[1,1],[1,−1]] on pairs,
// which is symmetric, so Aᵀ = A⁻¹·diag(1/W) (a pass-j coefficient crosses j
// halving passes on the way back) and the Gram operator is
// Aᵀdiag(W²)A = A⁻¹·diag(W)·A, i.e. x ↦ HWT⁻¹(W ⊙ HWT(x)): forward
// transform, multiply coefficient j by W_j, invert, truncate — O(m) per
// iteration. For power-of-two n the operator is similar to diag(W), so the
// result is √(max W) = √m; for other n it is the top of a principal
// submatrix, which is ≤ √m and also reaches √m (a vector constant on the
// first half [0, m/2) of the padded input has only H_0 and H_{m−1}).
func WeightedOperatorNorm(n int) float64 {
	m := PaddedLen(n)
	if m <= 1 {
		return float64(m)
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = 1 + float64(i%7)/7 // generic start, not orthogonal to the top space
	}
	h := make([]float64, m)
	scr := make([]float64, m)
	var lambda float64
	for it := 0; it < 2000; it++ {
		ForwardInto(h, x, scr)
		h[0] *= float64(m)
		for j := 1; j <= Levels(m); j++ {
			off := PassOffset(m, j)
			w := float64(int(1) << j)
			blk := h[off : off+m>>j]
			for i := range blk {
				blk[i] *= w
			}
		}
		InverseInto(x, h, scr)
		var nrm float64
		for _, v := range x {
			nrm += v * v
		}
		nrm = math.Sqrt(nrm)
		prev := lambda
		lambda = nrm
		for i := range x {
			x[i] /= nrm
		}
		if it > 5 && math.Abs(lambda-prev) <= 1e-12*lambda {
			break
		}
	}
	return math.Sqrt(lambda)
}

// The effective noise multiplier of a Gaussian mechanism with noise
// covariance Σ on a query of L2 sensitivity Δ is 1/sup_{‖u‖≤Δ}‖Σ^{-1/2}u‖:
// its privacy profile equals that of a scalar Gaussian mechanism with that
// multiplier (Σ^{-1/2} whitens the noise; the worst neighbour moves the
// mean along the direction Σ^{-1/2} stretches most). The functions below
// give it for the wavelet mechanisms, per unit coefficient noise scale.

// CoefficientClipMultiplier is the effective noise multiplier of
// Algorithm 1 as printed: clipping ‖HWT(g)‖ ≤ C and coefficient noise std
// σ_c·C/W_j. The worst neighbour puts its whole norm C on a coefficient of
// the largest weight (the base or coarsest detail, W = m), whose noise std
// is σ_c·C/m, so the multiplier is σ_c/max_j W_j = σ_c/m. This is exact
// for every n, not only powers of two: a vector constant on the first half
// [0, m/2) of the padded input (always inside the n real coordinates) has
// only H_0 and H_{m−1} non-zero.
func CoefficientClipMultiplier(n int, sigmaC float64) float64 {
	m := PaddedLen(n)
	maxW := 0.0
	for j := 0; j < m; j++ {
		maxW = math.Max(maxW, Weight(m, j))
	}
	return sigmaC / maxW
}

// GradientClipMultiplier is the effective noise multiplier when each
// gradient is clipped to ‖g‖ ≤ C in the gradient domain and the
// coefficients get noise std σ_c·C/W_j (also Algorithm 2, with sensitivity
// C/(q_c d) and σ = z·C/(q_c d), where it gives z/‖diag(W)A‖): σ_c divided
// by ‖diag(W)·A‖₂ (= √m for power-of-two m; the rows of diag(W)A are
// orthogonal ±1 vectors and the base row has norm √m; for other n the
// vector constant on [0, m/2) still reaches √m).
func GradientClipMultiplier(n int, sigmaC float64) float64 {
	return sigmaC / WeightedOperatorNorm(n)
}

// NoiseCovariance returns the n×n covariance of HWT⁻¹(ν)[:n] for
// ν_j ~ N(0, (scale/W_j)²): B·diag(scale²/W²)·Bᵀ with B = InverseMatrix(n).
// Meant for small n (convergence checks on quadratics).
func NoiseCovariance(n int, scale float64) *mat.SymDense {
	m := PaddedLen(n)
	b := InverseMatrix(n)
	cov := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for k := i; k < n; k++ {
			var s float64
			for j := 0; j < m; j++ {
				w := scale / Weight(m, j)
				s += b.At(i, j) * b.At(k, j) * w * w
			}
			cov.SetSym(i, k, s)
		}
	}
	return cov
}

// Variant names a mechanism whose privacy the Lemma 2 checks compare.
type Variant int

const (
	// Vanilla is the Gaussian mechanism N(0, σ²C²I) on an L2 ball of
	// radius C (DP-SGD / DP-FedAvg).
	Vanilla Variant = iota
	// CoefficientClip is Algorithm 1 as printed: clip ‖HWT(g)‖ ≤ C, noise
	// std σ_c·C/W_j per coefficient.
	CoefficientClip
	// GradientClip clips ‖g‖ ≤ C and adds noise std σ_c·C/W_j per
	// coefficient.
	GradientClip
	// Aggregate is Algorithm 2: noise σ/W_j on the coefficients of an
	// aggregate of sensitivity C/(q_c d), σ = z·C/(q_c d).
	Aggregate
)

// Variants lists every Variant, vanilla first.
var Variants = []Variant{Vanilla, CoefficientClip, GradientClip, Aggregate}

// String is the variant's stable snake_case name, used as a key in claim
// values and audit rows.
func (v Variant) String() string {
	switch v {
	case Vanilla:
		return "vanilla"
	case CoefficientClip:
		return "alg1_coefficient_clip"
	case GradientClip:
		return "gradient_clip"
	case Aggregate:
		return "alg2_aggregate"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// EffectiveMultiplier returns the noise multiplier of the scalar Gaussian
// mechanism with the same privacy profile as variant v on vectors of
// length n when its coefficient noise scale is scale (σ for Vanilla, σ_c
// for the clipping variants, z for Aggregate): scale, scale/m, and
// scale/‖diag(W)A‖ respectively. An (ε, δ) accountant must be given this
// multiplier, not scale.
func EffectiveMultiplier(v Variant, n int, scale float64) float64 {
	switch v {
	case Vanilla:
		return scale
	case CoefficientClip:
		return CoefficientClipMultiplier(n, scale)
	case GradientClip, Aggregate:
		return GradientClipMultiplier(n, scale)
	}
	panic(fmt.Sprintf("haar: unknown variant %d", int(v)))
}
