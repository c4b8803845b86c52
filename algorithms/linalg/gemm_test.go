package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// fill draws a rows×cols matrix with the given stride: a fraction zeros
// of the entries zero (ReLU-like sparsity, both signs of zero), the rest
// normal with mixed scales. special adds a few ±Inf and NaN.
func fill(r *rand.Rand, rows, cols, stride int, special bool, zeros float64) blas64.General {
	data := make([]float64, max(0, (rows-1)*stride+cols)+r.IntN(3))
	for i := range data {
		switch u := r.Float64(); {
		case u < zeros*0.75:
			data[i] = 0
		case u < zeros:
			data[i] = math.Copysign(0, -1)
		default:
			data[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3))
		}
		if special && r.IntN(50) == 0 {
			data[i] = []float64{math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(3)]
		}
	}
	return blas64.General{Rows: rows, Cols: cols, Stride: stride, Data: data}
}

// sameBits reports whether x and y are the same float64 bit for bit (any
// NaN equals any NaN: payloads are not part of the contract).
func sameBits(x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return math.Float64bits(x) == math.Float64bits(y)
}

var sizes = []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 70}

type gemmCase struct {
	tA, tB      blas.Transpose
	m, n, k     int
	alpha, beta float64
	special     bool    // non-finite entries
	zerosA      float64 // fraction of zeros in A (0.33 ReLU-like, 0 dense, 0.85 pixels)
}

func (c gemmCase) String() string {
	t := func(x blas.Transpose) string {
		if x == blas.Trans {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%s%s-m%d-n%d-k%d-a%g-b%g-special%v-zeros%g", t(c.tA), t(c.tB), c.m, c.n, c.k, c.alpha, c.beta, c.special, c.zerosA)
}

// cases draws shape/transpose/scalar combinations: every size of sizes
// for each dimension in turn, plus the models' shapes.
func cases(r *rand.Rand) []gemmCase {
	trans := []blas.Transpose{blas.NoTrans, blas.Trans}
	var cs []gemmCase
	for _, tA := range trans {
		for _, tB := range trans {
			for _, s := range sizes {
				for dim := 0; dim < 3; dim++ {
					mnk := [3]int{sizes[r.IntN(len(sizes))], sizes[r.IntN(len(sizes))], sizes[r.IntN(len(sizes))]}
					mnk[dim] = s
					cs = append(cs, gemmCase{tA: tA, tB: tB, m: mnk[0], n: mnk[1], k: mnk[2],
						alpha: []float64{1, 1, -0.5, 0, 3}[r.IntN(5)], beta: []float64{0, 1, 1, 0.5, -2}[r.IntN(5)],
						special: r.IntN(4) == 0, zerosA: []float64{0, 0.33, 0.85}[r.IntN(3)]})
				}
			}
			// The MLP 784-196-10 at batch 13 (odd), a k with a remainder and
			// one longer than the coefficient chunks of axpyProducts.
			for _, mnk := range [][3]int{{13, 196, 784}, {196, 784, 13}, {13, 10, 196}, {13, 196, 10}, {10, 196, 13}, {5, 6, 1027}, {9, 13, 300}} {
				for _, z := range []float64{0, 0.33, 0.85} {
					cs = append(cs, gemmCase{tA: tA, tB: tB, m: mnk[0], n: mnk[1], k: mnk[2], alpha: 1, beta: 1, zerosA: z},
						gemmCase{tA: tA, tB: tB, m: mnk[0], n: mnk[1], k: mnk[2], alpha: 1, beta: 0, zerosA: z, special: true})
				}
			}
		}
	}
	return cs
}

// operands draws A, B and C for c, with strides sometimes wider than the
// rows.
func operands(r *rand.Rand, c gemmCase) (a, b, cm blas64.General) {
	ar, ac := c.m, c.k
	if c.tA == blas.Trans {
		ar, ac = c.k, c.m
	}
	br, bc := c.k, c.n
	if c.tB == blas.Trans {
		br, bc = c.n, c.k
	}
	pad := func() int { return []int{0, 0, 1, 3}[r.IntN(4)] }
	a = fill(r, ar, ac, max(1, ac)+pad(), c.special, c.zerosA)
	b = fill(r, br, bc, max(1, bc)+pad(), c.special && r.IntN(2) == 0, 0.33)
	cm = fill(r, c.m, c.n, max(1, c.n)+pad(), c.special, 0.33)
	return a, b, cm
}

func clone(g blas64.General) blas64.General {
	g.Data = append([]float64(nil), g.Data...)
	return g
}

func compare(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Fatalf("%s: element %d = %v (%#x), want %v (%#x)", name, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// TestGemmMatchesGonum checks the contract of the package: Gemm's result
// is gonum's serial Dgemm's bit for bit (including C outside the product's
// rows and columns, which must be untouched), on every transpose, edge
// sizes, α and β, signed zeros and non-finite entries. Run it with
// -tags purego as well to check the pure-Go kernels.
func TestGemmMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 1))
	for _, c := range cases(r) {
		a, b, cm := operands(r, c)
		want := clone(cm)
		gemmTiled(c.tA, c.tB, c.alpha, a, b, c.beta, want)
		got := clone(cm)
		Gemm(c.tA, c.tB, c.alpha, a, b, c.beta, got)
		compare(t, c.String(), got.Data, want.Data)
	}
}

// TestGemmShapes checks the one-line panics on inconsistent shapes.
func TestGemmShapes(t *testing.T) {
	g := func(r, c int) blas64.General {
		return blas64.General{Rows: r, Cols: c, Stride: max(1, c), Data: make([]float64, r*c)}
	}
	for _, tc := range []struct {
		name    string
		a, b, c blas64.General
	}{
		{"inner", g(2, 3), g(4, 5), g(2, 5)},
		{"rows", g(2, 3), g(3, 5), g(3, 5)},
		{"cols", g(2, 3), g(3, 5), g(2, 4)},
		{"short", g(2, 3), blas64.General{Rows: 3, Cols: 5, Stride: 5, Data: make([]float64, 14)}, g(2, 5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			Gemm(blas.NoTrans, blas.NoTrans, 1, tc.a, tc.b, 0, tc.c)
		})
	}
}
