//go:build !amd64 || purego

package linalg

// HasAVX2 reports whether Gemm uses its AVX2 kernels: never in this build
// (purego tag or not amd64).
const HasAVX2 = false

// HasFMA reports whether the fused multiply-add kernels run: never in this
// build.
const HasFMA = false

func dot4x2(ar *[4][]float64, br *[2][]float64, k4 int, acc *[8][4]float64) {
	dot4x2Go(ar, br, k4, acc)
}

func axpyList(c, coef []float64, off []int, b []float64) { axpyListGo(c, coef, off, b) }

func axpy4(c []float64, ldc, n int, coef []float64, off []int, b []float64) {
	axpy4Go(c, ldc, n, coef, off, b)
}

func addScaledProduct(dst, a []float64, d, f float64) { addScaledProductGo(dst, a, d, f) }

func dot1x4List(x []float64, br *[4][]float64, blocks []int32, acc *[4][4]float64) {
	dot1x4ListGo(x, br, blocks, acc)
}
