package paper

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

type groupCfg struct {
	Method string  `json:"method"`
	LR     float64 `json:"lr"`
}

func groupResult(exp, cell string, seed uint64, cfg any, acc float64, curve ...float64) *runner.Result {
	r := &runner.Result{Run: runner.Run{Paper: "toy", Scale: "smoke", Experiment: exp, Cell: cell, Seed: seed, Config: cfg},
		Final: runner.Metrics{"acc": acc}, Counters: runner.Counters{"steps": int64(10 * seed)}, CPUSeconds: float64(seed)}
	for i, y := range curve {
		r.Rounds = append(r.Rounds, runner.Metrics{"t": float64(i + 1), "loss": y})
	}
	return r
}

func TestGroupBy(t *testing.T) {
	// Out of order, one configuration decoded from JSON (a result loaded
	// from disk), one typed (a result just made).
	results := []*runner.Result{
		groupResult("e", "b", 2, groupCfg{"b", 0.1}, 0.6, 3, 2),
		groupResult("e", "a", 3, map[string]any{"method": "a", "lr": 0.5}, 0.9, 5, 4, 1),
		groupResult("e", "a", 1, groupCfg{"a", 0.5}, 0.7, 3, 2, 9),
		groupResult("e", "b", 1, groupCfg{"b", 0.1}, 0.4, 1, 0),
	}
	groups, err := GroupBy(results, func(_ *runner.Result, c groupCfg) string { return c.Method })
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	a := groups["a"]
	if got := a.Seeds(); len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("seeds %v, want [1 3] in order", got)
	}
	if a.Config.LR != 0.5 {
		t.Errorf("config %+v", a.Config)
	}
	if s := a.Final("acc"); math.Abs(s.Mean-0.8) > 1e-12 || math.Abs(s.Std-math.Sqrt(0.02)) > 1e-12 || s.N != 2 {
		t.Errorf("final %+v, want mean 0.8, std √0.02", s)
	}
	if s := a.Final("missing"); s.N != 0 {
		t.Errorf("a metric no result records: %+v", s)
	}
	if s := a.Counter("steps"); s.Mean != 20 {
		t.Errorf("counter %+v", s)
	}
	if s := groups["b"].CPU(); s.Mean != 1.5 {
		t.Errorf("cpu %+v", s)
	}
	// The curve stops at the shorter seed's last round (both have 3 here:
	// seed 1 [3 2 9], seed 3 [5 4 1]).
	xs, mean, std := a.Curve(Metric("loss"), Metric("t"))
	if len(xs) != 3 || xs[2] != 3 || mean[0] != 4 || mean[2] != 5 || math.Abs(std[1]-math.Sqrt2) > 1e-12 {
		t.Errorf("curve %v %v %v", xs, mean, std)
	}
	xs, _, _ = groups["b"].Curve(Metric("loss"), Metric("t"))
	if len(xs) != 2 {
		t.Errorf("curve of b: %v", xs)
	}
	// Paired over the seeds both have, in a's order: a has seeds 1, 3 and
	// b has 1, 2, so only seed 1 pairs.
	if d := Paired(a, groups["b"], func(ra, rb *runner.Result) float64 { return ra.Final["acc"] - rb.Final["acc"] }); len(d) != 1 || math.Abs(d[0]-0.3) > 1e-12 {
		t.Errorf("paired %v, want [0.3]", d)
	}
	if a.Seed(3).Final["acc"] != 0.9 || a.Seed(2) != nil {
		t.Error("Seed lookup")
	}
	// The caller's slice keeps its order.
	if results[0].Cell != "b" || results[1].Seed != 3 {
		t.Error("GroupBy reordered its input")
	}
}

func TestGroupByBadConfig(t *testing.T) {
	_, err := GroupBy([]*runner.Result{groupResult("e", "a", 1, map[string]any{"lr": "fast"}, 0)},
		func(_ *runner.Result, c groupCfg) string { return c.Method })
	if err == nil {
		t.Fatal("an undecodable configuration was grouped")
	}
}

// wrappedGroup is a paper's own group type, as GroupAs builds it.
type wrappedGroup struct{ *Group[groupCfg] }

// TestGroupAs checks that GroupAs wraps exactly GroupBy's groups: the same
// keys, each wrapper holding that key's group (seeds in order), and that a
// configuration that does not decode is still an error.
func TestGroupAs(t *testing.T) {
	results := []*runner.Result{
		groupResult("e", "b", 2, groupCfg{"b", 0.1}, 0.6),
		groupResult("e", "a", 3, groupCfg{"a", 0.5}, 0.9),
		groupResult("e", "a", 1, groupCfg{"a", 0.5}, 0.7),
	}
	key := func(_ *runner.Result, c groupCfg) string { return c.Method }
	wrapped, err := GroupAs(results, key, func(g *Group[groupCfg]) wrappedGroup { return wrappedGroup{g} })
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := GroupBy(results, key)
	if len(wrapped) != len(plain) {
		t.Fatalf("%d wrapped groups, %d groups", len(wrapped), len(plain))
	}
	for k, g := range plain {
		w := wrapped[k].Group
		if w == nil || w.Config != g.Config || len(w.Results) != len(g.Results) {
			t.Errorf("%s: wrapped %+v, grouped %+v", k, w, g)
		}
	}
	if got := wrapped["a"].Seeds(); len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("seeds %v, want [1 3]", got)
	}
	bad := append(results, groupResult("e", "c", 1, map[string]any{"lr": "fast"}, 0))
	if _, err := GroupAs(bad, key, func(g *Group[groupCfg]) wrappedGroup { return wrappedGroup{g} }); err == nil {
		t.Error("an undecodable configuration was grouped")
	}
}
