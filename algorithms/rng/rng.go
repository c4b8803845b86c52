// Package rng derives named, independent random streams from a seed and a
// list of labels.
//
// Every random draw in fedrepro comes from a stream named by what it is for,
// for example rng.New(seed, "client", 7, "round", 3). The name, not the order
// in which goroutines happen to run, determines the bits, so a run gives the
// same result with one worker or sixteen, and two algorithms that ask for the
// same name (a baseline and its Upcycled variant selecting clients in training
// round k) see the same draws.
//
// Streams are PCG generators from math/rand/v2 seeded by SHA-256 of a
// type-tagged encoding of (seed, labels), so distinct label lists give
// unrelated streams ("a",12) ≠ ("a1",2) ≠ ("a",1,2).
package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Key names a random stream. The zero Key is a valid (if unnamed) stream.
type Key struct{ hi, lo uint64 }

// New returns the key of the stream named by seed and labels. Labels may be
// strings, signed or unsigned integers of any width, bools or float64s;
// any other type panics, because a label that cannot be encoded exactly
// would silently merge streams.
func New(seed uint64, labels ...any) Key {
	var arr [160]byte
	return sum(appendLabels(appendPrefix(arr[:0], seed), labels))
}

// Derive returns the key of a child stream: k followed by more labels
// (the stream New(k.hi, "derive", k.lo, labels...) names).
func (k Key) Derive(labels ...any) Key {
	var arr [160]byte
	b := appendLabel(appendPrefix(arr[:0], k.hi), "derive")
	b = binary.LittleEndian.AppendUint64(append(b, 'u'), k.lo) // appendLabel(b, k.lo), without boxing k.lo
	return sum(appendLabels(b, labels))
}

// The name of a stream is hashed as one message, "fedrepro/rng/v1", the
// seed (8 bytes, little-endian), then each label's tagged encoding
// (appendLabel): built in a stack buffer and hashed by one sha256.Sum256
// call, the same bytes — hence the same key — as writing each piece to
// the hash in turn, without the hash's allocation and per-write calls
// (TestKeysMatchStreamingHash, TestKeysMatchFrozenReference).
func appendPrefix(b []byte, seed uint64) []byte {
	return binary.LittleEndian.AppendUint64(append(b, "fedrepro/rng/v1"...), seed)
}

func appendLabels(b []byte, labels []any) []byte {
	for _, l := range labels {
		b = appendLabel(b, l)
	}
	return b
}

func sum(msg []byte) Key {
	s := sha256.Sum256(msg)
	return Key{binary.LittleEndian.Uint64(s[0:8]), binary.LittleEndian.Uint64(s[8:16])}
}

// Rand returns a fresh generator for the stream. Two calls return
// generators that produce the same sequence.
func (k Key) Rand() *rand.Rand { return rand.New(k.Source()) }

// Source returns a fresh PCG source for the stream, for APIs (such as
// gonum's distuv) that take a rand.Source.
func (k Key) Source() *rand.PCG { return rand.NewPCG(k.hi, k.lo) }

// Uint64 returns a 64-bit digest of the key, for use as a seed of
// libraries with their own generators (gopter takes an int64 seed).
func (k Key) Uint64() uint64 { return k.hi ^ (k.lo * 0x9e3779b97f4a7c15) }

// String shows the key in hex, for logs and replay messages.
func (k Key) String() string { return fmt.Sprintf("%016x%016x", k.hi, k.lo) }

// Stream is shorthand for New(seed, labels...).Rand().
func Stream(seed uint64, labels ...any) *rand.Rand { return New(seed, labels...).Rand() }

// appendLabel appends l's encoding: a tag byte ('s' string, 'i' signed,
// 'u' unsigned, 'b' bool, 'f' float64 bits) and a little-endian uint64
// (a string's length, then its bytes).
func appendLabel(b []byte, l any) []byte {
	put := func(tag byte, v uint64) []byte {
		return binary.LittleEndian.AppendUint64(append(b, tag), v)
	}
	switch v := l.(type) {
	case string:
		return append(put('s', uint64(len(v))), v...)
	case int:
		return put('i', uint64(int64(v)))
	case int8:
		return put('i', uint64(int64(v)))
	case int16:
		return put('i', uint64(int64(v)))
	case int32:
		return put('i', uint64(int64(v)))
	case int64:
		return put('i', uint64(v))
	case uint:
		return put('u', uint64(v))
	case uint8:
		return put('u', uint64(v))
	case uint16:
		return put('u', uint64(v))
	case uint32:
		return put('u', uint64(v))
	case uint64:
		return put('u', v)
	case bool:
		x := uint64(0)
		if v {
			x = 1
		}
		return put('b', x)
	case float64:
		return put('f', math.Float64bits(v))
	}
	panic(fmt.Sprintf("rng: label %v of type %T cannot name a stream", l, l))
}

// FillNormal overwrites dst with independent N(0, std²) draws from r.
func FillNormal(r *rand.Rand, dst []float64, std float64) {
	for i := range dst {
		dst[i] = std * r.NormFloat64()
	}
}

// AddNormal adds independent N(0, std²) draws from r to dst.
func AddNormal(r *rand.Rand, dst []float64, std float64) {
	for i := range dst {
		dst[i] += std * r.NormFloat64()
	}
}

// Perm writes a uniformly random permutation of 0..len(dst)-1 into dst
// without allocating (Fisher–Yates).
func Perm(r *rand.Rand, dst []int) {
	for i := range dst {
		dst[i] = i
	}
	Shuffle(r, dst)
}

// Shuffle permutes xs uniformly at random in place: Fisher–Yates from the
// last position down, position i swapped with j uniform on 0..i.
//
// j is drawn exactly as r.IntN(i+1) draws it on 64-bit platforms (Go's
// math/rand/v2: a mask when i+1 is a power of two, else Lemire's
// multiply-and-reject, "Fast random integer generation in an interval",
// ACM TOMACS 2019), written out here so that the per-element cost is one
// call to the source and a 64×64→128-bit product; the permutations, and
// the stream's position afterwards, are those of IntN (pinned by
// TestShuffleMatchesFrozenReference). 32-bit platforms, where IntN takes a
// different path, call it.
func Shuffle(r *rand.Rand, xs []int) {
	if !is64bit {
		for i := len(xs) - 1; i > 0; i-- {
			j := r.IntN(i + 1)
			xs[i], xs[j] = xs[j], xs[i]
		}
		return
	}
	for i := len(xs) - 1; i > 0; i-- {
		n := uint64(i + 1)
		var j uint64
		if n&(n-1) == 0 {
			j = r.Uint64() & (n - 1)
		} else {
			hi, lo := bits.Mul64(r.Uint64(), n)
			if lo < n {
				thresh := -n % n
				for lo < thresh {
					hi, lo = bits.Mul64(r.Uint64(), n)
				}
			}
			j = hi
		}
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// PermPCG is Perm drawing from src directly: the same permutation, and
// src's state afterwards, as Perm(rand.New(src), dst).
func PermPCG(src *rand.PCG, dst []int) {
	for i := range dst {
		dst[i] = i
	}
	ShufflePCG(src, dst)
}

// ShufflePCG is Shuffle with the draws taken from src by a direct call
// rather than through rand.Rand's Source interface (an indirect call per
// element, which the local loops of fl pay every epoch): the same
// permutations, and src's state afterwards, as Shuffle(rand.New(src), xs),
// since rand.Rand.Uint64 is src.Uint64. The loop is Shuffle's, line for
// line (TestShufflePCGMatchesShuffle).
func ShufflePCG(src *rand.PCG, xs []int) {
	if !is64bit {
		Shuffle(rand.New(src), xs)
		return
	}
	for i := len(xs) - 1; i > 0; i-- {
		n := uint64(i + 1)
		var j uint64
		if n&(n-1) == 0 {
			j = src.Uint64() & (n - 1)
		} else {
			hi, lo := bits.Mul64(src.Uint64(), n)
			if lo < n {
				thresh := -n % n
				for lo < thresh {
					hi, lo = bits.Mul64(src.Uint64(), n)
				}
			}
			j = hi
		}
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// is64bit reports a 64-bit int (math/rand/v2's IntN draws differently on
// 32-bit platforms).
const is64bit = ^uint(0)>>63 == 1

// SampleWithoutReplacement writes k distinct indices drawn uniformly from
// 0..n-1 into dst[:k] (in the order drawn) using scratch of length n.
// It panics if k > n.
func SampleWithoutReplacement(r *rand.Rand, n, k int, dst, scratch []int) []int {
	if k > n || k < 0 {
		panic(fmt.Sprintf("rng: cannot sample %d of %d without replacement", k, n))
	}
	scratch = scratch[:n]
	for i := range scratch {
		scratch[i] = i
	}
	// Partial Fisher–Yates: the first k slots become the sample.
	for i := 0; i < k; i++ {
		j := i + r.IntN(n-i)
		scratch[i], scratch[j] = scratch[j], scratch[i]
	}
	dst = append(dst[:0], scratch[:k]...)
	return dst
}
