package haar

import (
	"fmt"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// The transform benchmarks report ns per element (ns/elem) next to the
// usual ns/op; both must run without allocating.
func benchSizes() []int {
	var s []int
	for p := 10; p <= 20; p += 2 {
		s = append(s, 1<<p)
	}
	return s
}

func BenchmarkForward(b *testing.B) {
	for _, m := range benchSizes() {
		b.Run(fmt.Sprintf("m=2^%d", Levels(m)), func(b *testing.B) {
			x := make([]float64, m)
			for i := range x {
				x[i] = float64(i%13) - 6
			}
			h := make([]float64, m)
			scr := make([]float64, m/2)
			b.SetBytes(int64(8 * m))
			b.ReportAllocs()
			for b.Loop() {
				ForwardInto(h, x, scr)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m), "ns/elem")
		})
	}
}

func BenchmarkInverse(b *testing.B) {
	for _, m := range benchSizes() {
		b.Run(fmt.Sprintf("m=2^%d", Levels(m)), func(b *testing.B) {
			h := make([]float64, m)
			for i := range h {
				h[i] = float64(i%13) - 6
			}
			x := make([]float64, m)
			scr := make([]float64, m/2)
			b.SetBytes(int64(8 * m))
			b.ReportAllocs()
			for b.Loop() {
				InverseInto(x, h, scr)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m), "ns/elem")
		})
	}
}

// BenchmarkWaveletNoiseAggregate measures Algorithm 2's WaveletNoise
// (forward, m normal draws, inverse); the normal draws dominate.
func BenchmarkWaveletNoiseAggregate(b *testing.B) {
	for _, m := range []int{1 << 10, 1 << 16, 1 << 20} {
		b.Run(fmt.Sprintf("m=2^%d", Levels(m)), func(b *testing.B) {
			w := make([]float64, m)
			out := make([]float64, m)
			scr := make([]float64, ScratchLen(m))
			r := rng.Stream(1, "bench")
			b.ReportAllocs()
			for b.Loop() {
				WaveletNoiseAggregateInto(out, r, w, 1, scr)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m), "ns/elem")
		})
	}
}
