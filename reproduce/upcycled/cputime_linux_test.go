package upcycled

import "syscall"

// threadCPU returns the calling OS thread's CPU time in seconds (Linux
// RUSAGE_THREAD), for benchmarks on a machine other work also uses.
func threadCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6, true
}
