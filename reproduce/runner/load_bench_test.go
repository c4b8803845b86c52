package runner

import (
	"context"
	"math"
	"os"
	"testing"
)

// benchRuns are runs shaped like Upcycled-FL's default results (the bulk
// of what `fedrepro report` loads): a configuration of two dozen fields
// with nested parameters, a curve of 100 rounds of seven metrics, final
// metrics, counters, a small extra grid and provenance — about 20 kB each.
func benchRuns(n int) []Run {
	type params struct {
		ServerLR  float64 `json:"server_lr"`
		Momentum  float64 `json:"server_momentum"`
		DynAlpha  float64 `json:"dyn_alpha"`
		PFedMeK   int     `json:"pfedme_k"`
		YogiBeta2 float64 `json:"yogi_beta2"`
	}
	type config struct {
		Experiment, Dataset, Source, Method, Variant, Mode, Privacy string
		Iterations, Epochs, Batch                                   int
		LR, Frac, Stragglers, Momentum                              float64
		Params                                                      params
		GeneratorSeed                                               uint64
		Grid                                                        []float64
	}
	runs := make([]Run, n)
	for i := range runs {
		runs[i] = Run{Paper: "bench", Scale: "default", Experiment: "table3", Cell: "syn/fedavg/upcycled", Seed: uint64(i),
			Config: config{Experiment: "table3", Dataset: "syn_1_1", Source: "released", Method: "fedavg", Variant: "upcycled",
				Mode: "upstream", Privacy: "none", Iterations: 80, Epochs: 10, Batch: 32, LR: 0.05, Frac: 0.3, Stragglers: 0.3,
				Momentum: 0.5, Params: params{1, 0.3, 0.01, 5, 0.99}, GeneratorSeed: 2024, Grid: []float64{0.001, 0.005, 0.01, 0.05, 0.1}}}
	}
	return runs
}

func benchOutcome(_ context.Context, r Run) (*Outcome, error) {
	x := float64(r.Seed) + 0.5
	rounds := make([]Metrics, 100)
	for i := range rounds {
		f := float64(i+1) / 7
		rounds[i] = Metrics{"acc": math.Sin(x + f), "global_acc": math.Cos(x + f), "loss": 1 / (f + x), "global_loss": math.Sqrt(f + x),
			"t": float64(i + 1), "training": 1, "training_rounds": float64(i + 1)}
	}
	grid := make([]any, 5)
	for i := range grid {
		grid[i] = map[string]any{"lr": 0.001 * float64(i+1), "val_acc": math.Exp(-x / float64(i+1)), "per_seed": []float64{math.Log(x + float64(i))}}
	}
	return &Outcome{Rounds: rounds, Final: Metrics{"acc": math.Sin(x), "loss": math.Cos(x), "val_acc": 0.78},
		Counters: Counters{"data_accesses": 720, "sample_grads": 1703518, "sgd_steps": 56027, "uploads": 720},
		Extra:    map[string]any{"grid": grid}}, nil
}

// benchResults writes n results into a temporary folder.
func benchResults(b *testing.B, n int) ([]Run, string) {
	b.Helper()
	dir := b.TempDir()
	runs := benchRuns(n)
	prov := &Provenance{Module: "github.com/fedrepro/fedrepro", Version: "(devel)", Commit: "7a4e3aee7c8b14723c691ed35e6e42e696f738f8",
		GoVersion: "go1.26", Platform: "linux/amd64", SpecSHA256: "077979edc4fec60263d4e8b654df8bc57ad8e548966b642e9edb40168e876f5b",
		Data: map[string]string{"upcycled-synthetic": "b03a176cf545b5a9e2e3c16be5f8e4513a3a63ee1fd0d45c63dfe7d2f094762d"}}
	if _, err := Execute(context.Background(), runs, benchOutcome, Options{Dir: dir, Workers: 1, Provenance: prov}); err != nil {
		b.Fatal(err)
	}
	return runs, dir
}

// BenchmarkLoad: Load of 200 results (reading, verifying, decoding), per
// result.
func BenchmarkLoad(b *testing.B) {
	runs, dir := benchResults(b, 200)
	b.ResetTimer()
	for b.Loop() {
		res, missing, _ := Load(runs, dir)
		if len(res) != len(runs) || len(missing) > 0 {
			b.Fatalf("%d results, %d missing", len(res), len(missing))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(runs)), "ns/result")
}

// BenchmarkCheckResult compares the two paths of Check on one result in
// memory: the one-pass decoder and encoding/json.
func BenchmarkCheckResult(b *testing.B) {
	runs, dir := benchResults(b, 1)
	data, err := os.ReadFile(runs[0].Path(dir))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for _, path := range []struct {
		name  string
		check func(Run, []byte) (*Result, Status, string)
	}{{"fast", checkBytes}, {"encoding-json", checkJSON}} {
		b.Run(path.name, func(b *testing.B) {
			for b.Loop() {
				if _, st, why := path.check(runs[0], data); st != Valid {
					b.Fatal(why)
				}
			}
		})
	}
}

// BenchmarkExecute: the per-run cost of Execute outside the run itself —
// planning checks, the stored-result check, hashing, the checksum, the
// JSON encoding and the synced atomic write — for 100 runs whose work is
// nothing, one worker; per run.
func BenchmarkExecute(b *testing.B) {
	runs := benchRuns(100)
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		if _, err := Execute(context.Background(), runs, benchOutcome, Options{Dir: dir, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(runs)), "ns/run")
}
