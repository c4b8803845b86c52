package fl

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Sampling selects how clients are picked each training round.
type Sampling int

const (
	// Uniform picks exactly K = max(⌊frac·N⌋, 1) distinct clients uniformly
	// at random (the upstream Upcycled-FL code's np.random.choice).
	Uniform Sampling = iota
	// Bernoulli includes every client independently with probability p
	// (Fed-α-NormEC's partial participation; Poisson sampling in DP terms).
	// A round may select nobody.
	Bernoulli
)

func (s Sampling) String() string {
	switch s {
	case Uniform:
		return "uniform"
	case Bernoulli:
		return "bernoulli"
	}
	return fmt.Sprintf("sampling(%d)", int(s))
}

// ClientsPerRound returns K = max(⌊frac·N⌋, 1), the upstream rule. A tiny
// epsilon guards against frac·N landing just below an integer (0.3·30).
func ClientsPerRound(frac float64, n int) int {
	k := int(math.Floor(frac*float64(n) + 1e-9))
	return max(k, 1)
}

// SampleUniform writes K distinct client indices drawn uniformly from
// 0..n-1 into dst (reusing its storage) and returns it.
func SampleUniform(r *rand.Rand, n, k int, dst, scratch []int) []int {
	return rng.SampleWithoutReplacement(r, n, k, dst, scratch)
}

// SampleBernoulli writes, in increasing order, the clients that an
// independent Bernoulli(p) coin includes.
func SampleBernoulli(r *rand.Rand, n int, p float64, dst []int) []int {
	dst = dst[:0]
	for i := 0; i < n; i++ {
		if r.Float64() < p {
			dst = append(dst, i)
		}
	}
	return dst
}

// StragglerEpochs returns the number of local epochs a selected client runs:
// with probability rate it is a straggler and runs a uniform number in
// 1..epochs−1 (the upstream code draws int(U·E), redrawn while 0); else the
// full epochs. With epochs ≤ 1 nobody can straggle.
func StragglerEpochs(r *rand.Rand, epochs int, rate float64) int {
	if rate <= 0 || epochs <= 1 {
		return epochs
	}
	if r.Float64() >= rate {
		return epochs
	}
	return 1 + r.IntN(epochs-1)
}
