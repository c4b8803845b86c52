//go:build !linux

package runner

// threadCPU is unavailable off Linux; results then carry no cpu_seconds.
func threadCPU() (float64, bool) { return 0, false }
