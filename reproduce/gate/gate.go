// Package gate is fedrepro's regression gate. It has two tiers.
//
// The exact tier is what CI enforces. Every run is bit-for-bit
// deterministic (all randomness comes from named streams of the seed), so a
// golden snapshot of a scale's results can be compared value for value: for
// every run, every final metric, a fixed set of curve checkpoints (every
// round of a run with at most eight rounds, otherwise every ⌈n/8⌉-th round
// and the last), every counter and every numeric leaf of the run's extra
// data. On the platform the golden was recorded on the comparison is bitwise;
// on another platform it allows a relative difference of RelTolForeign
// (1e-9), because Go may fuse multiply-adds on arm64, ppc64 and s390x, and
// math.Exp uses FMA instructions on amd64 CPUs that have them. Any value that
// moves fails the gate, and Table prints one table of what moved. Statistics
// have no place here: a plausible one-line bug moves some value, and a
// statistical gate over a few seeds lets most such bugs through.
//
// The review tier (Review) is for a change that is meant to move numbers:
// before a reviewer accepts a new golden (`make golden`), it compares old and
// new per cell and metric, paired by seed (the same seed means the same
// random streams, so pairing removes most of the seed-to-seed variance),
// with a paired t-test, the smallest shift the cell's seeds could detect,
// and a verdict: unchanged, within noise or shifted.
package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/runner"
	"golang.org/x/sys/cpu"
)

// SchemaVersion is the version of the golden snapshot format.
const SchemaVersion = 2

// RelTolForeign is the relative tolerance of the exact tier when the fresh
// results come from a platform other than the golden's (see Platform).
const RelTolForeign = 1e-9

// maxCheckpoints bounds the curve checkpoints kept per run.
const maxCheckpoints = 8

// Metric names a headline final metric of a paper: the review tier gives
// every cell a row for it. Threshold is the smallest absolute move the
// paper's authors would call practically relevant; the review tier reports
// it beside the statistics (it never decides the exact tier).
type Metric struct {
	Name      string  `json:"name"`
	Threshold float64 `json:"threshold"`
}

// RunValues is the golden record of one run: its identity, its
// configuration hash, and every gated value keyed by where it comes from:
// "final/<metric>", "round/<i>/<metric>" (i is the 0-based position in the
// run's curve), "counter/<name>" and "extra/<path>".
type RunValues struct {
	Experiment string         `json:"experiment"`
	Cell       string         `json:"cell"`
	Seed       uint64         `json:"seed"`
	ConfigHash string         `json:"config_hash"`
	Values     runner.Metrics `json:"values"`
}

// ID is "<experiment>/<cell>/seed-<n>", as runner.Run.ID.
func (r RunValues) ID() string { return fmt.Sprintf("%s/%s/seed-%d", r.Experiment, r.Cell, r.Seed) }

// Snapshot is golden/<paper>/<scale>/results.json.
type Snapshot struct {
	SchemaVersion int    `json:"schema_version"`
	Paper         string `json:"paper"`
	Scale         string `json:"scale"`
	// Platform is where the values were computed (see Platform()).
	Platform string      `json:"platform"`
	Metrics  []Metric    `json:"metrics"`
	Runs     []RunValues `json:"runs"`
}

// Platform names the floating-point behaviour of this machine: GOARCH,
// plus "+fma" on amd64 when math.Exp takes its FMA path (AVX and FMA).
func Platform() string {
	p := runtime.GOARCH
	if p == "amd64" && cpu.X86.HasAVX && cpu.X86.HasFMA {
		p += "+fma"
	}
	return p
}

// Collect builds the snapshot of a scale's results, sorted by experiment,
// cell and seed.
func Collect(paper, scale string, metrics []Metric, results []*runner.Result) (*Snapshot, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("%s/%s: no results to snapshot", paper, scale)
	}
	s := &Snapshot{SchemaVersion: SchemaVersion, Paper: paper, Scale: scale, Platform: Platform(), Metrics: metrics}
	for _, r := range results {
		s.Runs = append(s.Runs, RunValues{
			Experiment: r.Experiment, Cell: r.Cell, Seed: r.Seed, ConfigHash: r.ConfigHash,
			Values: Values(r),
		})
	}
	sortRuns(s.Runs)
	for i := 1; i < len(s.Runs); i++ {
		if s.Runs[i].ID() == s.Runs[i-1].ID() {
			return nil, fmt.Errorf("%s/%s: run %s appears twice", paper, scale, s.Runs[i].ID())
		}
	}
	return s, nil
}

func sortRuns(rs []RunValues) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Experiment != b.Experiment {
			return a.Experiment < b.Experiment
		}
		if a.Cell != b.Cell {
			return a.Cell < b.Cell
		}
		return a.Seed < b.Seed
	})
}

// Checkpoints returns the positions of a curve of n rounds that the exact
// tier keeps: all of them when n ≤ 8, otherwise every ⌈n/8⌉-th and the last.
func Checkpoints(n int) []int {
	if n <= 0 {
		return nil
	}
	step := (n + maxCheckpoints - 1) / maxCheckpoints
	var out []int
	for p := step - 1; p < n; p += step {
		out = append(out, p)
	}
	if out[len(out)-1] != n-1 {
		out = append(out, n-1)
	}
	return out
}

// Values flattens the gated numbers of one result.
func Values(r *runner.Result) runner.Metrics {
	v := runner.Metrics{}
	for k, x := range r.Final {
		v["final/"+k] = x
	}
	for _, p := range Checkpoints(len(r.Rounds)) {
		for k, x := range r.Rounds[p] {
			v["round/"+strconv.Itoa(p)+"/"+k] = x
		}
	}
	for k, x := range r.Counters {
		v["counter/"+k] = float64(x)
	}
	flatten(v, "extra", normalize(r.Extra))
	return v
}

// normalize turns a Go value into its JSON-decoded form, so that a result
// made in memory and one read from disk flatten alike.
func normalize(x any) any {
	if x == nil {
		return nil
	}
	b, err := json.Marshal(x)
	if err != nil {
		return nil
	}
	var out any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&out) != nil {
		return nil
	}
	return out
}

// flatten adds the numeric and boolean leaves of a decoded JSON value
// (strings "NaN", "+Inf", "-Inf" count as numbers; other strings are
// labels, which the configuration hash already covers).
func flatten(v runner.Metrics, path string, x any) {
	switch t := x.(type) {
	case map[string]any:
		for k, e := range t {
			flatten(v, path+"/"+k, e)
		}
	case []any:
		for i, e := range t {
			flatten(v, path+"/"+strconv.Itoa(i), e)
		}
	case json.Number:
		if f, err := t.Float64(); err == nil {
			v[path] = f
		}
	case float64:
		v[path] = t
	case bool:
		v[path] = 0
		if t {
			v[path] = 1
		}
	case string:
		switch t {
		case "NaN":
			v[path] = math.NaN()
		case "+Inf", "Inf":
			v[path] = math.Inf(1)
		case "-Inf":
			v[path] = math.Inf(-1)
		}
	}
}

// Write stores the snapshot as indented JSON atomically (floats in their
// shortest exact decimal form, so a read gives back the same bits).
func Write(path string, s *Snapshot) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return runner.WriteFileAtomic(path, append(b, '\n'))
}

// Read loads a snapshot written by Write, strictly: unknown fields, another
// schema version or a duplicate run are errors that say how to fix them.
func Read(path string) (*Snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Snapshot
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		var probe struct {
			V int `json:"schema_version"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.V != SchemaVersion {
			return nil, fmt.Errorf("%s: golden schema version %d, this code reads %d: re-record it with `make golden`", path, probe.V, SchemaVersion)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: golden schema version %d, this code reads %d: re-record it with `make golden`", path, s.SchemaVersion, SchemaVersion)
	}
	seen := map[string]bool{}
	for _, r := range s.Runs {
		if seen[r.ID()] {
			return nil, fmt.Errorf("%s: run %s appears twice", path, r.ID())
		}
		seen[r.ID()] = true
	}
	return &s, nil
}

// metricName strips the source prefix of a value key for display:
// "final/acc" → "acc", "round/3/loss" → "loss@3".
func metricName(key string) string {
	switch {
	case strings.HasPrefix(key, "final/"):
		return key[len("final/"):]
	case strings.HasPrefix(key, "round/"):
		rest := key[len("round/"):]
		if i := strings.IndexByte(rest, '/'); i > 0 {
			return rest[i+1:] + "@" + rest[:i]
		}
	}
	return key
}
