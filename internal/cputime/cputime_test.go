package cputime

import (
	"runtime"
	"testing"
)

// Spinning on the CPU must advance both clocks where the platform has them.
func TestClocksAdvance(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0, okP := Process()
	t0, okT := Thread()
	x := 1.0
	for i := 0; i < 50_000_000; i++ {
		x = x*1.0000001 + 1e-9
	}
	if x == 0 {
		t.Fatal("unreachable")
	}
	p1, _ := Process()
	t1, _ := Thread()
	if okP && !(p1 > p0) {
		t.Errorf("process CPU did not advance: %v → %v", p0, p1)
	}
	if okT && !(t1 > t0) {
		t.Errorf("thread CPU did not advance: %v → %v", t0, t1)
	}
	if runtime.GOOS == "linux" && !(okP && okT) {
		t.Errorf("linux must report both clocks: process %v, thread %v", okP, okT)
	}
}
