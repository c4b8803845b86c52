package runner

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

type vConfig struct {
	Iterations int     `json:"iterations"`
	LR         float64 `json:"lr"`
	Seed       uint64  `json:"generator_seed"` // larger than 2^53: must survive the round trip
}

func vRuns() []Run {
	var rs []Run
	for s := uint64(1); s <= 3; s++ {
		rs = append(rs, Run{Paper: "toy", Scale: "smoke", Experiment: "e", Cell: "c", Seed: s,
			Config: vConfig{Iterations: 10, LR: 0.1, Seed: 1<<60 + 1}})
	}
	return rs
}

func vFunc(calls *int) Func {
	return func(_ context.Context, r Run) (*Outcome, error) {
		*calls++
		return &Outcome{Final: Metrics{"acc": 0.5 + float64(r.Seed)/10}, Counters: Counters{"steps": 10},
			Extra: map[string]any{"sigma": 1.5}}, nil
	}
}

// A stored result is reused only when it is this run's, with an unedited
// configuration and content; every other file is re-run with one line per
// reason.
func TestStoredResultsAreVerified(t *testing.T) {
	edits := []struct {
		name   string
		edit   func(b []byte) []byte
		reason string
	}{
		{"seed edited", func(b []byte) []byte { return bytes.Replace(b, []byte(`"seed": 2`), []byte(`"seed": 3`), 1) }, "holds another run"},
		{"config edited", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"iterations": 10`), []byte(`"iterations": 11`), 1)
		}, "configuration does not match its config_hash"},
		{"metric edited", func(b []byte) []byte { return bytes.Replace(b, []byte(`"acc": 0.7`), []byte(`"acc": 0.9`), 1) }, "content does not match its checksum"},
		{"counter edited", func(b []byte) []byte { return bytes.Replace(b, []byte(`"steps": 10`), []byte(`"steps": 11`), 1) }, "content does not match its checksum"},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, "truncated or garbage"},
		{"garbage", func([]byte) []byte { return []byte("\x00\x01 not json") }, "truncated or garbage"},
		{"old format", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"schema_version": 3`), []byte(`"schema_version": 1`), 1)
		}, "another result format"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			dir := t.TempDir()
			calls := 0
			if _, err := Execute(context.Background(), vRuns(), vFunc(&calls), Options{Dir: dir, Workers: 1}); err != nil {
				t.Fatal(err)
			}
			victim := vRuns()[1].Path(dir)
			b, err := os.ReadFile(victim)
			if err != nil {
				t.Fatal(err)
			}
			edited := e.edit(b)
			if bytes.Equal(edited, b) {
				t.Fatalf("the edit changed nothing:\n%s", b)
			}
			if err := os.WriteFile(victim, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			_, missing, rej := Load(vRuns(), dir)
			if len(missing) != 1 || missing[0].Seed != 2 || rej.Count() != 1 || !strings.Contains(rej.String(), e.reason) {
				t.Fatalf("Load: missing %v, rejections %q; want seed 2 rejected for %q", missing, rej.String(), e.reason)
			}
			var log bytes.Buffer
			calls = 0
			sum, err := Execute(context.Background(), vRuns(), vFunc(&calls), Options{Dir: dir, Workers: 1, Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			if calls != 1 || sum.Ran != 1 || sum.Skipped != 2 {
				t.Fatalf("reran %d runs (summary %+v), want only the edited one", calls, sum)
			}
			if lines := strings.Split(strings.TrimSpace(log.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], e.reason) || !strings.Contains(lines[0], "seed-2.json") {
				t.Fatalf("log %q: want one line naming the reason and the file", log.String())
			}
			if _, st, why := Check(vRuns()[1], dir); st != Valid {
				t.Fatalf("after the rerun: %v %s", st, why)
			}
		})
	}
}

// A result of another configuration is stale, not damaged; an unedited
// result of this configuration is reused, whatever the worker count.
func TestCheckStatuses(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	if _, err := Execute(context.Background(), vRuns(), vFunc(&calls), Options{Dir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	r := vRuns()[0]
	if _, st, why := Check(r, dir); st != Valid {
		t.Fatalf("fresh result: %v %s", st, why)
	}
	other := r
	other.Config = vConfig{Iterations: 20, LR: 0.1, Seed: 1<<60 + 1}
	if _, st, _ := Check(other, dir); st != Stale {
		t.Fatalf("another configuration: status %v, want Stale", st)
	}
	absent := r
	absent.Seed = 99
	if _, st, _ := Check(absent, dir); st != Absent {
		t.Fatalf("no file: status %v, want Absent", st)
	}
	res, _, _ := Check(r, dir)
	if res.Provenance != nil {
		t.Log("provenance recorded")
	}
	if res.Sum == "" || res.SchemaVersion != ResultSchema {
		t.Fatalf("result lacks checksum or schema: %+v", res)
	}
}

// Load checks files on all cores but must answer as a sequential pass of
// Check over runs: results and missing runs in the order of runs, one
// rejection per damaged file. Many runs (more than workers), with every
// third file absent and every fifth damaged, interleave all three outcomes.
func TestLoadMatchesSequentialCheck(t *testing.T) {
	dir := t.TempDir()
	var runs []Run
	for s := uint64(1); s <= 40; s++ {
		runs = append(runs, Run{Paper: "toy", Scale: "smoke", Experiment: "e", Cell: "c", Seed: s,
			Config: vConfig{Iterations: 10, LR: 0.1, Seed: 1<<60 + 1}})
	}
	calls := 0
	if _, err := Execute(context.Background(), runs, vFunc(&calls), Options{Dir: dir, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		switch {
		case i%3 == 0:
			if err := os.Remove(r.Path(dir)); err != nil {
				t.Fatal(err)
			}
		case i%5 == 0:
			if err := os.WriteFile(r.Path(dir), []byte("garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wantRes, wantMiss []uint64
	wantRej := 0
	for _, r := range runs {
		res, st, _ := Check(r, dir)
		switch st {
		case Valid:
			wantRes = append(wantRes, res.Seed)
		case Absent:
			wantMiss = append(wantMiss, r.Seed)
		default:
			wantMiss = append(wantMiss, r.Seed)
			wantRej++
		}
	}
	results, missing, rej := Load(runs, dir)
	var gotRes, gotMiss []uint64
	for _, r := range results {
		gotRes = append(gotRes, r.Seed)
	}
	for _, r := range missing {
		gotMiss = append(gotMiss, r.Seed)
	}
	if !slices.Equal(gotRes, wantRes) || !slices.Equal(gotMiss, wantMiss) || rej.Count() != wantRej {
		t.Fatalf("Load: results %v missing %v rejections %d; sequential Check: %v %v %d", gotRes, gotMiss, rej.Count(), wantRes, wantMiss, wantRej)
	}
	if len(wantRes) == 0 || wantRej == 0 || len(wantMiss) == wantRej {
		t.Fatalf("the fixture does not mix the outcomes: %d valid, %d missing, %d damaged", len(wantRes), len(wantMiss), wantRej)
	}
}
