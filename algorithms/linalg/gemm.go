package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gemm computes C = α·op(A)·op(B) + β·C for row-major matrices, serially,
// with gonum's rounding (see the package documentation). It panics on
// inconsistent shapes, like blas64.Gemm.
func Gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, n := c.Rows, c.Cols
	k := a.Cols
	am := a.Rows
	if tA == blas.Trans {
		k, am = a.Rows, a.Cols
	}
	bk, bn := b.Rows, b.Cols
	if tB == blas.Trans {
		bk, bn = b.Cols, b.Rows
	}
	if am != m || bn != n || bk != k {
		panic("linalg: Gemm: inconsistent shapes")
	}
	if !amd64Order {
		gemmTiled(tA, tB, alpha, a, b, beta, c)
		return
	}
	if m == 0 || n == 0 {
		return
	}
	checkGeneral(a, "A")
	checkGeneral(b, "B")
	checkGeneral(c, "C")
	if (alpha == 0 || k == 0) && beta == 1 {
		return
	}
	if beta != 1 {
		for i := 0; i < m; i++ {
			row := c.Data[i*c.Stride : i*c.Stride+n]
			if beta == 0 {
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
	}
	switch {
	case tA != blas.Trans && tB == blas.Trans:
		dotProducts(alpha, a, b, c, k)
	case tA != blas.Trans && tB != blas.Trans:
		axpyProducts(alpha, a, false, b, c, k)
	case tA == blas.Trans && tB != blas.Trans:
		axpyProducts(alpha, a, true, b, c, k)
	default:
		// Aᵀ·Bᵀ: gonum's strided axpy, c_ij += (α·a_li)·b_jl over l in
		// order, skipping zero coefficients. Unused by the models; plain Go.
		for i := 0; i < m; i++ {
			crow := c.Data[i*c.Stride : i*c.Stride+n]
			for l := 0; l < k; l++ {
				t := alpha * a.Data[l*a.Stride+i]
				if t == 0 {
					continue
				}
				for j := range crow {
					crow[j] += float64(t * b.Data[j*b.Stride+l])
				}
			}
		}
	}
}

// checkGeneral panics when g's stride or data cannot hold its shape.
func checkGeneral(g blas64.General, name string) {
	if g.Rows < 0 || g.Cols < 0 || g.Stride < max(1, g.Cols) {
		panic("linalg: Gemm: bad stride or shape of " + name)
	}
	if g.Rows > 0 && g.Cols > 0 && len(g.Data) < (g.Rows-1)*g.Stride+g.Cols {
		panic("linalg: Gemm: short data of " + name)
	}
}

// dotProducts adds α·dot(a_i, b_j) to every c_ij (A·Bᵀ). Blocks of 4 rows
// of A and 2 rows of B share their loads; a block at the edge repeats its
// last row (the repeated results are discarded), so one kernel covers every
// shape. A panel of up to dotPanelRows rows of A stays in the L2 cache
// while every pair of rows of B, read from L1, meets its blocks of 4 rows:
// B is streamed once per panel instead of once per 4 rows.
//
// Rows of A with many all-zero blocks of 4 (pixels of a digit's border,
// ReLU outputs) skip them: such a block adds x·b = ±0 to each of the four
// partial sums, which never changes a sum (a sum that starts at +0 and
// only adds is never −0) as long as B is finite, so a row whose zero
// blocks make up at least two thirds of it goes through dot1x4List over its
// non-zero blocks, when B holds no infinity or NaN (checked once per call,
// when a first row qualifies).
func dotProducts(alpha float64, a, b, c blas64.General, k int) {
	m, n := c.Rows, c.Cols
	k4 := k &^ 3
	var acc [8][4]float64
	var acc4 [4][4]float64
	var lists [dotPanelRows][maxListBlocks]int32
	var counts [dotPanelRows]int
	var dense [dotPanelRows]int // rows of the panel for the 4×2 kernel
	sparseOK := k4 >= 16 && k4/4 <= maxListBlocks && m >= 2
	finite := 0 // B's entries all finite: 0 unknown, 1 yes, −1 no
	for p0 := 0; p0 < m; p0 += dotPanelRows {
		p1 := min(m, p0+dotPanelRows)
		nd := 0
		for i := p0; i < p1; i++ {
			counts[i-p0] = -1
			if sparseOK {
				x := a.Data[i*a.Stride : i*a.Stride+k4]
				cnt, limit := 0, k4/12 // a row qualifies with at most a third of its blocks non-zero
				list := &lists[i-p0]
				for t := 0; t < k4/4 && cnt <= limit; t++ {
					// Branch-free (zero and non-zero blocks alternate at
					// random): the magnitude bits of the four entries are
					// all zero exactly for a block of ±0.
					list[cnt] = int32(t)
					q := x[4*t : 4*t+4 : 4*t+4]
					u := (math.Float64bits(q[0]) | math.Float64bits(q[1]) | math.Float64bits(q[2]) | math.Float64bits(q[3])) << 1
					cnt += int((u | -u) >> 63)
				}
				if cnt <= limit {
					if finite == 0 {
						finite = -1
						if finiteRows(b, n, k) {
							finite = 1
						}
					}
					if finite == 1 {
						counts[i-p0] = cnt
						continue
					}
				}
			}
			dense[nd] = i
			nd++
		}
		for j0 := 0; j0 < n; j0 += 4 {
			var br4 [4][]float64
			for s := range br4 {
				j := min(j0+s, n-1)
				br4[s] = b.Data[j*b.Stride : j*b.Stride+k]
			}
			// Sparse rows: 4 rows of B at a time.
			for i := p0; i < p1; i++ {
				cnt := counts[i-p0]
				if cnt < 0 {
					continue
				}
				x := a.Data[i*a.Stride : i*a.Stride+k]
				if cnt > 0 {
					dot1x4List(x, &br4, lists[i-p0][:cnt], &acc4)
				} else {
					acc4 = [4][4]float64{}
				}
				crow := c.Data[i*c.Stride:]
				for s := 0; s < 4 && j0+s < n; s++ {
					finishDot(crow, j0+s, &acc4[s], x, br4[s], k4, alpha)
				}
			}
			// Dense rows: 4 at a time against 2 rows of B at a time.
			for jj := j0; jj < min(n, j0+4); jj += 2 {
				var br [2][]float64
				for s := range br {
					j := min(jj+s, n-1)
					br[s] = b.Data[j*b.Stride : j*b.Stride+k]
				}
				for d0 := 0; d0 < nd; d0 += 4 {
					var ar [4][]float64
					for r := range ar {
						i := dense[min(d0+r, nd-1)]
						ar[r] = a.Data[i*a.Stride : i*a.Stride+k]
					}
					dot4x2(&ar, &br, k4, &acc)
					for r := 0; r < 4 && d0+r < nd; r++ {
						crow := c.Data[dense[d0+r]*c.Stride:]
						for s := 0; s < 2 && jj+s < min(n, j0+4); s++ {
							finishDot(crow, jj+s, &acc[r*2+s], ar[r], br[s], k4, alpha)
						}
					}
				}
			}
		}
	}
}

// finishDot completes gonum's DotUnitary from the four partial sums p of
// the leading k4 indices — the remaining terms into p[0] in order, then
// (p0+p2) + (p1+p3) — and adds α·dot to crow[j].
func finishDot(crow []float64, j int, p *[4]float64, x, y []float64, k4 int, alpha float64) {
	s0 := p[0]
	for l := k4; l < len(x); l++ {
		s0 += float64(x[l] * y[l])
	}
	dot := float64(s0+p[2]) + float64(p[1]+p[3])
	crow[j] += float64(alpha * dot)
}

// finiteRows reports whether the first k entries of the n rows of b are
// all finite: 0·v is NaN exactly for v = ±Inf or NaN, so four running sums
// of 0·v (independent chains, no branch per entry) stay 0 otherwise.
func finiteRows(b blas64.General, n, k int) bool {
	var s0, s1, s2, s3 float64
	for j := 0; j < n; j++ {
		row := b.Data[j*b.Stride : j*b.Stride+k]
		l := 0
		for ; l+4 <= len(row); l += 4 {
			s0 += 0 * row[l]
			s1 += 0 * row[l+1]
			s2 += 0 * row[l+2]
			s3 += 0 * row[l+3]
		}
		for ; l < len(row); l++ {
			s0 += 0 * row[l]
		}
	}
	return s0+s1+s2+s3 == 0
}

// dotPanelRows is the height of the panels of A in dotProducts: 32 rows
// of 784 (the MLP's input) take 200 KB, half of a typical L2 cache.
const dotPanelRows = 32

// maxListBlocks bounds the blocks of 4 a sparse row may have (k ≤ 1024).
const maxListBlocks = 256

// dot1x4ListGo is the pure-Go dot1x4List: acc[s][q] = Σ x[4t+q]·b_s[4t+q]
// over the listed blocks t, in order, from +0.
func dot1x4ListGo(x []float64, br *[4][]float64, blocks []int32, acc *[4][4]float64) {
	for s := range br {
		y := br[s]
		var s0, s1, s2, s3 float64
		for _, t := range blocks {
			l := 4 * int(t)
			s0 += float64(x[l] * y[l])
			s1 += float64(x[l+1] * y[l+1])
			s2 += float64(x[l+2] * y[l+2])
			s3 += float64(x[l+3] * y[l+3])
		}
		acc[s] = [4]float64{s0, s1, s2, s3}
	}
}

// dot4x2Go is the pure-Go dot4x2: acc[2r+s][q] = Σ_t a_r[4t+q]·b_s[4t+q]
// over the first k4 (a multiple of 4) indices, in order of t, starting
// from +0.
func dot4x2Go(ar *[4][]float64, br *[2][]float64, k4 int, acc *[8][4]float64) {
	for r := range ar {
		x := ar[r][:k4]
		for s := range br {
			y := br[s][:k4]
			var s0, s1, s2, s3 float64
			for l := 0; l+4 <= len(x); l += 4 {
				s0 += float64(x[l] * y[l])
				s1 += float64(x[l+1] * y[l+1])
				s2 += float64(x[l+2] * y[l+2])
				s3 += float64(x[l+3] * y[l+3])
			}
			acc[2*r+s] = [4]float64{s0, s1, s2, s3}
		}
	}
}

// listChunk bounds the coefficient lists axpyProducts builds on the stack.
const listChunk = 128

// axpyProducts adds Σ_l (α·a_il)·b_l to every row c_i, l in order, skipping
// zero coefficients; a_il is A[i][l], or A[l][i] when transA (Aᵀ·B). Rows
// go by fours: where the four rows have no zero coefficient in a chunk of
// listChunk values of l (dense A), axpy4 updates them together, so that
// every vector of B loaded serves four rows; otherwise the non-zero
// coefficients of each row are gathered (l still in order) and axpyList
// runs over that list without branches, holding a block of c_i in
// registers across it.
func axpyProducts(alpha float64, a blas64.General, transA bool, b, c blas64.General, k int) {
	m, n := c.Rows, c.Cols
	var coef [listChunk]float64
	var off [listChunk]int
	var coef4 [4 * listChunk]float64
	at := func(i, l int) float64 {
		if transA {
			return a.Data[l*a.Stride+i]
		}
		return a.Data[i*a.Stride+l]
	}
	row := func(i, l0, l1 int) {
		cnt := 0
		for l := l0; l < l1; l++ {
			if t := alpha * at(i, l); t != 0 {
				coef[cnt], off[cnt] = t, l*b.Stride
				cnt++
			}
		}
		if cnt > 0 {
			axpyList(c.Data[i*c.Stride:i*c.Stride+n], coef[:cnt], off[:cnt], b.Data)
		}
	}
	i := 0
	for ; i+4 <= m; i += 4 {
		for l0 := 0; l0 < k; l0 += listChunk {
			l1 := min(k, l0+listChunk)
			dense := true
		scan:
			for l := l0; l < l1; l++ {
				for r := range 4 {
					if alpha*at(i+r, l) == 0 {
						dense = false
						break scan
					}
				}
			}
			if !dense {
				for r := range 4 {
					row(i+r, l0, l1)
				}
				continue
			}
			for l := l0; l < l1; l++ {
				for r := range 4 {
					coef4[4*(l-l0)+r] = alpha * at(i+r, l)
				}
				off[l-l0] = l * b.Stride
			}
			axpy4(c.Data[i*c.Stride:], c.Stride, n, coef4[:4*(l1-l0)], off[:l1-l0], b.Data)
		}
	}
	for ; i < m; i++ {
		for l0 := 0; l0 < k; l0 += listChunk {
			row(i, l0, min(k, l0+listChunk))
		}
	}
}

// axpy4Go is the pure-Go axpy4: for the rows c[r·ldc : r·ldc+n], r < 4,
// c_j += coef[4t+r]·b[off[t]+j] for t in order.
func axpy4Go(c []float64, ldc, n int, coef []float64, off []int, b []float64) {
	for r := range 4 {
		crow := c[r*ldc : r*ldc+n]
		for t, o := range off {
			ct := coef[4*t+r]
			brow := b[o : o+n]
			for j := range crow {
				crow[j] += float64(brow[j] * ct)
			}
		}
	}
}

// axpyListGo is the pure-Go axpyList: c_j += coef_t·b[off_t + j] for t in
// order, for every j.
func axpyListGo(c, coef []float64, off []int, b []float64) {
	for t, ct := range coef {
		row := b[off[t] : off[t]+len(c)]
		for j := range c {
			c[j] += float64(ct * row[j])
		}
	}
}
