package runner

import "syscall"

// rusageThread is Linux's RUSAGE_THREAD: the calling thread's usage.
const rusageThread = 1

// threadCPU returns the CPU time (user + system, seconds) consumed so far by
// the calling OS thread. Execute locks each run's goroutine to its thread,
// so the difference over a run is that run's CPU time, whatever else the
// machine is doing (wall time is not: it grows with contention). Work the
// Go runtime does on other threads for the run (garbage collection) is not
// included.
func threadCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6, true
}
