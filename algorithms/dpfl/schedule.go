package dpfl

import (
	"errors"
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// Schedule gives the nominal noise multiplier σ and the clipping bound C of
// each training round (0-based).
type Schedule interface {
	At(round int) (sigma, clip float64)
}

// Constant is the vanilla schedule: the same (σ, C) every round.
type Constant struct{ Sigma, C float64 }

// At returns (Sigma, C).
func (s Constant) At(int) (float64, float64) { return s.Sigma, s.C }

// Decay is the dynamic baselines' schedule (Dyn-DP-SGD, Dyn-DP-FedAvg):
//
//	σ_t = Sigma0 · RhoSigma^(−t/Rounds),   C_t = C0 · RhoC^(−t/Rounds)
//
// ASSUMPTION. The paper cites Du et al. (arXiv:2111.00173, "Dynamic
// differential-privacy preserving SGD") for both dynamic baselines and
// defines neither. This is our reading of that reference's idea — the noise
// multiplier and the clipping bound both decay geometrically over training,
// and the starting multiplier is raised so that the whole run spends the
// same privacy as vanilla DP at σ (MatchDecay) — not a transcription of its
// schedule; Dyn-DP-FedAvg (which the paper describes as adapting "the noise
// added in the aggregation … based on the number of participating
// clients") uses the same per-round schedule at the server.
//
// The decay happens per training round (not per local step), so every
// step of a round has the same (σ, C); with RhoSigma = RhoC = 1 it is
// Constant.
type Decay struct {
	Sigma0, C0     float64
	RhoSigma, RhoC float64
	Rounds         int
}

// At returns (σ_t, C_t).
func (d Decay) At(t int) (float64, float64) {
	x := float64(t) / float64(max(d.Rounds, 1))
	return d.Sigma0 * math.Pow(d.RhoSigma, -x), d.C0 * math.Pow(d.RhoC, -x)
}

// DecayedSigmas returns the multipliers σ_t = sigma0·rho^(−t/rounds) of
// rounds 0..rounds−1.
func DecayedSigmas(sigma0, rho float64, rounds int) []float64 {
	out := make([]float64, rounds)
	for t := range out {
		out[t] = sigma0 * math.Pow(rho, -float64(t)/float64(rounds))
	}
	return out
}

// roundEvent is one round of a participant's releases: steps Poisson-sampled
// Gaussian releases with sampling probability q and multiplier sigma.
func roundEvent(q, sigma float64, steps int) accountant.Event {
	return accountant.SelfComposed{Event: accountant.PoissonSampled{Q: q, Event: accountant.Gaussian{Sigma: sigma}}, Count: steps}
}

// MatchDecay returns the starting multiplier σ_0 of a Decay with noise ratio
// rho ≥ 1 over rounds rounds whose ε at delta (RDP accountant, a
// participant present in every round with stepsPerRound releases at
// sampling probability q) equals that of vanilla DP at the constant σ, and
// that ε. It is accountant.Calibrate on the decayed composition with the
// vanilla ε as target: the smallest σ_0 (to relative precision 1e-5) whose
// ε does not exceed vanilla's.
func MatchDecay(sigma, rho float64, rounds int, q float64, stepsPerRound int, delta float64) (sigma0, eps float64, err error) {
	if !(sigma > 0) || !(rho >= 1) || rounds < 1 || stepsPerRound < 1 {
		return 0, 0, fmt.Errorf("dpfl: MatchDecay(σ=%g, ρ=%g, rounds=%d, steps=%d): need σ > 0, ρ ≥ 1 and ≥ 1 round and step", sigma, rho, rounds, stepsPerRound)
	}
	target, _, err := accountant.RDPEpsilon(roundEvent(q, sigma, rounds*stepsPerRound), delta)
	if err != nil {
		return 0, 0, err
	}
	if rho == 1 {
		return sigma, target, nil
	}
	build := func(s0 float64) accountant.Event {
		evs := make([]accountant.Event, rounds)
		for t, s := range DecayedSigmas(s0, rho, rounds) {
			evs[t] = roundEvent(q, s, stepsPerRound)
		}
		return accountant.Composed{Events: evs}
	}
	sigma0, err = accountant.Calibrate(build, target, delta, accountant.Config{})
	if err != nil {
		return 0, 0, err
	}
	eps, _, err = accountant.RDPEpsilon(build(sigma0), delta)
	return sigma0, eps, err
}

// Entry is a block of identical private releases in a Ledger.
type Entry struct {
	// Q is the probability that a given record (an example for DP-SGD, a
	// client for DP-FedAvg) takes part in one release (1: always).
	Q float64 `json:"q"`
	// Sigma is the nominal noise multiplier (what the method claims).
	Sigma float64 `json:"sigma"`
	// Multiplier is the effective noise multiplier
	// (Mechanism.Multiplier): what the mechanism's privacy really is.
	Multiplier float64 `json:"multiplier"`
	// Steps is the number of releases.
	Steps int `json:"steps"`
	// Sampling is how the sampler that ran these releases actually chose
	// the records: DPSGD's PoissonLot (LotSampling), or the engine's
	// client cohort for DPFedAvg (fl.Server.Cohort). It is not stored in
	// results (the schema is unchanged); Ledger.Epsilon accounts from it.
	Sampling accountant.Sampling `json:"-"`
}

// Ledger records the private releases of one participant (a DP-SGD
// client) or of the server (DP-FedAvg), merging consecutive blocks with the
// same parameters.
type Ledger struct {
	Entries []Entry `json:"entries"`
	Rounds  int     `json:"rounds"` // training rounds with releases
	// Unit, Neighbouring and Visible complete the entries' sampling into
	// the accountant.Run of each block: the record the ledger protects
	// (an example for DP-SGD, a client for DP-FedAvg), the relation its
	// clip bound is a sensitivity for (add/remove: a record's clipped
	// contribution is present or absent), and whether the adversary sees
	// which records took part. The zero value is DP-SGD's.
	Unit         accountant.Unit         `json:"-"`
	Neighbouring accountant.Neighbouring `json:"-"`
	Visible      bool                    `json:"-"`
}

// Add appends e (merged into the last entry when Q, Sigma, Multiplier and
// Sampling agree) and counts one round.
func (l *Ledger) Add(e Entry) {
	l.Rounds++
	if n := len(l.Entries); n > 0 {
		last := &l.Entries[n-1]
		if last.Q == e.Q && last.Sigma == e.Sigma && last.Multiplier == e.Multiplier && last.Sampling == e.Sampling {
			last.Steps += e.Steps
			return
		}
	}
	l.Entries = append(l.Entries, e)
}

// Steps is the total number of releases.
func (l *Ledger) Steps() int {
	var s int
	for _, e := range l.Entries {
		s += e.Steps
	}
	return s
}

// Event is the composition of the ledger's releases as an accountant
// event, at the nominal multipliers (effective false: what the method
// claims) or the effective ones (what it does), each block read as Steps
// Poisson-sampled releases with the recorded Q — the request the ledger
// makes. ValidEvent checks it against how the releases were sampled.
func (l *Ledger) Event(effective bool) accountant.Event {
	evs := make([]accountant.Event, 0, len(l.Entries))
	for _, e := range l.Entries {
		evs = append(evs, roundEvent(e.Q, e.multiplier(effective), e.Steps))
	}
	if len(evs) == 1 {
		return evs[0]
	}
	return accountant.Composed{Events: evs}
}

// multiplier is the nominal or the effective noise multiplier of e.
func (e Entry) multiplier(effective bool) float64 {
	if effective {
		return e.Multiplier
	}
	return e.Sigma
}

// Run is the accountant.Run of entry e of the ledger: its recorded
// sampling, the ledger's unit, relation and visibility, e.Steps releases.
func (l *Ledger) Run(e Entry) accountant.Run {
	return accountant.Run{Unit: l.Unit, Sampling: e.Sampling, Visible: l.Visible, Neighbouring: l.Neighbouring, Releases: e.Steps}
}

// ValidEvent is the event the accountants may use for the ledger: Event
// (each block read as Poisson-sampled releases with the recorded Q) after
// every block has passed accountant.CheckRun against the block's Run — the
// sampling the sampler recorded, the ledger's unit, relation and
// visibility. A ledger whose Q disagrees with how its records were sampled
// (a fixed-size client cohort, another participation probability, a
// visible cohort) is an error wrapping accountant.ErrSamplingMismatch,
// never a silently wrong ε. The checked request itself is returned (not
// accountant.ValidEvent's equivalent form) so that valid numbers stay
// bit for bit what they were.
func (l *Ledger) ValidEvent(effective bool) (accountant.Event, error) {
	for _, e := range l.Entries {
		if err := accountant.CheckRun(l.Run(e), roundEvent(e.Q, e.multiplier(effective), e.Steps), l.Neighbouring); err != nil {
			return nil, fmt.Errorf("dpfl: ledger block %+v: %w", e, err)
		}
	}
	return l.Event(effective), nil
}

// Epsilon is ε at delta of the ledger (RDP accountant, the ledger's
// relation — add/remove for every sampler here —, improved conversion) on
// ValidEvent, so a ledger whose recorded Q does not match how it sampled
// is an error. An empty ledger has ε = 0; a mechanism without noise has
// ε = +Inf (and no error).
func (l *Ledger) Epsilon(delta float64, effective bool) (float64, error) {
	if l == nil || l.Steps() == 0 {
		return 0, nil
	}
	ev, err := l.ValidEvent(effective)
	if err != nil {
		return math.NaN(), err
	}
	var eps float64
	if l.Neighbouring == accountant.AddRemove {
		eps, _, err = accountant.RDPEpsilon(ev, delta)
	} else {
		eps, _, err = accountant.Config{Kind: accountant.KindRDP, Neighbouring: l.Neighbouring}.Epsilon(ev, delta)
	}
	if errors.Is(err, accountant.ErrInfinite) {
		return math.Inf(1), nil
	}
	return eps, err
}
