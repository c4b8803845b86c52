package claim

import (
	"encoding/json"
	"fmt"
	"math"
)

// SchemaVersion is the version of the Report JSON document (the
// `schema_version` field of `fedrepro audit --claim --json`). It changes
// only when a field is removed or changes meaning.
const SchemaVersion = 1

// Verdicts.
const (
	Consistent     = "consistent"
	Optimistic     = "optimistic"
	Conservative   = "conservative"
	Underspecified = "underspecified"
)

// Report is the audit of one claim file.
type Report struct {
	SchemaVersion int          `json:"schema_version"`
	Claim         ClaimInfo    `json:"claim"`
	Cases         []CaseReport `json:"cases"`
}

// ClaimInfo repeats what the claim file says about itself.
type ClaimInfo struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	File           string   `json:"file"`
	Paper          Paper    `json:"paper"`
	Source         Source   `json:"source"`
	AccountantUsed string   `json:"accountant_used"`
	Notes          []string `json:"notes,omitempty"`
}

// CaseReport is the verdict on one claimed ε (one case of the claim, or
// the claim itself when it has no cases).
type CaseReport struct {
	Case           string  `json:"case"`
	Note           string  `json:"note,omitempty"`
	Quote          string  `json:"quote,omitempty"`
	ClaimedEpsilon float64 `json:"claimed_epsilon"`
	// Printed is claimed_epsilon as written, Rounding "printed" or
	// "exact", Tolerance the allowance that follows from it.
	Printed string `json:"printed"`
	// Neighbouring is the relation the case states (readings may assume
	// another: ReadingReport.RelationDiffers).
	Neighbouring string  `json:"neighbouring"`
	Rounding     string  `json:"rounding"`
	Tolerance    float64 `json:"tolerance"`
	// Verdict is the readings' common verdict, or underspecified when they
	// disagree; Summary says why in one sentence.
	Verdict string `json:"verdict"`
	Summary string `json:"summary"`
	// Headline is the reading the verdict's headline rests on, with its
	// tightest sound upper bound.
	Headline *Headline       `json:"headline"`
	Readings []ReadingReport `json:"readings"`
}

// Headline names the reading a case's verdict is quoted from and its
// tightest sound bound (Epsilon nil and Unbounded when it is ∞).
type Headline struct {
	Reading   string   `json:"reading"`
	Method    string   `json:"method"`
	Epsilon   *float64 `json:"epsilon"`
	Unbounded bool     `json:"unbounded,omitempty"`
	Why       string   `json:"why"`
}

// ReadingReport is the audit of one reading of one case.
type ReadingReport struct {
	Reading      string  `json:"reading"`
	Note         string  `json:"note,omitempty"`
	BoundOnly    bool    `json:"bound_only,omitempty"`
	Procedure    string  `json:"procedure"`
	Unit         string  `json:"unit"`
	Neighbouring string  `json:"neighbouring"`
	Delta        float64 `json:"delta"`
	// NoiseMultiplier is the effective noise multiplier when every phase
	// has the same one (0 otherwise, or for stated guarantees).
	NoiseMultiplier float64 `json:"noise_multiplier"`
	// AveragedOver is the number of values of average_over (0: none).
	AveragedOver int `json:"averaged_over,omitempty"`
	// Accountants lists every method tried, in a fixed order.
	Accountants []Estimate `json:"accountants"`
	// Upper is the tightest sound upper bound, Loosest the largest finite
	// one, Lower the best proven lower bound (nil: none).
	Upper   *Bound `json:"upper"`
	Loosest *Bound `json:"loosest"`
	Lower   *Bound `json:"lower"`
	// UpperFavourable is Upper recomputed at the favourable end of the
	// printed precision of the noise parameters (when that was needed).
	UpperFavourable *float64   `json:"upper_favourable,omitempty"`
	Empirical       *Empirical `json:"empirical"`
	// PaperMethod is ε by the method the paper says it used (nil when it
	// cannot be recomputed); Matches says whether the printed value is its
	// output to printed precision.
	PaperMethod *PaperMethod `json:"paper_method"`
	// Needed is the noise the claimed ε needs under the tightest
	// calibratable accountant (nil for stated guarantees).
	Needed *Calibration `json:"needed"`
	// EpsilonRatio is Upper / claimed (> 1: the claim is below the sound
	// bound; nil when Upper is infinite).
	EpsilonRatio *float64 `json:"epsilon_ratio"`
	Verdict      string   `json:"verdict"`
	// RelationDiffers: the reading assumes another neighbouring relation
	// than the case states; RelationNote says what that means and the
	// Reason starts with it.
	RelationDiffers bool   `json:"relation_differs,omitempty"`
	RelationNote    string `json:"relation_note,omitempty"`
	// Warning reports an inconsistency of the accountants (a lower bound
	// above an upper bound), after which no refutation is claimed.
	Warning string `json:"warning,omitempty"`
	// Proven says how an optimistic verdict is established beyond "no
	// sound accountant certifies it": "lower-bound" (a proven lower bound
	// exceeds the claim), "empirical" (the distinguishing game's bound
	// does, with its confidence) or "".
	Proven string `json:"proven,omitempty"`
	// Reason is the arithmetic behind the verdict, one sentence.
	Reason string `json:"reason"`
}

// Estimate is one method's answer. Epsilon is nil when the method does
// not apply (Note says why) or when it is unbounded (Unbounded).
type Estimate struct {
	Method string `json:"method"`
	// Sound: Epsilon is a guarantee (an upper bound on the true ε).
	Sound    bool     `json:"sound"`
	Epsilon  *float64 `json:"epsilon"`
	Lower    *float64 `json:"lower,omitempty"`
	Estimate *float64 `json:"estimate,omitempty"`
	Order    *float64 `json:"order,omitempty"`
	// Interval is the PLD discretization used (after any coarsening).
	Interval  *float64 `json:"interval,omitempty"`
	Unbounded bool     `json:"unbounded,omitempty"`
	Note      string   `json:"note,omitempty"`
}

// Bound is a value and the method it comes from.
type Bound struct {
	Method  string  `json:"method"`
	Epsilon float64 `json:"epsilon"`
}

// Empirical is the distinguishing game's result.
type Empirical struct {
	// EpsilonLB holds with probability Confidence; EpsilonGDP is the GDP
	// estimate on the same counts (not a bound). Nil values and a Note
	// when the game does not apply.
	EpsilonLB  *float64 `json:"epsilon_lb"`
	EpsilonGDP *float64 `json:"epsilon_gdp,omitempty"`
	Confidence float64  `json:"confidence,omitempty"`
	Trials     int      `json:"trials,omitempty"`
	Note       string   `json:"note,omitempty"`
}

// PaperMethod is the paper's own accountant recomputed.
type PaperMethod struct {
	Method  string  `json:"method"`
	Epsilon float64 `json:"epsilon"`
	Matches bool    `json:"matches"`
}

// Calibration is the noise a claimed ε needs.
type Calibration struct {
	Method string `json:"method"`
	// Scale multiplies every noise parameter of the reading; Multiplier is
	// the needed noise multiplier when the reading has one (0 otherwise).
	Scale      float64 `json:"scale"`
	Multiplier float64 `json:"noise_multiplier,omitempty"`
	Note       string  `json:"note,omitempty"`
}

// MarshalJSON writes finite floats only (an infinite Epsilon is already
// nil with Unbounded).
func (b Bound) MarshalJSON() ([]byte, error) {
	type plain Bound
	if math.IsInf(b.Epsilon, 0) || math.IsNaN(b.Epsilon) {
		return json.Marshal(struct {
			Method    string   `json:"method"`
			Epsilon   *float64 `json:"epsilon"`
			Unbounded bool     `json:"unbounded"`
		}{b.Method, nil, true})
	}
	return json.Marshal(plain(b))
}

func ptr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Reading returns the report of one case and reading ("" for a claim
// without cases).
func (r *Report) Reading(caseName, reading string) (*ReadingReport, bool) {
	for i := range r.Cases {
		if r.Cases[i].Case != caseName {
			continue
		}
		for j := range r.Cases[i].Readings {
			if r.Cases[i].Readings[j].Reading == reading {
				return &r.Cases[i].Readings[j], true
			}
		}
	}
	return nil, false
}

// Method returns one method's estimate (nil if it was not tried).
func (r *ReadingReport) Method(m string) *Estimate {
	for i := range r.Accountants {
		if r.Accountants[i].Method == m {
			return &r.Accountants[i]
		}
	}
	return nil
}

// Display formats one method's ε for tables: the value to 4 significant
// digits (PRV with its proven lower bound in brackets), ∞, or – when the
// method does not apply.
func (r *ReadingReport) Display(m string) string {
	e := r.Method(m)
	switch {
	case e == nil:
		return "–"
	case e.Unbounded:
		return "∞"
	case e.Epsilon == nil:
		return "–"
	case m == MPRV && e.Lower != nil:
		return fmt.Sprintf("%.4g [%.4g]", *e.Epsilon, *e.Lower)
	}
	return fmt.Sprintf("%.4g", *e.Epsilon)
}
