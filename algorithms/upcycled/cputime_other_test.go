//go:build !unix

package upcycled

import "time"

// processCPU is unavailable here (-1: no cpu-ns metric).
func processCPU() time.Duration { return -1 }
