//go:build unix

package cputime

import (
	"runtime"
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD (not in package syscall).
const rusageThread = 1

func process() (time.Duration, bool) { return rusage(syscall.RUSAGE_SELF) }

func thread() (time.Duration, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	return rusage(rusageThread)
}

func rusage(who int) (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
