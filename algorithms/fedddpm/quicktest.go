package fedddpm

import (
	"fmt"
	"math"
)

// QuickTestConfig holds the parameters of Algorithm 3.
type QuickTestConfig struct {
	Gamma     float64 // EMA weight of the new score
	Threshold float64 // fire when |AvgScore − Score| ≤ Threshold
	TestSize  int     // generated samples scored per test (for the caller)
}

// PaperQuickTest returns the paper's values: γ = 0.4, Threshold = 0.2,
// TestSize = 500 (§VI-A2). The threshold is in Inception-FID units.
func PaperQuickTest() QuickTestConfig {
	return QuickTestConfig{Gamma: 0.4, Threshold: 0.2, TestSize: 500}
}

// Validate reports a γ outside (0, 1] or a negative threshold.
func (c QuickTestConfig) Validate() error {
	if !(c.Gamma > 0 && c.Gamma <= 1) {
		return fmt.Errorf("fedddpm: QuickTest γ must lie in (0,1], got %g", c.Gamma)
	}
	if !(c.Threshold >= 0) {
		return fmt.Errorf("fedddpm: QuickTest threshold must be ≥ 0, got %g", c.Threshold)
	}
	return nil
}

// QuickTestState is QuickTest's persistent state: AvgScore, or ∅ when Set is
// false.
type QuickTestState struct {
	AvgScore float64
	Set      bool
}

// QuickTest is Algorithm 3 as a pure function of the state and the score of
// the current model (the caller samples TestSize points and scores them):
//
//	if AvgScore ≠ ∅ and |AvgScore − Score| ≤ Threshold: return True (state unchanged)
//	if AvgScore = ∅: AvgScore = Score  else  AvgScore = γ·Score + (1−γ)·AvgScore
//	return False
//
// The comparison uses the average from before the current score, and the
// firing path leaves the state unchanged, exactly as in the listing. A NaN
// score never fires and leaves the state unchanged (the listing would
// poison AvgScore forever); decision 12.
func QuickTest(st QuickTestState, score float64, c QuickTestConfig) (fire bool, next QuickTestState) {
	if math.IsNaN(score) {
		return false, st
	}
	if st.Set && math.Abs(st.AvgScore-score) <= c.Threshold {
		return true, st
	}
	if !st.Set {
		return false, QuickTestState{AvgScore: score, Set: true}
	}
	return false, QuickTestState{AvgScore: c.Gamma*score + (1-c.Gamma)*st.AvgScore, Set: true}
}

// NeverFired says what FedDDPM+ outputs when QuickTest never fires within
// the T rounds (Algorithm 2 leaves w_final undefined); decision 12.
type NeverFired int

const (
	// CorrectAtEnd runs the final correction on A after the last round
	// (the default: FedDDPM+'s output always includes its correction).
	CorrectAtEnd NeverFired = iota
	// NoCorrection returns w_T unchanged (plain FedAvg).
	NoCorrection
)

// String names the policy.
func (p NeverFired) String() string {
	switch p {
	case CorrectAtEnd:
		return "correct-at-end"
	case NoCorrection:
		return "no-correction"
	}
	return fmt.Sprintf("never-fired(%d)", int(p))
}

// PaperCheckEvery is the paper's QuickTest period in rounds.
const PaperCheckEvery = 10

// StopRule is FedDDPM+'s stopping test (Algorithm 2, line 7): after round t
// (0-indexed, decision 17) it runs QuickTest on the new global model when
// t mod Every = 0 — the `and` short-circuits, so the model is scored only
// then — and reports whether FL should stop and the final correction run.
type StopRule struct {
	Every int
	Test  QuickTestConfig
	State QuickTestState
	// Scores are the scores computed so far, with the rounds they were
	// computed at in Rounds, for reports.
	Scores []float64
	Rounds []int
	// StopRound is the round t at which QuickTest fired, or −1.
	StopRound int
}

// NewStopRule returns a rule that tests every `every` rounds with c.
func NewStopRule(every int, c QuickTestConfig) (*StopRule, error) {
	if every < 1 {
		return nil, fmt.Errorf("fedddpm: QuickTest period must be ≥ 1, got %d", every)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &StopRule{Every: every, Test: c, StopRound: -1}, nil
}

// Observe is called after round t with a function that scores the new
// global model (it samples Test.TestSize points and computes the FID or its
// proxy). score is called only when t mod Every = 0. Observe returns true
// when QuickTest fires; later calls keep returning true without scoring.
func (s *StopRule) Observe(t int, score func() float64) bool {
	if s.StopRound >= 0 {
		return true
	}
	if t%s.Every != 0 {
		return false
	}
	v := score()
	s.Scores = append(s.Scores, v)
	s.Rounds = append(s.Rounds, t)
	fire, next := QuickTest(s.State, v, s.Test)
	s.State = next
	if fire {
		s.StopRound = t
	}
	return fire
}

// Fired reports whether QuickTest has fired.
func (s *StopRule) Fired() bool { return s.StopRound >= 0 }
