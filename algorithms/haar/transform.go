// Package haar implements the one-dimensional Haar wavelet transform and
// the wavelet-domain noise mechanisms of Ranaweera et al., "Federated
// Learning with Differential Privacy: An Utility-Enhanced Approach"
// (DP-SGD-WAV, Algorithm 1, and DP-FedAvg-WAV, Algorithm 2), together with
// the exact linear-algebra quantities the paper's lemmas are checked
// against (per-coordinate and range-sum noise variances, operator norms,
// effective noise multipliers).
//
// The transform is the paper's unnormalised "average / half-difference"
// form (§4.3, Table II). A vector of length n is zero-padded to
// m = PaddedLen(n), a power of two, and transformed in log2(m) passes; pass
// j pairs the previous pass's means and stores the half-differences
// (L−R)/2. Coefficients are ordered
//
//	[H_0 | pass-1 details (m/2) | pass-2 details (m/4) | … | pass-log2(m) detail (1)]
//
// i.e. the base coefficient (the overall mean) first, then the finest
// details left to right, then coarser ones. For the paper's example
// [4,8,1,9,8,4,5,3] this gives [5.25,-2,-4,2,1,0.5,1,0.25]. The weight of a
// coefficient, W, is the number of input elements it spans: m for H_0, 2^j
// for pass-j details ([8,2,2,2,2,4,4,8] for m = 8), which reproduces the
// paper's weight example exactly.
//
// Everything here is deterministic and does no I/O; random draws come from
// a *rand.Rand the caller derives from a named rng stream.
package haar

import (
	"fmt"
	"math"
	"math/bits"
)

// PaddedLen returns m, the smallest power of two ≥ n: the length the paper
// zero-pads a vector to before transforming it. PaddedLen(0) = 0 and
// PaddedLen(1) = 1 (a single element is its own base coefficient; no pass
// is run), a choice the paper leaves open.
func PaddedLen(n int) int {
	if n <= 0 {
		return 0
	}
	return 1 << bits.Len(uint(n-1))
}

// Levels returns log2(m), the number of averaging passes for a padded
// length m (the paper's number of detail levels; it counts l = 1 + log2 m
// "levels" including the base). It panics if m is not a power of two.
func Levels(m int) int {
	if m <= 0 || m&(m-1) != 0 {
		panic(fmt.Sprintf("haar: length %d is not a power of two", m))
	}
	return bits.TrailingZeros(uint(m))
}

// PassOffset returns the index of the first pass-j detail coefficient
// (j = 1 finest … Levels(m) coarsest) in the coefficient vector of padded
// length m; pass j holds m/2^j coefficients.
func PassOffset(m, j int) int { return 1 + m - m>>(j-1) }

// Weight returns W_(Haar) of coefficient index i in a transform of padded
// length m: m for the base coefficient H_0, 2^j for a pass-j detail.
func Weight(m, i int) float64 {
	if i == 0 {
		return float64(m)
	}
	// Pass j occupies [1+m-m>>(j-1), 1+m-m>>j); m-i+1 lies in (m>>j, m>>(j-1)].
	j := Levels(m) - bits.Len(uint(m-i)) + 1
	return float64(int(1) << j)
}

// Weights returns the weights W of all m coefficients (m a power of two).
func Weights(m int) []float64 {
	w := make([]float64, m)
	WeightsInto(w)
	return w
}

// WeightsInto writes the weights of a transform of padded length len(w)
// into w (len(w) must be a power of two).
func WeightsInto(w []float64) {
	m := len(w)
	if m == 0 {
		return
	}
	n := Levels(m)
	w[0] = float64(m)
	for j := 1; j <= n; j++ {
		off := PassOffset(m, j)
		wj := float64(int(1) << j)
		for i := off; i < off+m>>j; i++ {
			w[i] = wj
		}
	}
}

// Forward returns the Haar coefficients of x (length PaddedLen(len(x))).
func Forward(x []float64) []float64 {
	m := PaddedLen(len(x))
	h := make([]float64, m)
	ForwardInto(h, x, make([]float64, m/2))
	return h
}

// ForwardInto writes the Haar coefficients of x into dst[:m], where
// m = PaddedLen(len(x)), using scratch (length ≥ m/2) for the running
// means. It does not allocate. scratch may alias x (x is then
// overwritten); dst must not overlap x or scratch.
func ForwardInto(dst, x, scratch []float64) {
	n0 := len(x)
	m := PaddedLen(n0)
	switch m {
	case 0:
		return
	case 1:
		dst[0] = x[0]
		return
	}
	dst = dst[:m]
	half := m / 2
	s := scratch[:half]
	// Pass 1 reads x directly, treating positions ≥ n0 as the zero padding.
	d := dst[1 : 1+half]
	full := n0 / 2 // pairs lying entirely inside x
	xx := x[:2*full]
	for i := 0; i < full; i++ {
		a, b := xx[2*i], xx[2*i+1]
		s[i] = (a + b) * 0.5
		d[i] = (a - b) * 0.5
	}
	if full < half {
		a := 0.0
		if 2*full < n0 {
			a = x[2*full]
		}
		s[full] = a * 0.5
		d[full] = a * 0.5
		for i := full + 1; i < half; i++ {
			s[i], d[i] = 0, 0
		}
	}
	// Later passes work in place on the means: s[i] is written after
	// s[2i], s[2i+1] are read, and 2i ≥ i.
	for length := half; length > 1; length /= 2 {
		hl := length / 2
		off := 1 + m - length
		d := dst[off : off+hl]
		ss := s[:length]
		for i := 0; i < hl; i++ {
			a, b := ss[2*i], ss[2*i+1]
			ss[i] = (a + b) * 0.5
			d[i] = (a - b) * 0.5
		}
	}
	dst[0] = s[0]
}

// Inverse reconstructs the first n elements from Haar coefficients h
// (len(h) a power of two ≥ n): the paper's inverse transform followed by
// truncation back to the original length.
func Inverse(h []float64, n int) []float64 {
	x := make([]float64, n)
	InverseInto(x, h, make([]float64, len(h)/2))
	return x
}

// InverseInto writes the first len(dst) elements reconstructed from h into
// dst, using scratch (length ≥ len(h)/2). It does not allocate. len(h) must
// be a power of two ≥ len(dst); dst, h and scratch must not overlap.
func InverseInto(dst, h, scratch []float64) {
	m := len(h)
	n0 := len(dst)
	if n0 > m {
		panic(fmt.Sprintf("haar: cannot reconstruct %d elements from %d coefficients", n0, m))
	}
	if m == 0 || n0 == 0 {
		return
	}
	if m == 1 {
		dst[0] = h[0]
		return
	}
	Levels(m) // validates m
	half := m / 2
	s := scratch[:half]
	s[0] = h[0]
	// Coarse-to-fine passes in place on s, from the back so that s[i] is
	// read before s[2i], s[2i+1] overwrite it.
	for length := 1; length < half; length *= 2 {
		off := 1 + m - 2*length
		d := h[off : off+length]
		ss := s[:2*length]
		for i := length - 1; i >= 0; i-- {
			c, di := ss[i], d[i]
			ss[2*i] = c + di
			ss[2*i+1] = c - di
		}
	}
	// The finest pass writes straight into dst, truncating at n0.
	d := h[1 : 1+half]
	full := n0 / 2
	out := dst[:2*full]
	for i := 0; i < full; i++ {
		c, di := s[i], d[i]
		out[2*i] = c + di
		out[2*i+1] = c - di
	}
	if 2*full < n0 {
		dst[2*full] = s[full] + d[full]
	}
}

// CoefficientNorm returns ‖HWT(x)‖₂, the norm Algorithm 1 clips, without
// storing the coefficients; scratch needs length ≥ PaddedLen(len(x))/2 and
// may alias x (x is then overwritten).
func CoefficientNorm(x, scratch []float64) float64 {
	n0 := len(x)
	m := PaddedLen(n0)
	switch m {
	case 0:
		return 0
	case 1:
		return math.Abs(x[0])
	}
	half := m / 2
	s := scratch[:half]
	var ss float64
	full := n0 / 2
	xx := x[:2*full]
	for i := 0; i < full; i++ {
		a, b := xx[2*i], xx[2*i+1]
		s[i] = (a + b) * 0.5
		d := (a - b) * 0.5
		ss += d * d
	}
	if full < half {
		a := 0.0
		if 2*full < n0 {
			a = x[2*full]
		}
		s[full] = a * 0.5
		ss += a * a * 0.25
		for i := full + 1; i < half; i++ {
			s[i] = 0
		}
	}
	for length := half; length > 1; length /= 2 {
		hl := length / 2
		sl := s[:length]
		for i := 0; i < hl; i++ {
			a, b := sl[2*i], sl[2*i+1]
			sl[i] = (a + b) * 0.5
			d := (a - b) * 0.5
			ss += d * d
		}
	}
	return math.Sqrt(ss + s[0]*s[0])
}

// Ancestors returns the ancestral chain of element e (0-based) in a
// transform of padded length m, as used by the paper's reconstruction
// formula (6): the indices of the detail coefficients whose support
// contains e, finest first, and the sign S_i (+1 when e lies in the left
// half of the coefficient's support, −1 in the right half). The base
// coefficient H_0, which enters (6) with weight +1, is not listed.
// For m = 8 and e = 2 it returns [2 5 7] and [+1 −1 +1].
func Ancestors(m, e int) (idx []int, sign []float64) {
	n := Levels(m)
	if e < 0 || e >= m {
		panic(fmt.Sprintf("haar: element %d outside [0,%d)", e, m))
	}
	idx = make([]int, n)
	sign = make([]float64, n)
	for j := 1; j <= n; j++ {
		idx[j-1] = PassOffset(m, j) + e>>j
		if (e>>(j-1))&1 == 0 {
			sign[j-1] = 1
		} else {
			sign[j-1] = -1
		}
	}
	return idx, sign
}

// ReconstructElement evaluates the paper's eq. (6), X_e = H_0 + Σ S_i H_i
// over e's ancestral chain, for coefficients h of a power-of-two length.
func ReconstructElement(h []float64, e int) float64 {
	if len(h) == 1 {
		return h[0]
	}
	idx, sign := Ancestors(len(h), e)
	x := h[0]
	for i, j := range idx {
		x += sign[i] * h[j]
	}
	return x
}
