package fedddpm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Layout places the mixture means.
type Layout int

const (
	// Ring puts K means evenly on a circle of radius Radius in the first two
	// coordinates (the usual 2-D mode-collapse benchmark); other
	// coordinates are zero.
	Ring Layout = iota
	// Grid puts the means on a ⌈√K⌉-column grid with spacing Radius in the
	// first two coordinates, centred at the origin.
	Grid
	// Random draws every mean coordinate from N(0, Radius²).
	Random
)

// String names the layout.
func (l Layout) String() string {
	switch l {
	case Ring:
		return "ring"
	case Grid:
		return "grid"
	case Random:
		return "random"
	}
	return fmt.Sprintf("layout(%d)", int(l))
}

// MixtureSpec describes the toy data of the FedDDPM reproduction: a mixture
// of isotropic Gaussians whose components play the role of the classes
// that the non-IID partitions split on.
type MixtureSpec struct {
	Components int
	Dim        int
	Layout     Layout
	Radius     float64 // ring radius, grid spacing, or std of random means
	Std        float64 // standard deviation of every component
	// Weights are the component weights (nil: uniform); they are
	// normalised to sum to one.
	Weights []float64
}

// DefaultMixture is the spec's toy data: 10 components on a ring of radius
// 2 in 2-D with standard deviation 0.15 (neighbouring means 1.24 apart, about
// 8σ, so modes are distinct and a radius of 3σ assigns samples without
// ambiguity), equal weights. Data of this scale suit the DDPM schedule,
// whose prior N(0, I) has unit scale.
func DefaultMixture() MixtureSpec {
	return MixtureSpec{Components: 10, Dim: 2, Layout: Ring, Radius: 2, Std: 0.15}
}

// Mixture builds the mixture; r is used only by the Random layout.
func (s MixtureSpec) Mixture(r *rand.Rand) (*diffusion.GaussianMixture, error) {
	K, d := s.Components, s.Dim
	if K < 1 {
		return nil, fmt.Errorf("fedddpm: mixture needs ≥ 1 component, got %d", K)
	}
	if d < 1 || (s.Layout != Random && d < 2) {
		return nil, fmt.Errorf("fedddpm: %v layout needs dimension ≥ 2 (random ≥ 1), got %d", s.Layout, d)
	}
	if !(s.Std > 0) || !(s.Radius > 0) {
		return nil, fmt.Errorf("fedddpm: mixture needs positive radius and std, got %g and %g", s.Radius, s.Std)
	}
	g := &diffusion.GaussianMixture{Means: make([][]float64, K), Stds: make([]float64, K), Weights: make([]float64, K)}
	cols := int(math.Ceil(math.Sqrt(float64(K))))
	rows := (K + cols - 1) / cols
	for k := 0; k < K; k++ {
		mu := make([]float64, d)
		switch s.Layout {
		case Ring:
			a := 2 * math.Pi * float64(k) / float64(K)
			mu[0], mu[1] = s.Radius*math.Cos(a), s.Radius*math.Sin(a)
		case Grid:
			mu[0] = s.Radius * (float64(k%cols) - float64(cols-1)/2)
			mu[1] = s.Radius * (float64(k/cols) - float64(rows-1)/2)
		case Random:
			if r == nil {
				return nil, fmt.Errorf("fedddpm: random layout needs a stream")
			}
			rng.FillNormal(r, mu, s.Radius)
		default:
			return nil, fmt.Errorf("fedddpm: unknown layout %v", s.Layout)
		}
		g.Means[k] = mu
		g.Stds[k] = s.Std
	}
	if s.Weights == nil {
		for k := range g.Weights {
			g.Weights[k] = 1 / float64(K)
		}
	} else {
		if len(s.Weights) != K {
			return nil, fmt.Errorf("fedddpm: %d weights for %d components", len(s.Weights), K)
		}
		var sum float64
		for _, w := range s.Weights {
			if !(w >= 0) {
				return nil, fmt.Errorf("fedddpm: negative mixture weight %g", w)
			}
			sum += w
		}
		if !(sum > 0) {
			return nil, fmt.Errorf("fedddpm: mixture weights sum to %g", sum)
		}
		for k, w := range s.Weights {
			g.Weights[k] = w / sum
		}
	}
	return g, g.Validate()
}

// Apportion splits total into integer parts proportional to weights by the
// largest-remainder (Hamilton) method: part i is ⌊total·w_i/Σw⌋ or one more,
// the extra units going to the largest fractional parts (ties to the lower
// index). The parts sum to total.
func Apportion(total int, weights []float64) []int {
	out := make([]int, len(weights))
	var sum float64
	for _, w := range weights {
		sum += w
	}
	if total <= 0 || !(sum > 0) {
		return out
	}
	rem := make([]float64, len(weights))
	given := 0
	for i, w := range weights {
		q := float64(total) * w / sum
		out[i] = int(math.Floor(q))
		rem[i] = q - float64(out[i])
		given += out[i]
	}
	for ; given < total; given++ {
		best := -1
		for i, v := range rem {
			if best < 0 || v > rem[best] {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
	}
	return out
}

// Generate draws a labelled dataset of m points from g: component k
// contributes exactly Apportion(m, weights)[k] points (stratified, so class
// sizes do not fluctuate between seeds), labelled k; rows are then shuffled.
// All draws come from r.
func Generate(g *diffusion.GaussianMixture, m int, r *rand.Rand) (*data.Dataset, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if m < 0 {
		return nil, fmt.Errorf("fedddpm: negative dataset size %d", m)
	}
	d, K := g.Dim(), len(g.Means)
	counts := Apportion(m, g.Weights)
	x := make([]float64, m*d)
	y := make([]int, m)
	i := 0
	for k, c := range counts {
		for j := 0; j < c; j++ {
			for a := 0; a < d; a++ {
				x[i*d+a] = g.Means[k][a] + g.Stds[k]*r.NormFloat64()
			}
			y[i] = k
			i++
		}
	}
	perm := make([]int, m)
	rng.Perm(r, perm)
	ds := &data.Dataset{X: make([]float64, m*d), Y: make([]int, m), N: m, D: d, Classes: K}
	for to, from := range perm {
		copy(ds.X[to*d:(to+1)*d], x[from*d:(from+1)*d])
		ds.Y[to] = y[from]
	}
	return ds, nil
}
