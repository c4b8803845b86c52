package normec

import (
	"fmt"
	"math"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	alg "github.com/fedrepro/fedrepro/algorithms/normec"
)

// The per-client mechanism both methods release in a round a client
// transmits is "message of norm ≤ 1 (Norm_α) + N(0, σ²·I_d)", scaled by
// public constants (1/p, β): its noise multiplier is σ. What ε that buys
// depends on the threat model:
//
//   - amplified: the paper's — each round includes the client with
//     probability p and the adversary does not learn who was included
//     (Poisson subsampling with q = p; p = 1 is plain composition). We use
//     the RDP accountant (improved conversion), which is an upper bound and
//     stays reliable at the huge losses of the formula's σ (the PLD
//     accountant currently under-reports there).
//   - visible: the server of Algorithm 1 receives each client's message
//     separately, so it sees who transmitted; then there is no
//     amplification and ε is the exact value of the Binomial mixture of
//     composed Gaussian mechanisms (alg.EpsilonVisibleParticipation).
//
// Both use add/remove (zero-out) neighbouring: sensitivity 1.

// NoiseSigma returns the per-coordinate noise std of a noise setting:
// none → 0; formula → p·β·√(K·ln(1/δ))/ε (the paper's experiments, K =
// rounds); calibrated → the smallest σ for a true (ε, δ) under Poisson
// amplification with q = p (RDP); calibrated-visible → the smallest σ for
// a true (ε, δ) against a server that sees who transmitted.
func NoiseSigma(noise string, p, beta float64, rounds int, pr Privacy) (float64, error) {
	switch noise {
	case "none":
		return 0, nil
	case "formula":
		return alg.ExperimentSigma(p, beta, rounds, pr.Epsilon, pr.Delta), nil
	case "calibrated":
		return cached(sigmaCache, sigmaKey{noise, p, rounds, pr}, func() (float64, error) {
			return alg.CalibratedSigma(p, rounds, pr.Epsilon, pr.Delta, accountant.AddRemove, accountant.KindRDP)
		})
	case "calibrated-visible":
		return cached(sigmaCache, sigmaKey{noise, p, rounds, pr}, func() (float64, error) {
			return alg.CalibratedSigmaVisibleParticipation(p, rounds, pr.Epsilon, pr.Delta, accountant.AddRemove)
		})
	}
	return 0, fmt.Errorf("unknown noise %q (known: %v)", noise, knownNoises)
}

// Privacy spent by a run.
type Spent struct {
	// Sigma is the per-coordinate noise std (= noise multiplier).
	Sigma float64 `json:"sigma"`
	// Amplified is ε under the paper's threat model (RDP, Poisson q = p,
	// add/remove); +Inf without noise.
	Amplified float64 `json:"epsilon_amplified_rdp"`
	// Visible is the exact ε against a server that sees who transmitted;
	// +Inf without noise.
	Visible float64 `json:"epsilon_visible_exact"`
	// C is the constant c of the theory formula σ = c·p·√(K ln(1/δ))/ε
	// that this σ corresponds to (the formula's c is β).
	C float64 `json:"c"`
}

// SpentBy returns the ε a run with noise σ, participation p and rounds
// rounds really has at the spec's δ (cached; accountant errors give NaN).
func SpentBy(sigma, p float64, rounds int, pr Privacy) Spent {
	s := Spent{Sigma: sigma, Amplified: math.Inf(1), Visible: math.Inf(1)}
	if sigma == 0 {
		return s
	}
	s.C = alg.TheoryConstant(sigma, p, rounds, pr.Epsilon, pr.Delta)
	k := epsKey{sigma, p, rounds, pr.Delta}
	if v, err := cached(ampCache, k, func() (float64, error) {
		return alg.Epsilon(sigma, p, rounds, pr.Delta, accountant.AddRemove, accountant.KindRDP)
	}); err == nil {
		s.Amplified = v
	} else {
		s.Amplified = math.NaN()
	}
	if v, err := cached(visCache, k, func() (float64, error) {
		return alg.EpsilonVisibleParticipation(sigma, p, rounds, pr.Delta, accountant.AddRemove)
	}); err == nil {
		s.Visible = v
	} else {
		s.Visible = math.NaN()
	}
	return s
}

type sigmaKey struct {
	noise  string
	p      float64
	rounds int
	pr     Privacy
}

type epsKey struct {
	sigma, p float64
	rounds   int
	delta    float64
}

type memo[K comparable] struct {
	mu sync.Mutex
	m  map[K]memoEntry
}

type memoEntry struct {
	v   float64
	err error
}

var (
	sigmaCache = &memo[sigmaKey]{m: map[sigmaKey]memoEntry{}}
	ampCache   = &memo[epsKey]{m: map[epsKey]memoEntry{}}
	visCache   = &memo[epsKey]{m: map[epsKey]memoEntry{}}
)

// cached computes f once per key (the accountant calls are deterministic
// and take milliseconds; Plan and the report ask for the same values many
// times).
func cached[K comparable](c *memo[K], k K, f func() (float64, error)) (float64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		return e.v, e.err
	}
	v, err := f()
	c.m[k] = memoEntry{v, err}
	return v, err
}
