// Package cputime reads the CPU time (user + system) the kernel has charged
// to this process or to the calling OS thread. Benchmarks report it beside
// wall time because on a shared machine wall time measures the neighbours
// as much as the code, and the runner records each run's thread CPU time.
// Where the platform has no getrusage, ok is false.
package cputime

import "time"

// Process is the CPU time of the whole process so far; ok is false where
// the platform cannot tell.
func Process() (d time.Duration, ok bool) { return process() }

// Thread is the CPU time of the calling OS thread so far (Linux; the caller
// locks its goroutine to the thread); ok is false elsewhere.
func Thread() (d time.Duration, ok bool) { return thread() }
