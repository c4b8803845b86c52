//go:build !amd64 || purego

package model

// useFMA is false: no assembly kernels in this build (the Go loops of
// fma2.go give the same bits).
const useFMA = false

func scores2FMA(w, X *float64, rows *int, n, d int, bd float64, sc, wd *float64) {
	panic("model: no FMA kernel in this build")
}

func accBlockFMA(c, X *float64, rows *int, n, d, j0, k int, g1, g0 *float64, inv float64) {
	panic("model: no FMA kernel in this build")
}
