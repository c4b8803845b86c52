package model

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/fedrepro/fedrepro/algorithms/linalg"
)

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices with
// linalg.Gemm: serial (parallelism belongs to the caller, one Clone per
// goroutine), allocation-free, and bitwise equal to the tiled gonum
// blas64.Gemm calls the models made before (each entry of C accumulated
// over k in gonum's order), so the goldens do not move.
func gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	gemmImpl(tA, tB, alpha, a, b, beta, c)
}

// gemmImpl is linalg.Gemm; the tests and benchmarks swap in the gonum
// product it replaced, to check that every model result is bitwise the
// same and to time both.
var gemmImpl = linalg.Gemm

// general wraps a row-major rows×cols matrix stored in data.
func general(rows, cols int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: max(cols, 1), Data: data[:rows*cols]}
}
