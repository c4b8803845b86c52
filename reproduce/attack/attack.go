// Package attack audits the privacy of the training the harness actually
// runs: for each private algorithm a paper reproduces it runs the paper's
// own training code (algorithms/dpfl, algorithms/normec,
// algorithms/upcycled) on the real data with canaries, lets an adversary
// see what the paper's threat model (or the accountant's) lets it see —
// each privatised DP-SGD step, each noisy DP-FedAvg aggregate, each
// client message or upload a curious server receives — and bounds ε from
// how well the adversary tells a run with the canary from one without.
//
// Design (every audit): a multi-run distinguishing game on neighbouring
// datasets D (a null example) and D′ (the canary) with white-box gradient
// canaries (Nasr et al. 2023, "Tight Auditing of Differentially Private
// Machine Learning") or, where no clipping bounds an example's influence,
// an outlier example. Each trial is a fresh prefix of the paper's run (its
// first round) from its own named stream; the adversary's score is the
// likelihood ratio of the released vectors projected on the canary
// direction; threshold and direction are chosen on separate calibration
// trials (audit.Calibrated), and the Clopper–Pearson bound of that one
// test on all evaluation trials is ε_lb (audit.EpsilonLB). Because the
// whole run's transcript contains its first round, the run is no more
// private than that round: ε_lb bounds the run's ε from below.
//
// Every row also carries the bound a perfect test would reach with the
// same trials (ε_lb,max ≈ ln(n/3.69) for n trials per side at 95 %), and
// says when ε_lb is budget-limited — no false positive or negative, so
// more trials would raise it — rather than limited by the mechanism, and,
// where the release is a plain Gaussian mechanism (no subsampling of the
// canary), the Gaussian fit of the scores: μ with its interval and the ε
// of μ_lo composed over the run's releases (an estimate under the
// Gaussian model; Nasr et al. 2023 §5), which is not limited by ln n.
package attack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/fedrepro/fedrepro/algorithms/audit"
)

// Scales: smoke runs inside `go test` (seconds per paper); default is the
// evidence the reports quote.
const (
	Smoke   = "smoke"
	Default = "default"
)

// Options configure a run of the audits.
type Options struct {
	Seed  uint64
	Scale string // Smoke or Default ("" = Default)
	// DataDir holds Fashion-MNIST's IDX files ("" = the Debian package's
	// location, reproduce/datasets' default).
	DataDir string
	// SharedDir and CacheDir locate the released Upcycled-FL data (""
	// = $FEDREPRO_SHARED or ../shared, and the default cache).
	SharedDir, CacheDir string
	// Only, when non-empty, runs the audits whose ID contains it.
	Only string
}

func (o Options) scale() (string, error) {
	switch o.Scale {
	case "", Default:
		return Default, nil
	case Smoke:
		return Smoke, nil
	}
	return "", fmt.Errorf("unknown attack scale %q (want smoke or default)", o.Scale)
}

// Row is one audit's result: what the lead puts next to the accountants in
// a paper's report. JSON keys are the `fedrepro attack --json` schema.
type Row struct {
	Paper       string `json:"paper"`
	ID          string `json:"id"`
	Algorithm   string `json:"algorithm"`
	ThreatModel string `json:"threat_model"`
	Design      string `json:"design"`
	// Claimed is the paper's ε for the run audited; ClaimSource where.
	Claimed     float64 `json:"claimed_eps"`
	ClaimSource string  `json:"claim_source"`
	Delta       float64 `json:"delta"`
	// Accountant is an upper bound on the whole run's ε for the mechanism
	// as implemented (AccountantName says which), AccountantTrial the
	// same accountant on what one trial lets the adversary see: ε_lb
	// above it would be a bug in the training code or the accountant.
	Accountant      float64 `json:"accountant_eps"`
	AccountantTrial float64 `json:"accountant_trial_eps"`
	AccountantName  string  `json:"accountant"`
	// EpsLB holds with probability Confidence (Clopper–Pearson).
	EpsLB      float64 `json:"eps_lb"`
	Confidence float64 `json:"confidence"`
	// EpsLBMax is the bound an error-free test on the same trials gives.
	EpsLBMax      float64 `json:"eps_lb_max"`
	BudgetLimited bool    `json:"budget_limited"`
	// Refutes is EpsLB > Claimed.
	Refutes bool `json:"refutes_claim"`
	// Mu… are the Gaussian fit of the scores (per trial) and EpsGDPLo the
	// ε of μ_lo composed over Releases; NaN where the release is not a
	// plain Gaussian mechanism (the canary is subsampled).
	Mu       float64 `json:"mu"`
	MuLo     float64 `json:"mu_lo"`
	MuHi     float64 `json:"mu_hi"`
	EpsGDPLo float64 `json:"eps_gdp_lo"`
	Releases int     `json:"releases"`
	// RefutesGDP is EpsGDPLo > Claimed (an estimate, not a bound).
	RefutesGDP bool `json:"refutes_claim_gdp"`
	// Canaries, Guesses, Correct: the one-run audit's m, r and v (0 for
	// multi-run games).
	Canaries    int     `json:"canaries"`
	Guesses     int     `json:"guesses"`
	Correct     int     `json:"correct"`
	Trials      int     `json:"trials"`      // evaluation trials (runs for one-run audits) per side
	Calibration int     `json:"calibration"` // calibration trials per side
	TP          int     `json:"tp"`
	FN          int     `json:"fn"`
	FP          int     `json:"fp"`
	TN          int     `json:"tn"`
	WallSeconds float64 `json:"wall_seconds"`
	Note        string  `json:"note,omitempty"`
	// Skipped says why the audit did not run (its data is absent).
	Skipped string `json:"skipped,omitempty"`
}

// trialFunc runs one trial — the paper's code on D′ when canary, else on
// D — with all its randomness from r and returns the adversary's score.
type trialFunc func(r *rand.Rand, canary bool) (float64, error)

// spec is one registered audit.
type spec struct {
	id, algorithm, threat, design string
	claimed                       float64
	claimSource                   string
	delta                         float64
	// trials and calibration per side at each scale.
	trials, calibration map[string]int
	// gaussian: the canary is in every trial's release (no subsampling),
	// so the score fit is meaningful; releases: how many such releases the
	// paper's run makes (GDP composition).
	gaussian bool
	releases int
	// setup builds the trial function (loads data, measures the clip…)
	// and the accountant's whole-run and one-trial ε.
	setup func(o Options) (trialFunc, accounting, error)
	note  string
	// oneRun, when set, replaces the multi-run game by a one-run audit.
	oneRun func(o Options) (oneRunResult, accounting, error)
	// smoke: the audit also runs at smoke scale (a few per paper, so the
	// package's tests stay within seconds).
	smoke bool
}

type accounting struct {
	whole, trial float64
	name         string
}

var registry = map[string][]spec{}

func register(paper string, s spec) { registry[paper] = append(registry[paper], s) }

// Papers lists the papers with attack audits, sorted.
func Papers() []string {
	var out []string
	for p := range registry {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Run plays every attack audit of a paper and returns one row per audit.
// An audit whose data is absent gives a row with Skipped set.
func Run(paper string, o Options) ([]Row, error) {
	specs, ok := registry[paper]
	if !ok {
		return nil, fmt.Errorf("no attack audits for paper %q (have %v)", paper, Papers())
	}
	scale, err := o.scale()
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, s := range specs {
		if o.Only != "" && !strings.Contains(s.id, o.Only) || scale == Smoke && !s.smoke {
			continue
		}
		r, err := play(paper, s, o, scale)
		if err != nil {
			return rows, fmt.Errorf("%s/%s: %w", paper, s.id, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

const confidence = 0.95

// play runs one audit.
func play(paper string, s spec, o Options, scale string) (Row, error) {
	row := Row{Paper: paper, ID: s.id, Algorithm: s.algorithm, ThreatModel: s.threat, Design: s.design,
		Claimed: s.claimed, ClaimSource: s.claimSource, Delta: s.delta, Confidence: confidence,
		Trials: s.trials[scale], Calibration: s.calibration[scale], Note: s.note,
		Mu: math.NaN(), MuLo: math.NaN(), MuHi: math.NaN(), EpsGDPLo: math.NaN()}
	start := time.Now()
	var nd *ErrNoData
	if s.oneRun != nil {
		r, err := playOneRun(row, s, o)
		if errors.As(err, &nd) {
			row.Skipped = nd.Error()
			return row, nil
		}
		r.WallSeconds = time.Since(start).Seconds()
		return r, err
	}
	trial, acc, err := s.setup(o)
	if errors.As(err, &nd) {
		row.Skipped = nd.Error()
		row.Accountant, row.AccountantTrial, row.EpsLB, row.EpsLBMax = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return row, nil
	}
	if err != nil {
		return row, err
	}
	row.Accountant, row.AccountantTrial, row.AccountantName = acc.whole, acc.trial, acc.name
	g := audit.Game{ID: "attack/" + paper + "/" + s.id, Seed: o.Seed, Trials: row.Trials, Calibration: row.Calibration,
		Delta: s.delta, Confidence: confidence, Selection: audit.Calibrated}
	var trialErr error
	res, err := g.Run(func(r *rand.Rand, canary bool) float64 {
		if trialErr != nil {
			return 0
		}
		v, err := trial(r, canary)
		if err != nil {
			trialErr = err
		}
		return v
	})
	if trialErr != nil {
		return row, trialErr
	}
	if err != nil {
		return row, err
	}
	row.WallSeconds = time.Since(start).Seconds()
	row.EpsLB, row.EpsLBMax, row.BudgetLimited = res.EpsilonLB, res.MaxEpsilonLB, res.BudgetLimited
	row.TP, row.FN, row.FP, row.TN = res.Counts.TP, res.Counts.FN, res.Counts.FP, res.Counts.TN
	row.Refutes = row.EpsLB > row.Claimed
	if s.gaussian {
		f := res.Fit
		if res.Reverse { // the canary lowers the score: μ of the mirrored test
			f.Mu, f.MuLo, f.MuHi = -f.Mu, -f.MuHi, -f.MuLo
		}
		row.Mu, row.MuLo, row.MuHi, row.Releases = f.Mu, f.MuLo, f.MuHi, s.releases
		switch {
		case math.IsNaN(f.MuLo):
			row.EpsGDPLo = math.NaN()
		case f.MuLo > 0:
			e, err := audit.GDPEpsilon(f.MuLo, s.releases, s.delta)
			if err != nil {
				return row, err
			}
			row.EpsGDPLo = e
		default:
			row.EpsGDPLo = 0
		}
		row.RefutesGDP = row.EpsGDPLo > row.Claimed
	}
	return row, nil
}

// MarshalJSON encodes the row with its json keys; a non-finite number
// (an accountant's ε = ∞, a fit that does not apply) becomes the string
// "+Inf" or "-Inf", or null for NaN, which encoding/json cannot write.
func (r Row) MarshalJSON() ([]byte, error) {
	v := reflect.ValueOf(r)
	t := v.Type()
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		f := v.Field(i)
		if opts == "omitempty" && f.IsZero() {
			continue
		}
		var val any = f.Interface()
		if f.Kind() == reflect.Float64 {
			x := f.Float()
			switch {
			case math.IsNaN(x):
				val = nil
			case math.IsInf(x, 1):
				val = "+Inf"
			case math.IsInf(x, -1):
				val = "-Inf"
			}
		}
		enc, err := json.Marshal(val)
		if err != nil {
			return nil, err
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Columns are the keys of Table's rows, in display order.
var Columns = []string{"id", "algorithm", "threat_model", "claimed_eps", "accountant_eps", "accountant_trial_eps", "eps_lb", "confidence",
	"eps_lb_max", "budget_limited", "mu", "mu_lo", "mu_hi", "eps_gdp_lo", "refutes_claim", "refutes_claim_gdp", "trials", "calibration", "wall_seconds", "skipped"}

// Table turns a paper's rows into an audit table (algorithms/audit.Table,
// the form `fedrepro audit` and the reports print), so a report can show
// the attacks beside the accountants' tables.
func Table(paper string, rows []Row) audit.Table {
	t := audit.Table{ID: "attack", Title: "Attacks on the training that was run: canary audits of " + paper + "'s private algorithms", Columns: Columns}
	for _, r := range rows {
		t.Rows = append(t.Rows, audit.Row{"id": r.ID, "algorithm": r.Algorithm, "threat_model": r.ThreatModel,
			"claimed_eps": r.Claimed, "accountant_eps": r.Accountant, "accountant_trial_eps": r.AccountantTrial,
			"eps_lb": r.EpsLB, "confidence": r.Confidence, "eps_lb_max": r.EpsLBMax, "budget_limited": r.BudgetLimited,
			"mu": r.Mu, "mu_lo": r.MuLo, "mu_hi": r.MuHi, "eps_gdp_lo": r.EpsGDPLo, "refutes_claim": r.Refutes,
			"refutes_claim_gdp": r.RefutesGDP, "trials": r.Trials, "calibration": r.Calibration, "wall_seconds": r.WallSeconds, "skipped": r.Skipped})
	}
	t.Notes = []string{
		"Each row runs the paper's own training code on the real data, D with a null example and D′ with the canary; ε_lb is the Clopper–Pearson lower bound (95 %) of a threshold test chosen on separate calibration trials.",
		"eps_lb_max is what an error-free test on the same trials gives (≈ ln(n/3.69)); budget_limited: the test made no false positive or negative, so ε_lb is the trial budget's, and more trials would raise it.",
		"mu, mu_lo, mu_hi: the Gaussian fit of the scores where the canary is in every release (no subsampling); eps_gdp_lo: ε of μ_lo composed over the run's releases — an estimate under the Gaussian model, not a bound.",
		"accountant_trial_eps: the accountant on what one trial observes; ε_lb above it would be a bug in the training code or the accountant (tested).",
	}
	n := 0
	for _, r := range rows {
		if r.Refutes {
			n++
		}
	}
	t.Verdict = fmt.Sprintf("%d of %d audits refute the claimed ε with 95%% confidence", n, len(rows))
	return t
}
