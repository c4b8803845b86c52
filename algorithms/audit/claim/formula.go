package claim

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

// Functions lists the functions a formula may call. log is the natural
// logarithm; ^ and ** are powers.
var Functions = []string{"sqrt", "log", "log2", "log10", "exp", "ceil", "floor", "round", "abs", "min", "max"}

// Reserved names are bound by the auditor, not by variables: delta is the
// claim's δ (after its own formula, if any) and epsilon the claimed ε.
var Reserved = []string{"delta", "epsilon"}

func unary(f func(float64) float64) func(params ...any) (any, error) {
	return func(p ...any) (any, error) {
		x, err := toFloat(p[0])
		if err != nil {
			return nil, err
		}
		return f(x), nil
	}
}

func binary(f func(a, b float64) float64) func(params ...any) (any, error) {
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

// exprOptions are the compiler options every formula is built with: no
// builtins but ours, a float result.
func exprOptions(env map[string]any) []expr.Option {
	f1 := func(x float64) float64 { return 0 }
	f2 := func(a, b float64) float64 { return 0 }
	return []expr.Option{
		expr.Env(env),
		expr.DisableAllBuiltins(),
		expr.AsFloat64(),
		expr.Function("sqrt", unary(math.Sqrt), f1),
		expr.Function("log", unary(math.Log), f1),
		expr.Function("log2", unary(math.Log2), f1),
		expr.Function("log10", unary(math.Log10), f1),
		expr.Function("exp", unary(math.Exp), f1),
		expr.Function("ceil", unary(math.Ceil), f1),
		expr.Function("floor", unary(math.Floor), f1),
		expr.Function("round", unary(math.Round), f1),
		expr.Function("abs", unary(math.Abs), f1),
		expr.Function("min", binary(math.Min), f2),
		expr.Function("max", binary(math.Max), f2),
	}
}

// identifiers returns the variable names a formula reads (function names
// excluded), sorted.
func identifiers(formula string) ([]string, error) {
	tree, err := parser.Parse(formula)
	if err != nil {
		return nil, errors.New(firstLine(err.Error()))
	}
	v := &identVisitor{seen: map[string]bool{}}
	ast.Walk(&tree.Node, v)
	out := make([]string, 0, len(v.seen))
	for k := range v.seen {
		if !slices.Contains(Functions, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

type identVisitor struct{ seen map[string]bool }

func (v *identVisitor) Visit(n *ast.Node) {
	if id, ok := (*n).(*ast.IdentifierNode); ok {
		v.seen[id.Value] = true
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// evalFormula evaluates formula with env (name → float64). A non-finite
// result is an error.
func evalFormula(formula string, env map[string]float64) (float64, error) {
	e := make(map[string]any, len(env))
	for k, v := range env {
		e[k] = v
	}
	prog, err := expr.Compile(formula, exprOptions(e)...)
	if err != nil {
		return 0, errors.New(firstLine(err.Error()))
	}
	out, err := vm.Run(prog, e)
	if err != nil {
		return 0, errors.New(firstLine(err.Error()))
	}
	x, err := toFloat(out)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x, fmt.Errorf("%q evaluates to %v", formula, x)
	}
	return x, nil
}

// resolveVariables evaluates the variables (numbers or formulas in each
// other and in the bound names) in dependency order. A cycle or an
// unknown name is an error naming the variable.
func resolveVariables(vars map[string]Value, bound map[string]float64) (map[string]float64, error) {
	out := make(map[string]float64, len(vars)+len(bound))
	for k, v := range bound {
		out[k] = v
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	state := map[string]int{} // 0 new, 1 in progress, 2 done
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch state[name] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("variables depend on each other in a cycle: %s", strings.Join(append(path, name), " → "))
		}
		state[name] = 1
		v := vars[name]
		if v.IsFormula() {
			ids, err := identifiers(v.Formula)
			if err != nil {
				return lineErr(v.Line, "variable %s: %v", name, err)
			}
			for _, id := range ids {
				if _, ok := vars[id]; ok {
					if err := visit(id, append(path, name)); err != nil {
						return err
					}
				} else if _, ok := bound[id]; !ok {
					return lineErr(v.Line, "variable %s: unknown name %q in %q", name, id, v.Formula)
				}
			}
			x, err := evalFormula(v.Formula, out)
			if err != nil {
				return lineErr(v.Line, "variable %s: %v", name, err)
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

// lineErr is an error located at a line of the claim file; Decode and
// Audit prefix the file name.
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

// at prefixes a located error with the file name ("file:line: msg").
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

// number evaluates a value in env; name is what the value is, for errors.
func number(v Value, name string, env map[string]float64) (float64, error) {
	if !v.Set {
		return 0, fmt.Errorf("%s is missing", name)
	}
	if !v.IsFormula() {
		return v.Num, nil
	}
	ids, err := identifiers(v.Formula)
	if err != nil {
		return 0, lineErr(v.Line, "%s: %v", name, err)
	}
	for _, id := range ids {
		if _, ok := env[id]; !ok {
			return 0, lineErr(v.Line, "%s: unknown name %q in %q (define it under variables)", name, id, v.Formula)
		}
	}
	x, err := evalFormula(v.Formula, env)
	if err != nil {
		return 0, lineErr(v.Line, "%s: %v", name, err)
	}
	return x, nil
}

// integer evaluates a value that must be a whole number ≥ lo.
func integer(v Value, name string, env map[string]float64, lo int) (int, error) {
	x, err := number(v, name, env)
	if err != nil {
		return 0, err
	}
	if x != math.Trunc(x) || x < float64(lo) || x > 1e15 {
		return 0, lineErr(v.Line, "%s = %v: want a whole number ≥ %d (write ceil(…) or floor(…) to round a formula)", name, x, lo)
	}
	return int(x), nil
}
