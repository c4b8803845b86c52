package diffusion

import (
	"fmt"
	"math"
)

// Schedule holds the forward-process variances β_1..β_T and the derived
// α_t = 1 − β_t and ᾱ_t = ∏_{s≤t} α_s. Index t runs over 1..T; index 0 holds
// β_0 = 0 and ᾱ_0 = 1 (clean data). A Schedule is immutable after
// construction and safe for concurrent use.
type Schedule struct {
	beta, alpha, alphaBar []float64 // length T+1
	sqrtAB, sqrt1mAB      []float64 // √ᾱ_t, √(1−ᾱ_t)
	postVar               []float64 // β̃_t
}

// DDPM's linear schedule endpoints for T = 1000 steps (Ho et al. 2020).
const (
	DDPMBeta1 = 1e-4
	DDPMBetaT = 0.02
)

// Linear returns the schedule with β_t rising linearly from beta1 (t = 1) to
// betaT (t = T). It fails unless 0 < beta1, betaT < 1 and T ≥ 1.
func Linear(T int, beta1, betaT float64) (*Schedule, error) {
	if T < 1 {
		return nil, fmt.Errorf("diffusion: schedule needs T ≥ 1 steps, got %d", T)
	}
	if !(beta1 > 0 && beta1 < 1 && betaT > 0 && betaT < 1) {
		return nil, fmt.Errorf("diffusion: β endpoints must lie in (0,1), got %g and %g", beta1, betaT)
	}
	beta := make([]float64, T+1)
	for t := 1; t <= T; t++ {
		if T == 1 {
			beta[t] = beta1
			continue
		}
		beta[t] = beta1 + (betaT-beta1)*float64(t-1)/float64(T-1)
	}
	return FromBetas(beta[1:])
}

// ScaledLinear returns DDPM's linear schedule rescaled to T steps: both
// endpoints 10⁻⁴ and 0.02 are multiplied by 1000/T, which keeps the total
// noise Σβ_t (and so ᾱ_T ≈ exp(−Σβ_t)) roughly constant. At T = 1000 it is
// DDPM's schedule (ᾱ_T ≈ 4.0·10⁻⁵); at T = 100 it runs from 10⁻³ to 0.2
// (ᾱ_T ≈ 2.0·10⁻⁵), where the unscaled endpoints would leave ᾱ_T ≈ 0.36
// and the sampler would start far from the forward process's end state.
// It fails for T < 21, where β_T would reach 1.
func ScaledLinear(T int) (*Schedule, error) {
	if T < 1 {
		return nil, fmt.Errorf("diffusion: schedule needs T ≥ 1 steps, got %d", T)
	}
	s := 1000 / float64(T)
	return Linear(T, DDPMBeta1*s, DDPMBetaT*s)
}

// FromBetas builds a schedule from β_1..β_T (copied); each must lie in (0,1).
func FromBetas(betas []float64) (*Schedule, error) {
	T := len(betas)
	if T < 1 {
		return nil, fmt.Errorf("diffusion: empty β schedule")
	}
	s := &Schedule{
		beta: make([]float64, T+1), alpha: make([]float64, T+1), alphaBar: make([]float64, T+1),
		sqrtAB: make([]float64, T+1), sqrt1mAB: make([]float64, T+1), postVar: make([]float64, T+1),
	}
	s.alpha[0], s.alphaBar[0], s.sqrtAB[0] = 1, 1, 1
	for t := 1; t <= T; t++ {
		b := betas[t-1]
		if !(b > 0 && b < 1) {
			return nil, fmt.Errorf("diffusion: β_%d = %g outside (0,1)", t, b)
		}
		s.beta[t] = b
		s.alpha[t] = 1 - b
		s.alphaBar[t] = s.alphaBar[t-1] * s.alpha[t]
		s.sqrtAB[t] = math.Sqrt(s.alphaBar[t])
		s.sqrt1mAB[t] = math.Sqrt(1 - s.alphaBar[t])
		s.postVar[t] = b * (1 - s.alphaBar[t-1]) / (1 - s.alphaBar[t])
	}
	return s, nil
}

// Steps returns T, the number of diffusion steps.
func (s *Schedule) Steps() int { return len(s.beta) - 1 }

// Beta returns β_t (0 at t = 0).
func (s *Schedule) Beta(t int) float64 { return s.beta[t] }

// Alpha returns α_t = 1 − β_t.
func (s *Schedule) Alpha(t int) float64 { return s.alpha[t] }

// AlphaBar returns ᾱ_t = ∏_{s=1}^t α_s (1 at t = 0).
func (s *Schedule) AlphaBar(t int) float64 { return s.alphaBar[t] }

// AlphaBarT returns ᾱ_T, the signal fraction left at the last step; the
// sampler starts from N(0, I), which is exact only when ᾱ_T ≈ 0, so
// reports print it next to every schedule.
func (s *Schedule) AlphaBarT() float64 { return s.alphaBar[len(s.alphaBar)-1] }

// PosteriorVariance returns β̃_t = β_t(1 − ᾱ_{t−1})/(1 − ᾱ_t), the variance
// of q(x_{t−1} | x_t, x_0); it is 0 at t = 1.
func (s *Schedule) PosteriorVariance(t int) float64 { return s.postVar[t] }

// Noise writes the closed-form forward sample of Eq. (3),
// x_t = √ᾱ_t·x_0 + √(1−ᾱ_t)·ε, into dst (which may alias x0 or eps).
func (s *Schedule) Noise(dst, x0, eps []float64, t int) {
	a, b := s.sqrtAB[t], s.sqrt1mAB[t]
	for i := range dst {
		dst[i] = a*x0[i] + b*eps[i]
	}
}

// ForwardStep writes one step of the Markov chain of Eq. (2),
// x_t = √(1−β_t)·x_{t−1} + √β_t·z with z ~ N(0, I) given in z, into dst
// (which may alias xPrev or z).
func (s *Schedule) ForwardStep(dst, xPrev, z []float64, t int) {
	a, b := math.Sqrt(s.alpha[t]), math.Sqrt(s.beta[t])
	for i := range dst {
		dst[i] = a*xPrev[i] + b*z[i]
	}
}
