package linalg

import (
	"time"

	"github.com/fedrepro/fedrepro/internal/cputime"
)

// processCPU is the process's CPU time so far (internal/cputime), or −1
// where the platform cannot tell.
func processCPU() time.Duration {
	if d, ok := cputime.Process(); ok {
		return d
	}
	return -1
}
