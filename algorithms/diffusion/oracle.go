package diffusion

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GaussianMixture is a mixture of isotropic Gaussians N(Means[k], Stds[k]²·I)
// with weights Weights (summing to one). Its exact ε-predictor (Optimal) is
// the Bayes-optimal denoiser a perfectly trained model would learn, so
// sampling with it tests the sampler independently of any training, and
// it stands in for a "perfect local model" in auxiliary-data experiments.
type GaussianMixture struct {
	Means   [][]float64
	Stds    []float64
	Weights []float64
}

// Validate reports the first inconsistency: no components, ragged means,
// non-positive standard deviations, or weights that are negative or do not
// sum to one (within 1e-9).
func (g *GaussianMixture) Validate() error {
	k := len(g.Means)
	if k == 0 || len(g.Stds) != k || len(g.Weights) != k {
		return fmt.Errorf("diffusion: mixture needs matching means, stds and weights (got %d, %d, %d)", k, len(g.Stds), len(g.Weights))
	}
	d := len(g.Means[0])
	if d == 0 {
		return fmt.Errorf("diffusion: mixture means are empty")
	}
	var sum float64
	for c := range g.Means {
		if len(g.Means[c]) != d {
			return fmt.Errorf("diffusion: mixture mean %d has %d coordinates, want %d", c, len(g.Means[c]), d)
		}
		if !(g.Stds[c] > 0) {
			return fmt.Errorf("diffusion: mixture std %d is %g", c, g.Stds[c])
		}
		if !(g.Weights[c] >= 0) {
			return fmt.Errorf("diffusion: mixture weight %d is %g", c, g.Weights[c])
		}
		sum += g.Weights[c]
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("diffusion: mixture weights sum to %g", sum)
	}
	return nil
}

// Dim is the data dimension.
func (g *GaussianMixture) Dim() int { return len(g.Means[0]) }

// Sample writes n draws (row-major n × d) into x and their components into
// labels (either may be grown); each row first draws its component from r
// by inverse CDF, then its d coordinates.
func (g *GaussianMixture) Sample(r *rand.Rand, n int, x []float64, labels []int) ([]float64, []int) {
	d := g.Dim()
	if cap(x) < n*d {
		x = make([]float64, n*d)
	}
	if cap(labels) < n {
		labels = make([]int, n)
	}
	x, labels = x[:n*d], labels[:n]
	for i := 0; i < n; i++ {
		u := r.Float64()
		k := len(g.Weights) - 1
		var acc float64
		for c, w := range g.Weights {
			acc += w
			if u < acc {
				k = c
				break
			}
		}
		labels[i] = k
		for j := 0; j < d; j++ {
			x[i*d+j] = g.Means[k][j] + g.Stds[k]*r.NormFloat64()
		}
	}
	return x, labels
}

// Optimal returns the exact minimiser of the ε-prediction loss for this
// data distribution under schedule s: ε*(x_t, t) = E[ε | x_t]
// = Σ_k w_k(x_t)·√(1−ᾱ_t)(x_t − √ᾱ_t μ_k)/v_k with v_k = ᾱ_t s_k² + 1 − ᾱ_t
// and posterior weights w_k ∝ π_k N(x_t; √ᾱ_t μ_k, v_k I). For a single
// component it is linear in x_t. The predictor caches per-step constants,
// so one value must not be used by several goroutines at once.
func (g *GaussianMixture) Optimal(s *Schedule) Predictor {
	if err := g.Validate(); err != nil {
		panic(err)
	}
	K := len(g.Means)
	return &mixtureOracle{g: g, s: s, logw: make([]float64, K), c0: make([]float64, K), invV: make([]float64, K)}
}

type mixtureOracle struct {
	g          *GaussianMixture
	s          *Schedule
	logw       []float64
	c0, invV   []float64 // per-step constants: log π_k − (d/2) log v_k and 1/v_k
	lastT      int
	sab, s1m   float64
	haveConsts bool
}

// Dim implements Predictor.
func (o *mixtureOracle) Dim() int { return o.g.Dim() }

// prepare caches the per-step constants of step t.
func (o *mixtureOracle) prepare(t int) {
	if o.haveConsts && o.lastT == t {
		return
	}
	g := o.g
	ab := o.s.alphaBar[t]
	o.sab, o.s1m = math.Sqrt(ab), math.Sqrt(1-ab)
	d := float64(g.Dim())
	for k := range g.Means {
		v := ab*g.Stds[k]*g.Stds[k] + 1 - ab
		o.invV[k] = 1 / v
		o.c0[k] = math.Inf(-1)
		if g.Weights[k] > 0 {
			o.c0[k] = math.Log(g.Weights[k]) - 0.5*d*math.Log(v)
		}
	}
	o.lastT, o.haveConsts = t, true
}

// PredictEps implements Predictor: the posterior-weighted optimal ε.
func (o *mixtureOracle) PredictEps(x []float64, rows, t int, out []float64) {
	g := o.g
	d := g.Dim()
	o.prepare(t)
	sab, s1m := o.sab, o.s1m
	K := len(g.Means)
	for i := 0; i < rows; i++ {
		xi := x[i*d : (i+1)*d]
		oi := out[i*d : (i+1)*d]
		if K == 1 {
			c := s1m * o.invV[0]
			for j := range oi {
				oi[j] = c * (xi[j] - sab*g.Means[0][j])
			}
			continue
		}
		mx := math.Inf(-1)
		for k := 0; k < K; k++ {
			var q float64
			for j, m := range g.Means[k] {
				r := xi[j] - sab*m
				q += r * r
			}
			lw := o.c0[k] - 0.5*q*o.invV[k]
			o.logw[k] = lw
			mx = max(mx, lw)
		}
		var z float64
		for k := range o.logw {
			o.logw[k] = math.Exp(o.logw[k] - mx)
			z += o.logw[k]
		}
		clear(oi)
		for k := 0; k < K; k++ {
			w := o.logw[k] / z
			if w == 0 {
				continue
			}
			c := w * s1m * o.invV[k]
			for j, m := range g.Means[k] {
				oi[j] += c * (xi[j] - sab*m)
			}
		}
	}
}
