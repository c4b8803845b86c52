package accountant

import (
	"errors"
	"fmt"
	"math"
)

// Calibration bounds: σ is searched in [calMinSigma, calMaxSigma].
const (
	calMinSigma = 1e-3
	calMaxSigma = 1e6
	calRelTol   = 1e-5
)

// Calibrate returns (to relative precision 1e-5) the smallest noise
// multiplier σ for which build(σ) is (targetEps, delta)-DP under c: the
// returned σ has been evaluated and meets the target (spec §E5: a search
// must not return a σ whose ε exceeds the target), and σ·(1 − 1e-4) does
// not meet it (ε is non-increasing in σ for the events of this package).
// For PRV the target applies to the upper bound (the guarantee).
//
// The search starts from a cheap guess (the RDP calibration, for the
// slower accountants), brackets the answer with geometrically growing
// steps and then narrows the bracket by the Illinois variant of regula
// falsi on log σ, with bisection whenever that stalls, so a PLD or PRV
// calibration costs a dozen or so evaluations near the answer instead of
// evaluations at far-off σ with huge grids.
//
// A target that no σ ≤ 1e6 reaches (for example below the floor that the
// RDP conversion and a finite order grid impose even with infinite noise)
// returns an error wrapping ErrUnreachable that states the best ε found. A
// target already met at σ = 1e-3 returns an error too: σ is then not
// determined by the target.
func Calibrate(build func(sigma float64) Event, targetEps, delta float64, c Config) (float64, error) {
	return calibrate(build, targetEps, delta, c, true)
}

// Calibration is CalibrateCapped's answer.
type Calibration struct {
	// Sigma meets the target under the accountant that was searched: its
	// Estimate (the direct computation at Sigma) has Value ≤ the target.
	Sigma float64
	// Estimate is that accountant's answer at Sigma — the one the search
	// compared with the target, not a recomputation.
	Estimate Estimate
	// Config is the accountant the search evaluated (the caller's, with
	// the search's work cap for PLD and PRV).
	Config Config
	// Evals counts the accountant evaluations of the search (not those of
	// the RDP starting guess).
	Evals int
	// Fallback is set when c's accountant could not certify any σ within
	// its work cap (ErrGridCap, ErrPrecision): Sigma, Estimate and Config
	// are then the RDP accountant's (improved conversion), a valid σ.
	Fallback bool
	// Capped is set when the evaluation cap stopped the search: Sigma
	// still meets the target but may be larger than the smallest σ that
	// does.
	Capped bool
	// Note says what the caps changed (a stopped search, a coarser grid)
	// or why σ is at the floor of the search (σ = 0 when no noise is
	// needed).
	Note string
}

// Work caps of CalibrateCapped for PLD and PRV: at most calCapEvals
// evaluations, each with PLD and PRV grids of at most calCapPoints points,
// and a relative tolerance of calCapRelTol on σ. A 2^16-point PLD or PRV
// evaluation costs well under 0.1 s, so a capped solve answers within
// about a second per accountant (BenchmarkCalibrateCapped).
const (
	calCapEvals  = 12
	calCapPoints = 1 << 16
	calCapRelTol = 1e-4
	// calCapPanels caps the Poisson-sampled Laplace RDP quadrature of a
	// capped RDP search (Config.LaplacePanels).
	calCapPanels = 256
	// calMaxIter bounds the evaluations of the other accountants' capped
	// search (bracketing from 1e-3 to 1e6 and narrowing to 1e-5 take
	// fewer than 100).
	calMaxIter = 200
)

// calBudget bounds calibrateCore's work.
type calBudget struct {
	maxEvals int
	relTol   float64
}

// CalibrateCapped is Calibrate with bounded, deterministic work (counted
// in evaluations and grid points, never in time): the PLD and PRV grids
// are capped at 2^16 points (min with c.WorkPoints when that is set) —
// a larger grid is coarsened (PLD) or its ε error raised (PRV), both still
// upper bounds — the search stops after 12 evaluations, and σ is found to
// relative precision 1e-4; a σ whose grid does not fit even so counts as
// not meeting the target. The other accountants (milliseconds an
// evaluation) search as Calibrate does, to 1e-5, within 200 evaluations. Whatever stops it, the σ returned was evaluated
// under the searched Config and meets the target there, so it is never
// smaller than the true minimal σ under that accountant; Calibration.Note
// says when a cap made it larger than the uncapped search's answer. When
// PLD or PRV can certify no σ within the caps (every grid over the cap,
// or beyond double precision at tiny δ), the RDP σ (improved conversion)
// is returned instead, with Fallback set and a "fallback:" note — a valid
// σ, as Config.Account's RDP fallback is a valid ε.
//
// Unlike Calibrate it answers the targets that need no noise: when the
// target is met at σ = 1e-3 it evaluates σ = 0 and returns 0 if that meets
// the target too (q = 0, for instance), else 1e-3 (the documented floor
// of the search) with a note.
func CalibrateCapped(build func(sigma float64) Event, targetEps, delta float64, c Config) (Calibration, error) {
	if c.Kind == KindPLD || c.Kind == KindPRV {
		if c.WorkPoints <= 0 || c.WorkPoints > calCapPoints {
			c.WorkPoints = calCapPoints
		}
	}
	if (c.Kind == KindRDP || c.Kind == KindPRV) && c.LaplacePanels <= 0 {
		c.LaplacePanels = calCapPanels
	}
	b := &calBudget{maxEvals: calCapEvals, relTol: calCapRelTol}
	if c.Kind != KindPLD && c.Kind != KindPRV {
		// The other accountants cost milliseconds an evaluation: the
		// uncapped search's precision and iteration bound.
		b = &calBudget{maxEvals: calMaxIter, relTol: calRelTol}
	}
	r, err := calibrateCore(build, targetEps, delta, c, true, b)
	r.Config = c
	if errors.Is(err, ErrGridCap) {
		// As Config.Account does: the RDP answer stands in, a valid (larger)
		// σ, marked as a fallback.
		fb := Config{Kind: KindRDP, Neighbouring: c.Neighbouring, Conversion: Improved, LaplacePanels: calCapPanels}
		f, ferr := calibrateCore(build, targetEps, delta, fb, false, &calBudget{maxEvals: calMaxIter, relTol: calRelTol})
		if ferr == nil {
			f.Config, f.Fallback, f.Evals = fb, true, f.Evals+r.Evals
			f.Estimate.Fallback, f.Estimate.FallbackKind = true, KindRDP
			f.Note = fmt.Sprintf("fallback: %v; the RDP σ is shown instead", err)
			return f, nil
		}
	}
	if err == nil && r.Estimate.Note != "" {
		if r.Note != "" {
			r.Note += "; "
		}
		r.Note += r.Estimate.Note
	}
	return r, err
}

// calFloor answers a capped search whose target is met at the smallest σ
// searched (hi, with its Estimate est): σ = 0 when that meets the target
// too, else hi.
func calFloor(build func(sigma float64) Event, targetEps, delta float64, c Config, hi float64, est Estimate, evals int) (Calibration, error) {
	r, err := c.Account(build(0), delta)
	evals++
	if err == nil && r.Value <= targetEps {
		return Calibration{Sigma: 0, Estimate: r, Evals: evals,
			Note: fmt.Sprintf("ε = %s ≤ target even without noise: every σ ≥ 0 meets it", fmtEps(r.Value))}, nil
	}
	return Calibration{Sigma: hi, Estimate: est, Evals: evals,
		Note: fmt.Sprintf("the target is met at the smallest σ searched (%.4g); σ is not determined by this target", hi)}, nil
}

func calibrate(build func(sigma float64) Event, targetEps, delta float64, c Config, useGuess bool) (float64, error) {
	s, err := calibrateCore(build, targetEps, delta, c, useGuess, nil)
	return s.Sigma, err
}

// calibrateCore is the search of Calibrate. With b == nil it is exactly
// Calibrate's (relative tolerance calRelTol, no evaluation cap); with a
// budget it stops after b.maxEvals evaluations of c's accountant and
// returns the smallest σ evaluated that met the target, saying so in
// Calibration.Note.
func calibrateCore(build func(sigma float64) Event, targetEps, delta float64, c Config, useGuess bool, b *calBudget) (Calibration, error) {
	var out Calibration
	if !(targetEps > 0) || math.IsInf(targetEps, 1) {
		return out, fmt.Errorf("target ε = %v: want a finite value > 0", targetEps)
	}
	if !(delta > 0 && delta < 1) {
		return out, errDelta(delta)
	}
	relTol := calRelTol
	if b != nil {
		relTol = b.relTol
	}
	var best Estimate // the Estimate at the σ returned (hi)
	evals := 0
	gridCapAt := 0.0 // the largest σ whose grid did not fit the cap
	f := func(s float64) (float64, error) {
		evals++
		r, err := c.Account(build(s), delta)
		if b != nil && errors.Is(err, ErrPrecision) {
			// A capped search reads "beyond numerical precision" (PRV at
			// tiny δ) as the grid cap: that σ cannot be certified.
			err = fmt.Errorf("%w: %w", ErrGridCap, err)
		}
		if errors.Is(err, ErrGridCap) && s > gridCapAt {
			gridCapAt = s
		}
		if errors.Is(err, ErrInfinite) || errors.Is(err, ErrGridCap) {
			return math.Inf(1), nil // no (representable) bound: not met
		}
		if err == nil && r.Value <= targetEps {
			best = r
		}
		return r.Value, err
	}
	exhausted := func() bool { return b != nil && evals >= b.maxEvals }
	guess := 1.0
	if useGuess && (c.Kind == KindPLD || c.Kind == KindPRV) {
		if b != nil {
			// The capped RDP solve also answers σ = 0 when no noise is
			// needed (q = 0): then try σ = 0 under c at once.
			rb := &calBudget{maxEvals: calMaxIter, relTol: calRelTol}
			g, err := calibrateCore(build, targetEps, delta, Config{Kind: KindRDP, Neighbouring: c.Neighbouring, LaplacePanels: calCapPanels}, false, rb)
			if err == nil && g.Sigma == 0 {
				evals++
				if r, err := c.Account(build(0), delta); err == nil && r.Value <= targetEps {
					return Calibration{Sigma: 0, Estimate: r, Evals: evals,
						Note: fmt.Sprintf("ε = %s ≤ target even without noise: every σ ≥ 0 meets it", fmtEps(r.Value))}, nil
				}
				g.Sigma = calMinSigma
			}
			if err == nil {
				guess = g.Sigma
			}
		} else if g, err := calibrate(build, targetEps, delta, Config{Kind: KindRDP, Neighbouring: c.Neighbouring}, false); err == nil {
			guess = g
		} else {
			if g, err := calibrate(build, targetEps, delta, Config{Kind: KindPLD, Neighbouring: c.Neighbouring, PLD: PLDOptions{Interval: 1e-2}}, false); err == nil {
				guess = g
			}
		}
	}
	guess = math.Min(calMaxSigma, math.Max(calMinSigma, guess))
	// capped returns hi when the budget ran out with a σ that meets the
	// target, else an error wrapping ErrGridCap.
	capped := func(hi float64, haveHi bool) (Calibration, error) {
		if !haveHi {
			return Calibration{Evals: evals}, fmt.Errorf("%w: the σ solve under the %v accountant stopped after %d evaluations (its work cap) before any σ met target ε = %g", ErrGridCap, c.Kind, evals, targetEps)
		}
		note := fmt.Sprintf("σ solve stopped at its work cap (%d evaluations): this σ meets the target, a smaller one may too", evals)
		if gridCapAt > 0 {
			note += fmt.Sprintf(" (at σ = %.4g the %v grid exceeded its %d-point cap)", gridCapAt, c.Kind, c.WorkPoints)
		}
		return Calibration{Sigma: hi, Estimate: best, Evals: evals, Capped: true, Note: note}, nil
	}
	// Bracket: ε(lo) > target ≥ ε(hi). The steps grow ×1.05, ×1.1, … up
	// to ×2 (×16 in a capped search, whose evaluations are counted).
	maxStep := 2.0
	if b != nil && b.maxEvals < calMaxIter {
		maxStep = 16
	}
	lo, hi := guess, guess
	e, err := f(guess)
	if err != nil {
		return out, err
	}
	var elo, ehi float64
	if e <= targetEps {
		ehi = e
		for r := 1.05; ; r = math.Min(r*r, maxStep) {
			s := hi / r
			if s < calMinSigma {
				if b != nil {
					return calFloor(build, targetEps, delta, c, hi, best, evals)
				}
				return out, fmt.Errorf("target ε = %g is met even at σ = %g (ε = %.4g): the noise level is not determined by this target", targetEps, hi, ehi)
			}
			if exhausted() {
				return capped(hi, true)
			}
			es, err := f(s)
			if err != nil {
				return out, err
			}
			if es > targetEps {
				lo, elo = s, es
				break
			}
			hi, ehi = s, es
		}
	} else {
		elo = e
		for r := 1.05; ; r = math.Min(r*r, maxStep) {
			s := lo * r
			if s > calMaxSigma {
				if b != nil && gridCapAt > 0 {
					return Calibration{Evals: evals}, fmt.Errorf("%w: no σ ≤ %g could be certified to meet target ε = %g under the %v accountant within its work cap", ErrGridCap, lo, targetEps, c.Kind)
				}
				return out, fmt.Errorf("%w: target ε = %g at δ = %g: even σ = %g gives ε = %s under the %v accountant", ErrUnreachable, targetEps, delta, lo, fmtEps(elo), c.Kind)
			}
			if exhausted() {
				return capped(0, false)
			}
			es, err := f(s)
			if err != nil {
				return out, err
			}
			if es <= targetEps {
				hi, ehi = s, es
				break
			}
			lo, elo = s, es
		}
	}
	// Narrow: Illinois on g(u) = ε(e^u) − target, u = log σ.
	ulo, uhi := math.Log(lo), math.Log(hi)
	shi := hi // the σ evaluated at uhi (returned as is, not re-derived)
	glo, ghi := elo-targetEps, ehi-targetEps
	side := 0 // which end was kept last time (−1 lo, +1 hi)
	// epsHi is ε at the hi end. When it is 0 the accountant's ε has hit
	// its floor (the conversions clamp at 0): ε(σ) is flat there, a
	// secant through the floor points at the hi end every time, and
	// regula falsi would creep towards the root by 1% of the bracket per
	// evaluation (a target of 1e-300 took ~65 evaluations, seconds under
	// RDP at σ ≈ 2e5). The search then bisects.
	epsHi := ehi
	for it := 0; uhi-ulo > math.Log1p(relTol) && it < 200; it++ {
		if exhausted() {
			return capped(shi, true)
		}
		w := uhi - ulo
		u := 0.5 * (ulo + uhi)
		if !math.IsInf(glo, 1) && glo > ghi && it%4 != 3 && epsHi > 0 {
			u = ulo + w*glo/(glo-ghi)
			// stay strictly inside, at least a sliver from either end
			u = math.Min(uhi-0.01*w, math.Max(ulo+0.01*w, u))
		}
		s := math.Exp(u)
		es, err := f(s)
		if err != nil {
			return out, err
		}
		gs := es - targetEps
		if gs > 0 {
			ulo, glo = u, gs
			if side == -1 {
				ghi /= 2 // Illinois: the hi end stagnates
			}
			side = -1
		} else {
			uhi, ghi, shi, epsHi = u, gs, s, es
			if side == 1 && !math.IsInf(glo, 1) {
				glo /= 2
			}
			side = 1
		}
	}
	out = Calibration{Sigma: shi, Estimate: best, Evals: evals}
	if gridCapAt > 0 && b != nil {
		out.Note = fmt.Sprintf("at σ = %.4g the %v grid exceeded its work cap (%d points) and counted as not meeting the target: this σ meets it, a smaller one may too", gridCapAt, c.Kind, c.WorkPoints)
	}
	return out, nil
}

// TightestConfigs lists the accountants CalibrateTightest tries by
// default under nb: the exact curve, PLD (interval 1e-4) and PRV (ε error
// 0.01), both with the DefaultWorkPoints work cap, and RDP with the
// improved conversion.
func TightestConfigs(nb Neighbouring) []Config {
	return []Config{
		{Kind: KindExact, Neighbouring: nb},
		{Kind: KindPLD, Neighbouring: nb, WorkPoints: DefaultWorkPoints},
		{Kind: KindPRV, Neighbouring: nb, WorkPoints: DefaultWorkPoints},
		{Kind: KindRDP, Neighbouring: nb, Conversion: Improved},
	}
}

// CalibrateTightest returns the smallest noise multiplier σ that meets
// the target ε at δ under any of the accountants cs (TightestConfigs(AddRemove)
// when cs is nil) that support build's events, and the Config that gave
// it. Every accountant's value is an upper bound on the true ε, so each
// calibrated σ suffices, and the smallest is the tightest calibratable
// one: no fixed order of preference can be right at every step count
// (a PLD or PRV grid that hits its cap at 10⁶ steps is looser than RDP
// there, while at 10³ steps it is the tighter). When the exact curve
// supports the events its σ is returned at once: no upper bound can need
// less noise than the truth. Accountants that cannot answer (unsupported,
// unreachable, a grid cap) are skipped; if none answers, the error of the
// first is returned (wrapping ErrUnreachable when every accountant that
// supports the events failed to reach the target).
func CalibrateTightest(build func(sigma float64) Event, targetEps, delta float64, cs []Config) (sigma float64, used Config, err error) {
	if cs == nil {
		cs = TightestConfigs(AddRemove)
	}
	probe := build(1)
	best := math.Inf(1)
	var firstErr error
	for _, c := range cs {
		if err := c.Supported(probe); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%v: %w", c.Kind, err)
			}
			continue
		}
		s, err := Calibrate(build, targetEps, delta, c)
		if err != nil {
			if firstErr == nil || (errors.Is(firstErr, ErrUnsupported) && !errors.Is(err, ErrUnsupported)) {
				firstErr = fmt.Errorf("%v: %w", c.Kind, err)
			}
			continue
		}
		if s < best {
			best, used = s, c
		}
		if c.Kind == KindExact {
			break
		}
	}
	if math.IsInf(best, 1) {
		if firstErr == nil {
			firstErr = errors.New("no accountant to calibrate with")
		}
		return 0, Config{}, firstErr
	}
	return best, used, nil
}

// fmtEps formats ε for messages: 4 significant digits, ∞ for +Inf.
func fmtEps(e float64) string {
	if math.IsInf(e, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.4g", e)
}
