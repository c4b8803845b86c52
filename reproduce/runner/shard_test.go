package runner

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// slurm returns the variables Slurm 22.05 sets in a task of an array
// (recorded on a live cluster: --array=1,2,9 gives COUNT=3, MIN=1, MAX=9,
// STEP=1; --array=1-7:2 gives COUNT=4, MAX=7, STEP=2).
func slurm(id, lo, hi, step, count int) func(string) string {
	return env("SLURM_ARRAY_TASK_ID", fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN", fmt.Sprint(lo), "SLURM_ARRAY_TASK_MAX", fmt.Sprint(hi),
		"SLURM_ARRAY_TASK_STEP", fmt.Sprint(step), "SLURM_ARRAY_TASK_COUNT", fmt.Sprint(count), "SLURM_ARRAY_JOB_ID", "41")
}

func TestResolveShard(t *testing.T) {
	cases := []struct {
		name   string
		spec   string
		getenv func(string) string
		i, n   int
		err    string
	}{
		{"none", "", env(), 1, 1, ""},
		{"explicit", "2/8", slurm(5, 1, 8, 1, 8), 2, 8, ""}, // the flag wins over the environment
		{"explicit bad", "0/3", env(), 0, 0, "want i/n"},
		{"slurm 1-8 first", "auto", slurm(1, 1, 8, 1, 8), 1, 8, ""},
		{"slurm 1-8 last", "auto", slurm(8, 1, 8, 1, 8), 8, 8, ""},
		{"slurm 0-7 first", "auto", slurm(0, 0, 7, 1, 8), 1, 8, ""},
		{"slurm 0-7 last", "auto", slurm(7, 0, 7, 1, 8), 8, 8, ""},
		{"slurm 1-7:2", "auto", slurm(5, 1, 7, 2, 4), 3, 4, ""},
		{"slurm 10-24:2", "auto", slurm(24, 10, 24, 2, 8), 8, 8, ""},
		{"slurm single task", "auto", slurm(3, 3, 3, 1, 1), 1, 1, ""},
		{"slurm list 1,2,9", "auto", slurm(9, 1, 9, 1, 3), 0, 0, "not an evenly stepped range"},
		{"slurm missing count", "auto", env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "3", "SLURM_ARRAY_TASK_STEP", "1"), 0, 0, "SLURM_ARRAY_TASK_COUNT"},
		{"slurm off-step task", "auto", slurm(2, 1, 7, 2, 4), 0, 0, "not an evenly stepped range"},
		{"slurm numbered", "auto", withEnv(slurm(5, 5, 5, 1, 1), ShardCountEnv, "8"), 5, 8, ""},
		{"slurm numbered list", "auto", withEnv(slurm(9, 1, 9, 1, 3), ShardCountEnv, "9"), 9, 9, ""},
		{"slurm numbered out of range", "auto", withEnv(slurm(0, 0, 7, 1, 8), ShardCountEnv, "8"), 0, 0, "outside 1..8"},
		{"kubernetes first", "auto", env("JOB_COMPLETION_INDEX", "0", ShardCountEnv, "3"), 1, 3, ""},
		{"kubernetes last", "auto", env("JOB_COMPLETION_INDEX", "2", ShardCountEnv, "3"), 3, 3, ""},
		{"kubernetes no count", "auto", env("JOB_COMPLETION_INDEX", "0"), 0, 0, ShardCountEnv},
		{"kubernetes index too big", "auto", env("JOB_COMPLETION_INDEX", "3", ShardCountEnv, "3"), 0, 0, "not below"},
		{"kubernetes bad index", "auto", env("JOB_COMPLETION_INDEX", "x", ShardCountEnv, "3"), 0, 0, "not a non-negative integer"},
		{"nothing", "auto", env(), 0, 0, "no job-array variables"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i, n, src, err := ResolveShard(c.spec, c.getenv)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %d/%d %v, want an error containing %q", i, n, err, c.err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", err)
				}
				return
			}
			if err != nil || i != c.i || n != c.n {
				t.Fatalf("got %d/%d (%s) %v, want %d/%d", i, n, src, err, c.i, c.n)
			}
		})
	}
}

// Every task of a Slurm array maps to a distinct shard, and together they
// cover 1..n, for ranges with offsets and steps.
func TestSlurmTasksCoverShards(t *testing.T) {
	for _, a := range []struct{ lo, hi, step int }{{1, 8, 1}, {0, 7, 1}, {3, 3, 1}, {1, 7, 2}, {100, 190, 10}} {
		count := (a.hi-a.lo)/a.step + 1
		seen := map[int]bool{}
		for id := a.lo; id <= a.hi; id += a.step {
			i, n, _, err := ResolveShard("auto", slurm(id, a.lo, a.hi, a.step, count))
			if err != nil || n != count || seen[i] || i < 1 || i > n {
				t.Fatalf("array %d-%d:%d task %d: %d/%d %v", a.lo, a.hi, a.step, id, i, n, err)
			}
			seen[i] = true
		}
		if len(seen) != count {
			t.Fatalf("array %d-%d:%d covers %d of %d shards", a.lo, a.hi, a.step, len(seen), count)
		}
	}
}

func withEnv(base func(string) string, k, v string) func(string) string {
	return func(name string) string {
		if name == k {
			return v
		}
		return base(name)
	}
}

func costRuns(costs []float64) []Run {
	runs := make([]Run, len(costs))
	for k, c := range costs {
		runs[k] = Run{Paper: "toy", Scale: "s", Experiment: "e", Cell: fmt.Sprintf("c%03d", k), Seed: 1, Config: toyConfig{Steps: k, LR: c}}
	}
	return runs
}

// LPT's partition: every run in exactly one shard, each shard in plan
// order, and the list-scheduling bound max load ≤ total/n + max cost.
func TestPartitionProperties(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("partition is exact, ordered and within the greedy bound", prop.ForAll(
		func(costs []float64, n int) string {
			runs := costRuns(costs)
			shards, loads := Partition(runs, costs, n)
			if len(shards) != n {
				return "wrong shard count"
			}
			seen := make([]int, len(runs))
			var total, maxc, maxl float64
			for _, c := range costs {
				total += c
				maxc = math.Max(maxc, c)
			}
			for s, idx := range shards {
				if !sort.IntsAreSorted(idx) {
					return "shard not in plan order"
				}
				var l float64
				for _, k := range idx {
					seen[k]++
					l += costs[k]
				}
				if !(math.Abs(l-loads[s]) <= 1e-9*math.Max(1, l)) {
					return "load mismatch"
				}
				maxl = math.Max(maxl, l)
			}
			for _, c := range seen {
				if c != 1 {
					return "a run is in zero or two shards"
				}
			}
			if maxl > total/float64(n)+maxc+1e-9 {
				return "above total/n + max"
			}
			return ""
		},
		gen.SliceOf(gen.Float64Range(0.01, 100)), gen.IntRange(1, 12)))
	props.TestingRun(t)
}

// The partition depends on (runs, costs, n) only: the order in which the
// runs are listed does not change which shard a run lands in.
func TestPartitionIgnoresListingOrder(t *testing.T) {
	costs := []float64{5, 1, 1, 3, 3, 2, 8, 1, 1, 4, 4, 4}
	runs := costRuns(costs)
	assign := func(runs []Run, costs []float64) map[string]int {
		shards, _ := Partition(runs, costs, 3)
		m := map[string]int{}
		for s, idx := range shards {
			for _, k := range idx {
				m[runs[k].ID()] = s
			}
		}
		return m
	}
	a := assign(runs, costs)
	rr := append([]Run(nil), runs...)
	rc := append([]float64(nil), costs...)
	for i, j := 0, len(rr)-1; i < j; i, j = i+1, j-1 {
		rr[i], rr[j] = rr[j], rr[i]
		rc[i], rc[j] = rc[j], rc[i]
	}
	b := assign(rr, rc)
	for id, s := range a {
		if b[id] != s {
			t.Fatalf("%s: shard %d vs %d after reversing the list", id, s, b[id])
		}
	}
	// Equal costs: ties go by run ID, so shards are interleaved by ID.
	shards, loads := Partition(costRuns(make4(7)), make4(7), 3)
	if fmt.Sprint(shards) != "[[0 3 6] [1 4] [2 5]]" || fmt.Sprint(loads) != "[12 8 8]" {
		t.Fatalf("equal costs: %v %v", shards, loads)
	}
}

func make4(n int) []float64 {
	c := make([]float64, n)
	for i := range c {
		c[i] = 4
	}
	return c
}

// Unbalanced plans, where round-robin puts every expensive run on one
// shard, come out balanced.
func TestPartitionBalancesWhereRoundRobinDoesNot(t *testing.T) {
	var costs []float64
	for k := 0; k < 60; k++ {
		c := 1.0
		if k%3 == 0 {
			c = 20 // every third run is expensive: round-robin over 3 shards stacks them
		}
		costs = append(costs, c)
	}
	runs := costRuns(costs)
	_, loads := Partition(runs, costs, 3)
	var rr [3]float64
	for k, c := range costs {
		rr[k%3] += c
	}
	ratio := func(l []float64) float64 {
		var s, m float64
		for _, x := range l {
			s += x
			m = math.Max(m, x)
		}
		return m / (s / float64(len(l)))
	}
	if r := ratio(loads); r > 1.02 {
		t.Errorf("LPT max/mean %.3f (loads %v)", r, loads)
	}
	if r := ratio(rr[:]); r < 2 {
		t.Errorf("round-robin was expected to be unbalanced here, max/mean %.3f", r)
	}
}

func TestCostsWithMeasurements(t *testing.T) {
	runs := []Run{
		{Paper: "p", Scale: "s", Experiment: "a", Cell: "x", Seed: 1, Config: toyConfig{Steps: 1}},
		{Paper: "p", Scale: "s", Experiment: "a", Cell: "x", Seed: 2, Config: toyConfig{Steps: 1}}, // same config as seed 1
		{Paper: "p", Scale: "s", Experiment: "a", Cell: "y", Seed: 1, Config: toyConfig{Steps: 2}},
		{Paper: "p", Scale: "s", Experiment: "b", Cell: "z", Seed: 1, Config: toyConfig{Steps: 3}},
	}
	model := func(r Run) float64 { return float64(r.Config.(toyConfig).Steps) * 10 }
	h, _ := runs[0].ConfigHash()
	got, err := Costs(runs, model, map[string]float64{h: 2}) // 2 s for 10 units: 0.2 s per unit
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 2, 4, 6}
	for k := range want {
		if !(math.Abs(got[k]-want[k]) <= 1e-12) {
			t.Fatalf("costs %v, want %v", got, want)
		}
	}
	if c, _ := Costs(runs, model, nil); c[3] != 30 {
		t.Fatalf("model only: %v", c)
	}
	if _, err := Costs(runs, func(Run) float64 { return math.NaN() }, nil); err == nil || !strings.Contains(err.Error(), "cost model gave NaN") {
		t.Fatalf("NaN cost: %v", err)
	}
}

// Executing every shard of a cost-balanced partition runs each run once,
// and the results equal those of an unsharded execution.
func TestShardedExecutionCoversEveryRunOnce(t *testing.T) {
	runs := toyRuns()
	cost := func(r Run) float64 { return 1 + r.Config.(toyConfig).LR*float64(r.Seed) }
	whole, sharded := t.TempDir(), t.TempDir()
	if _, err := Execute(context.Background(), runs, toy, Options{Dir: whole, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := 1; i <= 5; i++ {
		sum, err := Execute(context.Background(), runs, toy, Options{Dir: sharded, Workers: 1, Shard: i, Shards: 5, Cost: cost})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Skipped != 0 {
			t.Fatalf("shard %d reused %d results of another shard", i, sum.Skipped)
		}
		total += sum.Ran
	}
	if total != len(runs) {
		t.Fatalf("shards ran %d runs, plan has %d", total, len(runs))
	}
	for _, r := range runs {
		a, b := stripTiming(t, r.Path(whole)), stripTiming(t, r.Path(sharded))
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s differs between sharded and whole execution", r.ID())
		}
	}
}

func TestShardPlanRoundTripAndCheck(t *testing.T) {
	dir := t.TempDir()
	runs := toyRuns()
	if _, err := Execute(context.Background(), runs[:3], toy, Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	m, err := MeasuredCosts(runs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 { // runs[:3] are three seeds of one configuration
		t.Fatalf("measured %v, want one config hash", m)
	}
	d, _ := PlanDigest(runs)
	p := &ShardPlan{Paper: "toy", Scale: "smoke", Runs: len(runs), Digest: d, Measured: m}
	path := filepath.Join(dir, "plan.json")
	if err := WriteShardPlan(path, p); err != nil {
		t.Fatal(err)
	}
	q, err := ReadShardPlan(path)
	if err != nil || q.Digest != d || len(q.Measured) != 1 {
		t.Fatalf("read back %+v %v", q, err)
	}
	if err := q.Check(path, runs); err != nil {
		t.Fatal(err)
	}
	changed := append([]Run(nil), runs...)
	changed[4].Config = toyConfig{Steps: 99}
	if err := q.Check(path, changed); err == nil || !strings.Contains(err.Error(), "plan was made for") {
		t.Fatalf("a changed plan passed the check: %v", err)
	}
}

func TestFormatCells(t *testing.T) {
	runs := toyRuns() // 3 cells × 4 seeds
	got, n := FormatCells(append(runs[:2:2], runs[5], runs[9], runs[10]), 2)
	if n != 3 || got != "gd/lr=0.01 (seeds 1, 2); gd/lr=0.1 (seed 2); …" {
		t.Fatalf("%d %q", n, got)
	}
}
