package fl

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

func TestClientsPerRound(t *testing.T) {
	cases := []struct {
		frac float64
		n, k int
	}{
		{0.3, 30, 9}, {0.3, 50, 15}, {0.3, 52, 15}, {1, 30, 30}, {0.01, 30, 1}, {0.1, 30, 3},
	}
	for _, c := range cases {
		if got := ClientsPerRound(c.frac, c.n); got != c.k {
			t.Errorf("ClientsPerRound(%g, %d) = %d, want %d", c.frac, c.n, got, c.k)
		}
	}
}

func TestStragglerEpochsDistribution(t *testing.T) {
	r := rng.Stream(1, "straggler")
	const trials, epochs, rate = 90000, 10, 0.9
	counts := make([]int, epochs+1)
	for i := 0; i < trials; i++ {
		counts[StragglerEpochs(r, epochs, rate)]++
	}
	if counts[0] != 0 {
		t.Fatal("a straggler ran 0 epochs")
	}
	full := float64(counts[epochs]) / trials
	if !(math.Abs(full-(1-rate)) <= 0.01) {
		t.Errorf("full-epoch share %.3f, want %.2f", full, 1-rate)
	}
	for e := 1; e < epochs; e++ {
		share := float64(counts[e]) / trials
		if !(math.Abs(share-rate/float64(epochs-1)) <= 0.01) {
			t.Errorf("share of %d epochs %.3f, want %.3f", e, share, rate/float64(epochs-1))
		}
	}
	if StragglerEpochs(r, 1, 1) != 1 {
		t.Error("E=1 must not straggle")
	}
}

func TestSampleBernoulliRate(t *testing.T) {
	r := rng.Stream(2, "bern")
	var total int
	var dst []int
	for i := 0; i < 2000; i++ {
		dst = SampleBernoulli(r, 20, 0.25, dst)
		for j := 1; j < len(dst); j++ {
			if dst[j] <= dst[j-1] {
				t.Fatal("not increasing")
			}
		}
		total += len(dst)
	}
	if mean := float64(total) / 2000; !(math.Abs(mean-5) <= 0.2) {
		t.Errorf("mean participants %.3f, want 5", mean)
	}
}

// TestCohortDescribesSample checks that Config.Cohort describes what
// Config.sample (Engine.Select) does: a fixed cohort has exactly Size of
// Population clients every round; a Bernoulli cohort's size averages
// Q·n (within 5 standard errors over 2000 rounds); K = N is full.
func TestCohortDescribesSample(t *testing.T) {
	const n, rounds = 40, 2000
	for _, c := range []Config{
		{Sampling: Uniform, Frac: 0.25},
		{Sampling: Uniform, Frac: 1},
		{Sampling: Bernoulli, P: 0.3},
		{Sampling: Bernoulli, P: 1},
	} {
		desc := c.Cohort(n)
		r := rng.Stream(9, "cohort")
		var dst []int
		scratch := make([]int, n)
		var sum float64
		for k := 0; k < rounds; k++ {
			dst = c.sample(r, n, dst, scratch)
			sum += float64(len(dst))
			switch desc.Kind {
			case accountant.SampleFixed:
				if len(dst) != desc.Size || desc.Population != n {
					t.Fatalf("%+v: described as %v, sampled %d of %d", c, desc, len(dst), n)
				}
			case accountant.SampleFull:
				if len(dst) != n {
					t.Fatalf("%+v: described as full, sampled %d of %d", c, len(dst), n)
				}
			}
		}
		if desc.Kind == accountant.SamplePoisson {
			mean, se := sum/rounds, math.Sqrt(n*desc.Q*(1-desc.Q)/rounds)
			if math.Abs(mean-n*desc.Q) > 5*se+1e-12 {
				t.Errorf("%+v: described as %v, mean cohort %g, want %g ± %g", c, desc, mean, n*desc.Q, 5*se)
			}
		}
		if (c.Sampling == Bernoulli && c.P < 1) != (desc.Kind == accountant.SamplePoisson) {
			t.Errorf("%+v: described as %v", c, desc)
		}
	}
}
