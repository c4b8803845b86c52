package claim

import (
	"errors"
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/internal/formula"
)

// Functions lists the functions a formula may call (internal/formula: log
// is the natural logarithm; ^ and ** are powers).
var Functions = formula.Functions

// Reserved names are bound by the auditor, not by variables: delta is the
// claim's δ (after its own formula, if any) and epsilon the claimed ε.
var Reserved = []string{"delta", "epsilon"}

// identifiers returns the variable names a formula reads (function names
// excluded), sorted.
func identifiers(src string) ([]string, error) { return formula.Identifiers(src) }

// evalFormula evaluates src with env (name → float64). An unknown name or
// a non-finite result is an error.
func evalFormula(src string, env map[string]float64) (float64, error) {
	return formula.Eval(src, env)
}

// resolveVariables evaluates the variables (numbers or formulas in each
// other and in the bound names) in dependency order (formula.Resolve). A
// cycle or an unknown name is an error naming the variable, located at its
// line.
func resolveVariables(vars map[string]Value, bound map[string]float64) (map[string]float64, error) {
	defs := make(map[string]formula.Def, len(vars))
	for k, v := range vars {
		defs[k] = formula.Def{Formula: v.Formula, Num: v.Num, Line: v.Line}
	}
	out, err := formula.Resolve(defs, bound, "variable")
	return out, local(err)
}

// local turns a formula.LineError into this package's lineError (which
// prefixErr extends); other errors pass unchanged.
func local(err error) error {
	var le *formula.LineError
	if errors.As(err, &le) {
		return &lineError{line: le.Line, msg: le.Msg}
	}
	return err
}

// lineErr is an error located at a line of the claim file; Decode and
// Audit prefix the file name.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return (&formula.LineError{Line: e.line, Msg: e.msg}).Error() }

func lineErr(line int, format string, a ...any) error {
	return &lineError{line: line, msg: fmt.Sprintf(format, a...)}
}

// at prefixes a located error with the file name ("file:line: msg").
func at(file string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return formula.At(file, &formula.LineError{Line: le.line, Msg: le.msg})
	}
	return formula.At(file, err)
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
