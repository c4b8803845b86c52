package claim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"gonum.org/v1/gonum/stat/distuv"
)

// The empirical lower bound: the distinguishing game of algorithms/audit
// played against the mechanism the reading describes, on its worst-case
// neighbouring pair, with the most powerful test — the sum over steps of
// the exact per-step log-likelihood ratio (Neyman–Pearson). For add/remove
// the record contributes +1 (in units of the clip norm) to every step
// that includes it on D′ and is absent on D; for replace-one it
// contributes +1 on D′ and −1 on D. Each trial runs the whole composed
// mechanism (a Gaussian phase without sampling is one draw: its summed
// log-likelihood ratio is itself Gaussian), so the bound is limited by
// the trial count, not by the mechanism: it can show a claim false, never
// confirm one.

const (
	empiricalBudget    = 2e6 // simulated draws per reading (both sides)
	empiricalMinTrials = 100
	empiricalMaxTrials = 20000
	empiricalMaxWork   = 2e8
	empiricalConf      = 0.95
)

// phaseSim simulates one phase and returns its summed log-likelihood
// ratio log p_{D′}/p_D; cost is its number of simulated draws.
type phaseSim struct {
	run  func(r *rand.Rand, neighbour bool) float64
	cost float64
}

// logMix returns log((1−γ)·e^a + γ·e^b) stably.
func logMix(gamma, a, b float64) float64 {
	if gamma >= 1 {
		return b
	}
	x, y := math.Log1p(-gamma)+a, math.Log(gamma)+b
	m := math.Max(x, y)
	return m + math.Log(math.Exp(x-m)+math.Exp(y-m))
}

// mixer is logMix at a fixed γ < 1 for the games' inner loops, which call
// it once or twice per simulated step (millions of times per reading):
// log(1−γ) and log γ are computed once, and of the two exponentials the
// one at the maximum, e^0 = 1, is not computed. Every operation left is
// the one logMix performs on the same operands, so the value has logMix's
// bits (TestMixerSameBitsAsLogMix); non-finite operands take logMix's own
// path.
type mixer struct{ gamma, l1, lg float64 }

func newMixer(gamma float64) mixer {
	return mixer{gamma: gamma, l1: math.Log1p(-gamma), lg: math.Log(gamma)}
}

// mix returns logMix(γ, a, b).
func (c mixer) mix(a, b float64) float64 {
	if c.gamma >= 1 {
		return b
	}
	x, y := c.l1+a, c.lg+b
	switch {
	case x >= y && !math.IsInf(x, 0):
		return x + math.Log(1+math.Exp(y-x))
	case y > x && !math.IsInf(y, 0):
		return y + math.Log(math.Exp(x-y)+1)
	}
	m := math.Max(x, y)
	return m + math.Log(math.Exp(x-m)+math.Exp(y-m))
}

func gaussianSim(z float64, steps int, gamma float64, visible bool, nb accountant.Neighbouring) phaseSim {
	T := float64(steps)
	// collapsed full-participation Gaussian over k steps: the summed LLR
	// is N(k(2s−1)/(2z²), k/z²) for add/remove (s = 1 on D′, 0 on D) and
	// N(±2k/z², 4k/z²) for replace-one.
	full := func(r *rand.Rand, neighbour bool, k float64) float64 {
		if k == 0 {
			return 0
		}
		g := r.NormFloat64()
		if nb == accountant.ReplaceOne {
			s := -1.0
			if neighbour {
				s = 1
			}
			return 2*k*s/(z*z) + 2*math.Sqrt(k)/z*g
		}
		s := 0.0
		if neighbour {
			s = 1
		}
		return k*(s-0.5)/(z*z) + math.Sqrt(k)/z*g
	}
	if gamma >= 1 {
		return phaseSim{cost: 1, run: func(r *rand.Rand, neighbour bool) float64 { return full(r, neighbour, T) }}
	}
	if visible {
		return phaseSim{cost: 1, run: func(r *rand.Rand, neighbour bool) float64 {
			k := distuv.Binomial{N: T, P: gamma, Src: r}.Rand()
			return full(r, neighbour, k)
		}}
	}
	iz2 := 1 / (2 * z * z)
	mx := newMixer(gamma)
	return phaseSim{cost: T, run: func(r *rand.Rand, neighbour bool) float64 {
		var sum float64
		for range steps {
			in := r.Float64() < gamma
			y := z * r.NormFloat64()
			if nb == accountant.ReplaceOne {
				if in {
					if neighbour {
						y++
					} else {
						y--
					}
				}
				// log[(1−γ)φ(y) + γφ(y−1)] − log[(1−γ)φ(y) + γφ(y+1)]
				a := -y * y * iz2
				sum += mx.mix(a, -(y-1)*(y-1)*iz2) - mx.mix(a, -(y+1)*(y+1)*iz2)
				continue
			}
			if in && neighbour {
				y++
			}
			sum += mx.mix(0, (2*y-1)*iz2)
		}
		return sum
	}}
}

func laplaceSim(b float64, steps int, gamma float64, nb accountant.Neighbouring) phaseSim {
	draw := func(r *rand.Rand) float64 {
		e := b * r.ExpFloat64()
		if r.IntN(2) == 0 {
			return -e
		}
		return e
	}
	mx := newMixer(gamma)
	return phaseSim{cost: float64(steps), run: func(r *rand.Rand, neighbour bool) float64 {
		var sum float64
		for range steps {
			in := gamma >= 1 || r.Float64() < gamma
			y := draw(r)
			if nb == accountant.ReplaceOne {
				if in {
					if neighbour {
						y++
					} else {
						y--
					}
				}
				a := -math.Abs(y) / b
				sum += mx.mix(a, -math.Abs(y-1)/b) - mx.mix(a, -math.Abs(y+1)/b)
				continue
			}
			if in && neighbour {
				y++
			}
			sum += mx.mix(0, (math.Abs(y)-math.Abs(y-1))/b)
		}
		return sum
	}}
}

// simulator returns the phases' simulators, or why the game does not
// apply.
func simulator(r resolved) ([]phaseSim, string) {
	var sims []phaseSim
	for _, p := range r.phases {
		gamma := p.q
		switch p.mech {
		case "gaussian":
			if !(p.z > 0) {
				return nil, "no noise"
			}
			sims = append(sims, gaussianSim(p.z, p.steps, gamma, p.visible, r.nb))
		case "tree-aggregation":
			// The tree release is a Gaussian mechanism of multiplier
			// 1/√(2ρ) (ρ: its zCDP under add/remove).
			rho, _, err := accountant.ZCDPOf(accountant.TreeAggregation{Sigma: p.z, Trees: p.trees, Participations: p.parts, MinSeparation: p.sep}, accountant.AddRemove)
			if err != nil || !(rho > 0) || math.IsInf(rho, 0) {
				return nil, "the tree's sensitivity is not available"
			}
			sims = append(sims, gaussianSim(1/math.Sqrt(2*rho), 1, 1, false, r.nb))
		case "laplace":
			if p.visible {
				return nil, "visible participation is simulated for Gaussian phases only"
			}
			if !(p.z > 0) {
				return nil, "no noise"
			}
			sims = append(sims, laplaceSim(p.z, p.steps, gamma, r.nb))
		case "discrete-gaussian":
			return nil, "no sampler for the discrete Gaussian"
		default:
			return nil, "a stated guarantee is not a mechanism to run"
		}
	}
	return sims, ""
}

// empirical plays the game for a reading.
func empirical(rs []resolved, n numerics, o Options, id string) *Empirical {
	if len(rs) > 1 {
		return &Empirical{Note: "n/a: average_over claims average many mechanisms; the game audits one"}
	}
	r := rs[0]
	sims, why := simulator(r)
	if why != "" {
		return &Empirical{Note: "n/a: " + why}
	}
	var cost float64
	for _, s := range sims {
		cost += s.cost
	}
	budget := empiricalBudget
	if o.Quick {
		budget /= 10
	}
	trials := int(math.Min(empiricalMaxTrials, math.Floor(budget/(2*cost))))
	switch {
	case n.trials > 0:
		trials = n.trials
		if 2*float64(trials)*cost > empiricalMaxWork {
			return &Empirical{Note: fmt.Sprintf("n/a: %d trials of %.3g simulated steps each exceed the work limit %.0g", trials, cost, empiricalMaxWork)}
		}
	case trials < empiricalMinTrials:
		noun := "trials"
		if trials == 1 {
			noun = "trial"
		}
		return &Empirical{Note: fmt.Sprintf("n/a: a trial simulates %.3g steps, so the work budget allows only %d %s per side, too few for a useful bound (set accounting.empirical_trials to insist)", cost, trials, noun)}
	}
	g := audit.Game{ID: id, Seed: o.Seed, Trials: trials, Delta: r.delta, Confidence: empiricalConf}
	res, err := g.Run(func(rd *rand.Rand, neighbour bool) float64 {
		var s float64
		for _, p := range sims {
			s += p.run(rd, neighbour)
		}
		return s
	})
	if err != nil {
		return &Empirical{Note: "n/a: " + err.Error()}
	}
	e := &Empirical{EpsilonLB: ptr(res.EpsilonLB), Confidence: res.Confidence, Trials: trials}
	if r.delta > 0 {
		e.EpsilonGDP = ptr(res.EpsilonGDP)
	}
	return e
}
