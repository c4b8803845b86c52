package convergence

import (
	"math"
	"slices"
	"strings"

	"github.com/fedrepro/fedrepro/internal/formula"
)

// Functions a formula may call (internal/formula: log is natural; ^ and
// ** are powers).
var Functions = formula.Functions

// program is a compiled formula (internal/formula).
type program = formula.Program

func identifiers(src string) ([]string, error) { return formula.Identifiers(src) }

func anyEnv(env map[string]float64) map[string]any { return formula.AnyEnv(env) }

// compile compiles src for env's names, as a condition when boolean.
func compile(src string, env map[string]float64, boolean bool) (*program, error) {
	return formula.Compile(src, env, boolean)
}

// evalOnce evaluates a formula in env.
func evalOnce(src string, env map[string]float64) (float64, error) { return formula.Eval(src, env) }

// lineErr is an error located at a line of the claim file.
func lineErr(line int, format string, a ...any) error { return formula.LineErr(line, format, a...) }

// at prefixes a located error with the file name.
func at(file string, err error) error { return formula.At(file, err) }

// Resolved is one reading at one grid point: every symbol's value, the
// step-dependent parameters as compiled formulas in t and r, and the
// compiled bound.
type Resolved struct {
	Reading string
	Env     map[string]float64
	// Params are the method's constant parameters.
	Params map[string]float64
	// StepParams are parameters that read t or r (step sizes).
	StepParams map[string]*program
	Bound      *program
	BoundSrc   string
	// Failed lists the theorem's constraints that this point violates.
	Failed []string
	// Path is the per-step formula of measure path.
	Path *program
	// Weight, From, To define the averaging window of the quantity.
	Weight   *program
	From, To int
	T        int

	stepEnv map[string]any // reused by stepParam and weight (single goroutine)
	memo    map[stepKey]float64
}

type stepKey struct {
	name string
	t, r int
}

// resolve evaluates reading rd at grid point g with the instance's
// symbols inst.
func (c *Claim) resolve(rd Reading, g map[string]float64, inst map[string]float64) (*Resolved, error) {
	bound := map[string]float64{}
	for k, v := range c.Class.Constants {
		bound[k] = v
	}
	bound["N"] = 1
	for _, k := range []string{"mu", "sigma2", "zeta2"} {
		if _, ok := bound[k]; !ok {
			bound[k] = 0
		}
	}
	for k, v := range inst {
		bound[k] = v
	}
	for k, v := range g {
		bound[k] = v
	}
	defs := map[string]Value{}
	for k, v := range c.Variables {
		defs[k] = v
	}
	for k, v := range rd.Variables {
		defs[k] = v
	}
	params := map[string]Value{}
	for k, v := range c.Algorithm.Params {
		params[k] = v
	}
	for k, v := range rd.Params {
		params[k] = v
	}
	for k := range g {
		delete(defs, k)
	}
	stepDep := map[string]bool{}
	for k, v := range params {
		if v.Formula != "" {
			ids, err := identifiers(v.Formula)
			if err != nil {
				return nil, lineErr(v.Line, "parameter %s: %v", k, err)
			}
			for _, id := range ids {
				if slices.Contains(reservedInStep, id) {
					stepDep[k] = true
				}
			}
		}
		if !stepDep[k] {
			if strings.TrimSpace(v.Formula) == k {
				// "alpha: alpha": the parameter is the variable (or grid value) of the same name
				if _, ok := defs[k]; ok {
					continue
				}
				if _, ok := g[k]; ok {
					continue
				}
				return nil, lineErr(v.Line, "parameter %s refers to itself: define %s under variables or grid", k, k)
			}
			if _, clash := defs[k]; clash {
				return nil, lineErr(v.Line, "%s is both a parameter and a variable", k)
			}
			if _, inGrid := g[k]; !inGrid {
				defs[k] = v
			}
		}
	}
	env, err := resolveDefs(defs, bound)
	if err != nil {
		return nil, err
	}
	r := &Resolved{Reading: rd.Name, Env: env, Params: map[string]float64{}, StepParams: map[string]*program{}}
	stepEnv := map[string]float64{"t": 0, "r": 0}
	for k, v := range env {
		stepEnv[k] = v
	}
	for k, v := range params {
		if stepDep[k] {
			p, err := compile(v.Formula, stepEnv, false)
			if err != nil {
				return nil, lineErr(v.Line, "parameter %s: %v", k, err)
			}
			r.StepParams[k] = p
		} else {
			r.Params[k] = env[k]
		}
	}
	for _, cv := range c.Constraints {
		if cv.Formula == "" {
			return nil, lineErr(cv.Line, "a constraint must be a condition such as \"lr <= 1/L\"")
		}
		p, err := compile(cv.Formula, env, true)
		if err != nil {
			return nil, lineErr(cv.Line, "constraint: %v", err)
		}
		ok, err := p.Test(anyEnv(env))
		if err != nil {
			return nil, lineErr(cv.Line, "constraint: %v", err)
		}
		if !ok {
			r.Failed = append(r.Failed, cv.Formula)
		}
	}
	b := c.Bound
	if rd.Bound.Set {
		b = rd.Bound
	}
	r.BoundSrc = b.String()
	if b.Formula != "" {
		p, err := compile(b.Formula, env, false)
		if err != nil {
			return nil, lineErr(b.Line, "bound: %v", err)
		}
		r.Bound = p
	} else {
		p, _ := compile(b.String(), env, false)
		r.Bound = p
	}
	hv, ok := env[c.Horizon]
	if !ok || hv != math.Trunc(hv) || hv < 1 || hv > 1e6 {
		return nil, lineErr(0, "horizon %s = %v: want a whole number in [1, 1e6]", c.Horizon, hv)
	}
	r.T = int(hv)
	r.From, r.To = r.T, r.T
	if c.Quantity.Over.S != "last" {
		for _, e := range []struct {
			v   Value
			dst *int
			w   string
		}{{c.Quantity.From, &r.From, "from"}, {c.Quantity.To, &r.To, "to"}} {
			x := e.v.Num
			if e.v.Formula != "" {
				x, err = evalOnce(e.v.Formula, env)
				if err != nil {
					return nil, lineErr(e.v.Line, "quantity.%s: %v", e.w, err)
				}
			}
			if x != math.Trunc(x) || x < 0 || x > float64(r.T) {
				return nil, lineErr(e.v.Line, "quantity.%s = %v: want a whole step index in [0, %d]", e.w, x, r.T)
			}
			*e.dst = int(x)
		}
		if r.From > r.To {
			return nil, lineErr(c.Quantity.From.Line, "quantity: from %d > to %d", r.From, r.To)
		}
		w := c.Quantity.Weight
		if !w.Set {
			w = num(1)
		}
		p, err := compile(w.String(), stepEnv, false)
		if err != nil {
			return nil, lineErr(w.Line, "quantity.weight: %v", err)
		}
		r.Weight = p
	}
	if c.Quantity.Measure.S == "path" {
		pathEnv := map[string]float64{"g2": 0, "dx2": 0, "gap": 0, "dist": 0}
		for k, v := range stepEnv {
			pathEnv[k] = v
		}
		p, err := compile(c.Quantity.Path.Formula, pathEnv, false)
		if err != nil {
			return nil, lineErr(c.Quantity.Path.Line, "quantity.path: %v", err)
		}
		r.Path = p
	}
	return r, nil
}

// pathAt evaluates measure path's formula at step t from the step symbols.
func (r *Resolved) pathAt(t int, g2, dx2, gap, dist float64) float64 {
	if r.stepEnv == nil {
		r.stepEnv = anyEnv(r.Env)
	}
	env := r.stepEnv
	env["t"], env["r"] = float64(t), float64(t)
	env["g2"], env["dx2"], env["gap"], env["dist"] = g2, dx2, gap, dist
	x, err := r.Path.Eval(env)
	if err != nil {
		return math.NaN()
	}
	return x
}

// stepParam evaluates a parameter at step t of round rr.
func (r *Resolved) stepParam(name string, t, rr int) float64 {
	if v, ok := r.Params[name]; ok {
		return v
	}
	p, ok := r.StepParams[name]
	if !ok {
		return math.NaN()
	}
	k := stepKey{name, t, rr}
	if v, ok := r.memo[k]; ok {
		return v
	}
	if r.memo == nil {
		r.memo = map[stepKey]float64{}
	}
	if r.stepEnv == nil {
		r.stepEnv = anyEnv(r.Env)
	}
	env := r.stepEnv
	env["t"], env["r"] = float64(t), float64(rr)
	x, err := p.Eval(env)
	if err != nil {
		x = math.NaN()
	}
	r.memo[k] = x
	return x
}

// weight evaluates the averaging weight at step t.
func (r *Resolved) weight(t int) float64 {
	if r.stepEnv == nil {
		r.stepEnv = anyEnv(r.Env)
	}
	env := r.stepEnv
	env["t"], env["r"] = float64(t), float64(t)
	x, err := r.Weight.Eval(env)
	if err != nil {
		return math.NaN()
	}
	return x
}

// resolveDefs evaluates definitions (numbers or formulas in each other and
// in the bound names) in dependency order (formula.Resolve).
func resolveDefs(defs map[string]Value, bound map[string]float64) (map[string]float64, error) {
	d := make(map[string]formula.Def, len(defs))
	for k, v := range defs {
		d[k] = formula.Def{Formula: v.Formula, Num: v.Num, Line: v.Line}
	}
	return formula.Resolve(d, bound, "")
}
