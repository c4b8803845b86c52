package claim

import (
	"errors"
	"fmt"
	"math"
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
	// WorkPoints caps the PLD and PRV grids of every accountant call
	// (accountant.Config.WorkPoints): 0 means DefaultWorkPoints, the cap
	// `fedrepro account --max-points` uses, so that every accountant
	// answers in about a second; a negative value lifts the cap (the
	// accountants' own caps, 2^23 and 2^24 points: tighter figures at up
	// to tens of seconds per call).
	WorkPoints int
}

// DefaultWorkPoints is the engine's work cap (Options.WorkPoints = 0):
// accountant.DefaultWorkPoints, 2^20 points, the CLI's default. A PLD
// grid that does not fit is coarsened (still pessimistic), a PRV ε error
// raised (bounds still proven); where neither fits, the accountant falls
// back to the RDP upper bound (accountant.Estimate.Fallback), which the
// audit shows in that method's row with a note and leaves out of the
// tightest and loosest bounds (the RDP row already carries it).
const DefaultWorkPoints = accountant.DefaultWorkPoints

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
			if x.note != "" {
				est.Note = strings.TrimPrefix(est.Note+"; ", "; ") + "work cap: " + x.note
			}
			if x.fallback {
				est.Order, est.Lower, est.Estimate = nil, nil, nil
				est.Note += " (not used for the tightest or loosest bound: the rdp row carries it)"
			}
		case errors.Is(x.err, accountant.ErrInfinite):
			est.Unbounded = true
			est.Note = "∞: " + reason(x.err)
		default:
			est.Note = "n/a: " + reason(x.err)
		}
		rr.Accountants = append(rr.Accountants, est)
		if !x.ok() || x.fallback {
			continue
		}
		if upper == nil || x.val < upper.Epsilon {
			upper = &Bound{Method: m, Epsilon: x.val}
		}
		// The loosest bound (the conservative rule's yardstick) is taken
		// over the accountants of the mechanism itself, not over a bound of
		// a leakier one (the visible mixture on a hidden reading).
		// Nor over a value a work cap loosened (a coarser PLD grid, a
		// raised PRV ε error): that looseness measures the work budget,
		// not the mechanism, and would hide a conservative claim.
		if !math.IsInf(x.val, 1) && !x.upperOnly && x.note == "" && (loosest == nil || x.val > loosest.Epsilon) {
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
			if x := average(perFav)[upper.Method]; x.ok() && !x.fallback {
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
	case claimed-tol > (1+ConservativeMargin)*loosest.Epsilon:
		// Above the margin at the printed noise, but not at the end of its
		// printed precision that disfavours the claim (the case above
		// needs both).
		rr.Verdict = Consistent
		rr.Reason = fmt.Sprintf("claimed %s", cr.Printed)
		if tol > 0 {
			rr.Reason += fmt.Sprintf(" (−%g printed precision)", tol)
		}
		rr.Reason += fmt.Sprintf(" > %.4g = %g × %.4g by %s, the loosest sound bound at the printed noise, but not above %g × %.4g, its value at the end of the noise's printed precision that disfavours the claim: consistent within that precision (tightest %.4g by %s)",
			(1+ConservativeMargin)*loosest.Epsilon, 1+ConservativeMargin, loosest.Epsilon, loosest.Method, 1+ConservativeMargin, loosestAt(n, rs, loosest, atUnfav), upper.Epsilon, upper.Method)
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
	if !x.ok() || x.fallback {
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
