package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Tile sizes of gemmTiled. gonum's Dgemm splits C into 64×64 blocks and
// goes parallel (with the k sum split in blocks of 64) from 4 blocks on; a
// tile of at most 64×192 has at most 3 blocks, so every call runs
// serially.
const (
	tileRows = 64
	tileCols = 192
)

// gemmTiled is gonum's blas64.Gemm on tiles of C small enough that gonum
// runs serially: every entry is accumulated over k in order, as in one
// serial call. It is the product the models used before this package, the
// reference of the tests, and the implementation on platforms whose gonum
// kernels round differently from amd64's.
func gemmTiled(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	k := a.Cols
	if tA == blas.Trans {
		k = a.Rows
	}
	for i0 := 0; i0 < c.Rows; i0 += tileRows {
		mi := min(tileRows, c.Rows-i0)
		var as blas64.General
		if tA == blas.Trans {
			as = blas64.General{Rows: k, Cols: mi, Stride: a.Stride, Data: a.Data[i0:]}
		} else {
			as = blas64.General{Rows: mi, Cols: k, Stride: a.Stride, Data: a.Data[i0*a.Stride:]}
		}
		for j0 := 0; j0 < c.Cols; j0 += tileCols {
			nj := min(tileCols, c.Cols-j0)
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
