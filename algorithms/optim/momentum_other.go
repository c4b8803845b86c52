//go:build !amd64 || purego

package optim

// useAVX2 is false: no assembly kernel in this build.
const useAVX2 = false

func momentumAVX2(p, buf, grad *float64, n4 int, rho, lr float64) {
	panic("optim: no AVX2 kernel in this build")
}

func setAVX2(bool) {}
