package claim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// randomClaim is one generated claim file: a Gaussian (or Laplace) step
// with Poisson participation, hidden or visible, under add/remove or
// replace-one, with a random claimed ε — the inputs of the verdict
// logic over its whole range, including zero noise and no clipping.
type randomClaim struct {
	Q, Sigma, Delta, Claimed float64
	Steps                    int
	Laplace, Unclipped       bool
	ZeroNoise                bool
	// Readings: bit 0 visible, bit 1 replace-one, for each of 3 readings.
	Readings [3]int
}

func (g randomClaim) yaml() string {
	var b strings.Builder
	b.WriteString(head)
	mech := "gaussian"
	if g.Laplace {
		mech = "laplace"
	}
	sigma := g.Sigma
	if g.ZeroNoise {
		sigma = 0
	}
	fmt.Fprintf(&b, "unit: user\nneighbouring: add-remove\ndelta: %g\nclaimed_epsilon: %g\nmechanism: %s\nnoise: {multiplier: %g}\n", g.Delta, g.Claimed, mech, sigma)
	fmt.Fprintf(&b, "sampling: {kind: clients, q: %g}\nsteps: %d\naccounting: {pld_interval: 1e-2, prv_eps_error: 0.1}\n", g.Q, g.Steps)
	if g.Unclipped {
		b.WriteString("clip: .inf\n")
	}
	b.WriteString("readings:\n")
	for i, r := range g.Readings {
		fmt.Fprintf(&b, "  - name: r%d\n", i)
		if r&1 != 0 && !g.Laplace {
			b.WriteString("    sampling: {visible: true}\n")
		}
		if r&2 != 0 && !g.Laplace { // no replace-one pair for the sampled Laplace mechanism
			b.WriteString("    neighbouring: replace-one\n")
		}
	}
	return b.String()
}

// TestVerdictProperties: over random claim files, in every case × reading
// the proven lower bound is at most every sound upper bound, and each
// verdict follows from the numbers it quotes:
//
//   - lower ≤ upper ≤ every finite accountant value, without the guard
//     that drops a lower bound above the upper one (no warning); a visible reading's
//     lower bound comes from the visible mixture (or the zero-noise proof)
//     only;
//   - "optimistic" only when claimed + tolerance < upper, and "proven"
//     only when lower > claimed + tolerance;
//   - "conservative" only when claimed − tolerance > 1.05 × loosest ≥
//     upper, with upper finite;
//   - when no accountant gives a finite value, the upper bound is ∞ (never
//     a finite number), and zero noise gives ε = ∞, optimistic, proven;
//   - a reading under another relation than the claim's says so;
//   - the headline names a reading of the case, and when every reading is
//     optimistic it is the one with the smallest upper bound.
func TestVerdictProperties(t *testing.T) {
	if testing.Short() {
		t.Skip("audits random claim files")
	}
	params := gopter.DefaultTestParametersWithSeed(20)
	params.MinSuccessfulTests = 40
	logU := func(lo, hi float64) gopter.Gen {
		return gen.Float64Range(math.Log(lo), math.Log(hi)).Map(func(x float64) float64 { return math.Exp(x) })
	}
	g := gopter.CombineGens(
		logU(1e-3, 1), logU(0.3, 20), logU(1e-10, 1e-3), logU(0.01, 100), logU(1, 3000),
		gen.Bool(), gen.Weighted([]gen.WeightedGen{{Weight: 1, Gen: gen.Const(true)}, {Weight: 9, Gen: gen.Const(false)}}),
		gen.Weighted([]gen.WeightedGen{{Weight: 1, Gen: gen.Const(true)}, {Weight: 6, Gen: gen.Const(false)}}),
		gen.IntRange(0, 3), gen.IntRange(0, 3), gen.IntRange(0, 3),
	).Map(func(v []any) randomClaim {
		q := v[0].(float64)
		if q > 0.7 {
			q = 1
		}
		return randomClaim{Q: q, Sigma: v[1].(float64), Delta: v[2].(float64), Claimed: v[3].(float64), Steps: int(v[4].(float64)),
			Laplace: v[5].(bool) && v[6].(bool), Unclipped: v[6].(bool) && !v[5].(bool), ZeroNoise: v[7].(bool),
			Readings: [3]int{v[8].(int), v[9].(int), v[10].(int)}}
	})
	props := gopter.NewProperties(params)
	props.Property("verdicts never contradict their bounds", prop.ForAll(func(g randomClaim) string {
		c, err := Decode("test.yaml", []byte(g.yaml()))
		if err != nil {
			return "decode: " + err.Error()
		}
		rep, err := Audit(c, Options{NoEmpirical: true, NoCalibration: true})
		if err != nil {
			return "audit: " + err.Error()
		}
		return checkVerdicts(rep)
	}, g))
	props.TestingRun(t)
}

// checkVerdicts returns "" or the first violated invariant.
func checkVerdicts(rep *Report) string {
	for _, k := range rep.Cases {
		claimed, tol := k.ClaimedEpsilon, k.Tolerance
		allOpt, minUpper := true, math.Inf(1)
		for _, r := range k.Readings {
			id := k.Case + "/" + r.Reading + ": "
			if r.Upper == nil || r.Loosest == nil {
				return id + "no upper bound"
			}
			up := r.Upper.Epsilon
			if r.Warning != "" {
				return id + r.Warning
			}
			finite := false
			for _, e := range r.Accountants {
				if e.Epsilon == nil {
					continue
				}
				finite = true
				if *e.Epsilon < up*(1-1e-12) {
					return fmt.Sprintf("%supper %g above %s's %g", id, up, e.Method, *e.Epsilon)
				}
				if r.Lower != nil && r.Lower.Epsilon > *e.Epsilon*(1+1e-9)+1e-12 {
					return fmt.Sprintf("%slower %g (%s) above %s's upper %g", id, r.Lower.Epsilon, r.Lower.Method, e.Method, *e.Epsilon)
				}
			}
			if !finite && !math.IsInf(up, 1) {
				return fmt.Sprintf("%severy accountant says ∞ or n/a, yet upper = %g", id, up)
			}
			// A reason that quotes the margin states a percentage within it.
			var pct, margin float64
			if i := strings.Index(r.Reason, "% of the loosest, within the "); i >= 0 {
				j := strings.LastIndex(r.Reason[:i], " by ")
				if _, err := fmt.Sscanf(r.Reason[j+4:i]+" "+r.Reason[i+len("% of the loosest, within the "):], "%g %g", &pct, &margin); err != nil || pct > margin {
					return fmt.Sprintf("%sreason %q", id, r.Reason)
				}
			}
			if r.Lower != nil && r.Lower.Epsilon > up*(1+1e-9)+1e-12 {
				return fmt.Sprintf("%slower %g > upper %g", id, r.Lower.Epsilon, up)
			}
			if strings.Contains(r.Procedure, "visible") && r.Lower != nil && r.Lower.Method != MVisibleExact && r.Lower.Method != MUnbounded {
				return fmt.Sprintf("%svisible reading's lower bound from %s", id, r.Lower.Method)
			}
			switch r.Verdict {
			case Optimistic:
				if !(claimed+tol < up) {
					return fmt.Sprintf("%soptimistic, yet claimed %g + %g ≥ upper %g", id, claimed, tol, up)
				}
			case Conservative:
				if math.IsInf(up, 1) || !(claimed-tol > (1+ConservativeMargin)*r.Loosest.Epsilon) || r.Loosest.Epsilon < up {
					return fmt.Sprintf("%sconservative, yet claimed %g − %g vs loosest %g, upper %g", id, claimed, tol, r.Loosest.Epsilon, up)
				}
			case Consistent:
				if r.Proven != "" {
					return id + "consistent and proven"
				}
			default:
				return id + "verdict " + r.Verdict
			}
			if r.Proven == "lower-bound" && (r.Lower == nil || !(r.Lower.Epsilon > claimed+tol)) {
				return fmt.Sprintf("%sproven without a lower bound above %g: %+v", id, claimed+tol, r.Lower)
			}
			if r.Lower != nil && r.Lower.Epsilon > claimed+tol && r.Verdict != Optimistic {
				return fmt.Sprintf("%slower %g > claimed, yet %s", id, r.Lower.Epsilon, r.Verdict)
			}
			if strings.Contains(r.Procedure, "z=0,") || strings.Contains(r.Procedure, "no clipping") {
				if !math.IsInf(up, 1) && r.Delta < 1-math.Pow(1-1e-3, 1) {
					return fmt.Sprintf("%sno noise, yet upper %g", id, up)
				}
			}
			if math.IsInf(up, 1) && r.Lower != nil && math.IsInf(r.Lower.Epsilon, 1) && (r.Verdict != Optimistic || r.Proven != "lower-bound") {
				return id + "ε = ∞ proven, yet not optimistic, proven"
			}
			if r.RelationDiffers != (r.Neighbouring != k.Neighbouring) || (r.RelationDiffers && !strings.HasPrefix(r.Reason, "["+r.Neighbouring)) {
				return fmt.Sprintf("%srelation %s vs the claim's %s not flagged: %q", id, r.Neighbouring, k.Neighbouring, r.Reason)
			}
			allOpt = allOpt && r.Verdict == Optimistic
			minUpper = math.Min(minUpper, up)
		}
		h := k.Headline
		if h == nil {
			return k.Case + ": no headline"
		}
		found := false
		for _, r := range k.Readings {
			if r.Reading == h.Reading {
				found = true
				if allOpt && r.Upper.Epsilon != minUpper {
					return fmt.Sprintf("%s: headline %s (%g) is not the most favourable reading (%g)", k.Case, h.Reading, r.Upper.Epsilon, minUpper)
				}
			}
		}
		if !found {
			return k.Case + ": headline names no reading"
		}
	}
	return ""
}
