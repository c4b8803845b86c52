package accountant

import (
	"testing"
	"time"

	"github.com/fedrepro/fedrepro/internal/cputime"
)

// processCPU is the process's CPU time so far (internal/cputime), 0 where
// the platform cannot tell.
func processCPU() time.Duration {
	d, _ := cputime.Process()
	return d
}

// reportCPU adds the CPU milliseconds per operation since start to b's
// metrics, where the platform can tell.
func reportCPU(b *testing.B, start time.Duration) {
	if _, ok := cputime.Process(); ok && b.N > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
