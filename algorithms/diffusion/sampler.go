package diffusion

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Variance selects σ_t² of the ancestral sampler.
type Variance int

const (
	// VarBeta uses σ_t² = β_t (DDPM's default; exact when x_0 ~ N(0, I)).
	VarBeta Variance = iota
	// VarPosterior uses σ_t² = β̃_t, the posterior variance of
	// q(x_{t−1} | x_t, x_0) (exact when x_0 is a point mass).
	VarPosterior
)

// String names the variance choice.
func (v Variance) String() string {
	switch v {
	case VarBeta:
		return "beta"
	case VarPosterior:
		return "posterior"
	}
	return fmt.Sprintf("variance(%d)", int(v))
}

// DefaultChunk is the number of rows the sampler denoises at once.
const DefaultChunk = 256

// Sampler runs DDPM's ancestral sampler (Ho et al. 2020, Algorithm 2):
// x_T ~ N(0, I); for t = T..1, z ~ N(0, I) if t > 1 else 0,
// x_{t−1} = (x_t − β_t/√(1−ᾱ_t)·ε̂(x_t, t))/√α_t + σ_t·z.
// Rows are processed in chunks of Chunk; for each chunk the stream first
// gives x_T (row-major) and then, step by step, the chunk's z, so the
// output depends only on (stream, n, Chunk). A Sampler reuses its buffers
// and is not safe for concurrent use.
type Sampler struct {
	Sched    *Schedule
	Variance Variance
	// Chunk is the number of rows denoised together (DefaultChunk when ≤ 0).
	Chunk int

	epsHat []float64
}

// NewSampler returns a sampler for schedule s with variance choice v.
func NewSampler(s *Schedule, v Variance) *Sampler {
	return &Sampler{Sched: s, Variance: v, Chunk: DefaultChunk}
}

// Sample draws n samples from the reverse process driven by pred and
// writes them, row-major n × d, into dst (grown if too short); it returns
// dst[:n·d].
func (s *Sampler) Sample(pred Predictor, n int, r *rand.Rand, dst []float64) []float64 {
	d := pred.Dim()
	if cap(dst) < n*d {
		dst = make([]float64, n*d)
	}
	dst = dst[:n*d]
	chunk := s.Chunk
	if chunk <= 0 {
		chunk = DefaultChunk
	}
	if len(s.epsHat) < min(chunk, n)*d {
		s.epsHat = make([]float64, min(chunk, n)*d)
	}
	T := s.Sched.Steps()
	for lo := 0; lo < n; lo += chunk {
		rows := min(chunk, n-lo)
		x := dst[lo*d : (lo+rows)*d]
		eh := s.epsHat[:rows*d]
		rng.FillNormal(r, x, 1)
		for t := T; t >= 1; t-- {
			pred.PredictEps(x, rows, t, eh)
			s.step(x, eh, t, r)
		}
	}
	return dst
}

// step applies one reverse update in place.
func (s *Sampler) step(x, epsHat []float64, t int, r *rand.Rand) {
	sc := s.Sched
	inv := 1 / math.Sqrt(sc.alpha[t])
	c := sc.beta[t] / sc.sqrt1mAB[t]
	var sigma float64
	if t > 1 {
		switch s.Variance {
		case VarBeta:
			sigma = math.Sqrt(sc.beta[t])
		case VarPosterior:
			sigma = math.Sqrt(sc.postVar[t])
		default:
			panic(fmt.Sprintf("diffusion: unknown sampler variance %v", s.Variance))
		}
	}
	if sigma == 0 {
		for i := range x {
			x[i] = inv * (x[i] - c*epsHat[i])
		}
		return
	}
	for i := range x {
		x[i] = inv*(x[i]-c*epsHat[i]) + sigma*r.NormFloat64()
	}
}
