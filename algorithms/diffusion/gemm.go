package diffusion

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gonum's Dgemm splits a product into 64×64 blocks of C and runs them on
// goroutines once there are at least four; that allocates on every call and
// competes with the FL engine, which already trains clients in parallel.
// gemm therefore tiles C into panels of at most 64 rows × 192 columns (at
// most three blocks), each of which gonum computes serially and without
// allocating. The result is the same as one Gemm call.
const (
	tileRows = 64
	tileCols = 192
)

// gemm computes C = alpha·op(A)·op(B) + beta·C like blas64.Gemm, serially.
func gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	if c.Rows <= tileRows && c.Cols <= tileCols {
		blas64.Gemm(tA, tB, alpha, a, b, beta, c)
		return
	}
	for i0 := 0; i0 < c.Rows; i0 += tileRows {
		m := min(tileRows, c.Rows-i0)
		var as blas64.General
		if tA == blas.NoTrans { // op(A) rows i0.. are A's rows
			as = sub(a, i0, 0, m, a.Cols)
		} else { // op(A) = Aᵀ: its rows are A's columns
			as = sub(a, 0, i0, a.Rows, m)
		}
		for j0 := 0; j0 < c.Cols; j0 += tileCols {
			n := min(tileCols, c.Cols-j0)
			var bs blas64.General
			if tB == blas.NoTrans {
				bs = sub(b, 0, j0, b.Rows, n)
			} else {
				bs = sub(b, j0, 0, n, b.Cols)
			}
			blas64.Gemm(tA, tB, alpha, as, bs, beta, sub(c, i0, j0, m, n))
		}
	}
}

// sub is the rows×cols view of g starting at (r0, c0).
func sub(g blas64.General, r0, c0, rows, cols int) blas64.General {
	off := r0*g.Stride + c0
	return blas64.General{Rows: rows, Cols: cols, Stride: g.Stride, Data: g.Data[off : off+(rows-1)*g.Stride+cols]}
}
