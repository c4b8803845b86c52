//go:build unix && openblas && cgo

package openblas

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
