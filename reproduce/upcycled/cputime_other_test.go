//go:build !linux

package upcycled

func threadCPU() (float64, bool) { return 0, false }
