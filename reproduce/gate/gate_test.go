package gate

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// results makes seeds runs of one cell whose final "acc" is base + a seed
// pattern + shift(seed), with a 10-round curve, counters and extra data.
func results(cell string, seeds int, base float64, shift func(seed int) float64) []*runner.Result {
	var out []*runner.Result
	for s := 1; s <= seeds; s++ {
		v := base + 0.01*float64(s%3-1) + shift(s)
		var rounds []runner.Metrics
		for r := 0; r < 10; r++ {
			rounds = append(rounds, runner.Metrics{"round": float64(r), "loss": 1 / float64(r+s)})
		}
		out = append(out, &runner.Result{
			Run:        runner.Run{Paper: "toy", Scale: "smoke", Experiment: "t1", Cell: cell, Seed: uint64(s)},
			ConfigHash: "h-" + cell,
			Rounds:     rounds,
			Final:      runner.Metrics{"acc": v, "loss": 0.1 * v},
			Counters:   runner.Counters{"sgd_steps": 100},
			Extra:      map[string]any{"sigma": 1.5, "mode": "paper", "per_round": []float64{0.1, 0.2}},
		})
	}
	return out
}

func none(int) float64 { return 0 }

var metrics = []Metric{{Name: "acc", Threshold: 0.01}}

func snap(t *testing.T, rs ...[]*runner.Result) *Snapshot {
	t.Helper()
	var all []*runner.Result
	for _, r := range rs {
		all = append(all, r...)
	}
	s, err := Collect("toy", "smoke", metrics, all)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// roundTrip writes and reads a snapshot, as the gate does with goldens.
func roundTrip(t *testing.T, s *Snapshot) *Snapshot {
	t.Helper()
	p := filepath.Join(t.TempDir(), "results.json")
	if err := Write(p, s); err != nil {
		t.Fatal(err)
	}
	g, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCheckpoints(t *testing.T) {
	cases := []struct {
		n    int
		want []int
	}{
		{0, nil},
		{1, []int{0}},
		{8, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{9, []int{1, 3, 5, 7, 8}},                // step ⌈9/8⌉ = 2, plus the last
		{24, []int{2, 5, 8, 11, 14, 17, 20, 23}}, // step 3
		{100, []int{12, 25, 38, 51, 64, 77, 90, 99}},
	}
	for _, c := range cases {
		if got := Checkpoints(c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Checkpoints(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

func TestValuesKeys(t *testing.T) {
	r := results("a", 1, 0.9, none)[0]
	v := Values(r)
	want := map[string]float64{
		"final/acc": r.Final["acc"], "final/loss": r.Final["loss"],
		"round/1/loss": 0.5, "round/9/loss": 0.1, "round/5/round": 5,
		"counter/sgd_steps": 100, "extra/sigma": 1.5, "extra/per_round/1": 0.2,
	}
	for k, w := range want {
		if got, ok := v[k]; !ok || got != w {
			t.Errorf("value %s = %v (present %v), want %v", k, got, ok, w)
		}
	}
	// 5 checkpoints of 10 rounds (1, 3, 5, 7, 9) × 2 metrics + 2 finals +
	// 1 counter + 3 numeric extras; the string "mode" is a label.
	if len(v) != 16 {
		t.Errorf("%d values, want 16: %v", len(v), v)
	}
	if _, ok := v["round/0/loss"]; ok {
		t.Error("round 0 of 10 is not a checkpoint")
	}
}

// A snapshot survives the file bit for bit, including values whose
// shortest decimal form needs 17 digits, NaN and infinities.
func TestRoundTripIsLossless(t *testing.T) {
	rs := results("a", 2, 0.9, none)
	rs[0].Final["acc"] = 0.1 + 0.2 // 0.30000000000000004
	rs[0].Final["nan"] = math.NaN()
	rs[1].Final["inf"] = math.Inf(-1)
	rs[1].Final["tiny"] = math.SmallestNonzeroFloat64
	s := snap(t, rs)
	g := roundTrip(t, s)
	if d := Exact(g, s, 0); len(d) != 0 {
		t.Fatalf("round trip changed values:\n%s", Table(d, 0))
	}
	if math.Float64bits(g.Runs[0].Values["final/acc"]) != math.Float64bits(0.1+0.2) {
		t.Fatal("0.1+0.2 lost its last bit")
	}
}

func TestExactFindsEveryKindOfChange(t *testing.T) {
	golden := roundTrip(t, snap(t, results("a", 4, 0.9, none), results("b", 4, 0.8, none)))
	ulp := func(x float64) float64 { return math.Nextafter(x, 2) }
	cases := []struct {
		name   string
		edit   func(rs []*runner.Result) []*runner.Result
		tol    float64
		nDiffs int
		note   string
	}{
		{"identical rerun passes", func(rs []*runner.Result) []*runner.Result { return rs }, 0, 0, ""},
		{"one ulp in one final value fails", func(rs []*runner.Result) []*runner.Result {
			rs[2].Final["acc"] = ulp(rs[2].Final["acc"])
			return rs
		}, 0, 1, ""},
		{"one ulp passes under the foreign tolerance", func(rs []*runner.Result) []*runner.Result {
			rs[2].Final["acc"] = ulp(rs[2].Final["acc"])
			return rs
		}, RelTolForeign, 0, ""},
		{"a 1e-8 relative move fails even under the foreign tolerance", func(rs []*runner.Result) []*runner.Result {
			rs[2].Final["acc"] *= 1 + 1e-8
			return rs
		}, RelTolForeign, 1, ""},
		{"a curve checkpoint moved", func(rs []*runner.Result) []*runner.Result {
			rs[0].Rounds[5]["loss"] += 1e-3
			return rs
		}, 0, 1, ""},
		{"a counter moved", func(rs []*runner.Result) []*runner.Result {
			rs[1].Counters["sgd_steps"]++
			return rs
		}, 0, 1, ""},
		{"an extra value moved", func(rs []*runner.Result) []*runner.Result {
			rs[1].Extra = map[string]any{"sigma": 1.6, "mode": "paper", "per_round": []float64{0.1, 0.2}}
			return rs
		}, 0, 1, ""},
		{"a value turned NaN", func(rs []*runner.Result) []*runner.Result {
			rs[3].Final["loss"] = math.NaN()
			return rs
		}, RelTolForeign, 1, ""},
		{"a run is missing", func(rs []*runner.Result) []*runner.Result { return rs[1:] }, 0, 1, "missing"},
		{"an extra run", func(rs []*runner.Result) []*runner.Result {
			return append(rs, results("c", 1, 0.5, none)...)
		}, 0, 1, "not in the golden"},
		{"a new final metric", func(rs []*runner.Result) []*runner.Result {
			rs[0].Final["new"] = 1
			return rs
		}, 0, 1, "not in the golden"},
		{"configuration changed", func(rs []*runner.Result) []*runner.Result {
			rs[0].ConfigHash = "other"
			return rs
		}, 0, 1, "configuration changed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := c.edit(append(results("a", 4, 0.9, none), results("b", 4, 0.8, none)...))
			fresh, err := Collect("toy", "smoke", metrics, rs)
			if err != nil {
				t.Fatal(err)
			}
			d := Exact(golden, fresh, c.tol)
			if len(d) != c.nDiffs {
				t.Fatalf("%d differences, want %d:\n%s", len(d), c.nDiffs, Table(d, 0))
			}
			if c.note != "" && !strings.Contains(d[0].Note, c.note) {
				t.Errorf("note %q, want one containing %q", d[0].Note, c.note)
			}
		})
	}
}

func TestTableIsOneTableWithALimit(t *testing.T) {
	golden := snap(t, results("a", 4, 0.9, none))
	fresh := snap(t, results("a", 4, 0.9, func(int) float64 { return 0.05 }))
	d := Exact(golden, fresh, 0)
	if len(d) != 8 { // acc and loss of four seeds
		t.Fatalf("%d differences, want 8", len(d))
	}
	out := Table(d, 3)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 { // header, rule, 3 rows, "… and 5 more"
		t.Fatalf("table has %d lines:\n%s", len(lines), out)
	}
	for _, w := range []string{"cell", "seed", "metric", "golden", "fresh", "rel. change", "t1/a", "acc", "and 5 more"} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
	if s := Summary(d, golden); !strings.Contains(s, "8 values moved") || !strings.Contains(s, "4 of 4 runs") {
		t.Errorf("summary %q", s)
	}
}

func TestReadRejectsOldSchema(t *testing.T) {
	p := filepath.Join(t.TempDir(), "results.json")
	if err := runner.WriteFileAtomic(p, []byte(`{"paper":"toy","scale":"smoke","metrics":[],"cells":[]}`)); err != nil {
		t.Fatal(err)
	}
	_, err := Read(p)
	if err == nil || !strings.Contains(err.Error(), "make golden") {
		t.Fatalf("old golden: error %v, want one saying to re-record", err)
	}
}

// The paired t-test against a hand computation: differences 1, 2, 3, 4
// have mean 2.5 and sample sd √(5/3) = 1.29099, so t = 2.5/(1.29099/2) =
// 3.87298 on 3 d.f.; the two-sided p is 0.030466 (Student t tables:
// t_{0.975,3} = 3.18245 < 3.873 < t_{0.99,3} = 4.5407; the value below
// is a Simpson integral of the t density). The MDE is
// (t_{0.975,3} + t_{0.8,3})·sd/√n = (3.182446 + 0.978472)·1.29099/2.
func TestPairedT(t *testing.T) {
	p, mde := pairedT([]float64{1, 2, 3, 4})
	if !(math.Abs(p-0.030466) <= 5e-6) {
		t.Errorf("p = %.6f, want 0.030466", p)
	}
	want := (3.182446 + 0.978472) * math.Sqrt(5.0/3) / 2
	if !(math.Abs(mde-want) <= 1e-5) {
		t.Errorf("MDE = %.6f, want %.6f", mde, want)
	}
	if p, _ := pairedT([]float64{0.5, 0.5, 0.5}); p != 0 {
		t.Errorf("constant non-zero shift: p = %v, want 0", p)
	}
	if p, m := pairedT([]float64{1}); !math.IsNaN(p) || !math.IsNaN(m) {
		t.Errorf("one pair: p = %v, MDE = %v, want NaN", p, m)
	}
	// Unpaired MDE on 6 d.f. at s = 1, n = 4: (2.446912 + 0.905703)·√(1/2)
	// (quantiles by bisection on a Simpson integral of the t density).
	if got, want := mdeUnpaired(1, 4), (2.446912+0.905703)*math.Sqrt(0.5); !(math.Abs(got-want) <= 1e-5) {
		t.Errorf("unpaired MDE = %.6f, want %.6f", got, want)
	}
}

func TestReviewVerdicts(t *testing.T) {
	golden := snap(t, results("a", 6, 0.9, none), results("b", 6, 0.8, none), results("c", 6, 0.7, none), results("d", 6, 0.6, none))
	noisy := func(s int) float64 { return []float64{0.002, -0.003, 0.001, 0.0015, -0.002, 0.0004}[s-1] }
	fresh := snap(t,
		results("a", 6, 0.9, none),                               // unchanged
		results("b", 6, 0.8, func(int) float64 { return -0.02 }), // every seed down two points: shifted
		results("c", 6, 0.7, noisy),                              // moves around zero: within noise
	) // d is missing
	rows := Review(golden, fresh)
	got := map[string]string{}
	for _, r := range rows {
		got[r.Cell+" "+r.Metric] = r.Verdict
	}
	want := map[string]string{
		"a acc": Unchanged, "b acc": Shifted, "b loss": Shifted, "c acc": WithinNoise, "c loss": WithinNoise, "d (cell)": OnlyGolden,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("verdicts %v, want %v", got, want)
	}
	if rows[0].Verdict != Shifted {
		t.Errorf("the most severe rows come first; first is %q", rows[0].Verdict)
	}
	for _, r := range rows {
		if r.Cell == "b" && r.Metric == "acc" && (!(math.Abs(r.Delta+0.02) <= 1e-12) || r.N != 6) {
			t.Errorf("b acc: Δ = %v over %d seeds, want −0.02 over 6", r.Delta, r.N)
		}
	}
	out := ReviewTable(rows)
	for _, w := range []string{"verdict", "MDE paired", "t1/b", "shifted", "within noise", "missing"} {
		if !strings.Contains(out, w) {
			t.Errorf("review table lacks %q:\n%s", w, out)
		}
	}
}

func TestNamedCompare(t *testing.T) {
	g := Flatten("x", map[string]any{"eps": 1.5, "verdict": "holds", "rows": []any{map[string]any{"a": 1.0}}})
	f := Flatten("x", map[string]any{"eps": math.Nextafter(1.5, 2), "verdict": "refuted", "rows": []any{map[string]any{"a": 1.0}}})
	d := CompareNamed(g, f, 0)
	if len(d) != 2 || d[0].Key != "x/eps" || d[1].Key != "x/verdict" {
		t.Fatalf("diffs %+v", d)
	}
	if d := CompareNamed(g, g, 0); len(d) != 0 {
		t.Fatalf("identical values differ: %+v", d)
	}
	if d := CompareNamed(g, Flatten("x", map[string]any{"eps": 1.5}), 0); len(d) != 2 {
		t.Fatalf("missing values: %+v", d)
	}
}
