package runner

import "github.com/fedrepro/fedrepro/internal/cputime"

// threadCPU is the calling thread's CPU time in seconds (internal/cputime;
// the runner locks each run's goroutine to its thread); false where the
// platform cannot tell.
func threadCPU() (float64, bool) {
	d, ok := cputime.Thread()
	return d.Seconds(), ok
}
