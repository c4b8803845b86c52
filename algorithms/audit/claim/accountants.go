package claim

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// Method names, in the order reports list them.
const (
	MRDP          = "rdp"
	MRDPClassic   = "rdp-classic"
	MPLD          = "pld"
	MPRV          = "prv"
	MZCDP         = "zcdp"
	MZCDPClassic  = "zcdp-classic"
	MExact        = "exact"
	MPure         = "pure"
	MOptimal      = "optimal-composition"
	MVisibleExact = "visible-exact"
	// MUnbounded names the proof that ε = ∞ (a step without noise); it is
	// not an accountant and not in Methods.
	MUnbounded     = "unbounded-loss"
	methodsInOrder = "rdp rdp-classic pld prv zcdp zcdp-classic exact pure optimal-composition visible-exact"
)

// Methods lists the method names in report order.
var Methods = strings.Fields(methodsInOrder)

// Orders returns the RDP order grid of a name (see Accounting.RDPOrders).
func Orders(name string) ([]float64, error) {
	switch name {
	case "", "opacus":
		return accountant.DefaultOrders(), nil
	case "dp-accounting":
		var o []float64
		for x := 1; x <= 99; x++ {
			o = append(o, 1+float64(x)/10)
		}
		for a := 11; a <= 63; a++ {
			o = append(o, float64(a))
		}
		return append(o, 128, 256, 512, 1024), nil
	case "tf-privacy":
		o := []float64{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5}
		for a := 5; a <= 63; a++ {
			o = append(o, float64(a))
		}
		return append(o, 128, 256, 512), nil
	case "integer":
		var o []float64
		for a := 2; a <= 64; a++ {
			o = append(o, float64(a))
		}
		return o, nil
	}
	return nil, fmt.Errorf("rdp_orders %q: want opacus, dp-accounting, tf-privacy or integer", name)
}

// numerics are the accountants' options for one claim.
type numerics struct {
	orders   []float64
	interval float64
	epsErr   float64
	trials   int
	// workPoints is accountant.Config.WorkPoints (0: no cap).
	workPoints int
}

func (c *Claim) numerics(o Options, over *Accounting) (numerics, error) {
	a := c.Accounting
	if over != nil {
		if over.RDPOrders.S != "" {
			a.RDPOrders = over.RDPOrders
		}
		for _, f := range []struct{ dst, src *Value }{{&a.PLDInterval, &over.PLDInterval}, {&a.PRVEpsError, &over.PRVEpsError}, {&a.EmpiricalTrials, &over.EmpiricalTrials}} {
			if f.src.Set {
				*f.dst = *f.src
			}
		}
	}
	var n numerics
	var err error
	switch {
	case o.WorkPoints == 0:
		n.workPoints = DefaultWorkPoints
	case o.WorkPoints > 0:
		n.workPoints = o.WorkPoints
	}
	if n.orders, err = Orders(a.RDPOrders.S); err != nil {
		return n, lineErr(a.RDPOrders.Line, "%v", err)
	}
	n.interval = 1e-4
	if v := a.PLDInterval; v.Set {
		if v.IsFormula() || !(v.Num > 0 && v.Num <= 1) {
			return n, lineErr(v.Line, "accounting.pld_interval: want a number in (0, 1]")
		}
		n.interval = v.Num
	}
	if o.PLDInterval > 0 {
		n.interval = o.PLDInterval
	}
	n.epsErr = 0.01
	if v := a.PRVEpsError; v.Set {
		if v.IsFormula() || !(v.Num > 0) {
			return n, lineErr(v.Line, "accounting.prv_eps_error: want a number > 0")
		}
		n.epsErr = v.Num
	}
	if v := a.EmpiricalTrials; v.Set {
		if v.IsFormula() || v.Num != math.Trunc(v.Num) || v.Num < 2 || v.Num > 1e7 {
			return n, lineErr(v.Line, "accounting.empirical_trials: want a whole number in 2 … 1e7")
		}
		n.trials = int(v.Num)
	}
	return n, nil
}

func (n numerics) config(method string, nb accountant.Neighbouring) accountant.Config {
	c := accountant.Config{Neighbouring: nb, Orders: n.orders, WorkPoints: n.workPoints}
	switch method {
	case MRDP:
		c.Kind = accountant.KindRDP
	case MRDPClassic:
		c.Kind, c.Conversion = accountant.KindRDP, accountant.Classic
	case MPLD:
		c.Kind, c.PLD = accountant.KindPLD, accountant.PLDOptions{Interval: n.interval}
	case MPRV:
		c.Kind, c.PRV = accountant.KindPRV, accountant.PRVOptions{EpsError: n.epsErr}
	case MZCDP:
		c.Kind = accountant.KindZCDP
	case MZCDPClassic:
		c.Kind, c.Conversion = accountant.KindZCDP, accountant.Classic
	case MExact:
		c.Kind = accountant.KindExact
	case MPure:
		c.Kind = accountant.KindPure
	}
	return c
}

// result is one method's answer for one resolved reading.
type result struct {
	val, lower, est, order float64
	interval               float64 // PLD grid used
	hasLower, hasEst       bool
	// upperOnly: a sound upper bound of a mechanism the method does not
	// model exactly (the visible mixture on a hidden reading).
	upperOnly bool
	// fallback: the method hit its work cap and val is the RDP upper
	// bound the accountant fell back to (valid, but not this method's
	// figure); note says so. A note without fallback says what the cap
	// changed (a coarser PLD grid, a larger PRV ε error).
	fallback bool
	note     string
	err      error // nil, ErrInfinite (val = +Inf) or why n/a
}

func (r result) ok() bool { return r.err == nil || errors.Is(r.err, accountant.ErrInfinite) }

// pureOnly reports whether every phase is a stated pure-DP guarantee.
func (r resolved) pureOnly() bool {
	for _, p := range r.phases {
		if p.mech != "pure-dp" {
			return false
		}
	}
	return true
}

// visible reports whether some phase's participation is seen by the
// adversary.
func (r resolved) visible() bool {
	for _, p := range r.phases {
		if p.visible {
			return true
		}
	}
	return false
}

// leakProbability is the probability that the record takes part in a
// step without noise (noise multiplier 0: σ = 0, or no clipping), and
// whether the reading has such a step. On that event the output reveals
// the record's contribution exactly: the output distributions of the two
// neighbours have disjoint supports there, so δ(ε) ≥ P for every ε and
// no finite ε holds at δ < P. With phases i of per-step inclusion
// probability q_i and T_i steps, P = 1 − Π_i (1 − q_i)^{T_i}.
func (r resolved) leakProbability() (float64, bool) {
	var logNone float64
	has := false
	for _, p := range r.phases {
		if !p.noiseScaled() || p.z != 0 {
			continue
		}
		has = true
		if p.q >= 1 {
			return 1, true
		}
		logNone += float64(p.steps) * math.Log1p(-p.q)
	}
	return -math.Expm1(logNone), has
}

// hiddenPoissonGaussian returns the single Gaussian phase with
// independent (Poisson) participation hidden from the adversary, q < 1.
func (r resolved) hiddenPoissonGaussian() (phase, bool) {
	if len(r.phases) != 1 {
		return phase{}, false
	}
	p := r.phases[0]
	if p.visible || p.mech != "gaussian" || p.q >= 1 || !(p.sampling == "poisson" || (p.sampling == "clients" && p.rule == "poisson")) {
		return phase{}, false
	}
	return p, true
}

// visibleGaussian returns the single Gaussian phase with visible
// participation, if that is what the reading is.
func (r resolved) visibleGaussian() (phase, bool) {
	if len(r.phases) == 1 && r.phases[0].visible && r.phases[0].mech == "gaussian" {
		return r.phases[0], true
	}
	return phase{}, false
}

func effZ(z float64, nb accountant.Neighbouring) float64 {
	if nb == accountant.ReplaceOne {
		return z / 2
	}
	return z
}

// methods runs every method on a resolved reading, at the printed noise
// parameters or an end of their precision (fav).
func (n numerics) methods(r resolved, fav int) map[string]result {
	out := map[string]result{}
	na := func(format string, a ...any) result {
		return result{err: fmt.Errorf("%w: %s", accountant.ErrUnsupported, fmt.Sprintf(format, a...))}
	}
	if r.pureOnly() {
		var sum, rho float64
		for _, p := range r.phases {
			_, _, e0 := p.at(fav)
			sum += float64(p.steps) * e0
			rho += float64(p.steps) * e0 * e0 / 2
		}
		out[MPure] = result{val: sum, est: sum}
		for _, m := range []string{MRDP, MRDPClassic, MPLD, MPRV, MExact} {
			out[m] = na("a stated pure-DP guarantee is not a mechanism these accountants model")
		}
		if r.delta > 0 {
			for _, m := range []struct {
				name string
				conv accountant.Conversion
			}{{MZCDP, accountant.Improved}, {MZCDPClassic, accountant.Classic}} {
				e, a, err := accountant.ZCDPEpsilon(rho, 0, r.delta, m.conv)
				out[m.name] = result{val: e, est: e, order: a, err: err}
			}
			if len(r.phases) == 1 {
				p := r.phases[0]
				_, _, e0 := p.at(fav)
				e := optimalCompositionEpsilon(e0, p.steps, r.delta)
				out[MOptimal] = result{val: e, est: e}
			} else {
				out[MOptimal] = na("the optimal composition is computed for one homogeneous phase only")
			}
		} else {
			out[MZCDP], out[MZCDPClassic] = na("δ = 0"), na("δ = 0")
			out[MOptimal] = result{val: sum, est: sum}
		}
		out[MVisibleExact] = na("participation is not visible")
		return out
	}
	for _, ph := range r.phases {
		if ph.mech == "pure-dp" {
			for _, m := range Methods {
				out[m] = na("pure-dp phases cannot be composed with noise mechanisms here")
			}
			return out
		}
	}
	e := r.event(1, fav)
	for _, m := range []string{MRDP, MRDPClassic, MPLD, MPRV, MZCDP, MZCDPClassic, MExact, MPure} {
		if r.delta == 0 && m != MPure {
			out[m] = na("δ = 0: only pure DP applies")
			continue
		}
		if rdp := out[MRDP]; (m == MPLD || m == MPRV) && rdp.err == nil && rdp.val/n.interval > MaxGridRange {
			out[m] = na("skipped: RDP already bounds ε by %.4g, and a loss grid of step %g over that range would need more than %.0g points", rdp.val, n.interval, MaxGridRange)
			continue
		}
		cfg := n.config(m, r.nb)
		if err := cfg.Supported(e); err != nil {
			out[m] = result{err: err}
			continue
		}
		est, err := account(cfg, e, r.delta)
		if est.Fallback && err != nil && !errors.Is(err, accountant.ErrInfinite) {
			// Work cap reached: keep the valid upper bound the accountant
			// fell back to, marked as such.
			out[m] = result{val: est.Value, est: est.Value, fallback: true, note: oneLine(est.Note)}
			continue
		}
		res := result{val: est.Value, est: est.Estimate, order: est.Order, interval: est.Interval, note: oneLine(est.Note), err: err}
		switch m {
		case MPRV:
			res.lower, res.hasLower, res.hasEst = est.Lower, true, true
		case MExact:
			res.lower, res.hasLower = est.Value, true
		}
		switch {
		case errors.Is(err, accountant.ErrInfinite):
			// ∞ whatever the estimate fields hold; an infinite bound proves
			// nothing from below (the unbounded-loss proof is separate).
			res = result{val: math.Inf(1), est: math.Inf(1), err: err}
		case err != nil:
			res = result{err: err}
		case r.visible():
			// Under visible participation the event takes every step as
			// taken: an upper bound of the mechanism that ran, whose exact
			// value or PRV lower bound is no lower bound of it.
			res.hasLower, res.lower = false, 0
		}
		out[m] = res
	}
	out[MOptimal] = na("no stated pure-DP guarantee")
	p, visible := r.visibleGaussian()
	if !visible {
		p, _ = r.hiddenPoissonGaussian()
	}
	if p.mech == "gaussian" && r.delta > 0 {
		z, _, _ := p.at(fav)
		lo, hi, err := visibleEpsilonBounds(effZ(z, r.nb), p.q, p.steps, r.delta)
		switch {
		case errors.Is(err, accountant.ErrInfinite):
			out[MVisibleExact] = result{val: math.Inf(1), est: math.Inf(1), err: err}
		case err != nil:
			out[MVisibleExact] = result{err: err}
		case visible:
			out[MVisibleExact] = result{val: hi, est: hi, lower: lo, hasLower: true}
		default:
			// Hidden participation is a post-processing of visible
			// participation (forget who took part): the mixture bounds the
			// hidden mechanism from above, not from below. It can be the
			// tightest bound where the sampled accountants are loose
			// (Fed-α-NormEC's tiny noise: 1.6e5 against RDP's 4.8e5).
			out[MVisibleExact] = result{val: hi, est: hi, upperOnly: true}
		}
	} else {
		out[MVisibleExact] = na("participation is not visible (or not a single Gaussian phase)")
	}
	// Under visible participation the other accountants see every step
	// as taken: sound but loose; the exact mixture is the answer.
	return out
}

// average combines per-value results: the mean of each quantity, or the
// first error.
func average(rs []map[string]result) map[string]result {
	out := map[string]result{}
	for _, m := range Methods {
		var acc result
		acc.hasLower, acc.hasEst = true, true
		for i, r := range rs {
			x := r[m]
			if !x.ok() {
				acc = result{err: x.err}
				break
			}
			if i == 0 {
				acc.err = x.err
			}
			if errors.Is(x.err, accountant.ErrInfinite) {
				acc.err = x.err
			}
			k := float64(len(rs))
			acc.val += x.val / k
			acc.est += x.est / k
			acc.lower += x.lower / k
			acc.hasLower = acc.hasLower && x.hasLower
			acc.hasEst = acc.hasEst && x.hasEst
			acc.upperOnly = acc.upperOnly || x.upperOnly
			acc.fallback = acc.fallback || x.fallback
			if acc.note == "" {
				acc.note = x.note
			}
		}
		if len(rs) == 1 {
			acc.order = rs[0][m].order
		}
		for _, r := range rs {
			acc.interval = math.Max(acc.interval, r[m].interval)
		}
		out[m] = acc
	}
	return out
}

// errAccountantFailed marks an accountant that panicked: the audit
// reports the method as unavailable rather than crashing.
var errAccountantFailed = errors.New("the accountant failed")

// safeAccount is cfg.Account with a panic turned into an error.
func safeAccount(cfg accountant.Config, e accountant.Event, delta float64) (est accountant.Estimate, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w (%s accountant panicked: %v)", errAccountantFailed, cfg.Kind, p)
		}
	}()
	return cfg.Account(e, delta)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
