//go:build amd64 && !purego

package model

import "github.com/fedrepro/fedrepro/algorithms/linalg"

// useFMA selects the AVX2+FMA kernels of the two-class dot products
// (scores2FMA, accRowsFMA) where the CPU has both; the tests switch it off
// (setAVX2) to compare with the Go loops of fma2.go, which give the same
// bits.
var useFMA = linalg.HasFMA

// scores2FMA is scores2Go for n > 0 rows of X (d features each), from
// the weights w (2·d, class 0 then class 1): wd[j] = w[d+j] − w[j], then
// sc[i] = dot2(wd, X[rows[i]·d:]) + bd, four rows at a time (see
// fma2_amd64.s). rows must hold n valid row indices.
//
//go:noescape
func scores2FMA(w, X *float64, rows *int, n, d int, bd float64, sc, wd *float64)

// accBlockFMA is accRowsGo for the 4k columns j0 ≤ j < j0 + 4k
// (1 ≤ k ≤ 12) followed by the mean's scaling: a_j = fma(c[i],
// X[rows[i]·d + j], a_j) for i in order from a_j = g1[j], then
// g1[j] = a_j·inv, g0[j] = −g1[j]; the block held in k YMM registers
// across the rows (see fma2_amd64.s). rows must hold n > 0 valid row
// indices.
//
//go:noescape
func accBlockFMA(c, X *float64, rows *int, n, d, j0, k int, g1, g0 *float64, inv float64)
