//go:build unix

package upcycled

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) of the process so far: on a
// shared machine it is what a benchmark's work costs, which wall time is
// not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
