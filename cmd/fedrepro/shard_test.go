package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Every paper's default scale splits into shards whose estimated costs
// are within 10% of the mean, and the cost model is informative (runs'
// estimates differ), so the balance is not the trivial one of equal costs.
func TestDefaultScaleShardsAreBalanced(t *testing.T) {
	for _, name := range knownPapers {
		p, ok := paper.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		if p.Cost == nil {
			t.Fatalf("%s has no cost model", name)
		}
		o := paper.Options{Scale: "default", SharedDir: sharedDirOrEmpty()}
		for _, n := range []int{3, 8, 16} {
			loads, err := p.ShardLoads(o, n, nil)
			if err != nil && strings.Contains(err.Error(), "plans no run") && os.Getenv("CI") != "true" {
				t.Logf("%s: skipped, its data is missing here: %v", name, err)
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var total, worst float64
			var all []runner.Run
			for _, l := range loads {
				total += l.Cost
				worst = math.Max(worst, l.Cost)
				all = append(all, l.Runs...)
			}
			mean := total / float64(n)
			if r := worst / mean; r > 1.1 {
				t.Errorf("%s/default in %d shards: max/mean %.3f", name, n, r)
			}
			if n == 8 {
				var b strings.Builder
				for _, l := range loads {
					fmt.Fprintf(&b, " %d:%d runs %.3g (%.3f)", l.Shard, len(l.Runs), l.Cost, l.Cost/mean)
				}
				t.Logf("%s/default, 8 shards, max/mean %.4f:%s", name, worst/mean, b.String())
			}
			if n == 3 {
				costs, _ := runner.Costs(all, p.Cost, nil)
				lo, hi := math.Inf(1), 0.0
				for _, c := range costs {
					lo, hi = math.Min(lo, c), math.Max(hi, c)
				}
				if hi/lo < 2 {
					t.Errorf("%s: cost model gives %.3g..%.3g, nearly constant", name, lo, hi)
				}
			}
		}
	}
}

func sharedDirOrEmpty() string {
	d, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared"))
	return d
}

// `plan --list --json` lists every run of the scale in exactly one shard.
func TestPlanListsAPartition(t *testing.T) {
	code, out, errs := call("plan", "--paper", "fedddpm", "--scale", "smoke", "--shards", "3", "--list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var pl struct {
		Runs        int     `json:"runs"`
		MaxOverMean float64 `json:"max_over_mean"`
		Loads       []struct {
			RunIDs []string `json:"run_ids"`
		} `json:"loads"`
	}
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, l := range pl.Loads {
		for _, id := range l.RunIDs {
			seen[id]++
		}
	}
	if len(pl.Loads) != 3 || len(seen) != pl.Runs || pl.Runs == 0 {
		t.Fatalf("%d shards, %d distinct runs of %d", len(pl.Loads), len(seen), pl.Runs)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s in %d shards", id, n)
		}
	}
	for _, bad := range [][]string{{"plan", "--paper", "haar"}, {"plan", "--paper", "haar", "--shards", "2", "--shard", "1/2"}} {
		if code, _, _ := call(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// The merge refuses incomplete results with the count and the first cells,
// and writes nothing; `reproduce --no-run` is the same merge.
func TestReportRefusesIncompleteResults(t *testing.T) {
	n := smokeRuns(t, "fedddpm")
	dir := t.TempDir()
	reports := filepath.Join(dir, "reports")
	for _, args := range [][]string{
		{"report", "--paper", "fedddpm", "--scale", "smoke", "--results", dir, "--reports", reports},
		{"reproduce", "--no-run", "--paper", "fedddpm", "--scale", "smoke", "--results", dir, "--reports", reports},
	} {
		code, _, errs := call(args...)
		if code != 1 || !strings.Contains(errs, fmt.Sprintf("results incomplete: %d of %d runs of fedddpm/smoke", n, n)) || !strings.Contains(errs, "tables/mixture/shard/p0.3/fedavg (seeds 1, 2, 3, 4)") {
			t.Errorf("%v: exit %d stderr %q", args[:2], code, errs)
		}
		// One line, after the "not run" notes a machine without some data
		// prints.
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		for _, l := range lines[:len(lines)-1] {
			if !strings.Contains(l, "not run:") {
				t.Errorf("%v: error is not one line: %q", args[:2], errs)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("%v wrote %v", args[:2], entries)
		}
	}
	code, out, _ := call("report", "--paper", "fedddpm", "--scale", "smoke", "--results", dir, "--reports", reports, "--json")
	var sum struct {
		Missing     int      `json:"missing"`
		MissingRuns []string `json:"missing_runs"`
	}
	if err := json.Unmarshal([]byte(out), &sum); code != 1 || err != nil || sum.Missing != n || len(sum.MissingRuns) != n {
		t.Errorf("--json: exit %d, %v, %+v", code, err, sum)
	}
	if code, _, errs := call("reproduce", "--no-run", "--paper", "fedddpm", "--shard", "1/2"); code != 2 || !strings.Contains(errs, "--no-run only writes the report") {
		t.Errorf("--no-run with --shard: exit %d %q", code, errs)
	}
}

// Three Slurm array tasks (`--shard auto` reading the variables Slurm sets)
// followed by the merge give the result files (timing fields aside) and the
// report bytes of a single-process run; a resubmitted task reruns only its
// deleted results.
func TestSlurmShardsThenReportEqualSingleProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small fedddpm spec twice")
	}
	dir := t.TempDir()
	single, sharded := filepath.Join(dir, "single"), filepath.Join(dir, "sharded")
	// A tiny spec (six runs, two per shard) through every command: the
	// invariant is about planning, sharding and merging, not about the
	// smoke scale's training, so --spec keeps the runs cheap.
	common := []string{"--paper", "fedddpm", "--scale", "smoke", "--spec", fedddpmTinySpec}
	if code, _, errs := call(append([]string{"reproduce", "--results", single + "/res", "--reports", single + "/rep", "--workers", "2"}, common...)...); code != 0 {
		t.Fatalf("single process: %s", errs)
	}
	plan := filepath.Join(dir, "plan.json")
	if code, _, errs := call(append([]string{"plan", "--shards", "3", "--results", sharded + "/res", "--out", plan}, common...)...); code != 0 {
		t.Fatalf("plan: %s", errs)
	}
	// A task of an array submitted as --array=LO-HI (no FEDREPRO_SHARD_COUNT).
	slurmEnv := func(id, lo, hi int, count string) {
		for k, v := range map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN": fmt.Sprint(lo), "SLURM_ARRAY_TASK_MAX": fmt.Sprint(hi),
			"SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(hi - lo + 1), runner.ShardCountEnv: count} {
			t.Setenv(k, v)
		}
	}
	reproduce := func() (int, string, string) {
		return call(append([]string{"reproduce", "--shard", "auto", "--shard-plan", plan, "--results", sharded + "/res", "--workers", "1", "--json"}, common...)...)
	}
	task := func(id int) runSummary {
		t.Helper()
		slurmEnv(id, 0, 2, "")
		code, out, errs := reproduce()
		if code != 0 || !strings.Contains(errs, fmt.Sprintf("shard %d/3 from Slurm array task %d of 0-2:1", id+1, id)) {
			t.Fatalf("task %d: exit %d stderr %q", id, code, errs)
		}
		var s runSummary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	ran := 0
	for id := 0; id < 3; id++ {
		s := task(id)
		if s.Reused != 0 || s.Report != "" {
			t.Fatalf("task %d: %+v", id, s)
		}
		ran += s.Ran
	}
	n := specRuns(t, "fedddpm", fedddpmTinySpec)
	if n < 6 {
		t.Fatalf("%s plans %d runs; the test needs two per shard", fedddpmTinySpec, n)
	}
	if ran != n {
		t.Fatalf("tasks ran %d runs, want %d", ran, n)
	}
	if code, _, errs := call(append([]string{"report", "--results", sharded + "/res", "--reports", sharded + "/rep"}, common...)...); code != 0 {
		t.Fatalf("report: %s", errs)
	}
	a, b := strippedResults(t, single+"/res"), strippedResults(t, sharded+"/res")
	if len(a) != n || len(b) != n {
		t.Fatalf("%d and %d result files", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Fatalf("%s differs between the single-process and the sharded run", k)
		}
	}
	sameTree(t, single+"/rep", sharded+"/rep")

	// Resubmit task 1 after deleting two of its results.
	code, out, _ := call(append([]string{"plan", "--shards", "3", "--shard-plan", plan, "--list", "--json"}, common...)...)
	if code == 0 {
		if c2, _, e2 := call(append([]string{"plan", "--shards", "4", "--shard-plan", plan}, common...)...); c2 != 1 || !strings.Contains(e2, "a plan for 3 shards, not 4") {
			t.Errorf("plan with another shard count: exit %d %q", c2, e2)
		}
	}
	var pl struct {
		Loads []struct {
			RunIDs []string `json:"run_ids"`
		} `json:"loads"`
	}
	if err := json.Unmarshal([]byte(out), &pl); code != 0 || err != nil {
		t.Fatalf("plan --list: %d %v", code, err)
	}
	mine := pl.Loads[1].RunIDs
	for _, id := range mine[:2] {
		if err := os.Remove(filepath.Join(sharded, "res", "fedddpm", "smoke", id+".json")); err != nil {
			t.Fatal(err)
		}
	}
	// Resubmitted alone (sbatch --array=2) the task sees an array of one:
	// without FEDREPRO_SHARD_COUNT the plan file refuses it, with it the
	// task is shard 2/3 and reruns only the two deleted runs.
	slurmEnv(2, 2, 2, "")
	if code, _, errs := reproduce(); code != 1 || !strings.Contains(errs, "a plan for 3 shards, but this process runs shard 1/1") {
		t.Fatalf("resubmission without the count: exit %d %q", code, errs)
	}
	slurmEnv(2, 2, 2, "3")
	code, out, errs := reproduce()
	var s runSummary
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil || s.Ran != 2 || s.Reused != len(mine)-2 {
		t.Fatalf("resubmitted task: exit %d %q %+v, want 2 ran and %d reused", code, errs, s, len(mine)-2)
	}
}

type runSummary struct {
	Ran    int    `json:"ran"`
	Reused int    `json:"reused"`
	Report string `json:"report"`
}

// strippedResults maps each result file under dir to its JSON without the
// timing fields.
func strippedResults(t *testing.T, dir string) map[string]string {
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
			return fmt.Errorf("%s: %w", path, err)
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

// cpuSecondsRE matches the measured cost in summary.json's headline: the
// one timing field of a report, so compared as present but not by value.
var cpuSecondsRE = regexp.MustCompile(`"cpu_seconds": [0-9.e+-]+`)

// sameTree fails unless two report folders hold the same files, byte for
// byte apart from the headline's measured CPU time.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	read := func(root string) map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, path)
				b, _ := os.ReadFile(path)
				m[rel] = cpuSecondsRE.ReplaceAll(b, []byte(`"cpu_seconds": (timing)`))
			}
			return err
		})
		return m
	}
	ma, mb := read(a), read(b)
	if len(ma) == 0 || len(ma) != len(mb) {
		t.Fatalf("reports: %d vs %d files", len(ma), len(mb))
	}
	for k, v := range ma {
		if !bytes.Equal(v, mb[k]) {
			t.Fatalf("report file %s differs:\n%s\n---\n%s", k, v, mb[k])
		}
	}
}

// fedddpmTinySpec is the small FedDDPM spec the shard/merge tests run.
const fedddpmTinySpec = "testdata/fedddpm-tiny.yaml"

// smokeRuns is the number of runs of a paper's smoke scale.
func smokeRuns(t *testing.T, name string) int { return specRuns(t, name, "") }

// specRuns is the number of runs of a paper's smoke scale, or of the spec
// file when one is given (as --spec would plan them).
func specRuns(t *testing.T, name, spec string) int {
	t.Helper()
	p, ok := paper.Lookup(name)
	if !ok {
		t.Fatalf("no paper %s", name)
	}
	o, err := p.Normalize(paper.Options{Scale: "smoke", SpecFile: spec})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	return len(pl.Runs)
}
