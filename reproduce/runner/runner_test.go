package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

type toyConfig struct {
	Steps int     `json:"steps" yaml:"steps"`
	LR    float64 `json:"lr" yaml:"lr"`
}

// toy is a tiny "experiment": noisy gradient descent on x² from a stream
// named by the run, so its result depends only on (cell, seed, config).
func toy(_ context.Context, r Run) (*Outcome, error) {
	cfg := r.Config.(toyConfig)
	if cfg.LR < 0 {
		return nil, fmt.Errorf("learning rate %g is negative", cfg.LR)
	}
	rnd := rng.New(r.Seed, r.Paper, r.Experiment, r.Cell).Rand()
	x := 5.0
	var rounds []Metrics
	for i := 0; i < cfg.Steps; i++ {
		x -= cfg.LR * (2*x + 0.1*rnd.NormFloat64())
		rounds = append(rounds, Metrics{"round": float64(i + 1), "loss": x * x})
	}
	return &Outcome{Rounds: rounds, Final: Metrics{"loss": x * x, "nan": math.NaN()}, Counters: Counters{"steps": int64(cfg.Steps)}}, nil
}

func toyRuns() []Run {
	var runs []Run
	for _, lr := range []float64{0.01, 0.1, 0.3} {
		for seed := uint64(1); seed <= 4; seed++ {
			runs = append(runs, Run{Paper: "toy", Scale: "smoke", Experiment: "gd", Cell: fmt.Sprintf("lr=%g", lr), Seed: seed, Config: toyConfig{Steps: 20, LR: lr}})
		}
	}
	return runs
}

// stripTiming removes the fields that may differ between two executions.
func stripTiming(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range TimingFields {
		delete(m, f)
	}
	return m
}

func TestWorkerCountDoesNotChangeResults(t *testing.T) {
	runs := toyRuns()
	one, four := t.TempDir(), t.TempDir()
	if _, err := Execute(context.Background(), runs, toy, Options{Dir: one, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Execute(context.Background(), runs, toy, Options{Dir: four, Workers: 4}); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		a, b := stripTiming(t, r.Path(one)), stripTiming(t, r.Path(four))
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("%s differs between 1 and 4 workers:\n%s\n%s", r.ID(), ja, jb)
		}
	}
}

func TestResumeSkipsExistingAndRerunsChangedConfig(t *testing.T) {
	dir := t.TempDir()
	runs := toyRuns()
	var calls atomic.Int64
	counting := func(ctx context.Context, r Run) (*Outcome, error) {
		calls.Add(1)
		return toy(ctx, r)
	}
	// Simulate a crash halfway: only the first half ran.
	if _, err := Execute(context.Background(), runs[:6], counting, Options{Dir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	calls.Store(0)
	sum, err := Execute(context.Background(), runs, counting, Options{Dir: dir, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 6 || sum.Ran != 6 || calls.Load() != 6 {
		t.Fatalf("resume: skipped %d ran %d calls %d, want 6/6/6", sum.Skipped, sum.Ran, calls.Load())
	}
	// A changed configuration must not reuse the stored result.
	changed := append([]Run(nil), runs...)
	changed[0].Config = toyConfig{Steps: 21, LR: 0.01}
	calls.Store(0)
	if _, err := Execute(context.Background(), changed, counting, Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("changed config: %d calls, want 1", calls.Load())
	}
}

func TestFailedRunLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	runs := toyRuns()[:2]
	runs[1].Config = toyConfig{Steps: 5, LR: -1}
	sum, err := Execute(context.Background(), runs, toy, Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "learning rate -1 is negative") {
		t.Fatalf("want the run's error, got %v", err)
	}
	if sum.Ran != 1 || sum.Failed != 1 {
		t.Fatalf("ran %d failed %d", sum.Ran, sum.Failed)
	}
	if _, err := os.Stat(runs[1].Path(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("failed run left a file: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(runs[1].Path(dir)), ".*.tmp"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

func TestPanickingRunIsAnError(t *testing.T) {
	dir := t.TempDir()
	boom := func(context.Context, Run) (*Outcome, error) { panic("index out of range") }
	_, err := Execute(context.Background(), toyRuns()[:1], boom, Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("want a panic error, got %v", err)
	}
}

func TestShardsPartitionTheRuns(t *testing.T) {
	runs := toyRuns()
	seen := map[string]int{}
	for i := 1; i <= 5; i++ {
		for _, r := range SelectShard(runs, nil, i, 5) {
			seen[r.ID()]++
		}
	}
	if len(seen) != len(runs) {
		t.Fatalf("shards cover %d of %d runs", len(seen), len(runs))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s in %d shards", id, n)
		}
	}
	for _, bad := range []string{"0/3", "4/3", "a/b", "3", "1/0"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func TestNonFiniteMetricsRoundTrip(t *testing.T) {
	in := Metrics{"a": 1.5, "nan": math.NaN(), "inf": math.Inf(1), "ninf": math.Inf(-1)}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Metrics
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out["a"] != 1.5 || !math.IsNaN(out["nan"]) || !math.IsInf(out["inf"], 1) || !math.IsInf(out["ninf"], -1) {
		t.Fatalf("round trip: %s → %v", b, out)
	}
}

func TestDecodeStrictNamesFileLineAndKey(t *testing.T) {
	type spec struct {
		Name  string      `yaml:"name"`
		Cells []toyConfig `yaml:"cells"`
	}
	cases := []struct {
		name, doc, want string
	}{
		{"unknown top key", "name: x\nseeds: [1]\n", `exp.yaml:2: unknown key "seeds"`},
		{"unknown nested key", "name: x\ncells:\n  - steps: 3\n    lr: 0.1\n    momentum: 0.5\n", `exp.yaml:5: unknown key "momentum"`},
		{"type mismatch", "name: x\ncells:\n  - steps: many\n", `exp.yaml:3:`},
		{"syntax", "name: [x\n", `exp.yaml:`},
		{"empty", "", `exp.yaml: empty spec`},
		{"two documents", "name: a\n---\nname: b\n", `unexpected second YAML document`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s spec
			err := DecodeStrict("exp.yaml", []byte(c.doc), &s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want it to contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
	var ok spec
	if err := DecodeStrict("exp.yaml", []byte("name: x\ncells:\n  - {steps: 3, lr: 0.1}\n"), &ok); err != nil || ok.Cells[0].Steps != 3 {
		t.Fatalf("valid spec: %v %+v", err, ok)
	}
}

func TestRejectsUnsafeLabels(t *testing.T) {
	r := toyRuns()[0]
	r.Cell = "../escape"
	if _, err := Execute(context.Background(), []Run{r}, toy, Options{Dir: t.TempDir()}); err == nil {
		t.Fatal("a cell with .. was accepted")
	}
}

func BenchmarkRunnerOverheadPerRun(b *testing.B) {
	dir := b.TempDir()
	noop := func(context.Context, Run) (*Outcome, error) {
		return &Outcome{Final: Metrics{"acc": 0.5}, Rounds: []Metrics{{"round": 1, "acc": 0.5}}}, nil
	}
	runs := make([]Run, b.N)
	for i := range runs {
		runs[i] = Run{Paper: "bench", Scale: "x", Experiment: "e", Cell: "c", Seed: uint64(i), Config: toyConfig{Steps: 1}}
	}
	b.ResetTimer()
	if _, err := Execute(context.Background(), runs, noop, Options{Dir: dir}); err != nil {
		b.Fatal(err)
	}
}

func TestCPUSecondsRecorded(t *testing.T) {
	if _, ok := threadCPU(); !ok {
		t.Skip("thread CPU time unavailable on this platform")
	}
	dir := t.TempDir()
	spin := func(context.Context, Run) (*Outcome, error) {
		x := 0.0
		for i := 0; i < 30_000_000; i++ {
			x += math.Sqrt(float64(i))
		}
		return &Outcome{Final: Metrics{"x": x}}, nil
	}
	r := toyRuns()[0]
	if _, err := Execute(context.Background(), []Run{r}, spin, Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	res, err := ReadResult(r.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !(res.CPUSeconds > 0.001) || res.CPUSeconds > res.WallSeconds+0.05 {
		t.Fatalf("cpu %.4fs wall %.4fs", res.CPUSeconds, res.WallSeconds)
	}
}

// With a cost model the pool takes the runs longest first, ties in plan
// order; without one, in plan order.
func TestLongestFirst(t *testing.T) {
	var runs []Run
	for s := uint64(1); s <= 6; s++ {
		runs = append(runs, Run{Paper: "toy", Scale: "smoke", Experiment: "e", Cell: "c", Seed: s})
	}
	cost := func(r Run) float64 { return float64(r.Seed%3) + 1 } // seeds 2,5 cost 3; 1,4 cost 2; 3,6 cost 1
	order := func(rs []Run) []uint64 {
		var o []uint64
		for _, r := range rs {
			o = append(o, r.Seed)
		}
		return o
	}
	if got, want := order(longestFirst(runs, cost, nil)), []uint64{2, 5, 1, 4, 3, 6}; !slices.Equal(got, want) {
		t.Errorf("longest first: %v, want %v", got, want)
	}
	if got, want := order(longestFirst(runs, nil, nil)), []uint64{1, 2, 3, 4, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("no cost model: %v, want %v", got, want)
	}
	bad := func(Run) float64 { return math.NaN() }
	if got, want := order(longestFirst(runs, bad, nil)), []uint64{1, 2, 3, 4, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("failing cost model: %v, want %v", got, want)
	}
	// One worker executes in that order.
	var mu sync.Mutex
	var ran []uint64
	fn := func(_ context.Context, r Run) (*Outcome, error) {
		mu.Lock()
		ran = append(ran, r.Seed)
		mu.Unlock()
		return &Outcome{Final: Metrics{"x": 1}}, nil
	}
	if _, err := Execute(context.Background(), runs, fn, Options{Dir: t.TempDir(), Workers: 1, Cost: cost}); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{2, 5, 1, 4, 3, 6}; !slices.Equal(ran, want) {
		t.Errorf("Execute ran %v, want %v", ran, want)
	}
}
