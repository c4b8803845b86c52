package model

import "math"

// The two-class step's dot products, fused (issue 24). Both are fixed
// definitions, independent of the CPU: the AVX2+FMA kernels of
// fma2_amd64.s and the Go loops below compute the same bits, because a
// fused multiply-add is correctly rounded (IEEE 754 fusedMultiplyAdd: one
// rounding of a·b + c) on every CPU and in math.FMA's software fallback.
//
// Forward score of example x (d features, wd = w_1 − w_0, bd = b_1 − b_0):
//
//	d4 = d − d mod 4
//	a_l = 0 (l = 0…3);  a_l ← fma(wd_j, x_j, a_l) for j = l, l+4, …, < d4, in j order
//	s = (a_0 + a_2) + (a_1 + a_3)
//	s ← fma(wd_j, x_j, s) for j = d4, …, d − 1
//	score = s + bd
//
// i.e. one four-lane accumulator over the columns (lane l holds the
// columns j ≡ l mod 4), folded as a 256-bit register folds (high half onto
// low half, then the two lanes), the d mod 4 tail by scalar FMA.
//
// Backward Σ_i g_i x_i into g1 (d entries, cleared by the caller): per
// column, in row order,
//
//	g1_j ← fma(g_i, x_ij, g1_j) for i = 0, …, n − 1
//
// which has no reduction: it vectorises across columns.
//
// Against the previous definition (separate multiply and add, rows summed
// in a different association) the scores and gradients move by rounding
// only: a few ulps of the partial sums, relative ~1e-15 on each entry
// unless cancellation amplifies it.

// dot2 is the forward score's dot product (s above, before + bd) of wd and
// x (len(x) ≥ len(wd)).
func dot2(wd, x []float64) float64 {
	x = x[:len(wd)]
	d4 := len(wd) &^ 3
	var a0, a1, a2, a3 float64
	for j := 0; j < d4; j += 4 {
		a0 = math.FMA(wd[j], x[j], a0)
		a1 = math.FMA(wd[j+1], x[j+1], a1)
		a2 = math.FMA(wd[j+2], x[j+2], a2)
		a3 = math.FMA(wd[j+3], x[j+3], a3)
	}
	s := (a0 + a2) + (a1 + a3)
	for j := d4; j < len(wd); j++ {
		s = math.FMA(wd[j], x[j], s)
	}
	return s
}

// scores2Go writes score_i = dot2(wd, x_{rows[i]}) + bd (rows[i] = i when
// rows is nil) into sc.
func scores2Go(wd []float64, bd float64, X []float64, rows []int, sc []float64) {
	d := len(wd)
	for i := range sc {
		k := i
		if rows != nil {
			k = rows[i]
		}
		sc[i] = dot2(wd, X[k*d:k*d+d]) + bd
	}
}

// accRowsGo adds Σ_i g[i] x_{rows[i]} to g1 by the backward definition
// above, for the columns j0 ≤ j < len(g1) (rows[i] = i when rows is nil).
func accRowsGo(g, X []float64, rows []int, g1 []float64, j0 int) {
	d := len(g1)
	for i, c := range g {
		k := i
		if rows != nil {
			k = rows[i]
		}
		x := X[k*d : k*d+d]
		for j := j0; j < d; j++ {
			g1[j] = math.FMA(c, x[j], g1[j])
		}
	}
}

// accRowsFMA runs accBlockFMA over the first d4 = d − d mod 4 columns
// (d4 > 0, n > 0, rows checked), scaling by inv into g1 and −g1 into g0:
// q = d4/4 YMM columns in ⌈q/12⌉ blocks of balanced sizes (15 → 8 + 7 at
// d = 60), so that each block has enough independent accumulators to hide
// the FMA latency and fits the 16 YMM registers. The bits do not depend
// on the blocking: each column is its own chain in row order.
func accRowsFMA(c, X []float64, rows []int, n, d, d4 int, g1, g0 []float64, inv float64) {
	_, _ = g1[d4-1], g0[d4-1]
	q := d4 / 4
	nb := (q + 11) / 12
	j0 := 0
	for b := nb; b > 0; b-- {
		k := (q + b - 1) / b
		accBlockFMA(&c[0], &X[0], &rows[0], n, d, j0, k, &g1[0], &g0[0], inv)
		j0 += 4 * k
		q -= k
	}
}
