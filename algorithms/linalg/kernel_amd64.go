//go:build amd64 && !purego

package linalg

// HasAVX2 reports whether Gemm uses its AVX2 kernels: the CPU has AVX2
// and the operating system saves the YMM registers.
var HasAVX2 = detectAVX2()

// HasFMA reports whether the CPU also has FMA3 (fused multiply-add) with
// the YMM state saved (HasAVX2 and CPUID.1:ECX bit 12); the two-class
// logistic step of package model uses it for its fused kernels.
var HasFMA = HasAVX2 && detectFMA()

// useAVX2 is HasAVX2; the tests switch it off to compare both paths.
var useAVX2 = HasAVX2

func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

func detectFMA() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	return ecx1&(1<<12) != 0
}

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)

// dot4x2AVX2 is dot4x2Go with one YMM accumulator per entry. The row
// pointers must have at least k4 elements (k4 a multiple of 4, > 0).
//
//go:noescape
func dot4x2AVX2(a0, a1, a2, a3, b0, b1 *float64, k4 int, acc *[8][4]float64)

// axpyListAVX2 is axpyListGo: c[j] += coef[t]·b[off[t]+j], t in order, for
// j < n, with 16 (then 4, then 1) entries of c held in registers across the
// list. cnt > 0, n > 0.
//
//go:noescape
func axpyListAVX2(c *float64, n int, coef *float64, off *int, cnt int, b *float64)

// axpy4AVX2 is axpy4Go (cnt > 0, n > 0).
//
//go:noescape
func axpy4AVX2(c *float64, ldc int, n int, coef *float64, off *int, cnt int, b *float64)

func axpy4(c []float64, ldc, n int, coef []float64, off []int, b []float64) {
	if !useAVX2 || n == 0 || len(off) == 0 {
		axpy4Go(c, ldc, n, coef, off, b)
		return
	}
	_ = c[3*ldc : 3*ldc+n] // bounds, as the Go kernel's slicing would check
	_ = coef[:4*len(off)]
	for _, o := range off {
		_ = b[o : o+n]
	}
	axpy4AVX2(&c[0], ldc, n, &coef[0], &off[0], len(off), &b[0])
}

func dot4x2(ar *[4][]float64, br *[2][]float64, k4 int, acc *[8][4]float64) {
	if !useAVX2 || k4 == 0 {
		dot4x2Go(ar, br, k4, acc)
		return
	}
	dot4x2AVX2(&ar[0][0], &ar[1][0], &ar[2][0], &ar[3][0], &br[0][0], &br[1][0], k4, acc)
}

func axpyList(c, coef []float64, off []int, b []float64) {
	if !useAVX2 || len(c) == 0 || len(coef) == 0 {
		axpyListGo(c, coef, off, b)
		return
	}
	for t := range coef { // bounds, as the Go kernel's slicing would check
		_ = b[off[t] : off[t]+len(c)]
	}
	axpyListAVX2(&c[0], len(c), &coef[0], &off[0], len(coef), &b[0])
}

// addScaledProductAVX2 is addScaledProductGo for n > 0 entries.
//
//go:noescape
func addScaledProductAVX2(dst, a *float64, n int, d, f float64)

func addScaledProduct(dst, a []float64, d, f float64) {
	if !useAVX2 {
		addScaledProductGo(dst, a, d, f)
		return
	}
	addScaledProductAVX2(&dst[0], &a[0], len(a), d, f)
}

// dot1x4ListAVX2 is dot1x4ListGo (cnt > 0).
//
//go:noescape
func dot1x4ListAVX2(x, b0, b1, b2, b3 *float64, blocks *int32, cnt int, acc *[4][4]float64)

func dot1x4List(x []float64, br *[4][]float64, blocks []int32, acc *[4][4]float64) {
	if !useAVX2 || len(blocks) == 0 {
		dot1x4ListGo(x, br, blocks, acc)
		return
	}
	// Bounds: the last block is the largest.
	end := 4*int(blocks[len(blocks)-1]) + 4
	_ = x[:end]
	for s := range br {
		_ = br[s][:end]
	}
	dot1x4ListAVX2(&x[0], &br[0][0], &br[1][0], &br[2][0], &br[3][0], &blocks[0], len(blocks), acc)
}
