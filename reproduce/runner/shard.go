package runner

// Sharding: which runs one task of a job array executes.
//
// A scale's runs are split into n shards by estimated cost, with the
// longest-processing-time-first rule (LPT, Graham 1969): runs are taken in
// decreasing cost (ties by run ID) and each goes to the shard with the least
// cost so far (ties to the lowest shard). The rule is a pure function of
// (runs, costs, n), so every task of an array computes the same partition
// on its own, whatever its worker count, and the shards partition the runs
// exactly. LPT's makespan is at most (4/3 − 1/(3n)) of the optimum; with
// many runs per shard the loads come out nearly equal.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// CostFunc estimates the cost of a run in any positive unit (the same unit
// for every run of a paper). Only ratios between runs matter.
type CostFunc func(Run) float64

// ShardCountEnv is the variable that carries the number of shards when the
// engine does not: Kubernetes exports the index of a pod of an Indexed Job
// but not the Job's completions, so the manifest sets it; and a Slurm task
// resubmitted on its own (sbatch --array=5) sees an array of one task, so
// the sbatch script sets it to the original array's size.
const ShardCountEnv = "FEDREPRO_SHARD_COUNT"

// ResolveShard turns the --shard flag into (i, n), 1-based: "" is 1/1 (no
// sharding), "i/n" is explicit, and "auto" reads the cluster engine's
// variables through getenv:
//
//   - Slurm job arrays, with FEDREPRO_SHARD_COUNT = n set: the shard is
//     SLURM_ARRAY_TASK_ID itself, tasks being numbered 1..n, so any subset
//     of the tasks can be submitted or resubmitted (--array=1-8, then
//     --array=3,7 for two failed ones); this is how deploy/slurm runs.
//   - Slurm job arrays without it: SLURM_ARRAY_TASK_ID with
//     SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP and
//     SLURM_ARRAY_TASK_COUNT; the shard is the task's position in the
//     array, (ID − MIN)/STEP + 1, so --array=1-8, --array=0-7 and
//     --array=10-24:2 all give shards 1..n. An index list that is not an
//     evenly stepped range (--array=1,2,9) cannot be mapped and is an
//     error, as is a missing variable. (A task resubmitted alone then
//     counts as an array of one: set FEDREPRO_SHARD_COUNT for that.)
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX (0-based) with
//     FEDREPRO_SHARD_COUNT, which the manifest sets to the Job's
//     completions.
//
// source describes where the values came from (for the log).
func ResolveShard(spec string, getenv func(string) string) (i, n int, source string, err error) {
	if spec != "auto" {
		i, n, err = ParseShard(spec)
		return i, n, "--shard " + spec, err
	}
	if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		if cs := getenv(ShardCountEnv); cs != "" {
			return slurmNumbered(id, cs)
		}
		return slurmShard(id, getenv)
	}
	if idx := getenv("JOB_COMPLETION_INDEX"); idx != "" {
		return kubeShard(idx, getenv)
	}
	return 0, 0, "", fmt.Errorf("--shard auto: no job-array variables (SLURM_ARRAY_TASK_ID of a Slurm array, or JOB_COMPLETION_INDEX with %s of a Kubernetes Indexed Job); outside a cluster use --shard i/n", ShardCountEnv)
}

func slurmShard(id string, getenv func(string) string) (int, int, string, error) {
	vals := map[string]int{}
	for _, name := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT"} {
		s := getenv(name)
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return 0, 0, "", fmt.Errorf("--shard auto: %s=%q is not a non-negative integer (Slurm sets it in array tasks)", name, s)
		}
		vals[name] = v
	}
	task, lo, hi, step, count := vals["SLURM_ARRAY_TASK_ID"], vals["SLURM_ARRAY_TASK_MIN"], vals["SLURM_ARRAY_TASK_MAX"], vals["SLURM_ARRAY_TASK_STEP"], vals["SLURM_ARRAY_TASK_COUNT"]
	src := fmt.Sprintf("Slurm array task %d of %d-%d:%d (%d tasks)", task, lo, hi, step, count)
	if step < 1 || count < 1 || task < lo || task > hi || (task-lo)%step != 0 || (hi-lo)/step+1 != count || (hi-lo)%step != 0 {
		return 0, 0, "", fmt.Errorf("--shard auto: %s: the array's indices are not an evenly stepped range min-max:step, so a task cannot tell its shard; submit with --array=1-N", src)
	}
	return (task-lo)/step + 1, count, src, nil
}

func slurmNumbered(id, cs string) (int, int, string, error) {
	task, err := strconv.Atoi(id)
	n, nerr := strconv.Atoi(cs)
	if err != nil || nerr != nil || n < 1 {
		return 0, 0, "", fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%q with %s=%q: want integers, n ≥ 1", id, ShardCountEnv, cs)
	}
	if task < 1 || task > n {
		return 0, 0, "", fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d outside 1..%d: with %s=%d the array's tasks are numbered 1..%d (sbatch --array=1-%d)", task, n, ShardCountEnv, n, n, n)
	}
	return task, n, fmt.Sprintf("Slurm array task %d, numbered 1..%d by %s", task, n, ShardCountEnv), nil
}

func kubeShard(idx string, getenv func(string) string) (int, int, string, error) {
	k, err := strconv.Atoi(idx)
	if err != nil || k < 0 {
		return 0, 0, "", fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%q is not a non-negative integer", idx)
	}
	cs := getenv(ShardCountEnv)
	n, err := strconv.Atoi(cs)
	if cs == "" || err != nil || n < 1 {
		return 0, 0, "", fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d but %s=%q; set it in the Job's env to the Job's completions", k, ShardCountEnv, cs)
	}
	if k >= n {
		return 0, 0, "", fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d is not below %s=%d (completions and %s disagree)", k, ShardCountEnv, n, ShardCountEnv)
	}
	return k + 1, n, fmt.Sprintf("Kubernetes completion index %d of %d", k, n), nil
}

// Costs returns the estimated cost of every run: the model's estimate,
// refined by measured CPU seconds of earlier results when measured is
// non-empty. measured maps a config hash to the CPU seconds a run of that
// configuration took (the seed is not part of the hash, so one finished
// seed predicts the others). Runs with a measurement cost their measured
// seconds; the others cost model × f, where f converts model units into
// seconds: the median ratio measured/model over the measured runs of the
// same experiment, else over all measured runs. Without measurements the
// costs are the model's. A nil model counts every run as 1.
func Costs(runs []Run, model CostFunc, measured map[string]float64) ([]float64, error) {
	est := make([]float64, len(runs))
	for k, r := range runs {
		c := 1.0
		if model != nil {
			c = model(r)
		}
		if !(c > 0) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("cost model gave %v for run %s (want a finite cost > 0)", c, r.ID())
		}
		est[k] = c
	}
	if len(measured) == 0 {
		return est, nil
	}
	hashes := make([]string, len(runs))
	byExp := map[string][]float64{}
	var all []float64
	for k, r := range runs {
		h, err := r.ConfigHash()
		if err != nil {
			return nil, err
		}
		hashes[k] = h
		if s, ok := measured[h]; ok && s > 0 {
			byExp[r.Experiment] = append(byExp[r.Experiment], s/est[k])
			all = append(all, s/est[k])
		}
	}
	if len(all) == 0 {
		return est, nil
	}
	global := median(all)
	out := make([]float64, len(runs))
	for k, r := range runs {
		if s, ok := measured[hashes[k]]; ok && s > 0 {
			out[k] = s
			continue
		}
		f := global
		if xs := byExp[r.Experiment]; len(xs) > 0 {
			f = median(xs)
		}
		out[k] = est[k] * f
	}
	return out, nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Partition splits runs into n shards by LPT on costs (see the file
// comment). It returns, for each shard, the indices of its runs in plan
// order, and each shard's total cost.
func Partition(runs []Run, costs []float64, n int) (shards [][]int, loads []float64) {
	if n < 1 {
		n = 1
	}
	ids := make([]string, len(runs))
	order := make([]int, len(runs))
	for k, r := range runs {
		ids[k] = r.ID()
		order[k] = k
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if costs[x] != costs[y] {
			return costs[x] > costs[y]
		}
		return ids[x] < ids[y]
	})
	shards = make([][]int, n)
	loads = make([]float64, n)
	for _, k := range order {
		best := 0
		for s := 1; s < n; s++ {
			if loads[s] < loads[best] {
				best = s
			}
		}
		shards[best] = append(shards[best], k)
		loads[best] += costs[k]
	}
	for _, s := range shards {
		sort.Ints(s)
	}
	return shards, loads
}

// SelectShard returns the runs of shard i of n (1-based), in plan order,
// balanced by costs (nil: every run costs the same).
func SelectShard(runs []Run, costs []float64, i, n int) []Run {
	if n <= 1 {
		return runs
	}
	if costs == nil {
		costs = make([]float64, len(runs))
		for k := range costs {
			costs[k] = 1
		}
	}
	shards, _ := Partition(runs, costs, n)
	out := make([]Run, 0, len(shards[i-1]))
	for _, k := range shards[i-1] {
		out = append(out, runs[k])
	}
	return out
}

// PlanDigest identifies a list of runs: a SHA-256 over each run's ID and
// config hash, in plan order. Two tasks that plan the same digest execute
// the same runs with the same configurations.
func PlanDigest(runs []Run) (string, error) {
	h := sha256.New()
	for _, r := range runs {
		ch, err := r.ConfigHash()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\t%s\n", r.ID(), ch)
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// ShardPlan freezes what a job array's partition depends on beyond the
// spec: the measured costs known when the array was submitted. Every task
// reads the same file, so tasks that start while others are writing
// results still compute the same partition. Digest guards against a task
// whose plan differs (other code, other data on its node).
type ShardPlan struct {
	Paper string `json:"paper"`
	Scale string `json:"scale"`
	// Shards is the array size the plan was made for (0: any); a task
	// that resolves another count (a task resubmitted without
	// FEDREPRO_SHARD_COUNT counts itself as an array of one) is refused.
	Shards int    `json:"shards,omitempty"`
	Runs   int    `json:"runs"`
	Digest string `json:"digest"`
	// Measured maps config hashes to the median CPU seconds of their
	// stored results (wall seconds where CPU time was not recorded).
	Measured map[string]float64 `json:"measured"`
}

// MeasuredCosts collects, from the stored results of runs under dir, the
// median CPU seconds per config hash (results whose hash differs from the
// run's are ignored, as Execute ignores them).
func MeasuredCosts(runs []Run, dir string) (map[string]float64, error) {
	samples := map[string][]float64{}
	for _, r := range runs {
		res, err := ReadResult(r.Path(dir))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		h, err := r.ConfigHash()
		if err != nil {
			return nil, err
		}
		if res.ConfigHash != h {
			continue
		}
		s := res.CPUSeconds
		if !(s > 0) {
			s = res.WallSeconds
		}
		if s > 0 {
			samples[h] = append(samples[h], s)
		}
	}
	out := make(map[string]float64, len(samples))
	for h, xs := range samples {
		out[h] = median(xs)
	}
	return out, nil
}

// WriteShardPlan stores p atomically as JSON.
func WriteShardPlan(path string, p *ShardPlan) error {
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// ReadShardPlan loads a shard plan.
func ReadShardPlan(path string) (*ShardPlan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p ShardPlan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Digest == "" {
		return nil, fmt.Errorf("%s: not a shard plan (no digest)", path)
	}
	return &p, nil
}

// Check verifies that runs are the runs the plan was made for.
func (p *ShardPlan) Check(path string, runs []Run) error {
	d, err := PlanDigest(runs)
	if err != nil {
		return err
	}
	if d != p.Digest {
		return fmt.Errorf("%s: this task plans %d runs (digest %s) but the plan was made for %d (digest %s): different code, spec or data on this node than where the plan was written", path, len(runs), d, p.Runs, p.Digest)
	}
	return nil
}

// FormatCells names the first k cells of runs, each as
// "<experiment>/<cell> (seeds 1, 3)", in order of first appearance, with
// "…" when more cells follow, and returns how many cells there are.
func FormatCells(runs []Run, k int) (string, int) {
	type cell struct {
		name  string
		seeds []string
	}
	var cells []*cell
	at := map[string]*cell{}
	for _, r := range runs {
		name := r.Experiment + "/" + r.Cell
		c := at[name]
		if c == nil {
			c = &cell{name: name}
			at[name] = c
			cells = append(cells, c)
		}
		c.seeds = append(c.seeds, strconv.FormatUint(r.Seed, 10))
	}
	var parts []string
	for i, c := range cells {
		if i == k {
			parts = append(parts, "…")
			break
		}
		word := "seeds"
		if len(c.seeds) == 1 {
			word = "seed"
		}
		parts = append(parts, fmt.Sprintf("%s (%s %s)", c.name, word, strings.Join(c.seeds, ", ")))
	}
	return strings.Join(parts, "; "), len(cells)
}
