package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"gonum.org/v1/gonum/diff/fd"
)

// propSeed seeds every gopter property of this package; TestingRun prints
// it on failure, and changing it here replays another sample.
const propSeed = 20240727

func properties(t *testing.T) *gopter.Properties {
	params := gopter.DefaultTestParametersWithSeed(propSeed)
	params.MinSuccessfulTests = 150
	if testing.Short() {
		params.MinSuccessfulTests = 20
	}
	return gopter.NewProperties(params)
}

// stream is the random stream a property draws its case from.
func stream(seed uint64, what string) *rand.Rand { return rng.New(seed, "model-test", what).Rand() }

func randomBatch(r *rand.Rand, n, d, classes int) Batch {
	b := Batch{X: make([]float64, n*d), Y: make([]int, n), N: n, D: d}
	for i := range b.X {
		b.X[i] = r.NormFloat64()
	}
	for i := range b.Y {
		b.Y[i] = r.IntN(classes)
	}
	return b
}

func randomParams(r *rand.Rand, n int, std float64) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = std * r.NormFloat64()
	}
	return p
}

// single returns example i of b as a batch of one.
func single(b Batch, i int) Batch {
	return Batch{X: b.Row(i), Y: b.Y[i : i+1], N: 1, D: b.D}
}

// fdGrad is the central finite-difference gradient of f at p.
func fdGrad(f func([]float64) float64, p []float64) []float64 {
	return fd.Gradient(nil, f, p, &fd.Settings{Formula: fd.Central, Step: 1e-5})
}

// close reports whether a and b agree to within atol + rtol·max(|a|,|b|)
// entrywise, and describes the worst entry otherwise.
func closeVec(a, b []float64, atol, rtol float64) (bool, string) {
	if len(a) != len(b) {
		return false, fmt.Sprintf("lengths %d and %d", len(a), len(b))
	}
	for i := range a {
		if d := math.Abs(a[i] - b[i]); !(d <= atol+rtol*math.Max(math.Abs(a[i]), math.Abs(b[i]))) {
			return false, fmt.Sprintf("entry %d: %.12g vs %.12g", i, a[i], b[i])
		}
	}
	return true, ""
}

func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
