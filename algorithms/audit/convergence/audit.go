package convergence

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// ErrOutside marks an instance whose quantities (Γ, F0, …) break one of
// the theorem's constraints; the search skips and counts it.
var ErrOutside = errors.New("instance outside the theorem's constraints")

// Verdicts.
const (
	Violated       = "violated"
	NoCounter      = "no-counterexample"
	Vacuous        = "vacuous"
	Underspecified = "underspecified"
)

// Options control an audit.
type Options struct {
	Seed uint64
	// Budget multiplies the claim's draws, adversarial evaluations and
	// Monte-Carlo replicates (default 1).
	Budget float64
	// Families, when set, replaces the claim's families.
	Families []string
}

// Budget is what a search spent.
type Budget struct {
	Draws       int      `json:"draws_per_family_point"`
	Adversarial int      `json:"adversarial_per_family_point"`
	MC          int      `json:"monte_carlo_replicates"`
	Dim         int      `json:"dim"`
	GridPoints  int      `json:"grid_points"`
	Families    []string `json:"families"`
	Evaluations int      `json:"evaluations"`
}

// Eval is one instance evaluated against the bound.
type Eval struct {
	Family   string             `json:"family"`
	Point    map[string]float64 `json:"grid_point"`
	Measured Measurement        `json:"measured"`
	Bound    float64            `json:"bound"`
	Trivial  float64            `json:"trivial"`
	Ratio    Float              `json:"ratio"`
	Violated bool               `json:"violated"`
	Spec     InstanceSpec       `json:"instance"`
	Symbols  map[string]float64 `json:"symbols"`
}

// ReadingReport is one reading's search.
type ReadingReport struct {
	Reading string `json:"reading"`
	Note    string `json:"note,omitempty"`
	Bound   string `json:"bound"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Worst is the evaluation with the largest measured/bound (the
	// counterexample when violated).
	Worst *Eval `json:"worst,omitempty"`
	// BelowTrivial counts evaluations whose bound is below the trivial value.
	BelowTrivial int `json:"below_trivial"`
	// Degenerate counts search points skipped because their instance had
	// no accurate unique solution (ErrDegenerate) or broke a constraint
	// that reads instance quantities (ErrOutside).
	Degenerate  int      `json:"degenerate"`
	Evaluations int      `json:"evaluations"`
	Modes       []string `json:"modes"`
	Families    []string `json:"families_covered"`
	Skipped     []string `json:"skipped,omitempty"`
}

// Report is the audit of one claim.
type Report struct {
	ID        string          `json:"id"`
	Title     string          `json:"title"`
	Paper     Paper           `json:"paper"`
	Source    Source          `json:"source"`
	Algorithm string          `json:"algorithm"`
	Class     string          `json:"class"`
	Quantity  string          `json:"quantity"`
	Verdict   string          `json:"verdict"`
	Summary   string          `json:"summary"`
	Readings  []ReadingReport `json:"readings"`
	Budget    Budget          `json:"budget"`
}

// trivialValue is the measure at the starting point (what returning x⁰
// achieves): F0, R2 or G0.
func trivialValue(measure string, sym map[string]float64) float64 {
	switch measure {
	case "gap":
		return sym["F0"]
	case "dist":
		return sym["R2"]
	case "gradnorm":
		return math.Sqrt(sym["G0"])
	}
	return sym["G0"]
}

// evaluate generates an instance and measures the claim on it.
func (c *Claim) evaluate(rd Reading, point map[string]float64, spec InstanceSpec, o Options, mc int) (*Eval, error) {
	in, err := Generate(spec)
	if err != nil {
		return nil, err
	}
	sym := in.Symbols()
	if m := Methods[c.Algorithm.Name.S]; m.Groups != nil {
		// the components per client may be a formula in the grid: resolve
		// once with placeholder instance symbols to read it
		pre, err := c.resolve(rd, point, dummyInstanceSymbols())
		if err != nil {
			return nil, at(c.file, err)
		}
		for k, v := range in.groupSymbols(m.Groups(&Env{In: in, R: pre})) {
			sym[k] = v
		}
	}
	sym["G2"] = 0
	res, err := c.resolve(rd, point, sym)
	if err != nil {
		return nil, at(c.file, err)
	}
	if len(res.Failed) > 0 {
		// a constraint reading the instance's quantities (Γ, F0, …) fails
		return nil, fmt.Errorf("%w: violates %s", ErrOutside, strings.Join(res.Failed, ", "))
	}
	rn := &runner{c: c, m: Methods[c.Algorithm.Name.S], res: res, in: in, seed: o.Seed, mc: mc,
		needG2: slices.Contains(res.Bound.IDs, "G2") || c.varsUse("G2")}
	ms, err := rn.measure()
	if err != nil {
		return nil, err
	}
	sym["G2"] = ms.G2
	res, err = c.resolve(rd, point, sym)
	if err != nil {
		return nil, at(c.file, err)
	}
	b, err := res.Bound.Eval(anyEnv(res.Env))
	if err != nil {
		return nil, at(c.file, fmt.Errorf("bound: %v", err))
	}
	triv := trivialValue(c.Quantity.Measure.S, sym)
	if c.Quantity.Measure.S == "path" {
		// the path formula at x⁰ with no movement (dx2 = 0)
		triv = res.pathAt(0, sym["G0"], 0, sym["F0"], sym["R2"])
	}
	ev := &Eval{Family: spec.Family, Point: point, Measured: ms, Bound: b, Trivial: triv, Spec: spec, Symbols: finite(sym)}
	tol := 1e-9 * math.Max(math.Abs(b), triv)
	ev.Violated = ms.Lower > b+tol
	switch {
	case b > 0:
		ev.Ratio = Float(ms.Value / b)
	case ms.Value > b:
		ev.Ratio = Float(math.Inf(1))
	}
	return ev, nil
}

func (c *Claim) varsUse(name string) bool {
	for _, v := range c.Variables {
		if v.Formula != "" {
			ids, _ := identifiers(v.Formula)
			if slices.Contains(ids, name) {
				return true
			}
		}
	}
	return false
}

// Audit searches the claim's class for a counterexample, per reading.
func Audit(c *Claim, o Options) (*Report, error) {
	if o.Budget <= 0 {
		o.Budget = 1
	}
	s := c.Search
	scale := func(v, def int) int { return max(1, int(math.Round(float64(cmp0(v, def))*o.Budget))) }
	b := Budget{Draws: scale(s.Draws, 8), Adversarial: scale(0, 24), MC: scale(s.MC, 64), Dim: cmp0(s.Dim, 2)}
	if s.Adversarial != nil {
		b.Adversarial = 0
		if *s.Adversarial > 0 {
			b.Adversarial = scale(*s.Adversarial, 24)
		}
	}
	fams := s.Families
	if len(o.Families) > 0 {
		fams = o.Families
	}
	if len(fams) == 0 {
		fams = familiesFor(c.Class.Convexity.S, c.Class.Heterogeneity.S)
	}
	var use []string
	for _, f := range fams {
		if admits(f, c.Class.Convexity.S, c.Class.Heterogeneity.S) {
			use = append(use, f)
		}
	}
	b.Families = use
	points := c.gridPoints()
	b.GridPoints = len(points)
	rep := &Report{ID: c.ID, Title: c.Title, Paper: c.Paper, Source: c.Source, Algorithm: c.Algorithm.Name.S,
		Class:    fmt.Sprintf("%s, heterogeneity %s, noise %s, constants %v", c.Class.Convexity.S, c.Class.Heterogeneity.S, c.Class.Noise.S, c.Class.Constants),
		Quantity: c.quantityText()}
	for _, rd := range c.readings() {
		rr := ReadingReport{Reading: rd.Name, Note: rd.Note, Bound: c.Bound.String()}
		if rd.Bound.Set {
			rr.Bound = rd.Bound.String()
		}
		modes := map[string]bool{}
		covered := map[string]bool{}
		consider := func(ev *Eval) {
			rr.Evaluations++
			b.Evaluations++
			modes[ev.Measured.Mode] = true
			covered[ev.Family] = true
			if ev.Bound < ev.Trivial {
				rr.BelowTrivial++
			}
			if rr.Worst == nil || better(ev, rr.Worst) {
				rr.Worst = ev
			}
		}
		for pi, pt := range points {
			res, err := c.resolve(rd, pt, dummyInstanceSymbols())
			if err != nil {
				return nil, at(c.file, err)
			}
			if len(res.Failed) > 0 {
				rr.Skipped = append(rr.Skipped, fmt.Sprintf("%s: violates %s", fmtPoint(pt), strings.Join(res.Failed, ", ")))
				continue
			}
			n := int(math.Round(res.Env["N"]))
			if _, ok := res.Env["N"]; !ok {
				n = 1
			}
			for _, fam := range use {
				labels := []string{c.ID, rd.Name, fmt.Sprint(pi), fam}
				spec := func(theta []float64, j int) InstanceSpec {
					return InstanceSpec{Family: fam, Dim: b.Dim, Clients: n, Theta: theta, Seed: o.Seed,
						Labels: append(append([]string(nil), labels...), "rotation", fmt.Sprint(j)), Convexity: c.Class.Convexity.S,
						Heterogeneity: c.Class.Heterogeneity.S, Constants: constantsAt(c, pt, res.Env)}
				}
				p := ThetaDims(fam, b.Dim, n, c.Class.Heterogeneity.S)
				var best *Eval
				bestJ := 0
				for j := 0; j < b.Draws; j++ {
					r := rng.New(o.Seed, "conv", c.ID, rd.Name, pi, fam, "draw", j).Rand()
					th := make([]float64, p)
					for i := range th {
						th[i] = r.Float64()
					}
					ev, err := c.evaluate(rd, pt, spec(th, j), o, b.MC)
					if errors.Is(err, ErrDegenerate) || errors.Is(err, ErrOutside) {
						rr.Degenerate++
						continue
					}
					if err != nil {
						return nil, fmt.Errorf("%s: %s at %s: %w", c.ID, fam, fmtPoint(pt), err)
					}
					consider(ev)
					if best == nil || better(ev, best) {
						best, bestJ = ev, j
					}
				}
				if best == nil || best.Violated || b.Adversarial == 0 {
					continue
				}
				// Nelder–Mead on θ from the best draw, maximising measured/bound
				// (common random numbers: the same streams at every θ).
				var ferr error
				obj := func(th []float64) float64 {
					if ferr != nil {
						return 0
					}
					ev, err := c.evaluate(rd, pt, spec(clamp01(th), bestJ), o, b.MC)
					if errors.Is(err, ErrDegenerate) || errors.Is(err, ErrOutside) {
						rr.Degenerate++
						return 0
					}
					if err != nil {
						ferr = err
						return 0
					}
					consider(ev)
					return -score(ev)
				}
				nelderMead(obj, best.Spec.Theta, 0.2, b.Adversarial)
				if ferr != nil {
					return nil, fmt.Errorf("%s: %s at %s: %w", c.ID, fam, fmtPoint(pt), ferr)
				}
				if rr.Worst != nil && rr.Worst.Violated {
					break
				}
			}
			if rr.Worst != nil && rr.Worst.Violated {
				break
			}
		}
		rr.Modes = keys(modes)
		rr.Families = keys(covered)
		switch {
		case rr.Evaluations == 0:
			rr.Verdict = NoCounter
			rr.Reason = "every grid point violates a constraint of the theorem: nothing to test"
		case rr.Worst.Violated:
			w := rr.Worst
			rr.Verdict = Violated
			rr.Reason = fmt.Sprintf("on a %s instance at %s the measured %s = %.6g (%s%s) exceeds the bound %.6g (ratio %.4g)",
				w.Family, fmtPoint(w.Point), c.Quantity.Measure.S, w.Measured.Value, w.Measured.Mode, ciText(w.Measured), w.Bound, w.Ratio)
		case rr.BelowTrivial == 0:
			rr.Verdict = Vacuous
			rr.Reason = fmt.Sprintf("in all %d evaluations the bound is at least the trivial value (the measure at x⁰); worst ratio measured/bound %.4g", rr.Evaluations, rr.Worst.Ratio)
		default:
			rr.Verdict = NoCounter
			rr.Reason = fmt.Sprintf("no counterexample in %d evaluations (families %s); worst ratio measured/bound %.4g on %s at %s",
				rr.Evaluations, strings.Join(rr.Families, ", "), rr.Worst.Ratio, rr.Worst.Family, fmtPoint(rr.Worst.Point))
		}
		rep.Readings = append(rep.Readings, rr)
	}
	rep.Budget = b
	vs := map[string]bool{}
	for _, r := range rep.Readings {
		vs[r.Verdict] = true
	}
	switch {
	case len(vs) == 1:
		rep.Verdict = rep.Readings[0].Verdict
		rep.Summary = rep.Readings[0].Reason
	default:
		rep.Verdict = Underspecified
		var parts []string
		for _, r := range rep.Readings {
			parts = append(parts, r.Reading+": "+r.Verdict)
		}
		rep.Summary = "the readings disagree (" + strings.Join(parts, "; ") + ")"
	}
	return rep, nil
}

func ciText(m Measurement) string {
	if m.Mode != ModeMonteCarlo {
		return ""
	}
	return fmt.Sprintf(", 99.9%% CI [%.6g, %.6g], %d runs", m.Lower, m.Upper, m.Runs)
}

// constantsAt are the class constants at a grid point.
func constantsAt(c *Claim, pt, env map[string]float64) map[string]float64 {
	k := map[string]float64{}
	for _, n := range ConstantNames {
		if v, ok := env[n]; ok {
			k[n] = v
		}
	}
	return k
}

func cmp0(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// score orders evaluations: violations first (by how far the confidence
// interval clears the bound), then measured/bound.
func score(e *Eval) float64 {
	if e.Violated {
		return 1e6 + math.Min(1e6, float64(e.Ratio))
	}
	if math.IsNaN(float64(e.Ratio)) {
		return 0
	}
	return float64(e.Ratio)
}

func better(a, b *Eval) bool { return score(a) > score(b) }

func clamp01(th []float64) []float64 {
	out := make([]float64, len(th))
	for i, v := range th {
		out[i] = math.Max(0, math.Min(1, v))
	}
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func fmtPoint(p map[string]float64) string {
	if len(p) == 0 {
		return "the stated parameters"
	}
	var ks []string
	for k := range p {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s=%g", k, p[k]))
	}
	return strings.Join(parts, " ")
}

func (c *Claim) quantityText() string {
	q := c.Quantity
	m := map[string]string{"gap": "E f(x) − f*", "dist": "E‖x − x*‖²", "grad": "E‖∇f(x)‖²", "gradnorm": "E‖∇f(x)‖"}[q.Measure.S]
	if q.Measure.S == "path" {
		m = "E[" + q.Path.String() + "]"
	}
	switch q.Over.S {
	case "last":
		return m + " at x_" + c.Horizon
	case "average":
		return fmt.Sprintf("%s at the average Σ w_t x_t / Σ w_t, t = %s..%s, w_t = %s", m, q.From, q.To, weightText(q.Weight))
	case "min":
		return fmt.Sprintf("min over t = %s..%s of %s at x_t", q.From, q.To, m)
	}
	return fmt.Sprintf("weighted mean over t = %s..%s (w_t = %s) of %s at x_t", q.From, q.To, weightText(q.Weight), m)
}

func weightText(v Value) string {
	if !v.Set {
		return "1"
	}
	return v.String()
}

// nelderMead minimises f from x0 with an initial simplex of edge step,
// for at most maxEval evaluations (standard coefficients 1, 2, ½, ½).
func nelderMead(f func([]float64) float64, x0 []float64, step float64, maxEval int) ([]float64, float64) {
	n := len(x0)
	pts := make([][]float64, n+1)
	vals := make([]float64, n+1)
	evals := 0
	eval := func(x []float64) float64 { evals++; return f(x) }
	pts[0] = append([]float64(nil), x0...)
	vals[0] = eval(pts[0])
	for i := 0; i < n && evals < maxEval; i++ {
		p := append([]float64(nil), x0...)
		if p[i]+step <= 1 {
			p[i] += step
		} else {
			p[i] -= step
		}
		pts[i+1] = p
		vals[i+1] = eval(p)
	}
	if evals >= maxEval {
		best := 0
		for i := range vals {
			if pts[i] != nil && vals[i] < vals[best] {
				best = i
			}
		}
		return pts[best], vals[best]
	}
	for evals < maxEval {
		idx := make([]int, n+1)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return vals[idx[a]] < vals[idx[b]] })
		np := make([][]float64, n+1)
		nv := make([]float64, n+1)
		for i, k := range idx {
			np[i], nv[i] = pts[k], vals[k]
		}
		pts, vals = np, nv
		cen := make([]float64, n)
		for i := 0; i < n; i++ {
			for j := range cen {
				cen[j] += pts[i][j] / float64(n)
			}
		}
		lin := func(a float64) []float64 {
			p := make([]float64, n)
			for j := range p {
				p[j] = cen[j] + a*(pts[n][j]-cen[j])
			}
			return p
		}
		xr := lin(-1)
		fr := eval(xr)
		switch {
		case fr < vals[0]:
			xe := lin(-2)
			if fe := eval(xe); fe < fr {
				pts[n], vals[n] = xe, fe
			} else {
				pts[n], vals[n] = xr, fr
			}
		case fr < vals[n-1]:
			pts[n], vals[n] = xr, fr
		default:
			xc := lin(0.5)
			if fc := eval(xc); fc < vals[n] {
				pts[n], vals[n] = xc, fc
			} else {
				for i := 1; i <= n && evals < maxEval; i++ {
					for j := range pts[i] {
						pts[i][j] = pts[0][j] + 0.5*(pts[i][j]-pts[0][j])
					}
					vals[i] = eval(pts[i])
				}
			}
		}
	}
	best := 0
	for i := range vals {
		if vals[i] < vals[best] {
			best = i
		}
	}
	return pts[best], vals[best]
}

// Float is a float64 that encodes ±Inf and NaN as JSON null.
type Float float64

// MarshalJSON writes null for non-finite values.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return []byte("null"), nil
	}
	return json.Marshal(x)
}

// InstanceFormat is the `format` of a saved counterexample.
const InstanceFormat = "fedrepro-convergence-instance/1"

// InstanceFile reproduces one evaluation: `fedrepro audit --claim FILE
// --instance THIS` regenerates the instance from its spec and measures it.
type InstanceFile struct {
	Format   string             `json:"format"`
	Claim    string             `json:"claim"`
	Reading  string             `json:"reading"`
	Point    map[string]float64 `json:"grid_point"`
	Seed     uint64             `json:"seed"`
	MC       int                `json:"monte_carlo_replicates"`
	Spec     InstanceSpec       `json:"instance"`
	Measured Measurement        `json:"measured"`
	Bound    float64            `json:"bound"`
	Symbols  map[string]float64 `json:"symbols"`
}

// Counterexample returns the file of a reading's worst evaluation (nil
// when there is none).
func (r *Report) Counterexample(reading string, seed uint64) *InstanceFile {
	for _, rr := range r.Readings {
		if rr.Reading == reading && rr.Worst != nil {
			w := rr.Worst
			return &InstanceFile{Format: InstanceFormat, Claim: r.ID, Reading: reading, Point: w.Point, Seed: seed,
				MC: r.Budget.MC, Spec: w.Spec, Measured: w.Measured, Bound: w.Bound, Symbols: w.Symbols}
		}
	}
	return nil
}

// Replay re-evaluates a saved instance against the claim.
func Replay(c *Claim, f *InstanceFile) (*Eval, error) {
	if f.Format != InstanceFormat {
		return nil, fmt.Errorf("instance file: format %q, want %q", f.Format, InstanceFormat)
	}
	if f.Claim != c.ID {
		return nil, fmt.Errorf("instance file is for claim %q, not %q", f.Claim, c.ID)
	}
	for _, rd := range c.readings() {
		if rd.Name == f.Reading {
			return c.evaluate(rd, f.Point, f.Spec, Options{Seed: f.Seed}, f.MC)
		}
	}
	return nil, fmt.Errorf("instance file: claim %s has no reading %q", c.ID, f.Reading)
}

// finite drops non-finite symbols (B2 of instances without a shared
// minimiser) from what a report stores.
func finite(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			out[k] = v
		}
	}
	return out
}
