package model

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Tile sizes for gemm. gonum's Dgemm splits C into 64×64 blocks and spawns
// goroutines when there are 4 or more; a tile of at most 64×192 has at most
// 3 blocks, so every call runs serially, allocates nothing and leaves the
// cores to the runner's worker pool (one model per goroutine). Results are
// bitwise the same as an untiled call: each entry of C is still accumulated
// over k in order.
const (
	gemmTileRows = 64
	gemmTileCols = 192
)

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices.
func gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	k := a.Cols
	if tA == blas.Trans {
		k = a.Rows
	}
	for i0 := 0; i0 < c.Rows; i0 += gemmTileRows {
		mi := min(gemmTileRows, c.Rows-i0)
		var as blas64.General
		if tA == blas.Trans {
			as = blas64.General{Rows: k, Cols: mi, Stride: a.Stride, Data: a.Data[i0:]}
		} else {
			as = blas64.General{Rows: mi, Cols: k, Stride: a.Stride, Data: a.Data[i0*a.Stride:]}
		}
		for j0 := 0; j0 < c.Cols; j0 += gemmTileCols {
			nj := min(gemmTileCols, c.Cols-j0)
			var bs blas64.General
			if tB == blas.Trans {
				bs = blas64.General{Rows: nj, Cols: k, Stride: b.Stride, Data: b.Data[j0*b.Stride:]}
			} else {
				bs = blas64.General{Rows: k, Cols: nj, Stride: b.Stride, Data: b.Data[j0:]}
			}
			cs := blas64.General{Rows: mi, Cols: nj, Stride: c.Stride, Data: c.Data[i0*c.Stride+j0:]}
			blas64.Gemm(tA, tB, alpha, as, bs, beta, cs)
		}
	}
}

// general wraps a row-major rows×cols matrix stored in data.
func general(rows, cols int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: max(cols, 1), Data: data[:rows*cols]}
}
