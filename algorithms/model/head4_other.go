//go:build !amd64 || purego

package model

// useAVX2 is false: no assembly kernels in this build.
const useAVX2 = false

func dsHeadsAVX2(sc, y *float64, n4 int) int { panic("model: no AVX2 kernel in this build") }

func ceHeadsAVX2(sc, y *float64, n4 int) int { panic("model: no AVX2 kernel in this build") }

func setAVX2(bool) {}
