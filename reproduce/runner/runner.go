package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Func executes one run. It must draw all randomness from streams derived
// from the run's labels and seed, never from shared state, so that results
// do not depend on which worker runs it or when.
type Func func(ctx context.Context, r Run) (*Outcome, error)

// Options control Execute.
type Options struct {
	// Dir is the results root.
	Dir string
	// Workers is the pool size; ≤ 0 means all cores.
	Workers int
	// Shard and Shards select shard Shard of Shards (1-based, 1 ≤ Shard ≤
	// Shards) of a partition balanced by estimated cost (see Partition);
	// Shards ≤ 1 runs everything.
	Shard, Shards int
	// Cost estimates a run's cost for the partition (nil: all equal), and
	// Measured refines it with measured CPU seconds by config hash (see
	// Costs). Every task of an array must pass the same values.
	Cost     CostFunc
	Measured map[string]float64
	// Force reruns runs whose results exist.
	Force bool
	// Progress receives progress: a bar on a terminal, otherwise a line at
	// most every LogInterval (nil: silent).
	Progress io.Writer
	// Log receives notes for the user: one line per reason a stored result
	// was not reused (nil: discard).
	Log io.Writer
	// Provenance is recorded in every result written.
	Provenance *Provenance
	// Estimate, when set, predicts the CPU seconds of runs; Execute then
	// says, before starting, how long the runs to do should take when that
	// is more than LongRun.
	Estimate func(runs []Run) float64
}

// LongRun is the predicted wall time above which Execute announces the
// planned runs and an estimated duration before starting.
const LongRun = 2 * time.Minute

// ParseShard parses "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (i, n int, err error) {
	if s == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 1 ≤ i ≤ n, e.g. 2/8", s)
	}
	return i, n, nil
}

// Summary counts what Execute did.
type Summary struct {
	Total   int // runs in this shard
	Skipped int // results already present
	Ran     int
	Failed  int
	Errors  []error
	Elapsed time.Duration
	// ReportPath is set by paper.Reproduce when it wrote a report.
	ReportPath string
}

// Execute runs every run of the selected shard that has no stored result,
// on a pool of workers, writing each result atomically. A failing run is
// reported in Summary.Errors and leaves no file; the others still run.
// The returned error is non-nil when any run failed or ctx was cancelled.
func Execute(ctx context.Context, runs []Run, fn Func, opts Options) (Summary, error) {
	start := time.Now()
	seen := map[string]bool{}
	for _, r := range runs {
		if err := r.Validate(); err != nil {
			return Summary{}, err
		}
		p := r.Path(opts.Dir)
		if seen[p] {
			return Summary{}, fmt.Errorf("two runs share the result path %s", p)
		}
		seen[p] = true
	}
	if opts.Shards > 1 {
		if opts.Shard < 1 || opts.Shard > opts.Shards {
			return Summary{}, fmt.Errorf("shard %d/%d: want 1 ≤ i ≤ n", opts.Shard, opts.Shards)
		}
		costs, err := Costs(runs, opts.Cost, opts.Measured)
		if err != nil {
			return Summary{}, err
		}
		runs = SelectShard(runs, costs, opts.Shard, opts.Shards)
	}
	sum := Summary{Total: len(runs)}
	var todo []Run
	var rej Rejections
	var checks []checked
	if !opts.Force { // on all cores, as Load
		checks = checkAll(runs, opts.Dir, false)
	}
	for i, r := range runs {
		if !opts.Force {
			st, why := checks[i].st, checks[i].why
			if st == Valid {
				sum.Skipped++
				continue
			}
			if st == Stale || st == Damaged {
				rej.Add(r, opts.Dir, why)
			}
		}
		todo = append(todo, r)
	}
	rej.Log(opts.Log, "re-running")
	todo = longestFirst(todo, opts.Cost, opts.Measured)
	if opts.Estimate != nil && opts.Log != nil && len(todo) > 0 {
		w := opts.Workers
		if w <= 0 {
			w = runtime.NumCPU()
		}
		w = min(w, len(todo))
		if wall := time.Duration(opts.Estimate(todo) / float64(w) * float64(time.Second)); wall > LongRun {
			fmt.Fprintf(opts.Log, "%d runs to do (%d reused): about %s on %d workers (cost-model estimate; the progress lines refine it)\n",
				len(todo), sum.Skipped, wall.Round(time.Minute), w)
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, max(len(todo), 1))

	var costs []float64 // for the progress's ETA; nil: by run count
	if opts.Cost != nil {
		if c, err := Costs(todo, opts.Cost, opts.Measured); err == nil {
			costs = c
		}
	}
	prog := newProgress(opts.Progress, IsTerminal(opts.Progress), len(todo), sum.Skipped, costs)
	jobs := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				err := runOne(ctx, todo[i], fn, opts.Dir, opts.Provenance)
				mu.Lock()
				if err != nil {
					sum.Failed++
					sum.Errors = append(sum.Errors, err)
				} else {
					sum.Ran++
				}
				var c float64
				if costs != nil {
					c = costs[i]
				}
				prog.step(err != nil, c)
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range todo {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	prog.done()
	sum.Elapsed = time.Since(start)
	sort.Slice(sum.Errors, func(i, j int) bool { return sum.Errors[i].Error() < sum.Errors[j].Error() })
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("interrupted after %d of %d runs: %w", sum.Ran+sum.Failed, len(todo), err)
	}
	if sum.Failed > 0 {
		return sum, fmt.Errorf("%d of %d runs failed; first: %w", sum.Failed, len(todo), sum.Errors[0])
	}
	return sum, nil
}

// longestFirst orders the runs to do by estimated cost, largest first
// (ties in plan order): the pool then ends on short runs, so its workers
// finish close together (Graham's longest-processing-time rule) instead of
// one running a long run alone at the end. Only the order of execution
// changes, never a result. Without a cost model, or with one that fails,
// the plan's order stays.
func longestFirst(todo []Run, cost CostFunc, measured map[string]float64) []Run {
	if cost == nil || len(todo) < 2 {
		return todo
	}
	costs, err := Costs(todo, cost, measured)
	if err != nil {
		return todo
	}
	order := make([]int, len(todo))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return costs[order[a]] > costs[order[b]] })
	out := make([]Run, len(todo))
	for i, k := range order {
		out[i] = todo[k]
	}
	return out
}

func runOne(ctx context.Context, r Run, fn Func, dir string, prov *Provenance) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("run %s panicked: %v", r.ID(), p)
		}
	}()
	hash, err := r.ConfigHash()
	if err != nil {
		return err
	}
	// Pin the run to one OS thread so its thread CPU time is its own.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, cpuOK := threadCPU()
	t0 := time.Now()
	out, err := fn(ctx, r)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.ID(), err)
	}
	if out == nil {
		return fmt.Errorf("run %s: no outcome", r.ID())
	}
	res := Result{
		SchemaVersion: ResultSchema,
		Run:           r, ConfigHash: hash,
		Rounds: out.Rounds, Final: out.Final, Counters: out.Counters, Extra: out.Extra,
		WallSeconds: time.Since(t0).Seconds(),
		CodeVersion: CodeVersion(),
		Provenance:  prov,
	}
	if c1, ok := threadCPU(); ok && cpuOK {
		res.CPUSeconds = c1 - c0
	}
	if err := res.seal(); err != nil {
		return fmt.Errorf("run %s: %w", r.ID(), err)
	}
	return WriteResult(r.Path(dir), &res)
}

// seal sets the result's content checksum.
func (res *Result) seal() error {
	sum, err := res.sum()
	if err != nil {
		return err
	}
	res.Sum = sum
	return nil
}

// WriteResult stores res at path atomically: it writes a temporary file in
// the same directory, syncs it and renames it into place.
func WriteResult(path string, res *Result) error {
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return fmt.Errorf("encoding result %s: %w", path, err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes data to path via a synced temporary file and a
// rename, so readers see the old file or the new one, never a mix.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	// CreateTemp makes the file private (0600); results, goldens and
	// reports are meant to be read by others.
	perr := f.Chmod(0o644)
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(perr, werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// ReadResult loads one stored result.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &res, nil
}

// Load reads the results of the given runs from dir, verified as Execute
// verifies them before reuse (Check). A run without a reusable result is in
// missing — not an error: a shard may not have run yet — and rej says why
// each stored file that exists was not used.
//
// The files are read and checked on all cores (2,680 Upcycled-FL results
// are about 1.4 s of CPU with the one-pass decoder, 13 s by encoding/json),
// then classified in the order of runs, so the outcome is the same as a
// sequential pass.
func Load(runs []Run, dir string) (results []*Result, missing []Run, rej *Rejections) {
	rej = &Rejections{}
	out := checkAll(runs, dir, true)
	for i, r := range runs {
		res, st, why := out[i].res, out[i].st, out[i].why
		switch st {
		case Valid:
			results = append(results, res)
		case Absent:
			missing = append(missing, r)
		default:
			missing = append(missing, r)
			rej.Add(r, dir, why)
		}
	}
	return results, missing, rej
}

// checked is what Check found for one run.
type checked struct {
	res *Result
	st  Status
	why string
}

// checkAll runs Check for every run on all cores; the i-th answer is
// runs[i]'s, whatever the order the files were read in. keep says whether
// the decoded results are kept (Load) or only the verdicts (Execute).
func checkAll(runs []Run, dir string, keep bool) []checked {
	out := make([]checked, len(runs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(runs)) {
		wg.Go(func() {
			for i := range next {
				res, st, why := Check(runs[i], dir)
				if !keep {
					res = nil
				}
				out[i] = checked{res, st, why}
			}
		})
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
