//go:build !amd64 || purego

package model

// useAVX2 is false: no assembly kernels in this build.
const useAVX2 = false

func dsHeadsAVX2(sc, y *float64, n4 int) int { panic("model: no AVX2 kernel in this build") }

func ceHeadsAVX2(sc, y *float64, n4 int) int { panic("model: no AVX2 kernel in this build") }

func acc4AVX2(c *float64, x0, x1, x2, x3, g1 *float64, d4 int) {
	panic("model: no AVX2 kernel in this build")
}

func setAVX2(bool) {}
