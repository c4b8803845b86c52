package diffusion

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The tiled serial gemm equals the naive triple loop for every transpose
// combination and for shapes on both sides of the tile sizes.
func TestGemmMatchesNaive(t *testing.T) {
	r := rng.Stream(1, "gemm")
	shapes := [][3]int{{1, 1, 1}, {5, 3, 7}, {64, 192, 10}, {65, 193, 3}, {200, 130, 70}, {130, 400, 33}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				t.Run(fmt.Sprintf("%dx%dx%d/%c%c", m, n, k, tA, tB), func(t *testing.T) {
					ar, ac := m, k
					if tA == blas.Trans {
						ar, ac = k, m
					}
					br, bc := k, n
					if tB == blas.Trans {
						br, bc = n, k
					}
					a := general(ar, ac, make([]float64, ar*ac))
					b := general(br, bc, make([]float64, br*bc))
					c := general(m, n, make([]float64, m*n))
					rng.FillNormal(r, a.Data, 1)
					rng.FillNormal(r, b.Data, 1)
					rng.FillNormal(r, c.Data, 1)
					want := append([]float64(nil), c.Data...)
					at := func(g blas64.General, tr blas.Transpose, i, j int) float64 {
						if tr == blas.Trans {
							return g.Data[j*g.Stride+i]
						}
						return g.Data[i*g.Stride+j]
					}
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							var s float64
							for l := 0; l < k; l++ {
								s += at(a, tA, i, l) * at(b, tB, l, j)
							}
							want[i*n+j] = 0.5*want[i*n+j] + 2*s
						}
					}
					gemm(tA, tB, 2, a, b, 0.5, c)
					for i := range want {
						if !(math.Abs(c.Data[i]-want[i]) <= 1e-10*(1+math.Abs(want[i]))) {
							t.Fatalf("entry %d: %g, want %g", i, c.Data[i], want[i])
						}
					}
				})
			}
		}
	}
}
