// Package upcycled implements Upcycled-FL (Yin et al., TMLR 2024): a
// wrapper around any federated algorithm in which odd iterations run the
// algorithm (clients train on their data and upload) and even iterations
// are computed on the server alone by extrapolating the last global update,
//
//	ω̄^{2m} = ω̄^{2m−1} + c·(ω̄^{2m−1} − ω̄^{2m−2}),
//
// plus the two privacy mechanisms of the paper (output and objective
// perturbation), each in a "paper" mode (as the text states) and an
// "upstream" mode (as the released code does).
//
// The even step is EvenStep(*fl.Server, …): it receives only the server
// state, which holds no reference to client data, so it cannot read any;
// the engine's counters show it (no data access, no upload, no SGD step).
package upcycled

import (
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/fl"
)

// CoefTheory maps (μ, λ_m) to the extrapolation coefficient of Eq. (6) and
// the proof of Lemma B.1: c = μ/(μ + λ_m).
func CoefTheory(mu, lambda float64) float64 { return mu / (mu + lambda) }

// CoefAlgorithm1 maps λ_m to the coefficient Algorithm 1 prints: c = λ_m/2.
// It disagrees with Eq. (6); the upstream code passes c directly
// (--upcycled_param), which is what the experiments here do.
func CoefAlgorithm1(lambda float64) float64 { return lambda / 2 }

// EvenStep performs the server-only iteration: Global += c·(Global − Prev),
// where Prev is the global model before the last training round, then lets
// the algorithm extrapolate server-side state (Scaffold's control variate)
// when it implements fl.StateExtrapolator. ext may be nil.
func EvenStep(s *fl.Server, ext fl.StateExtrapolator, c float64) {
	for i := range s.Global {
		s.Global[i] += c * (s.Global[i] - s.Prev[i])
	}
	if ext != nil {
		ext.ExtrapolateState(s, c)
	}
	s.Counters.ServerRounds++
}

// Schedule says how many iterations to run and whether even ones upcycle.
type Schedule struct {
	Iterations int     // total iterations T (baseline: all training rounds)
	Upcycled   bool    // odd iterations train, even ones extrapolate
	Coef       float64 // c ∈ [0, 1)
	// CoefAt, when set, overrides Coef per pair m = 1, 2, … (Cor. 5.8's
	// decreasing c_m = μ/(μ+λ_m)).
	CoefAt func(m int) float64
}

// Validate rejects schedules the paper does not define.
func (s Schedule) Validate() error {
	if s.Iterations < 1 {
		return fmt.Errorf("upcycled: %d iterations, want ≥ 1", s.Iterations)
	}
	if s.Upcycled && s.CoefAt == nil && (s.Coef < 0 || s.Coef >= 1 || math.IsNaN(s.Coef)) {
		return fmt.Errorf("upcycled: coefficient c = %g outside [0,1)", s.Coef)
	}
	return nil
}

// TrainingRounds returns how many iterations touch data: T for a baseline,
// ⌈T/2⌉ for Upcycled-FL.
func (s Schedule) TrainingRounds() int {
	if s.Upcycled {
		return (s.Iterations + 1) / 2
	}
	return s.Iterations
}

// Iteration describes one finished iteration for the per-iteration callback.
type Iteration struct {
	T        int  // 1-based iteration index
	Training bool // false on Upcycled even iterations
	Round    fl.RoundInfo
}

// Run drives engine e (built around alg) through the schedule, calling
// after (if not nil) after every iteration.
func Run(e *fl.Engine, alg fl.Algorithm, s Schedule, after func(Iteration)) error {
	if err := s.Validate(); err != nil {
		return err
	}
	ext, _ := alg.(fl.StateExtrapolator)
	for t := 1; t <= s.Iterations; t++ {
		it := Iteration{T: t}
		if !s.Upcycled || t%2 == 1 {
			it.Training = true
			it.Round = e.TrainRound()
		} else {
			c := s.Coef
			if s.CoefAt != nil {
				c = s.CoefAt(t / 2)
			}
			EvenStep(e.Server(), ext, c)
		}
		if after != nil {
			after(it)
		}
	}
	return nil
}
