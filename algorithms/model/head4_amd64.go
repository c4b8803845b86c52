//go:build amd64 && !purego

package model

import "github.com/fedrepro/fedrepro/algorithms/linalg"

// useAVX2 selects the AVX2 kernels of the two-class step (dsHeadsAVX2,
// acc4AVX2) where the CPU has AVX2; the tests switch it off to compare
// both paths.
var useAVX2 = linalg.HasAVX2

// dsHeadsAVX2 is dsGrads four entries at a time (see head4_amd64.s).
//
//go:noescape
func dsHeadsAVX2(sc, y *float64, n4 int) int

// ceHeadsAVX2 is head2's CrossEntropy gradient four entries at a time
// (see head4_amd64.s).
//
//go:noescape
func ceHeadsAVX2(sc, y *float64, n4 int) int

// acc4AVX2 adds four scaled rows to g1 (see head4_amd64.s).
//
//go:noescape
func acc4AVX2(c *float64, x0, x1, x2, x3, g1 *float64, d4 int)

// setAVX2 switches the AVX2 kernels on or off (tests).
func setAVX2(on bool) { useAVX2 = on && linalg.HasAVX2 }
