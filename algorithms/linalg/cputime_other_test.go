//go:build !unix

package linalg

import "time"

// processCPU is unavailable here (-1: no cpu-ns metric).
func processCPU() time.Duration { return -1 }
