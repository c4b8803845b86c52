package linalg

import (
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
// shape.
func dotProducts(alpha float64, a, b, c blas64.General, k int) {
	m, n := c.Rows, c.Cols
	k4 := k &^ 3
	var acc [8][4]float64
	for i0 := 0; i0 < m; i0 += 4 {
		var ar [4][]float64
		for r := range ar {
			i := min(i0+r, m-1)
			ar[r] = a.Data[i*a.Stride : i*a.Stride+k]
		}
		for j0 := 0; j0 < n; j0 += 2 {
			var br [2][]float64
			for s := range br {
				j := min(j0+s, n-1)
				br[s] = b.Data[j*b.Stride : j*b.Stride+k]
			}
			dot4x2(&ar, &br, k4, &acc)
			for r := 0; r < 4 && i0+r < m; r++ {
				crow := c.Data[(i0+r)*c.Stride:]
				for s := 0; s < 2 && j0+s < n; s++ {
					p := &acc[r*2+s]
					s0 := p[0]
					x, y := ar[r], br[s]
					for l := k4; l < k; l++ {
						s0 += float64(x[l] * y[l])
					}
					dot := float64(s0+p[2]) + float64(p[1]+p[3])
					crow[j0+s] += float64(alpha * dot)
				}
			}
		}
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
// zero coefficients; a_il is A[i][l], or A[l][i] when transA (Aᵀ·B). The
// non-zero coefficients of a row are gathered first (in chunks of
// listChunk, l still in order), so the kernel runs without branches and
// holds a block of c_i in registers across the whole list.
func axpyProducts(alpha float64, a blas64.General, transA bool, b, c blas64.General, k int) {
	m, n := c.Rows, c.Cols
	var coef [listChunk]float64
	var off [listChunk]int
	for i := 0; i < m; i++ {
		crow := c.Data[i*c.Stride : i*c.Stride+n]
		for l0 := 0; l0 < k; l0 += listChunk {
			cnt := 0
			for l := l0; l < min(k, l0+listChunk); l++ {
				var v float64
				if transA {
					v = a.Data[l*a.Stride+i]
				} else {
					v = a.Data[i*a.Stride+l]
				}
				t := alpha * v
				if t != 0 {
					coef[cnt], off[cnt] = t, l*b.Stride
					cnt++
				}
			}
			if cnt > 0 {
				axpyList(crow, coef[:cnt], off[:cnt], b.Data)
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
