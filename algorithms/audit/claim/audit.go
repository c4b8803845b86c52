package claim

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// MaxGridRange: when the RDP bound divided by the PLD discretization
// exceeds it, the PLD and PRV accountants are not run — their loss grids
// would need millions of points, and a tighter figure for such an ε
// changes no verdict.
const MaxGridRange = 4e6

// ConservativeMargin is how far (relative) a claim must exceed the
// loosest sound bound computed — at the end of the printed precision of
// the noise that disfavours the claim — to be called conservative. Below
// it, the gap comes from order grids, calibration stopping rules and
// step-count conventions (0.1–1% in the library), not from an overstated
// ε. The optimistic side has no margin: any claim below the tightest
// sound bound, beyond printed precision, is not certified.
const ConservativeMargin = 0.05

// Options tune an audit. The zero value is the full audit.
type Options struct {
	// Seed names the distinguishing game's random streams.
	Seed uint64
	// Quick cuts the distinguishing game's work budget tenfold (its
	// bound is weaker; nothing else changes).
	Quick bool
	// NoEmpirical and NoCalibration skip those parts (equivalence tests).
	NoEmpirical, NoCalibration bool
	// AverageValues, when non-nil, replaces average_over.values (e.g.
	// client sizes read from the data rather than the claim file).
	AverageValues []float64
	// PLDInterval, when > 0, replaces the claim's PLD discretization.
	PLDInterval float64
}

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
	c := accountant.Config{Neighbouring: nb, Orders: n.orders}
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
	err       error // nil, ErrInfinite (val = +Inf) or why n/a
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
		res := result{val: est.Value, est: est.Estimate, order: est.Order, interval: est.Interval, err: err}
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

// caseInputs is one case's procedure and claimed value.
type caseInputs struct {
	name, note, quote string
	claimed           Value
	proc              Procedure
}

func (c *Claim) cases() []caseInputs {
	if len(c.Cases) == 0 {
		return []caseInputs{{claimed: c.ClaimedEpsilon, proc: c.Procedure}}
	}
	var out []caseInputs
	for _, k := range c.Cases {
		cl := c.ClaimedEpsilon
		if k.ClaimedEpsilon.Set {
			cl = k.ClaimedEpsilon
		}
		out = append(out, caseInputs{name: k.Name, note: k.Note, quote: k.Quote, claimed: cl, proc: merge(c.Procedure, k.Procedure)})
	}
	return out
}

// implicitReading names the one reading of a claim that lists none.
const implicitReading = "stated"

func (c *Claim) readings() []Reading {
	if len(c.Readings) == 0 {
		return []Reading{{Name: implicitReading}}
	}
	return c.Readings
}

// tolerance is half a unit of the last printed digit of the claimed ε
// ("printed" rounding) or 0 ("exact").
func (c *Claim) tolerance(v Value) float64 {
	if c.Rounding.S == "exact" {
		return 0
	}
	return 0.5 * math.Pow(10, -float64(v.Decimals()))
}

// Audit audits every case and reading of a decoded claim.
func Audit(c *Claim, o Options) (*Report, error) {
	rep := &Report{SchemaVersion: SchemaVersion, Claim: ClaimInfo{ID: c.ID, Title: c.Title, File: c.file, Paper: c.Paper, Source: c.Source,
		AccountantUsed: c.AccountantUsed.Name.S, Notes: c.Notes}}
	values := []float64(nil)
	if c.AverageOver != nil {
		values = c.AverageOver.Values
		if o.AverageValues != nil {
			values = o.AverageValues
		}
		if len(values) == 0 {
			return nil, fmt.Errorf("%s: average_over has no values", c.file)
		}
	}
	rounding := c.Rounding.S
	if rounding == "" {
		rounding = "printed"
	}
	for ci, k := range c.cases() {
		cr := CaseReport{Case: k.name, Note: k.note, Quote: k.quote, ClaimedEpsilon: k.claimed.Num, Printed: k.claimed.Literal,
			Rounding: rounding, Tolerance: c.tolerance(k.claimed)}
		if nb, err := accountant.ParseNeighbouring(k.proc.Neighbouring.S); err == nil {
			cr.Neighbouring = nb.String()
		}
		for ri, rd := range c.readings() {
			p := merge(k.proc, rd.Procedure)
			var rs []resolved
			if values == nil {
				r, err := resolve(p, k.claimed.Num, nil)
				if err != nil {
					return nil, at(c.file, prefixErr(label(k.name, rd.Name), err))
				}
				rs = append(rs, r)
			} else {
				for _, v := range values {
					r, err := resolve(p, k.claimed.Num, map[string]float64{c.AverageOver.Variable: v})
					if err != nil {
						return nil, at(c.file, prefixErr(label(k.name, rd.Name)+fmt.Sprintf(" (%s = %g)", c.AverageOver.Variable, v), err))
					}
					rs = append(rs, r)
				}
			}
			n, err := c.numerics(o, rd.Accounting)
			if err != nil {
				return nil, at(c.file, prefixErr(label(k.name, rd.Name), err))
			}
			rr, err := auditReading(c, n, o, rs, cr, rd, ci, ri)
			if err != nil {
				return nil, at(c.file, prefixErr(label(k.name, rd.Name), err))
			}
			cr.Readings = append(cr.Readings, rr)
		}
		cr.Verdict, cr.Summary, cr.Headline = combine(cr)
		rep.Cases = append(rep.Cases, cr)
	}
	return rep, nil
}

func label(caseName, reading string) string {
	if caseName == "" && reading == implicitReading {
		return ""
	}
	if caseName == "" {
		return "reading " + reading
	}
	return "case " + caseName + ", reading " + reading
}

func auditReading(c *Claim, n numerics, o Options, rs []resolved, cr CaseReport, rd Reading, ci, ri int) (rr ReadingReport, err error) {
	r0 := rs[0]
	rr = ReadingReport{Reading: rd.Name, Note: rd.Note, BoundOnly: rd.BoundOnly, Procedure: r0.describe(), Unit: r0.unit, Neighbouring: r0.nb.String(), Delta: r0.delta}
	if len(rs) > 1 {
		rr.AveragedOver = len(rs)
		rr.Procedure += fmt.Sprintf(" (averaged over %d values of %s)", len(rs), c.AverageOver.Variable)
	}
	rr.NoiseMultiplier = commonMultiplier(rs)
	per := make([]map[string]result, len(rs))
	for i, r := range rs {
		per[i] = n.methods(r, atPrinted)
	}
	res := average(per)
	claimed, tol := cr.ClaimedEpsilon, cr.Tolerance
	var upper, loosest, lower *Bound
	for _, m := range Methods {
		x := res[m]
		est := Estimate{Method: m, Sound: true}
		switch {
		case x.err == nil:
			est.Epsilon = ptr(x.val)
			if x.hasLower {
				est.Lower = ptr(x.lower)
			}
			if x.hasEst && m == MPRV {
				est.Estimate = ptr(x.est)
			}
			if x.order > 0 {
				est.Order = ptr(x.order)
			}
			if x.interval > 0 {
				est.Interval = ptr(x.interval)
			}
			if x.upperOnly {
				est.Note = "upper bound only: participation is hidden here, a post-processing of the visible mechanism this curve is exact for"
			}
		case errors.Is(x.err, accountant.ErrInfinite):
			est.Unbounded = true
			est.Note = "∞: " + reason(x.err)
		default:
			est.Note = "n/a: " + reason(x.err)
		}
		rr.Accountants = append(rr.Accountants, est)
		if !x.ok() {
			continue
		}
		if upper == nil || x.val < upper.Epsilon {
			upper = &Bound{Method: m, Epsilon: x.val}
		}
		// The loosest bound (the conservative rule's yardstick) is taken
		// over the accountants of the mechanism itself, not over a bound of
		// a leakier one (the visible mixture on a hidden reading).
		if !math.IsInf(x.val, 1) && !x.upperOnly && (loosest == nil || x.val > loosest.Epsilon) {
			loosest = &Bound{Method: m, Epsilon: x.val}
		}
		if x.hasLower && !rd.BoundOnly && !math.IsInf(x.lower, 1) && (lower == nil || x.lower > lower.Epsilon) {
			lower = &Bound{Method: m, Epsilon: x.lower}
			if m == MPRV {
				lower.Method = "prv-lower"
			}
		}
	}
	// A step without noise: ε = ∞ is proven (see leakProbability). It is a
	// property of the procedure, so it holds for a bound-only reading too
	// only as an upper bound.
	leak, leakDelta := 0.0, 0.0
	for _, r := range rs {
		if p, ok := r.leakProbability(); ok && p > r.delta {
			leak, leakDelta = p, r.delta
			break
		}
	}
	if leak > 0 {
		upper = &Bound{Method: MUnbounded, Epsilon: math.Inf(1)}
		loosest = upper
		if !rd.BoundOnly {
			lower = &Bound{Method: MUnbounded, Epsilon: math.Inf(1)}
		}
	}
	if upper == nil {
		var why []string
		for _, e := range rr.Accountants {
			why = append(why, e.Method+" "+e.Note)
		}
		return rr, fmt.Errorf("no accountant bounds this reading (%s)", strings.Join(why, "; "))
	}
	if loosest == nil { // every bound is infinite
		loosest = upper
	}
	// The invariant lower ≤ upper: a proven lower bound above a sound upper
	// bound means an accountant is wrong; the audit then proves nothing.
	if lower != nil && !math.IsInf(upper.Epsilon, 1) && lower.Epsilon > upper.Epsilon*(1+1e-9)+1e-12 {
		rr.Warning = fmt.Sprintf("the lower bound %.6g (%s) exceeds the upper bound %.6g (%s): the accountants disagree, so no refutation is claimed from them", lower.Epsilon, lower.Method, upper.Epsilon, upper.Method)
		lower = nil
	}
	rr.Upper, rr.Loosest, rr.Lower = upper, loosest, lower
	rr.EpsilonRatio = ptr(upper.Epsilon / claimed)
	if claimed == 0 {
		rr.EpsilonRatio = nil
	}
	// Paper's method.
	if pm, err := paperMethod(c, res, rs); err != nil {
		return rr, err
	} else if pm != nil {
		h := 0.5 * math.Pow(10, -float64(decimalsOf(cr.Printed)))
		pm.Matches = math.Abs(pm.Epsilon-claimed) <= h+1e-12 && (cr.Rounding != "exact" || pm.Epsilon <= claimed*(1+1e-12))
		rr.PaperMethod = pm
	}
	// Empirical lower bound.
	switch {
	case o.NoEmpirical:
	case rd.BoundOnly:
		rr.Empirical = &Empirical{Note: "n/a: the reading over-approximates the mechanism (bound_only)"}
	default:
		rr.Empirical = empirical(rs, n, o, fmt.Sprintf("claim/%s/%d/%d", c.ID, ci, ri))
	}
	// Needed noise.
	if !o.NoCalibration && claimed > 0 {
		rr.Needed = calibrate(rs, n, claimed)
	}
	// A reading under another neighbouring relation than the claim's
	// bounds another quantity: said in the verdict, never compared
	// silently.
	prefix := ""
	if cr.Neighbouring != "" && rr.Neighbouring != cr.Neighbouring {
		rr.RelationDiffers = true
		rr.RelationNote = fmt.Sprintf("this reading assumes %s neighbouring, the claim states %s: its ε bounds the other relation (a %s guarantee (ε, δ) gives only (2ε, (1+e^ε)δ) under %s by group privacy), so the verdict holds only if the paper meant %s",
			rr.Neighbouring, cr.Neighbouring, cr.Neighbouring, rr.Neighbouring, rr.Neighbouring)
		prefix = fmt.Sprintf("[%s reading; the claim states %s] ", rr.Neighbouring, cr.Neighbouring)
	}
	defer func() { rr.Reason = prefix + rr.Reason }()
	// Verdict.
	if math.IsInf(upper.Epsilon, 1) {
		rr.Verdict = Optimistic
		rr.EpsilonRatio = nil
		var b strings.Builder
		if leak > 0 {
			fmt.Fprintf(&b, "ε = ∞: a step has no noise (noise multiplier 0, or no clipping), so the record's contribution is released exactly whenever it takes part, with probability %.4g > δ = %g: no finite ε holds", leak, leakDelta)
		} else {
			fmt.Fprintf(&b, "claimed %s is certified by no accountant: every one gives ε = ∞ or does not apply", cr.Printed)
		}
		if rr.Needed != nil && rr.Needed.Scale > 0 && rr.Needed.Multiplier > 0 {
			fmt.Fprintf(&b, "; the claim needs noise multiplier %.4g (%s)", rr.Needed.Multiplier, rr.Needed.Method)
		}
		if lower != nil && math.IsInf(lower.Epsilon, 1) {
			rr.Proven = "lower-bound"
			b.WriteString("; proven false")
		}
		rr.Reason = b.String()
		return rr, nil
	}
	switch {
	case claimed+tol < upper.Epsilon:
		ufav := upper.Epsilon
		if hasRounding(rs) {
			perFav := make([]map[string]result, len(rs))
			for i, r := range rs {
				perFav[i] = n.methods(r, atFav)
			}
			if x := average(perFav)[upper.Method]; x.ok() {
				ufav = x.val
				rr.UpperFavourable = ptr(ufav)
			}
		}
		if claimed+tol >= ufav {
			rr.Verdict = Consistent
			rr.Reason = fmt.Sprintf("claimed %s + %g ≥ %.4g (%s at the favourable end of the printed noise, %.4g at the printed value)", cr.Printed, tol, ufav, upper.Method, upper.Epsilon)
			break
		}
		rr.Verdict = Optimistic
		var b strings.Builder
		fmt.Fprintf(&b, "claimed %s", cr.Printed)
		if tol > 0 {
			fmt.Fprintf(&b, " (+%g printed precision)", tol)
		}
		fmt.Fprintf(&b, " < %.4g by %s, the tightest sound bound: ε ratio %.4g", upper.Epsilon, upper.Method, upper.Epsilon/claimed)
		if rr.Needed != nil && rr.Needed.Scale > 0 {
			if rr.Needed.Multiplier > 0 {
				fmt.Fprintf(&b, "; the claim needs noise multiplier %.4g, not %.4g (σ ratio %.4g, %s)", rr.Needed.Multiplier, rr.NoiseMultiplier, rr.Needed.Scale, rr.Needed.Method)
			} else {
				fmt.Fprintf(&b, "; the claim needs %.4g× the noise (%s)", rr.Needed.Scale, rr.Needed.Method)
			}
		}
		switch {
		case lower != nil && lower.Epsilon > claimed+tol:
			rr.Proven = "lower-bound"
			fmt.Fprintf(&b, "; proven false: %s %.4g > %.4g", lower.Method, lower.Epsilon, claimed+tol)
		case rr.Empirical != nil && rr.Empirical.EpsilonLB != nil && *rr.Empirical.EpsilonLB > claimed+tol:
			rr.Proven = "empirical"
			fmt.Fprintf(&b, "; refuted empirically: ε_LB %.4g > %.4g with %.0f%% confidence", *rr.Empirical.EpsilonLB, claimed+tol, 100*rr.Empirical.Confidence)
		}
		rr.Reason = b.String()
	case claimed-tol > (1+ConservativeMargin)*loosest.Epsilon && claimed-tol > (1+ConservativeMargin)*loosestAt(n, rs, loosest, atUnfav):
		rr.Verdict = Conservative
		rr.Reason = fmt.Sprintf("claimed %s", cr.Printed)
		if tol > 0 {
			rr.Reason += fmt.Sprintf(" (−%g printed precision)", tol)
		}
		rr.Reason += fmt.Sprintf(" > %.4g = %g × %.4g by %s, the loosest sound bound computed; the tightest is %.4g (%s): claimed/tightest = %.4g",
			(1+ConservativeMargin)*loosest.Epsilon, 1+ConservativeMargin, loosest.Epsilon, loosest.Method, upper.Epsilon, upper.Method, claimed/upper.Epsilon)
		if rr.Needed != nil && rr.Needed.Scale > 0 {
			rr.Reason += fmt.Sprintf("; %.4g× the noise would meet it (%s)", rr.Needed.Scale, rr.Needed.Method)
		}
	case claimed-tol > loosest.Epsilon:
		rr.Verdict = Consistent
		rr.Reason = fmt.Sprintf("claimed %s is above every sound bound computed (tightest %.4g by %s, loosest %.4g by %s) by %.2f%% of the loosest, within the %g%% margin before conservative",
			cr.Printed, upper.Epsilon, upper.Method, loosest.Epsilon, loosest.Method, 100*((claimed-tol)/loosest.Epsilon-1), 100*ConservativeMargin)
	default:
		rr.Verdict = Consistent
		rr.Reason = fmt.Sprintf("%.4g (%s, tightest) ≤ claimed %s ≤ %.4g (%s, loosest)", upper.Epsilon, upper.Method, cr.Printed, loosest.Epsilon, loosest.Method)
		if tol > 0 {
			rr.Reason += fmt.Sprintf(" within ±%g", tol)
		}
	}
	return rr, nil
}

// loosestAt recomputes the loosest bound's method at a rounding end (the
// printed value when no literal has a printed precision).
func loosestAt(n numerics, rs []resolved, loosest *Bound, fav int) float64 {
	if !hasRounding(rs) {
		return loosest.Epsilon
	}
	per := make([]map[string]result, len(rs))
	for i, r := range rs {
		per[i] = n.methods(r, fav)
	}
	x := average(per)[loosest.Method]
	if !x.ok() {
		return loosest.Epsilon
	}
	return x.val
}

func decimalsOf(lit string) int { return Value{Literal: lit}.Decimals() }

// hasRounding reports whether some noise parameter is a printed literal
// whose precision could move the bound.
func hasRounding(rs []resolved) bool {
	for _, p := range rs[0].phases {
		if p.zFav != p.z || p.rhoFav != p.rho || p.eps0Fav != p.eps0 || p.zUnfav != p.z {
			return true
		}
	}
	return false
}

// commonMultiplier is the phases' common noise multiplier (mean over
// averaged values), or 0.
func commonMultiplier(rs []resolved) float64 {
	var sum float64
	for _, r := range rs {
		z := -1.0
		for _, p := range r.phases {
			if !p.noiseScaled() || (z >= 0 && p.z != z) {
				return 0
			}
			z = p.z
		}
		sum += z
	}
	return sum / float64(len(rs))
}

// reason strips the sentinel prefixes of an accountant error.
func reason(err error) string {
	s := err.Error()
	for _, p := range []string{accountant.ErrUnsupported.Error() + ": ", accountant.ErrInfinite.Error() + ": "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// paperMethod recomputes the accountant the paper names.
func paperMethod(c *Claim, res map[string]result, rs []resolved) (*PaperMethod, error) {
	name := c.AccountantUsed.Name.S
	from := func(m string) *PaperMethod {
		x := res[m]
		if x.err != nil {
			return nil
		}
		return &PaperMethod{Method: name, Epsilon: x.val}
	}
	switch name {
	case "rdp-classic", "moments":
		return from(MRDPClassic), nil
	case "rdp-improved":
		return from(MRDP), nil
	case "pld":
		return from(MPLD), nil
	case "prv":
		return from(MPRV), nil
	case "zcdp":
		return from(MZCDP), nil
	case "gdp-clt":
		var sum float64
		for _, r := range rs {
			var mu2 float64
			for _, p := range r.phases {
				if p.mech != "gaussian" || p.visible || (p.sampling != "poisson" && p.sampling != "full" && !(p.sampling == "clients" && p.rule == "poisson")) {
					return nil, nil
				}
				mu, err := accountant.PoissonGDPMu(p.q, effZ(p.z, r.nb), p.steps)
				if err != nil {
					return nil, nil
				}
				if p.q == 1 {
					mu = math.Sqrt(float64(p.steps)) / effZ(p.z, r.nb)
				}
				mu2 += mu * mu
			}
			e, err := accountant.GDPEpsilon(math.Sqrt(mu2), r.delta)
			if err != nil {
				return nil, nil
			}
			sum += e
		}
		return &PaperMethod{Method: name, Epsilon: sum / float64(len(rs))}, nil
	case "closed-form":
		f := c.AccountantUsed.Formula
		if !f.Set {
			return nil, nil
		}
		var sum float64
		for _, r := range rs {
			e, err := number(f, "accountant_used.formula", r.env)
			if err != nil {
				return nil, err
			}
			sum += e
		}
		return &PaperMethod{Method: name, Epsilon: sum / float64(len(rs))}, nil
	}
	return nil, nil
}

// combine gives a case's verdict from its readings', and the reading its
// headline rests on: when every reading is optimistic, the one with the
// smallest upper bound (the claim fails even under the reading most
// favourable to it); when every one is conservative, the one with the
// largest loosest bound; otherwise the first reading (the claim file's
// primary one). A reading under another neighbouring relation than the
// case states is labelled so in the summary.
func combine(cr CaseReport) (string, string, *Headline) {
	by := map[string][]string{}
	for _, r := range cr.Readings {
		name := r.Reading
		if r.RelationDiffers {
			name += " (" + r.Neighbouring + ")"
		}
		by[r.Verdict] = append(by[r.Verdict], name)
	}
	pick := 0
	if len(by) == 1 {
		for i, r := range cr.Readings {
			switch r.Verdict {
			case Optimistic:
				if r.Upper.Epsilon < cr.Readings[pick].Upper.Epsilon {
					pick = i
				}
			case Conservative:
				if r.Loosest.Epsilon > cr.Readings[pick].Loosest.Epsilon {
					pick = i
				}
			}
		}
	}
	h := cr.Readings[pick]
	head := &Headline{Reading: h.Reading, Method: h.Upper.Method, Epsilon: ptr(h.Upper.Epsilon), Unbounded: math.IsInf(h.Upper.Epsilon, 1)}
	if len(by) == 1 {
		v := h.Verdict
		switch {
		case len(cr.Readings) == 1:
			head.Why = "the only reading"
			return v, v + ": " + h.Reason, head
		case v == Optimistic:
			head.Why = "the reading most favourable to the claim (smallest upper bound)"
			return v, fmt.Sprintf("%s under every reading (%d), even the most favourable, %s: %s", v, len(cr.Readings), h.Reading, h.Reason), head
		case v == Conservative:
			head.Why = "the reading least favourable to the claim (largest loosest bound)"
			return v, fmt.Sprintf("%s under every reading (%d), even the least favourable, %s: %s", v, len(cr.Readings), h.Reading, h.Reason), head
		}
		head.Why = "the first reading"
		return v, fmt.Sprintf("%s under every reading (%d); %s: %s", v, len(cr.Readings), h.Reading, h.Reason), head
	}
	head.Why = "the first reading; the readings disagree"
	var parts []string
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s under %s", k, strings.Join(by[k], ", ")))
	}
	return Underspecified, "underspecified: the readings disagree — " + strings.Join(parts, "; "), head
}

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
				if errors.Is(err, accountant.ErrInfinite) {
					return math.Inf(1), nil
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

// safeCalibrate is accountant.Calibrate with a panic turned into an error.
func safeCalibrate(build func(float64) accountant.Event, target, delta float64, cfg accountant.Config) (k float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w (%s accountant panicked: %v)", errAccountantFailed, cfg.Kind, p)
		}
	}()
	return accountant.Calibrate(build, target, delta, cfg)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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
