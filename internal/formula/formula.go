// Package formula evaluates the formulas of claim files — the privacy
// claims (algorithms/audit/claim, fedrepro-claim/1) and the convergence
// claims (algorithms/audit/convergence, fedrepro-convergence/1) — written in
// expr syntax (https://expr-lang.org) over float64 symbols, with no builtins
// but the functions listed in Functions, and resolves a file's definitions
// (numbers or formulas in each other) in dependency order. Errors are one
// line; LineError locates one at a line of the claim file.
package formula

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Functions lists the functions a formula may call. log is the natural
// logarithm; ^ and ** are powers; min and max take two arguments.
var Functions = []string{"sqrt", "log", "log2", "log10", "exp", "ceil", "floor", "round", "abs", "min", "max"}

var unaries = map[string]func(float64) float64{
	"sqrt": math.Sqrt, "log": math.Log, "log2": math.Log2, "log10": math.Log10, "exp": math.Exp,
	"ceil": math.Ceil, "floor": math.Floor, "round": math.Round, "abs": math.Abs,
}

var binaries = map[string]func(a, b float64) float64{"min": math.Min, "max": math.Max}

func unary(f func(float64) float64) func(...any) (any, error) {
	return func(p ...any) (any, error) {
		x, err := ToFloat(p[0])
		if err != nil {
			return nil, err
		}
		return f(x), nil
	}
}

func binary(f func(a, b float64) float64) func(...any) (any, error) {
	return func(p ...any) (any, error) {
		a, err := ToFloat(p[0])
		if err != nil {
			return nil, err
		}
		b, err := ToFloat(p[1])
		if err != nil {
			return nil, err
		}
		return f(a, b), nil
	}
}

// ToFloat converts a formula's result (float64 or int) to float64.
func ToFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("not a number: %v", v)
}

// Options are the compiler options every formula is built with: env, no
// builtins but Functions, and a float64 result (a bool when condition).
func Options(env map[string]any, condition bool) []expr.Option {
	f1 := func(float64) float64 { return 0 }
	f2 := func(a, b float64) float64 { return 0 }
	o := []expr.Option{expr.Env(env), expr.DisableAllBuiltins()}
	for _, name := range Functions {
		if f, ok := unaries[name]; ok {
			o = append(o, expr.Function(name, unary(f), f1))
		} else {
			o = append(o, expr.Function(name, binary(binaries[name]), f2))
		}
	}
	if condition {
		return append(o, expr.AsBool())
	}
	return append(o, expr.AsFloat64())
}

// Identifiers returns the names a formula reads (function names excluded),
// sorted.
func Identifiers(src string) ([]string, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, errors.New(FirstLine(err.Error()))
	}
	seen := map[string]bool{}
	ast.Walk(&tree.Node, visitor(func(n *ast.Node) {
		if id, ok := (*n).(*ast.IdentifierNode); ok {
			seen[id.Value] = true
		}
	}))
	out := make([]string, 0, len(seen))
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

// FirstLine is the first line of s, trimmed (expr's messages run on over
// several lines).
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// AnyEnv converts a float64 environment to the map expr runs on.
func AnyEnv(env map[string]float64) map[string]any {
	e := make(map[string]any, len(env))
	for k, v := range env {
		e[k] = v
	}
	return e
}

// Program is a compiled formula.
type Program struct {
	Src string
	// IDs are the names it reads.
	IDs  []string
	prog *vm.Program
}

// Compile compiles src for env (the names it may read; their values do
// not matter), as a number or, when condition, as a condition. A name
// that is not in env is an error naming it.
func Compile(src string, env map[string]float64, condition bool) (*Program, error) {
	key := compileKey(src, env, condition)
	compiled.Lock()
	p, ok := compiled.m[key]
	compiled.Unlock()
	if ok {
		return p, nil
	}
	p, err := compile(src, env, condition)
	if err == nil {
		compiled.Lock()
		if len(compiled.m) >= compiledCap {
			clear(compiled.m)
		}
		compiled.m[key] = p
		compiled.Unlock()
	}
	return p, err
}

// compiled remembers compiled programs for the whole process. A program
// depends on its source, the names of env (their values are read when it
// runs, not when it compiles: every value is a float64) and condition;
// it is immutable and safe to run concurrently. The claim engines compile
// the same formulas for every reading, case and evaluation (Resolve
// compiles each definition for each case; the convergence audit's
// searches resolve a claim at every point they try), and compiling cost
// more than evaluating. Dropped whole when it reaches compiledCap entries.
var compiled = struct {
	sync.Mutex
	m map[string]*Program
}{m: map[string]*Program{}}

const compiledCap = 1 << 14

// compileKey names a compilation: condition, src and env's names, sorted.
func compileKey(src string, env map[string]float64, condition bool) string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%t\x00%s", condition, src)
	for _, n := range names {
		b.WriteString("\x00")
		b.WriteString(n)
	}
	return b.String()
}

// compile is Compile without the memo.
func compile(src string, env map[string]float64, condition bool) (*Program, error) {
	ids, err := Identifiers(src)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := env[id]; !ok {
			return nil, fmt.Errorf("unknown name %q in %q", id, src)
		}
	}
	p, err := expr.Compile(src, Options(AnyEnv(env), condition)...)
	if err != nil {
		return nil, errors.New(FirstLine(err.Error()))
	}
	return &Program{Src: src, IDs: ids, prog: p}, nil
}

// Eval runs a numeric program in env; a non-finite result is an error.
func (p *Program) Eval(env map[string]any) (float64, error) {
	out, err := vm.Run(p.prog, env)
	if err != nil {
		return 0, errors.New(FirstLine(err.Error()))
	}
	x, err := ToFloat(out)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x, fmt.Errorf("%q evaluates to %v", p.Src, x)
	}
	return x, nil
}

// Test runs a condition in env.
func (p *Program) Test(env map[string]any) (bool, error) {
	out, err := vm.Run(p.prog, env)
	if err != nil {
		return false, errors.New(FirstLine(err.Error()))
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("%q is not a condition", p.Src)
	}
	return b, nil
}

// Eval evaluates src once in env; a non-finite result is an error.
func Eval(src string, env map[string]float64) (float64, error) {
	p, err := Compile(src, env, false)
	if err != nil {
		return 0, err
	}
	return p.Eval(AnyEnv(env))
}

// LineError is an error located at a line of a claim file (Line 0: the
// file as a whole).
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// LineErr is a LineError with a formatted message.
func LineErr(line int, format string, a ...any) error {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, a...)}
}

// At prefixes an error with the file name: "file:line: msg" for a
// LineError, "file: msg" otherwise.
func At(file string, err error) error {
	var le *LineError
	if errors.As(err, &le) {
		if le.Line > 0 {
			return fmt.Errorf("%s:%d: %s", file, le.Line, le.Msg)
		}
		return fmt.Errorf("%s: %s", file, le.Msg)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// Def is one definition of a claim file: a formula (Formula ≠ "") or the
// number Num, written at Line.
type Def struct {
	Formula string
	Num     float64
	Line    int
}

// Resolve evaluates defs — numbers, or formulas in each other and in the
// names of bound — in dependency order (depth first, names visited in
// sorted order, so the result does not depend on map order) and returns
// them with bound. A cycle, an unknown name or a failed evaluation is an
// error; noun names a definition in it ("variable" gives "variables depend
// on each other in a cycle: a → b → a" and "variable a: …"; "" gives
// "definitions …" and "a: …"), located at the definition's line.
func Resolve(defs map[string]Def, bound map[string]float64, noun string) (map[string]float64, error) {
	out := make(map[string]float64, len(defs)+len(bound))
	for k, v := range bound {
		out[k] = v
	}
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	sort.Strings(names)
	plural, label := "definitions", func(name string) string { return name }
	if noun != "" {
		plural, label = noun+"s", func(name string) string { return noun + " " + name }
	}
	state := map[string]int{} // 0 new, 1 in progress, 2 done
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch state[name] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("%s depend on each other in a cycle: %s", plural, strings.Join(append(path, name), " → "))
		}
		state[name] = 1
		v := defs[name]
		if v.Formula != "" {
			ids, err := Identifiers(v.Formula)
			if err != nil {
				return LineErr(v.Line, "%s: %v", label(name), err)
			}
			for _, id := range ids {
				if _, ok := defs[id]; ok {
					if err := visit(id, append(path, name)); err != nil {
						return err
					}
				} else if _, ok := bound[id]; !ok {
					return LineErr(v.Line, "%s: unknown name %q in %q", label(name), id, v.Formula)
				}
			}
			x, err := Eval(v.Formula, out)
			if err != nil {
				return LineErr(v.Line, "%s: %v", label(name), err)
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
