package normec

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/fl"
)

// The per-client mechanism of Algorithm 1: in every round it transmits,
// client i releases q·(Δ_i^k + z_i^k) with ‖Δ_i^k‖ ≤ 1 (Norm_α) and
// z ~ N(0, σ²·I_d). Δ_i^k depends on the public history (x^k) and on the
// client's data, so the rounds compose adaptively. Under add/remove
// neighbouring we read "client removed" as the client sending Δ = 0
// (zero-out, sensitivity 1); under replace-one Δ can flip sign
// (sensitivity 2, which the accountant applies). The noise multiplier is
// therefore σ itself (message bound C = 1), and q = 1/p rescales signal and
// noise alike.

// Accountants are the accountant kinds the package reports, in order.
var Accountants = []accountant.Kind{accountant.KindRDP, accountant.KindPLD}

// Participation is the accountant.Run of rounds rounds of the per-client
// mechanism when each round includes the client by fl.SampleBernoulli with
// probability p — the sampler Algorithm 1's Step and FedAvg's use — so it
// is described by fl.BernoulliCohort(p) (Poisson, or full at p = 1); the
// unit is a client, the relation nb, and visible says whether the
// adversary learns who transmitted (the paper's threat model: no; the
// server of Algorithm 1: yes).
func Participation(p float64, rounds int, nb accountant.Neighbouring, visible bool) accountant.Run {
	return accountant.Run{Unit: accountant.UnitUser, Sampling: fl.BernoulliCohort(p), Visible: visible, Neighbouring: nb, Releases: rounds}
}

// ClientEvent is the accountant event of rounds rounds of the per-client
// mechanism with per-coordinate noise std sigma when each round includes
// the client independently with probability p and the adversary does not
// learn who was included (amplification by Poisson subsampling, q = p —
// the paper's assumption). p = 1 gives plain composition. It is
// accountant.ValidEvent of Participation(p, rounds, add/remove, hidden);
// the event is the same under replace-one (the accountant doubles the
// sensitivity). Arguments no run can have (p outside [0, 1], σ < 0) are
// passed through unchanged so that the accountant names them.
func ClientEvent(sigma, p float64, rounds int) accountant.Event {
	e, err := accountant.ValidEvent(Participation(p, rounds, accountant.AddRemove, false), accountant.Gaussian{Sigma: sigma})
	if err == nil {
		return e
	}
	var m accountant.Event = accountant.Gaussian{Sigma: sigma}
	if p < 1 {
		m = accountant.PoissonSampled{Q: p, Event: m}
	}
	return accountant.SelfComposed{Event: m, Count: rounds}
}

// AccountantConfig is the accountant configuration used here: improved
// RDP conversion with the default (Opacus) orders, or the PLD accountant
// with default options, for relation nb. PLD's discretization interval
// Interval may be coarsened (pessimistic) for very large privacy losses.
func AccountantConfig(kind accountant.Kind, nb accountant.Neighbouring, interval float64) accountant.Config {
	return accountant.Config{Kind: kind, Neighbouring: nb, Conversion: accountant.Improved,
		PLD: accountant.PLDOptions{Interval: interval}}
}

// Epsilon returns the ε at δ that rounds rounds of the per-client
// mechanism with noise σ buy under Poisson sampling with q = p (the
// amplified, paper's threat model), for relation nb and accountant kind
// (PLD with its default 1e-4 discretization). An error wrapping ErrNoBound
// means the accountant has no bound for the combination (RDP,
// replace-one, p < 1).
func Epsilon(sigma, p float64, rounds int, delta float64, nb accountant.Neighbouring, kind accountant.Kind) (float64, error) {
	eps, _, err := EpsilonInterval(sigma, p, rounds, delta, nb, kind, 0)
	return eps, err
}

// EpsilonInterval is Epsilon with the PLD discretization interval to start
// from (0 = 1e-4). When the privacy losses are too large for the PLD grid
// it retries with a 10× coarser interval (still pessimistic), up to 1; it
// returns the interval used (0 for RDP); losses too large even for that
// grid give an error wrapping ErrNoBound. Callers that need certainty
// should check PLD values against ExactCompositionEpsilon (see the
// formula-epsilon audit).
func EpsilonInterval(sigma, p float64, rounds int, delta float64, nb accountant.Neighbouring, kind accountant.Kind, interval float64) (eps, used float64, err error) {
	if err := checkPrivacyArgs(p, rounds, 1, delta); err != nil {
		return 0, 0, err
	}
	e := ClientEvent(sigma, p, rounds)
	if kind == accountant.KindPLD && interval == 0 {
		interval = 1e-4
	}
	for {
		var r accountant.Estimate
		r, err = AccountantConfig(kind, nb, interval).AccountRun(Participation(p, rounds, nb, false), e, delta)
		eps = r.Value
		if err == nil || kind != accountant.KindPLD || !strings.Contains(err.Error(), "coarser discretization") || interval >= 1 {
			break
		}
		interval *= 10
	}
	if kind != accountant.KindPLD {
		interval = 0
	}
	if errors.Is(err, accountant.ErrUnsupported) || (err != nil && strings.Contains(err.Error(), "coarser discretization")) {
		return math.NaN(), interval, fmt.Errorf("%w: %v", ErrNoBound, err)
	}
	return eps, interval, err
}

// ExactCompositionEpsilon is the exact ε at δ of rounds rounds of the
// per-client mechanism without sampling (the client transmits every round):
// the rounds-fold Gaussian mechanism, i.e. μ-GDP with μ = √rounds/σ_eff
// (σ_eff = σ under add/remove zero-out, σ/2 under replace-one), from the
// accountant package's exact Gaussian curve.
func ExactCompositionEpsilon(sigma float64, rounds int, delta float64, nb accountant.Neighbouring) (float64, error) {
	s := sigma
	if nb == accountant.ReplaceOne {
		s /= 2
	}
	return accountant.GaussianEpsilon(s/math.Sqrt(float64(rounds)), delta)
}

// ErrNoBound reports an accountant/relation/sampling combination without
// an implemented bound.
var ErrNoBound = errors.New("normec: no privacy bound for this combination")

// EpsilonVisibleParticipation is the ε at δ when the adversary (the server
// of Algorithm 1, which receives each client's message separately) sees
// in which rounds the client transmitted. Participation is then public and
// data-independent, so there is no amplification: the privacy curve is the
// mixture over n ~ Binomial(rounds, p) of the n-fold composed Gaussian
// mechanism, δ(ε) = Σ_n P(n)·δ_G(σ_eff/√n, ε), with the exact Gaussian
// curve δ_G of accountant.GaussianDelta (σ_eff = σ under add/remove
// zero-out, σ/2 under replace-one). It is exact for the worst-case pair.
func EpsilonVisibleParticipation(sigma, p float64, rounds int, delta float64, nb accountant.Neighbouring) (float64, error) {
	if err := checkPrivacyArgs(p, rounds, 1, delta); err != nil {
		return 0, err
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return math.Inf(1), fmt.Errorf("normec: σ = %v: want a finite σ > 0", sigma)
	}
	s := sigma
	if nb == accountant.ReplaceOne {
		s /= 2
	}
	// Binomial weights in log space; negligible tails are dropped.
	logw := make([]float64, rounds+1)
	lp, lq := math.Log(p), math.Log1p(-p)
	for n := 0; n <= rounds; n++ {
		a, _ := math.Lgamma(float64(rounds + 1))
		b, _ := math.Lgamma(float64(n + 1))
		c, _ := math.Lgamma(float64(rounds - n + 1))
		logw[n] = a - b - c + float64(n)*lp
		if p < 1 {
			logw[n] += float64(rounds-n) * lq
		} else if n < rounds {
			logw[n] = math.Inf(-1)
		}
	}
	curve := func(eps float64) float64 {
		var d float64
		for n := 1; n <= rounds; n++ {
			if logw[n] < -80 {
				continue
			}
			dn, err := accountant.GaussianDelta(s/math.Sqrt(float64(n)), eps)
			if err != nil {
				return 1
			}
			d += math.Exp(logw[n]) * dn
		}
		return d
	}
	if curve(0) <= delta {
		return 0, nil
	}
	hi := 1.0
	for curve(hi) > delta {
		hi *= 2
		if hi > 1e15 {
			return math.Inf(1), fmt.Errorf("normec: no ε below 1e15 reaches δ = %v", delta)
		}
	}
	lo := 0.0
	for range 200 {
		if hi-lo <= 1e-12*hi {
			break
		}
		mid := (lo + hi) / 2
		if curve(mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// CalibratedSigma returns the smallest per-coordinate noise std σ for which
// rounds rounds of the per-client mechanism under Poisson sampling with
// q = p are (eps, delta)-DP for relation nb according to the accountant
// kind (accountant.Calibrate: the returned σ meets the target). It is the
// σ the paper's amplified threat model needs; p = 1 is plain composition.
func CalibratedSigma(p float64, rounds int, eps, delta float64, nb accountant.Neighbouring, kind accountant.Kind) (float64, error) {
	return CalibratedSigmaConfig(p, rounds, eps, delta, AccountantConfig(kind, nb, 0))
}

// CalibratedSigmaConfig is CalibratedSigma with a full accountant
// configuration (e.g. a coarser PLD interval).
func CalibratedSigmaConfig(p float64, rounds int, eps, delta float64, cfg accountant.Config) (float64, error) {
	if err := checkPrivacyArgs(p, rounds, eps, delta); err != nil {
		return 0, err
	}
	s, err := accountant.Calibrate(func(s float64) accountant.Event { return ClientEvent(s, p, rounds) }, eps, delta, cfg)
	if errors.Is(err, accountant.ErrUnsupported) {
		return math.NaN(), fmt.Errorf("%w: %v", ErrNoBound, err)
	}
	return s, err
}

// calibrate finds the smallest σ with epsOf(σ) ≤ target for a privacy
// curve that is not an accountant event (the visible-participation
// mixture): ε is decreasing in σ; bisection to relative precision 1e-9,
// returning a σ that meets the target.
func calibrate(epsOf func(float64) (float64, error), target float64) (float64, error) {
	lo, hi := 1e-3, 1.0
	for {
		e, err := epsOf(hi)
		if err != nil && !errors.Is(err, accountant.ErrInfinite) {
			return math.NaN(), err
		}
		if e <= target {
			break
		}
		lo, hi = hi, hi*2
		if hi > 1e6 {
			return math.NaN(), fmt.Errorf("normec: no σ below 1e6 reaches ε = %v", target)
		}
	}
	for range 100 {
		if hi-lo <= 1e-9*hi {
			break
		}
		mid := (lo + hi) / 2
		e, err := epsOf(mid)
		if err != nil && !errors.Is(err, accountant.ErrInfinite) {
			return math.NaN(), err
		}
		if e > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// CalibratedSigmaVisibleParticipation is the smallest σ for which the
// per-client mechanism is (eps, delta)-DP against an adversary that sees
// who transmitted (no amplification; EpsilonVisibleParticipation).
func CalibratedSigmaVisibleParticipation(p float64, rounds int, eps, delta float64, nb accountant.Neighbouring) (float64, error) {
	if err := checkPrivacyArgs(p, rounds, eps, delta); err != nil {
		return 0, err
	}
	return calibrate(func(s float64) (float64, error) { return EpsilonVisibleParticipation(s, p, rounds, delta, nb) }, eps)
}
