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

func calibrate(build func(sigma float64) Event, targetEps, delta float64, c Config, useGuess bool) (float64, error) {
	if !(targetEps > 0) || math.IsInf(targetEps, 1) {
		return 0, fmt.Errorf("target ε = %v: want a finite value > 0", targetEps)
	}
	if !(delta > 0 && delta < 1) {
		return 0, errDelta(delta)
	}
	f := func(s float64) (float64, error) {
		eps, _, err := c.Epsilon(build(s), delta)
		if errors.Is(err, ErrInfinite) || errors.Is(err, ErrGridCap) {
			return math.Inf(1), nil // no (representable) bound: not met
		}
		return eps, err
	}
	guess := 1.0
	if useGuess && (c.Kind == KindPLD || c.Kind == KindPRV) {
		if g, err := calibrate(build, targetEps, delta, Config{Kind: KindRDP, Neighbouring: c.Neighbouring}, false); err == nil {
			guess = g
		} else if g, err := calibrate(build, targetEps, delta, Config{Kind: KindPLD, Neighbouring: c.Neighbouring, PLD: PLDOptions{Interval: 1e-2}}, false); err == nil {
			guess = g
		}
	}
	guess = math.Min(calMaxSigma, math.Max(calMinSigma, guess))
	// Bracket: ε(lo) > target ≥ ε(hi).
	lo, hi := guess, guess
	e, err := f(guess)
	if err != nil {
		return 0, err
	}
	var elo, ehi float64
	if e <= targetEps {
		ehi = e
		for r := 1.05; ; r = math.Min(r*r, 2) {
			s := hi / r
			if s < calMinSigma {
				return 0, fmt.Errorf("target ε = %g is met even at σ = %g (ε = %.4g): the noise level is not determined by this target", targetEps, hi, ehi)
			}
			es, err := f(s)
			if err != nil {
				return 0, err
			}
			if es > targetEps {
				lo, elo = s, es
				break
			}
			hi, ehi = s, es
		}
	} else {
		elo = e
		for r := 1.05; ; r = math.Min(r*r, 2) {
			s := lo * r
			if s > calMaxSigma {
				return 0, fmt.Errorf("%w: target ε = %g at δ = %g: even σ = %g gives ε = %s under the %v accountant", ErrUnreachable, targetEps, delta, lo, fmtEps(elo), c.Kind)
			}
			es, err := f(s)
			if err != nil {
				return 0, err
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
	for it := 0; uhi-ulo > math.Log1p(calRelTol) && it < 200; it++ {
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
			return 0, err
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
	return shi, nil
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
