package claim

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// calibrate finds the noise scale at which the claimed ε holds: it
// calibrates under every accountant valid for the reading (the exact
// curve, PLD, PRV's upper bound, RDP, zCDP, and the visible-participation
// mixture; pure DP at δ = 0) and returns the smallest scale with the
// accountant that gives it, since each is a sound upper bound and the
// claim needs only one to certify it. Accountants differ in where they
// are tight — at 10⁶ steps a PLD grid of 1e-3 accumulates far more
// discretization error than RDP's conversion — so no fixed order is the
// tightest everywhere. An exact curve (the composed Gaussian, the
// visible-participation mixture) that calibrates ends the search: no
// sound bound lies below it. The work is bounded: each calibration is a
// bracketed search of a few dozen evaluations, PLD runs on a grid of at
// least CalibrationInterval and only up to PLDCalibrationMaxSteps
// composed steps, PRV only up to PRVCalibrationMaxSteps, and the visible
// mixture on at most visibleMaxTerms
// blocks.
func calibrate(rs []resolved, n numerics, target float64) *Calibration {
	r0 := rs[0]
	for _, p := range r0.phases {
		if !p.noiseScaled() {
			return &Calibration{Note: "n/a: a stated guarantee has no noise to scale"}
		}
	}
	for _, r := range rs {
		if _, zero := r.leakProbability(); zero {
			return &Calibration{Note: "n/a: a step has no noise (multiplier 0, or no clipping): no scale of zero noise meets any ε"}
		}
	}
	z := commonMultiplier(rs)
	out := func(method string, k float64) *Calibration {
		c := &Calibration{Method: method, Scale: k}
		if z > 0 && len(rs) == 1 {
			c.Multiplier = k * z
		}
		return c
	}
	var best *Calibration
	var why []string
	try := func(method string, k float64, err error) {
		if err != nil {
			why = append(why, method+": "+oneLine(reason(err)))
			return
		}
		if best == nil || k < best.Scale {
			best = out(method, k)
		}
	}
	if p, ok := r0.visibleGaussian(); ok && r0.delta > 0 {
		f := func(k float64) (float64, error) {
			var s float64
			for _, r := range rs {
				e, err := visibleEpsilon(effZ(r.phases[0].z*k, r.nb), p.q, p.steps, r.delta)
				if err != nil && !errors.Is(err, accountant.ErrInfinite) {
					return 0, err
				}
				s += e
			}
			return s / float64(len(rs)), nil
		}
		k, err := bisectScale(f, target)
		try(MVisibleExact, k, err)
		// The mixture is exact: every other accountant models every step
		// as taken and can only ask for more noise (or reach no target
		// the mixture cannot).
		if best != nil {
			return best
		}
		if errors.Is(err, accountant.ErrUnreachable) {
			return &Calibration{Note: "n/a: " + strings.Join(why, "; ")}
		}
	}
	e1 := r0.event(1, atPrinted)
	// Calibration evaluates the PLD a dozen times at other noise levels,
	// where a fine grid can take seconds: it uses at most 1e-3 (a
	// pessimistic discretization that moves ε by ~0.1%).
	n.interval = math.Max(n.interval, CalibrationInterval)
	for _, m := range []string{MExact, MPLD, MPRV, MRDP, MZCDP, MPure} {
		if (r0.delta == 0) != (m == MPure) {
			continue
		}
		if best != nil && best.Method == MExact {
			break // the exact curve is the tightest: no sound bound is below it
		}
		cfg := n.config(m, r0.nb)
		if cfg.Supported(e1) != nil {
			continue
		}
		if m == MPRV && r0.totalSteps() > PRVCalibrationMaxSteps {
			why = append(why, fmt.Sprintf("prv: not calibrated beyond %.0e composed steps", float64(PRVCalibrationMaxSteps)))
			continue
		}
		if m == MPLD && r0.totalSteps() > PLDCalibrationMaxSteps {
			why = append(why, fmt.Sprintf("pld: not calibrated beyond %.0e composed steps", float64(PLDCalibrationMaxSteps)))
			continue
		}
		if len(rs) == 1 && r0.delta > 0 {
			// Search the noise multiplier itself when the phases share one
			// (so equal procedures share the answer), else a common scale.
			z0 := z
			if z0 == 0 {
				z0 = 1
			}
			// Normalise each phase's multiplier by z0 first (exactly 1 when
			// the phases share it), so that the σ searched is the
			// multiplier itself, bit for bit: claims whose procedures
			// differ only in the noise then build identical events and
			// share the memoised answer whichever audits first.
			norm := r0
			norm.phases = append([]phase(nil), r0.phases...)
			for i := range norm.phases {
				norm.phases[i].z /= z0
			}
			s, err := calibrateMemo(norm.event(1, atPrinted).String(), func(s float64) accountant.Event { return norm.event(s, atPrinted) }, target, r0.delta, cfg)
			try(m, s/z0, err)
			if m == MExact && errors.Is(err, accountant.ErrUnreachable) {
				break // no sound bound lies below the exact curve
			}
			continue
		}
		f := func(k float64) (float64, error) {
			var s float64
			for _, r := range rs {
				est, err := account(cfg, r.event(k, atPrinted), r.delta)
				if errors.Is(err, accountant.ErrInfinite) || errors.Is(err, accountant.ErrGridCap) {
					return math.Inf(1), nil // no (representable) bound: not met
				}
				if err != nil {
					return 0, err
				}
				s += est.Value
			}
			return s / float64(len(rs)), nil
		}
		k, err := bisectScale(f, target)
		try(m, k, err)
	}
	if best == nil {
		if len(why) == 0 {
			return &Calibration{Note: "n/a: no accountant supports this reading"}
		}
		return &Calibration{Note: "n/a: " + strings.Join(why, "; ")}
	}
	return best
}

// safeCalibrate is accountant.Calibrate with a panic turned into an error.
func safeCalibrate(build func(float64) accountant.Event, target, delta float64, cfg accountant.Config) (k float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w (%s accountant panicked: %v)", errAccountantFailed, cfg.Kind, p)
		}
	}()
	return accountant.Calibrate(build, target, delta, cfg)
}

// PRVCalibrationMaxSteps bounds the compositions under which the PRV
// accountant is calibrated: its grid grows with the step count, and at
// 900,000 steps one evaluation takes 15–30 s (measured on the Haar
// readings), so a calibration would take minutes. Beyond it the needed
// noise is the smallest of the exact curve, PLD and RDP.
const PRVCalibrationMaxSteps = 100_000

// PLDCalibrationMaxSteps bounds the compositions under which the PLD
// accountant is calibrated: beyond it one evaluation's self-composition
// takes seconds, and a grid of 1e-3 accumulates so much pessimistic
// discretization error that RDP needs less noise anyway (10⁶ steps at
// q = 0.01, ε = 1.26: PLD 73, RDP 32.7).
const PLDCalibrationMaxSteps = 1_000_000

// totalSteps is the number of composed steps of the reading.
func (r resolved) totalSteps() int {
	t := 0
	for _, p := range r.phases {
		t += p.steps
	}
	return t
}

// CalibrationInterval is the coarsest PLD discretization used to find
// the noise a claim needs.
const CalibrationInterval = 1e-3

// bisectScale returns the smallest k in [1e-3, 1e6] (relative precision
// 1e-6) with f(k) ≤ target, for f non-increasing; the returned k meets
// the target.
func bisectScale(f func(float64) (float64, error), target float64) (float64, error) {
	lo, hi := 1.0, 1.0
	e, err := f(1)
	if err != nil {
		return 0, err
	}
	if e <= target {
		for {
			lo = hi / 2
			if lo < 1e-3 {
				return 0, fmt.Errorf("target ε = %g is met even at 1e-3 of the noise", target)
			}
			el, err := f(lo)
			if err != nil {
				return 0, err
			}
			if el > target {
				break
			}
			hi = lo
		}
	} else {
		for {
			lo, hi = hi, hi*2
			if hi > 1e6 {
				return 0, fmt.Errorf("%w: target ε = %g not met at 1e6 × the noise", accountant.ErrUnreachable, target)
			}
			eh, err := f(hi)
			if err != nil {
				return 0, err
			}
			if eh <= target {
				break
			}
		}
	}
	for hi/lo > 1+1e-6 {
		mid := math.Sqrt(lo * hi)
		em, err := f(mid)
		if err != nil {
			return 0, err
		}
		if em > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}
