//go:build amd64 && !purego

package model

import "github.com/fedrepro/fedrepro/algorithms/linalg"

// useAVX2 selects the AVX2 kernels of the two-class step (dsHeadsAVX2,
// ceHeadsAVX2) where the CPU has AVX2; the tests switch it off to compare
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

// setAVX2 switches the AVX2 and FMA kernels on or off (tests).
func setAVX2(on bool) {
	useAVX2 = on && linalg.HasAVX2
	useFMA = on && linalg.HasFMA
}
