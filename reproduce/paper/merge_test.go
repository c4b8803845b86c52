package paper

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

type walkConfig struct {
	Steps int     `json:"steps"`
	Drift float64 `json:"drift"`
}

// walkPaper is a registered-paper stand-in: a noisy walk per run whose
// length (and cost) differs by cell, and a report that is a digest of the
// results' non-timing content, as a paper's tables are.
func walkPaper(exec func(Options) (runner.Func, error)) *Paper {
	return &Paper{
		Name: "walk", Scales: []string{"smoke"}, DefaultScale: "smoke",
		Plan: func(o Options) (*Planned, error) {
			var runs []runner.Run
			for _, steps := range []int{5, 40, 10, 80, 20} {
				for _, drift := range []float64{0, 0.5} {
					for seed := uint64(1); seed <= 3; seed++ {
						runs = append(runs, runner.Run{Paper: "walk", Scale: o.Scale, Experiment: "walk",
							Cell: fmt.Sprintf("steps=%d/drift=%g", steps, drift), Seed: seed, Config: walkConfig{steps, drift}})
					}
				}
			}
			return &Planned{Runs: runs}, nil
		},
		Exec: func(o Options, _ *Planned) (runner.Func, error) { return exec(o) },
		Cost: func(r runner.Run) float64 { return float64(r.Config.(walkConfig).Steps) },
		Report: func(o Options, _ *Planned, results []*runner.Result) error {
			var lines []string
			for _, r := range results {
				lines = append(lines, fmt.Sprintf("%s %v", r.ID(), r.Final["x"]))
			}
			sort.Strings(lines)
			body := strings.Join(lines, "\n") + "\n"
			return runner.WriteFileAtomic(filepath.Join(o.ReportsDir, "walk", "README.md"), []byte(body))
		},
	}
}

func walkExec(Options) (runner.Func, error) {
	return func(_ context.Context, r runner.Run) (*runner.Outcome, error) {
		c := r.Config.(walkConfig)
		rnd := rng.New(r.Seed, "walk", r.Cell).Rand()
		x := 0.0
		for i := 0; i < c.Steps; i++ {
			x += c.Drift + rnd.NormFloat64()
		}
		return &runner.Outcome{Final: runner.Metrics{"x": x}}, nil
	}, nil
}

// strippedTree maps each result file under dir to its JSON without the
// timing fields.
func strippedTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		for _, f := range runner.TimingFields {
			delete(m, f)
		}
		j, _ := json.Marshal(m)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = string(j)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func digestFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// Shards followed by a merge give the same result files (timing fields
// aside) and the same report bytes as one process running everything.
func TestShardsThenMergeEqualSingleProcess(t *testing.T) {
	p := walkPaper(walkExec)
	ctx := context.Background()
	single := Options{ResultsDir: t.TempDir(), ReportsDir: t.TempDir(), Workers: 2}
	if _, err := p.Reproduce(ctx, single); err != nil {
		t.Fatal(err)
	}
	sharded := Options{ResultsDir: t.TempDir(), ReportsDir: t.TempDir(), Workers: 1, Shards: 4}
	ran := 0
	for i := 1; i <= 4; i++ {
		o := sharded
		o.Shard = i
		sum, err := p.Reproduce(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Skipped != 0 {
			t.Fatalf("shard %d found %d results of other shards", i, sum.Skipped)
		}
		ran += sum.Ran
		if _, err := os.Stat(filepath.Join(sharded.ReportsDir, "walk")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("shard %d wrote a report", i)
		}
	}
	if ran != 30 {
		t.Fatalf("shards ran %d runs, want 30", ran)
	}
	if _, err := p.Merge(sharded); err != nil {
		t.Fatal(err)
	}
	a, b := strippedTree(t, single.ResultsDir), strippedTree(t, sharded.ResultsDir)
	if len(a) != 30 || len(a) != len(b) {
		t.Fatalf("%d vs %d result files", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Fatalf("%s differs:\n%s\n%s", k, v, b[k])
		}
	}
	if digestFile(t, filepath.Join(single.ReportsDir, "walk", "README.md")) != digestFile(t, filepath.Join(sharded.ReportsDir, "walk", "README.md")) {
		t.Fatal("merged report differs from the single-process report")
	}
}

// The merge never computes: with a run function that fails the test if it
// is ever built or called, a complete set of results is reported, and an
// incomplete one is refused with the count and the first missing runs,
// leaving no report behind.
func TestMergeNeverRuns(t *testing.T) {
	ctx := context.Background()
	o := Options{ResultsDir: t.TempDir(), ReportsDir: t.TempDir()}
	if _, _, err := walkPaper(walkExec).Execute(ctx, o); err != nil {
		t.Fatal(err)
	}
	var built atomic.Int64
	p := walkPaper(func(Options) (runner.Func, error) {
		built.Add(1)
		return func(context.Context, runner.Run) (*runner.Outcome, error) {
			t.Error("merge called the run function")
			return nil, errors.New("must not run")
		}, nil
	})
	// Delete three results (a failed shard's leftovers) and make a fourth
	// stale (stored for another configuration).
	pl, _ := p.Plan(Options{Scale: "smoke"})
	runs := pl.Runs
	for _, k := range []int{4, 17, 29} {
		if err := os.Remove(runs[k].Path(o.ResultsDir)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := runner.ReadResult(runs[8].Path(o.ResultsDir))
	if err != nil {
		t.Fatal(err)
	}
	res.ConfigHash = "0000000000000000"
	if err := runner.WriteResult(runs[8].Path(o.ResultsDir), res); err != nil {
		t.Fatal(err)
	}
	ms, err := p.Merge(o)
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("merge of incomplete results: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"4 of 30 runs of walk/smoke (4 cells)", "1 of them stored but unusable",
		"walk/" + runs[4].Cell + " (seed 2)", "walk/" + runs[8].Cell + " (seed 3)", "walk/" + runs[17].Cell + " (seed 3)", "nothing was written"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	if len(ms.Missing) != 4 || ms.Present != 26 || ms.Stale != 1 {
		t.Errorf("summary %+v", ms)
	}
	if _, err := os.Stat(filepath.Join(o.ReportsDir, "walk")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("an incomplete merge wrote a report")
	}
	// Complete the results (with the real run function), then merge again.
	if _, _, err := walkPaper(walkExec).Execute(ctx, o); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Merge(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(o.ReportsDir, "walk", "README.md")); err != nil {
		t.Fatal(err)
	}
	if built.Load() != 0 {
		t.Fatalf("merge built the run function %d times", built.Load())
	}
}

// A resubmitted shard reruns only its own missing runs.
func TestResubmittedShardRerunsOnlyItsMissingRuns(t *testing.T) {
	p := walkPaper(walkExec)
	ctx := context.Background()
	o := Options{ResultsDir: t.TempDir(), ReportsDir: t.TempDir(), Shards: 3}
	for i := 1; i <= 3; i++ {
		o.Shard = i
		if _, _, err := p.Execute(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	loads, err := p.ShardLoads(o, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	mine := loads[1].Runs
	for _, r := range mine[:2] {
		os.Remove(r.Path(o.ResultsDir))
	}
	o.Shard = 2
	_, sum, err := p.Execute(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || sum.Skipped != len(mine)-2 {
		t.Fatalf("resubmitted shard 2: ran %d reused %d, want 2 and %d", sum.Ran, sum.Skipped, len(mine)-2)
	}
}

// Per-shard estimated costs are balanced, and a plan file freezes the
// measured costs every task balances with.
func TestShardLoadsAndPlanFile(t *testing.T) {
	p := walkPaper(walkExec)
	o := Options{ResultsDir: t.TempDir(), Scale: "smoke"}
	loads, err := p.ShardLoads(o, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	var total, worst float64
	n := 0
	for _, l := range loads {
		total += l.Cost
		worst = math.Max(worst, l.Cost)
		n += len(l.Runs)
	}
	if n != 30 || total != 3*2*(5+40+10+80+20) {
		t.Fatalf("%d runs, total cost %g", n, total)
	}
	if r := worst / (total / 4); r > 1.1 {
		t.Fatalf("max/mean %.3f", r)
	}
	if _, _, err := p.Execute(context.Background(), Options{ResultsDir: o.ResultsDir, Experiments: []string{"walk"}, Shard: 1, Shards: 6}); err != nil {
		t.Fatal(err)
	}
	sp, err := p.NewShardPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Measured) == 0 {
		t.Fatal("no measured costs recorded")
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := runner.WriteShardPlan(path, sp); err != nil {
		t.Fatal(err)
	}
	o2 := Options{ResultsDir: o.ResultsDir, Shard: 2, Shards: 6, ShardPlan: path}
	if _, _, err := p.Execute(context.Background(), o2); err != nil {
		t.Fatal(err)
	}
	other := walkPaper(walkExec)
	other.Name = "other"
	if _, _, err := other.Execute(context.Background(), o2); err == nil || !strings.Contains(err.Error(), "a plan for walk/smoke") {
		t.Fatalf("a plan of another paper was accepted: %v", err)
	}
}
