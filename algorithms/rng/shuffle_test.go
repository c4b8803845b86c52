package rng

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/internal/cputime"
)

// refShuffle is Shuffle as first written (Fisher–Yates drawing j with
// rand.Rand.IntN), frozen so that any faster Shuffle/Perm can be checked
// to draw the very same permutations: every shuffled mini-batch of every
// golden run depends on them.
func refShuffle(r *rand.Rand, xs []int) {
	for i := len(xs) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// Perm and Shuffle must give the frozen reference's permutations and leave
// the stream at the same place, for lengths that include 0, 1, powers of
// two (IntN's masking path) and sizes where rejection happens.
func TestShuffleMatchesFrozenReference(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 8, 31, 32, 33, 49, 446, 1000, 1 << 12, 100003} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			for rep := range 3 {
				a, b := New(7, "shuffle", n, rep).Rand(), New(7, "shuffle", n, rep).Rand()
				got, want := make([]int, n), make([]int, n)
				Perm(a, got)
				for i := range want {
					want[i] = i
				}
				refShuffle(b, want)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("rep %d: position %d: Perm %d, reference %d", rep, i, got[i], want[i])
					}
				}
				Shuffle(a, got)
				refShuffle(b, want)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("rep %d: second shuffle, position %d: Shuffle %d, reference %d", rep, i, got[i], want[i])
					}
				}
				if x, y := a.Uint64(), b.Uint64(); x != y {
					t.Fatalf("rep %d: the streams diverge after shuffling: %x vs %x", rep, x, y)
				}
			}
		})
	}
}

// A stream built on a source other than PCG (a user's rand.New(src)) must
// shuffle exactly as with IntN too.
func TestShuffleOtherSource(t *testing.T) {
	a, b := rand.New(rand.NewChaCha8([32]byte{1})), rand.New(rand.NewChaCha8([32]byte{1}))
	got, want := make([]int, 300), make([]int, 300)
	Perm(a, got)
	for i := range want {
		want[i] = i
	}
	refShuffle(b, want)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("position %d: Perm %d, reference %d", i, got[i], want[i])
		}
	}
}

// PermPCG and ShufflePCG must give Perm's and Shuffle's permutations on a
// rand.Rand over the same PCG state, and leave the source where they leave
// it, for many seeds and lengths (0, 1, powers of two — the masking path —
// and others — Lemire's multiply path). Its rejection loop runs with
// probability about n/2⁶⁴ per draw, so no PCG seed reaches it here; the
// loop is Shuffle's, which TestShuffleMatchesFrozenReference pins.
func TestShufflePCGMatchesShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 49, 64, 446, 1000, 1 << 12, 100003} {
		for seed := range uint64(20) {
			k := New(seed, "shuffle-pcg", n)
			src := k.Source()
			r := k.Rand()
			got, want := make([]int, n), make([]int, n)
			PermPCG(src, got)
			Perm(r, want)
			ShufflePCG(src, got)
			Shuffle(r, want)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n %d seed %d: position %d: PCG path %d, Shuffle %d", n, seed, i, got[i], want[i])
				}
			}
			if x, y := src.Uint64(), r.Uint64(); x != y {
				t.Fatalf("n %d seed %d: the streams diverge after shuffling: %x vs %x", n, seed, x, y)
			}
		}
	}
}

// BenchmarkPermPCG is BenchmarkPerm through PermPCG.
func BenchmarkPermPCG(b *testing.B) {
	for _, n := range []int{446, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src := New(1, "bench-perm").Source()
			xs := make([]int, n)
			b.ReportAllocs()
			c0, ok0 := cputime.Process()
			for b.Loop() {
				PermPCG(src, xs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
			if c1, ok1 := cputime.Process(); ok0 && ok1 {
				b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N*n), "cpu-ns/elem")
			}
		})
	}
}

// BenchmarkPerm times one epoch's permutation of the largest Syn(iid)
// client (446 rows) and of a 10,000-row data set.
func BenchmarkPerm(b *testing.B) {
	for _, n := range []int{446, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := New(1, "bench-perm").Rand()
			xs := make([]int, n)
			b.ReportAllocs()
			c0, ok0 := cputime.Process()
			for b.Loop() {
				Perm(r, xs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
			if c1, ok1 := cputime.Process(); ok0 && ok1 {
				b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N*n), "cpu-ns/elem")
			}
		})
	}
}
