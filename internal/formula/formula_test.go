package formula

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestEval: every function in Functions is bound, with its math meaning;
// powers, conditions and unknown names behave; non-finite results are
// errors.
func TestEval(t *testing.T) {
	env := map[string]float64{"a": 2, "b": 8, "K": 100, "delta": 1e-5}
	for _, c := range []struct {
		src  string
		want float64
	}{
		{"sqrt(b) * sqrt(a)", 4},
		{"log(exp(a)) + log2(b) + log10(K)", 2 + 3 + 2},
		{"ceil(2.1) + floor(2.9) + round(2.5) + abs(-a)", 3 + 2 + 3 + 2},
		{"min(a, b) + max(a, b)", 10},
		{"a^3 + a**2", 12},
		{"a > 1 ? b : 0", 8},
		{"sqrt(K*log(1/delta))", math.Sqrt(100 * math.Log(1e5))},
	} {
		got, err := Eval(c.src, env)
		if err != nil || math.Abs(got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %v (%v), want %v", c.src, got, err, c.want)
		}
	}
	for _, c := range []struct{ src, msg string }{
		{"a / 0", "evaluates to +Inf"},
		{"log(-a)", "evaluates to NaN"},
		{"zz + 1", `unknown name "zz"`},
		{"a +", ""},
		{"len(a)", ""}, // builtins are disabled
	} {
		_, err := Eval(c.src, env)
		if err == nil || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.src, err, c.msg)
		}
	}
	if len(unaries)+len(binaries) != len(Functions) {
		t.Errorf("%d functions listed, %d bound", len(Functions), len(unaries)+len(binaries))
	}
}

func TestCompileCondition(t *testing.T) {
	env := map[string]float64{"lr": 0.1, "L": 2}
	p, err := Compile("lr <= 1/(4*L)", env, true)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := p.Test(AnyEnv(env)); err != nil || !ok {
		t.Errorf("0.1 ≤ 1/8: %v %v", ok, err)
	}
	if ok, _ := p.Test(AnyEnv(map[string]float64{"lr": 0.2, "L": 2})); ok {
		t.Error("0.2 ≤ 1/8 holds")
	}
	if got := strings.Join(p.IDs, ","); got != "L,lr" {
		t.Errorf("IDs %s", got)
	}
	if _, err := Compile("lr + 1", env, true); err == nil {
		t.Error("a number compiled as a condition")
	}
}

// TestResolve: definitions resolve in dependency order whatever their
// order; a cycle, an unknown name and a failed evaluation are errors that
// name the definition and its line, in the caller's noun.
func TestResolve(t *testing.T) {
	defs := map[string]Def{
		"c": {Formula: "b * 2", Line: 3},
		"b": {Formula: "a + x", Line: 2},
		"a": {Num: 1, Line: 1},
	}
	got, err := Resolve(defs, map[string]float64{"x": 10}, "variable")
	if err != nil || got["a"] != 1 || got["b"] != 11 || got["c"] != 22 || got["x"] != 10 {
		t.Fatalf("%v %v", got, err)
	}
	for _, c := range []struct {
		defs       map[string]Def
		noun, want string
		line       int
	}{
		{map[string]Def{"p": {Formula: "q", Line: 4}, "q": {Formula: "p", Line: 5}}, "variable", "variables depend on each other in a cycle: p → q → p", 0},
		{map[string]Def{"p": {Formula: "q", Line: 4}, "q": {Formula: "p", Line: 5}}, "", "definitions depend on each other in a cycle: p → q → p", 0},
		{map[string]Def{"p": {Formula: "zz + 1", Line: 7}}, "variable", `variable p: unknown name "zz" in "zz + 1"`, 7},
		{map[string]Def{"p": {Formula: "log(0)", Line: 9}}, "", `p: "log(0)" evaluates to -Inf`, 9},
	} {
		_, err := Resolve(c.defs, nil, c.noun)
		if err == nil {
			t.Errorf("%v: no error", c.defs)
			continue
		}
		var le *LineError
		line := 0
		if errors.As(err, &le) {
			line = le.Line
		}
		if !strings.Contains(err.Error(), c.want) || line != c.line {
			t.Errorf("error %q (line %d), want %q at line %d", err, line, c.want, c.line)
		}
	}
}

func TestAt(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{LineErr(12, "bad %s", "x"), "f.yaml:12: bad x"},
		{LineErr(0, "bad"), "f.yaml: bad"},
		{errors.New("plain"), "f.yaml: plain"},
	} {
		if got := At("f.yaml", c.err).Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

// TestCompileMemo: a program served from the compile memo is the one a
// fresh compilation gives — it reads the values of the env it runs in,
// not those it was compiled with — and the memo tells apart sources, env
// name sets and conditions.
func TestCompileMemo(t *testing.T) {
	envA := map[string]float64{"x": 2, "y": 3}
	p1, err := Compile("x * y + 1", envA, false)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Compile("x * y + 1", map[string]float64{"x": 5, "y": 7}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    *Program
		env  map[string]float64
		want float64
	}{{p1, envA, 7}, {p2, map[string]float64{"x": 5, "y": 7}, 36}, {p1, map[string]float64{"x": -1, "y": 4}, -3}} {
		if got, err := c.p.Eval(AnyEnv(c.env)); err != nil || got != c.want {
			t.Errorf("%v: %v, %v; want %v", c.env, got, err, c.want)
		}
	}
	// Another name set: the unknown name is still reported.
	if _, err := Compile("x * y + 1", map[string]float64{"x": 1}, false); err == nil || !strings.Contains(err.Error(), `unknown name "y"`) {
		t.Errorf("compiled for env without y: %v", err)
	}
	// A condition is another program than a number of the same source.
	c, err := Compile("x > y", envA, true)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Test(AnyEnv(envA)); err != nil || ok {
		t.Errorf("2 > 3: %v, %v", ok, err)
	}
	if _, err := Compile("x > y", envA, false); err == nil {
		t.Error("a condition compiled as a number")
	}
}
