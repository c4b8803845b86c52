package upcycled

import (
	"context"
	"reflect"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func smallFed(t *testing.T) *data.Federated {
	t.Helper()
	cfg, err := data.SyntheticPreset("syn_iid")
	if err != nil {
		t.Fatal(err)
	}
	fed, err := data.GenerateSynthetic(cfg, rng.New(3, "tune-test"))
	if err != nil {
		t.Fatal(err)
	}
	return fed
}

func TestValidationSplit(t *testing.T) {
	fed := smallFed(t)
	a, err := ValidationSplit(fed, 0.2, "generated", "syn_iid")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ValidationSplit(fed, 0.2, "generated", "syn_iid")
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the split is not deterministic")
	}
	var val int
	for i, c := range a.Clients {
		orig := fed.Clients[i].Train
		if c.Train.N+c.Test.N != orig.N || c.Test.N < 1 || c.Train.N < 1 {
			t.Fatalf("client %d: %d + %d of %d", i, c.Train.N, c.Test.N, orig.N)
		}
		// Every example of the client's training data lands in exactly one
		// part (examples told apart by their first feature, a continuous draw).
		seen := map[float64]int{}
		for j := 0; j < orig.N; j++ {
			seen[orig.Row(j)[0]]++
		}
		for _, part := range []*data.Dataset{c.Train, c.Test} {
			for j := 0; j < part.N; j++ {
				seen[part.Row(j)[0]]--
			}
		}
		for v, k := range seen {
			if k != 0 {
				t.Fatalf("client %d: value %g off by %d", i, v, k)
			}
		}
		val += c.Test.N
	}
	if a.Test.N != val {
		t.Errorf("pooled validation %d, parts %d", a.Test.N, val)
	}
	if a.Test == fed.Test || a.Test.N == fed.Test.N && reflect.DeepEqual(a.Test.X, fed.Test.X) {
		t.Error("the validation set is the test set")
	}
}

// tunedConfig is a short tuned Upcycled run on the generated data.
func tunedConfig() RunConfig {
	return RunConfig{Experiment: "t", Dataset: "syn_iid", Source: "generated", Method: "fedavg", Variant: "upcycled", Mode: "upstream",
		Privacy: "none", Iterations: 6, Momentum: 0.5, Epochs: 1, Batch: 32, Frac: 0.3, Stragglers: 0.5,
		Params: fl.Params{}.WithDefaults(), Model: "logreg", EvalEvery: 6,
		Tune: &TuneConfig{LRs: []float64{0.001, 0.1}, Cs: []float64{0.1, 0.9}, Seeds: []uint64{7}, ValFrac: 0.2}}
}

// A tuned run selects the best validation point, records it, and gives the
// same result whether or not the search was already memoised.
func TestTunedRunSelectsAndIsSelfContained(t *testing.T) {
	fed := smallFed(t)
	cfg := tunedConfig()
	ctx := context.Background()
	out1, err := Execute(ctx, fed, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	grid := out1.Extra.(map[string]any)["grid"].([]GridPoint)
	if len(grid) != 4 {
		t.Fatalf("%d grid points, want 2 lr × 2 c", len(grid))
	}
	best := grid[0]
	for _, g := range grid[1:] {
		if g.ValAcc > best.ValAcc {
			best = g
		}
	}
	if out1.Final["lr"] != best.LR || out1.Final["coef"] != best.C || out1.Final["val_acc"] != best.ValAcc {
		t.Fatalf("selected lr %g c %g (val %g); best grid point %+v", out1.Final["lr"], out1.Final["coef"], out1.Final["val_acc"], best)
	}
	// The selected configuration run directly gives the same test metrics.
	direct := cfg
	direct.Tune, direct.LR, direct.Coef = nil, best.LR, best.C
	out2, err := Execute(ctx, fed, direct, 1)
	if err != nil {
		t.Fatal(err)
	}
	if out1.Final["acc"] != out2.Final["acc"] || out1.Final["loss"] != out2.Final["loss"] {
		t.Errorf("tuned run %v, selected configuration run directly %v", out1.Final, out2.Final)
	}
	// Forgetting the memo changes nothing.
	selections.Clear()
	out3, err := Execute(ctx, fed, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out1.Final, out3.Final) || !reflect.DeepEqual(out1.Extra, out3.Extra) {
		t.Error("a fresh search gave another result")
	}
	// A baseline searches lr only.
	cfg.Variant = "baseline"
	out4, err := Execute(ctx, fed, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g := out4.Extra.(map[string]any)["grid"].([]GridPoint); len(g) != 2 || out4.Final["coef"] != 0 {
		t.Errorf("baseline grid %v, coef %g", g, out4.Final["coef"])
	}
}

func TestPlanOrdersTunedRunsBySeedAndDefaultsEvaluation(t *testing.T) {
	for _, tc := range []struct {
		scale string
		tuned int // tuned experiments the scale plans
	}{{"default", 0}, {"paper", 2}} {
		t.Run(tc.scale, func(t *testing.T) {
			_, runs := scalePlan(t, tc.scale)
			checkPlanOrder(t, runs, tc.tuned)
		})
	}
}

// checkPlanOrder checks that tuned runs are seed-major within their
// experiment, that figure runs on the released data evaluate every
// iteration (others only at the end; FEMNIST sets its own), FedDyn's and
// pFedMe's modes, and that the scale plans its tuned experiments.
func checkPlanOrder(t *testing.T, runs []runner.Run, tuned int) {
	t.Helper()
	lastSeed := map[string]uint64{}
	for _, r := range runs {
		cfg := r.Config.(RunConfig)
		if cfg.Tune != nil {
			if r.Seed < lastSeed[r.Experiment] {
				t.Fatalf("%s: seed %d after %d: tuned runs are not seed-major", r.ID(), r.Seed, lastSeed[r.Experiment])
			}
			lastSeed[r.Experiment] = r.Seed
		}
		wantEvery := cfg.Iterations
		if cfg.Figure != "" && cfg.Source == "released" {
			wantEvery = 1
		}
		if cfg.Source != "leaf" && cfg.EvalEvery != wantEvery { // FEMNIST's curves state their own eval_every
			t.Fatalf("%s: eval_every %d, want %d", r.ID(), cfg.EvalEvery, wantEvery)
		}
		switch {
		case cfg.Method == feddynAcar && cfg.Params.DynMode != fl.DynPaper:
			t.Fatalf("%s: feddyn_acar runs in mode %q", r.ID(), cfg.Params.DynMode)
		case cfg.Method == "feddyn" && cfg.Params.DynMode != fl.DynUpstream:
			t.Fatalf("%s: feddyn runs in mode %q", r.ID(), cfg.Params.DynMode)
		case cfg.Method == "pfedme" && cfg.Params.PFedMeReleasePersonal != (cfg.Mode == "upstream"):
			t.Fatalf("%s: pFedMe release %v in %s mode", r.ID(), cfg.Params.PFedMeReleasePersonal, cfg.Mode)
		}
	}
	if len(lastSeed) != tuned {
		t.Errorf("tuned experiments %v, want %d", lastSeed, tuned)
	}
}

// With shared_lr an Upcycled run takes exactly the lr its baseline's search
// selects (the baseline's own tuned run agrees) and searches c alone.
func TestSharedLRTakesTheBaselinesLR(t *testing.T) {
	fed := smallFed(t)
	ctx := context.Background()
	up := tunedConfig()
	up.Iterations, up.EvalEvery, up.BaselineIterations = 6, 6, 3
	up.Tune = &TuneConfig{LRs: []float64{0.001, 0.1}, Cs: []float64{0.1, 0.5, 0.9}, Seeds: []uint64{7}, ValFrac: 0.2, SharedLR: true}
	base := up
	base.Variant, base.Iterations, base.EvalEvery, base.BaselineIterations = "baseline", 3, 3, 0
	if b, err := baselineOf(up); err != nil || !reflect.DeepEqual(b, base) {
		t.Fatalf("baselineOf = %+v, %v; want %+v", b, err, base)
	}
	ob, err := Execute(ctx, fed, base, 1)
	if err != nil {
		t.Fatal(err)
	}
	ou, err := Execute(ctx, fed, up, 1)
	if err != nil {
		t.Fatal(err)
	}
	grid := ou.Extra.(map[string]any)["grid"].([]GridPoint)
	if len(grid) != 3 {
		t.Fatalf("%d grid points, want the 3 coefficients at one lr", len(grid))
	}
	for _, g := range grid {
		if g.LR != ob.Final["lr"] {
			t.Fatalf("grid point at lr %g, the baseline selected %g", g.LR, ob.Final["lr"])
		}
	}
	if ou.Final["lr"] != ob.Final["lr"] {
		t.Errorf("Upcycled lr %g, baseline %g", ou.Final["lr"], ob.Final["lr"])
	}
	// Without the baseline's T the run refuses, rather than guessing.
	bad := up
	bad.BaselineIterations = 0
	selections.Clear()
	if _, err := Execute(ctx, fed, bad, 1); err == nil {
		t.Error("shared_lr without baseline_iterations ran")
	}
}

// Reusing a run's last evaluation gives exactly what training again gives:
// a final-only run equals the final evaluation of the same run evaluated
// every iteration (evaluation never changes training), for a plain method
// and for pFedMe (whose evaluation reads the personalised models), and a
// reused answer equals a freshly trained one.
func TestReusedRunsEqualTrainedOnes(t *testing.T) {
	fed := smallFed(t)
	ctx := context.Background()
	for _, m := range []string{"fedavg", "pfedme"} {
		cfg := tunedConfig()
		cfg.Tune, cfg.LR, cfg.Coef, cfg.Method = nil, 0.05, 0.5, m
		curve := cfg
		curve.EvalEvery, curve.Experiment, curve.Figure = 1, "table1", "2"
		lastEvals.Clear()
		oc, err := Execute(ctx, fed, curve, 2)
		if err != nil {
			t.Fatal(err)
		}
		reused, err := Execute(ctx, fed, cfg, 2)
		if err != nil {
			t.Fatal(err)
		}
		lastEvals.Clear()
		fresh, err := Execute(ctx, fed, cfg, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(reused, fresh) {
			t.Errorf("%s: reused %+v, trained %+v", m, reused, fresh)
		}
		if !reflect.DeepEqual(oc.Final, fresh.Final) || !reflect.DeepEqual(oc.Counters, fresh.Counters) {
			t.Errorf("%s: evaluated every iteration %v, final only %v", m, oc.Final, fresh.Final)
		}
		// Another seed or learning rate is another run.
		other := cfg
		other.LR = 0.01
		o2, _ := Execute(ctx, fed, other, 2)
		if reflect.DeepEqual(o2.Final, fresh.Final) {
			t.Errorf("%s: lr 0.01 answered with lr 0.05's result", m)
		}
	}
}
