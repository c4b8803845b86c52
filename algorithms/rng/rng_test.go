package rng

import (
	"math"
	"testing"
)

func TestStreamsAreNamedNotOrdered(t *testing.T) {
	a := Stream(1, "client", 7, "round", 3).Uint64()
	b := Stream(1, "client", 7, "round", 3).Uint64()
	if a != b {
		t.Fatalf("same name gave different streams: %x vs %x", a, b)
	}
	cases := []struct {
		name   string
		labels []any
	}{
		{"other seed", []any{"client", 7, "round", 3}},
		{"other client", []any{"client", 8, "round", 3}},
		{"split label", []any{"client7", "round", 3}},
		{"uint vs int", []any{"client", uint64(7), "round", 3}},
		{"fewer labels", []any{"client", 7, "round"}},
	}
	seen := map[uint64]string{a: "base"}
	for i, c := range cases {
		seed := uint64(1)
		if i == 0 {
			seed = 2
		}
		v := Stream(seed, c.labels...).Uint64()
		if prev, dup := seen[v]; dup {
			t.Errorf("%s collides with %s", c.name, prev)
		}
		seen[v] = c.name
	}
}

func TestDeriveIsStableAndDistinct(t *testing.T) {
	k := New(42, "run")
	if k.Derive("x").Rand().Uint64() != k.Derive("x").Rand().Uint64() {
		t.Fatal("Derive not stable")
	}
	if k.Derive("x").Rand().Uint64() == k.Derive("y").Rand().Uint64() {
		t.Fatal("Derive labels collide")
	}
	if k.Derive("x") == New(42, "run", "x") {
		t.Fatal("Derive should not alias a flat label list")
	}
}

func TestUnsupportedLabelPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("expected a panic for a struct label")
		}
	}()
	New(1, struct{}{})
}

func TestSampleWithoutReplacementIsUniform(t *testing.T) {
	const n, k, trials = 10, 3, 60000
	r := Stream(3, "swr")
	counts := make([]int, n)
	var dst []int
	scratch := make([]int, n)
	for i := 0; i < trials; i++ {
		dst = SampleWithoutReplacement(r, n, k, dst, scratch)
		seen := map[int]bool{}
		for _, v := range dst {
			if seen[v] {
				t.Fatalf("duplicate %d in %v", v, dst)
			}
			seen[v] = true
			counts[v]++
		}
	}
	want := float64(trials*k) / n
	for i, c := range counts {
		// binomial std ≈ sqrt(trials·p(1-p)) with p = k/n; 5 std is a loose gate.
		if !(math.Abs(float64(c)-want) <= 5*math.Sqrt(trials*0.3*0.7)) {
			t.Errorf("index %d drawn %d times, want about %.0f", i, c, want)
		}
	}
}

func TestFillNormalMoments(t *testing.T) {
	r := Stream(9, "normal")
	x := make([]float64, 200000)
	FillNormal(r, x, 2.5)
	var s, s2 float64
	for _, v := range x {
		s += v
		s2 += v * v
	}
	m := s / float64(len(x))
	v := s2/float64(len(x)) - m*m
	if !(math.Abs(m) <= 0.03) || !(math.Abs(v-6.25) <= 0.1) {
		t.Fatalf("mean %.4f var %.4f, want 0 and 6.25", m, v)
	}
}

func BenchmarkNewKey(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = New(uint64(i), "client", 7, "round", 3)
	}
}
