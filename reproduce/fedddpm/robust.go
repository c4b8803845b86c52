package fedddpm

import (
	"fmt"
	"math"
	"slices"
)

// Robust is the robust summary of a cell's scores over its seeds: the
// median and the full range.
//
// Why these: a cell has 3 seeds at the default scale, and one diverging
// seed can move the mean far (FedAvg, Fashion-MNIST Shard 15% with
// persisted optimizer state: 79.06 ± 90.08 at the default scale). The median ignores one outlying seed in three; a trimmed
// mean that drops the best and the worst seed is the same number at
// n = 3, so the median is reported. Quartiles of three values would only
// interpolate between seeds, so the spread shown is the range [min, max]
// of the seeds instead of an IQR.
type Robust struct {
	Median, Min, Max float64
	N                int
}

// robustOf summarises xs (NaN fields when empty; a non-finite seed sorts
// as the largest value, so it moves the range, not silently the median).
func robustOf(xs []float64) Robust {
	if len(xs) == 0 {
		return Robust{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	s := slices.Clone(xs)
	for i, v := range s {
		if math.IsNaN(v) {
			s[i] = math.Inf(1)
		}
	}
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Robust{Median: med, Min: s[0], Max: s[n-1], N: n}
}

// String is "median [min–max]" with pm's digits.
func (r Robust) String() string {
	if r.N == 0 {
		return "—"
	}
	d := digitsFor(r.Median)
	return fmt.Sprintf("%.*f [%.*f–%.*f]", d, r.Median, d, r.Min, d, r.Max)
}

// apart reports whether every seed of a scores below every seed of b:
// the two seed ranges do not overlap.
func apart(a, b Robust) bool { return a.N > 0 && b.N > 0 && a.Max < b.Min }
