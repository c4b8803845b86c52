package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

type keyCase struct {
	seed           uint64
	labels, derive []any
}

// frozenCases cover every label type, the empty list, long strings
// (crossing SHA-256's 64-byte block) and Derive chains.
func frozenCases() []keyCase {
	long := strings.Repeat("client-", 20)
	return []keyCase{
		{0, nil, nil},
		{1, []any{"client", 7, "round", 3}, nil},
		{42, []any{"run"}, []any{"x"}},
		{^uint64(0), []any{int8(-1), int16(-2), int32(-3), int64(-4), uint(5), uint8(6), uint16(7), uint32(8), uint64(9)}, nil},
		{3, []any{true, false, 1.5, math.Inf(-1), -0.0}, []any{long, 0}},
		{2024, []any{long, long}, nil},
		{5, []any{""}, []any{"", ""}},
	}
}

// frozenKeys are the keys the streaming SHA-256 implementation of New
// (every label written to the hash in turn) gave before New was made to
// hash one buffer: a stream's name must keep naming the same stream, or
// every recorded result and golden moves.
var frozenKeys = []string{
	"2409c558377738874977d8c1f6d21bc2",
	"9e245fcc24106bd9bbcd4f4ee5bd009d",
	"40e507a611bbb5117c4fd693ffc54bc0",
	"36c7c1779c7af2559f5091d930dc36c2",
	"066446058fc3b10b22b08d19f15e1771",
	"2407e05c9d1b35a7ffe9d234213a7157",
	"34ad26b62424b59334c7569c779457fe",
}

func TestKeysMatchFrozenReference(t *testing.T) {
	cs := frozenCases()
	if len(cs) != len(frozenKeys) {
		t.Fatalf("%d cases, %d frozen keys", len(cs), len(frozenKeys))
	}
	for i, c := range cs {
		k := New(c.seed, c.labels...)
		if c.derive != nil {
			k = k.Derive(c.derive...)
		}
		if k.String() != frozenKeys[i] {
			t.Errorf("case %d: key %s, frozen %s", i, k, frozenKeys[i])
		}
	}
}

// streamingKey is New as it was written first: the prefix, the seed and
// each label fed to the hash by separate writes.
func streamingKey(seed uint64, labels ...any) Key {
	var buf [8]byte
	h := sha256.New()
	h.Write([]byte("fedrepro/rng/v1"))
	binary.LittleEndian.PutUint64(buf[:], seed)
	h.Write(buf[:])
	for _, l := range labels {
		h.Write(appendLabel(nil, l))
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return Key{binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])}
}

// TestKeysMatchStreamingHash: over random label lists of every type and
// length (strings up to 200 bytes, so buffers outgrow the stack array),
// New and Derive equal the label-by-label hash.
func TestKeysMatchStreamingHash(t *testing.T) {
	r := New(9, "test", "keys").Rand()
	gen := func() any {
		switch r.IntN(7) {
		case 0:
			return strings.Repeat("ab", r.IntN(100))
		case 1:
			return r.Int()
		case 2:
			return int32(r.Int32())
		case 3:
			return r.Uint64()
		case 4:
			return r.IntN(2) == 1
		case 5:
			return r.NormFloat64()
		}
		return uint8(r.Uint32())
	}
	for range 2000 {
		seed := r.Uint64()
		labels := make([]any, r.IntN(12))
		for i := range labels {
			labels[i] = gen()
		}
		if got, want := New(seed, labels...), streamingKey(seed, labels...); got != want {
			t.Fatalf("New(%d, %v) = %s, streaming hash %s", seed, labels, got, want)
		}
		k := Key{r.Uint64(), r.Uint64()}
		if got, want := k.Derive(labels...), streamingKey(k.hi, append([]any{"derive", k.lo}, labels...)...); got != want {
			t.Fatalf("%s.Derive(%v) = %s, streaming hash %s", k, labels, got, want)
		}
	}
}

func BenchmarkDerive(b *testing.B) {
	k := New(1, "run")
	b.ReportAllocs()
	for b.Loop() {
		k.Derive("client", 7)
	}
}
