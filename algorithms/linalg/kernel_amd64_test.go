//go:build amd64 && !purego

package linalg

import (
	"math/rand/v2"
	"testing"
)

// TestAVX2MatchesPureGo checks that the AVX2 kernels and the pure-Go
// kernels give the same bits on every case of TestGemmMatchesGonum (the
// selection between them must never change a result).
func TestAVX2MatchesPureGo(t *testing.T) {
	if !HasAVX2 {
		t.Skip("no AVX2 on this CPU: only the pure-Go kernels run here")
	}
	defer func() { useAVX2 = HasAVX2 }()
	r := rand.New(rand.NewPCG(24, 2))
	for _, c := range cases(r) {
		a, b, cm := operands(r, c)
		useAVX2 = false
		want := clone(cm)
		Gemm(c.tA, c.tB, c.alpha, a, b, c.beta, want)
		useAVX2 = true
		got := clone(cm)
		Gemm(c.tA, c.tB, c.alpha, a, b, c.beta, got)
		compare(t, c.String(), got.Data, want.Data)
	}
}

// TestDetectAVX2 pins the detection on a machine that advertises AVX2 in
// /proc/cpuinfo, so that a broken CPUID check cannot silently fall back.
func TestDetectAVX2(t *testing.T) {
	if detectAVX2() != cpuinfoHasAVX2(t) {
		t.Fatalf("detectAVX2() = %v, /proc/cpuinfo says otherwise", detectAVX2())
	}
}
