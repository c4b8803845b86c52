package linalg

import (
	"os"
	"regexp"
	"testing"
)

// cpuinfoHasAVX2 reads the avx2 flag of Linux's /proc/cpuinfo (skipping
// the test elsewhere).
func cpuinfoHasAVX2(t *testing.T) bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo")
	}
	return regexp.MustCompile(`(?m)^flags\s*:.*\bavx2\b`).Match(b)
}
