package diffusion

import (
	"github.com/fedrepro/fedrepro/algorithms/linalg"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemm computes C = alpha·op(A)·op(B) + beta·C like blas64.Gemm, serially
// and without allocating. Gonum's Dgemm runs 64×64 blocks of C on goroutines
// once there are four or more, which allocates on every call and competes with
// the FL engine that already trains clients in parallel; linalg.Gemm gives
// the bits of gonum's serial product (each element's dot product in gonum's
// order, independent of blocking) with AVX2 kernels where the CPU has them.
func gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	linalg.Gemm(tA, tB, alpha, a, b, beta, c)
}
