package fl

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
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

// sample writes the clients of one round of n into dst: the sampler
// Engine.Select runs. Cohort describes exactly this branch, so the two
// live side by side and cannot drift apart.
func (c Config) sample(r *rand.Rand, n int, dst, scratch []int) []int {
	if c.Sampling == Bernoulli {
		return SampleBernoulli(r, n, c.P, dst)
	}
	return SampleUniform(r, n, ClientsPerRound(c.Frac, n), dst, scratch)
}

// Cohort is how sample picks clients out of n, in the accountants' terms
// (recorded in Server.Cohort for user-level DP algorithms such as
// dpfl.DPFedAvg): Bernoulli(P) is Poisson sampling with q = P, full
// at P = 1 (BernoulliCohort); Uniform is a fixed K = ClientsPerRound(Frac, n) of n
// (UniformCohort), which is not Poisson and amplifies only under
// replace-one neighbouring.
func (c Config) Cohort(n int) accountant.Sampling {
	if c.Sampling == Bernoulli {
		return BernoulliCohort(c.P)
	}
	return UniformCohort(ClientsPerRound(c.Frac, n), n)
}

// BernoulliCohort describes SampleBernoulli with probability p: Poisson
// sampling with q = p, or full participation when p ≥ 1 (every coin
// includes its client).
func BernoulliCohort(p float64) accountant.Sampling {
	if p >= 1 {
		return accountant.Sampling{Kind: accountant.SampleFull}
	}
	return accountant.Sampling{Kind: accountant.SamplePoisson, Q: p}
}

// UniformCohort describes SampleUniform of k out of n: a fixed-size
// uniform sample without replacement, or full participation when k ≥ n.
func UniformCohort(k, n int) accountant.Sampling {
	if k >= n {
		return accountant.Sampling{Kind: accountant.SampleFull}
	}
	return accountant.Sampling{Kind: accountant.SampleFixed, Size: k, Population: n}
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
