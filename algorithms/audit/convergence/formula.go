package convergence

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Functions a formula may call (log is natural; ^ and ** are powers).
var Functions = []string{"sqrt", "log", "log2", "log10", "exp", "ceil", "floor", "abs", "min", "max"}

func fn1(f func(float64) float64) func(...any) (any, error) {
	return func(p ...any) (any, error) {
		x, err := toFloat(p[0])
		if err != nil {
			return nil, err
		}
		return f(x), nil
	}
}

func fn2(f func(a, b float64) float64) func(...any) (any, error) {
	return func(p ...any) (any, error) {
		a, err := toFloat(p[0])
		if err != nil {
			return nil, err
		}
		b, err := toFloat(p[1])
		if err != nil {
			return nil, err
		}
		return f(a, b), nil
	}
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("not a number: %v", v)
}

func exprOptions(env map[string]any, boolean bool) []expr.Option {
	f1 := func(float64) float64 { return 0 }
	f2 := func(a, b float64) float64 { return 0 }
	o := []expr.Option{
		expr.Env(env), expr.DisableAllBuiltins(),
		expr.Function("sqrt", fn1(math.Sqrt), f1), expr.Function("log", fn1(math.Log), f1),
		expr.Function("log2", fn1(math.Log2), f1), expr.Function("log10", fn1(math.Log10), f1),
		expr.Function("exp", fn1(math.Exp), f1), expr.Function("ceil", fn1(math.Ceil), f1),
		expr.Function("floor", fn1(math.Floor), f1), expr.Function("abs", fn1(math.Abs), f1),
		expr.Function("min", fn2(math.Min), f2), expr.Function("max", fn2(math.Max), f2),
	}
	if boolean {
		return append(o, expr.AsBool())
	}
	return append(o, expr.AsFloat64())
}

// identifiers returns the names a formula reads (functions excluded).
func identifiers(formula string) ([]string, error) {
	tree, err := parser.Parse(formula)
	if err != nil {
		return nil, errors.New(firstLine(err.Error()))
	}
	seen := map[string]bool{}
	ast.Walk(&tree.Node, visitor(func(n *ast.Node) {
		if id, ok := (*n).(*ast.IdentifierNode); ok {
			seen[id.Value] = true
		}
	}))
	var out []string
	for k := range seen {
		if !slices.Contains(Functions, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

type visitor func(n *ast.Node)

func (v visitor) Visit(n *ast.Node) { v(n) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// program is a compiled formula.
type program struct {
	src  string
	prog *vm.Program
	ids  []string
}

func anyEnv(env map[string]float64) map[string]any {
	e := make(map[string]any, len(env))
	for k, v := range env {
		e[k] = v
	}
	return e
}

func compile(src string, env map[string]float64, boolean bool) (*program, error) {
	ids, err := identifiers(src)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := env[id]; !ok {
			return nil, fmt.Errorf("unknown name %q in %q", id, src)
		}
	}
	p, err := expr.Compile(src, exprOptions(anyEnv(env), boolean)...)
	if err != nil {
		return nil, errors.New(firstLine(err.Error()))
	}
	return &program{src: src, prog: p, ids: ids}, nil
}

func (p *program) eval(env map[string]any) (float64, error) {
	out, err := vm.Run(p.prog, env)
	if err != nil {
		return 0, errors.New(firstLine(err.Error()))
	}
	x, err := toFloat(out)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x, fmt.Errorf("%q evaluates to %v", p.src, x)
	}
	return x, nil
}

func (p *program) test(env map[string]any) (bool, error) {
	out, err := vm.Run(p.prog, env)
	if err != nil {
		return false, errors.New(firstLine(err.Error()))
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("%q is not a condition", p.src)
	}
	return b, nil
}

// evalOnce evaluates a formula in env.
func evalOnce(src string, env map[string]float64) (float64, error) {
	p, err := compile(src, env, false)
	if err != nil {
		return 0, err
	}
	return p.eval(anyEnv(env))
}

// lineError is an error located at a line of the claim file.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%d: %s", e.line, e.msg)
	}
	return e.msg
}

func lineErr(line int, format string, a ...any) error {
	return &lineError{line: line, msg: fmt.Sprintf(format, a...)}
}

// at prefixes a located error with the file name.
func at(file string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		if le.line > 0 {
			return fmt.Errorf("%s:%d: %s", file, le.line, le.msg)
		}
		return fmt.Errorf("%s: %s", file, le.msg)
	}
	return fmt.Errorf("%s: %w", file, err)
}

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
		ok, err := p.test(anyEnv(env))
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
	return r, nil
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
	x, err := p.eval(env)
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
	x, err := r.Weight.eval(env)
	if err != nil {
		return math.NaN()
	}
	return x
}

// resolveDefs evaluates definitions (numbers or formulas in each other and
// in the bound names) in dependency order.
func resolveDefs(defs map[string]Value, bound map[string]float64) (map[string]float64, error) {
	out := make(map[string]float64, len(defs)+len(bound))
	for k, v := range bound {
		out[k] = v
	}
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	sort.Strings(names)
	state := map[string]int{}
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch state[name] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("definitions depend on each other in a cycle: %s", strings.Join(append(path, name), " → "))
		}
		state[name] = 1
		v := defs[name]
		if v.Formula != "" {
			ids, err := identifiers(v.Formula)
			if err != nil {
				return lineErr(v.Line, "%s: %v", name, err)
			}
			for _, id := range ids {
				if _, ok := defs[id]; ok {
					if err := visit(id, append(path, name)); err != nil {
						return err
					}
				} else if _, ok := bound[id]; !ok {
					return lineErr(v.Line, "%s: unknown name %q in %q", name, id, v.Formula)
				}
			}
			x, err := evalOnce(v.Formula, out)
			if err != nil {
				return lineErr(v.Line, "%s: %v", name, err)
			}
			out[name] = x
		} else {
			out[name] = v.Num
		}
		state[name] = 2
		return nil
	}
	for _, n := range names {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}
