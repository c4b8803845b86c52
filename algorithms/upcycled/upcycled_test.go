package upcycled

import (
	"math"
	"reflect"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

func fed(t testing.TB) []*data.Dataset {
	t.Helper()
	cfg, err := data.SyntheticPreset("syn_0.5_0.5")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Users = 8
	f, err := data.GenerateSynthetic(cfg, rng.New(5, "upcycled-test"))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*data.Dataset, len(f.Clients))
	for i, c := range f.Clients {
		out[i] = c.Train
	}
	return out
}

func engine(t testing.TB, clients []*data.Dataset, name string, hooks fl.Hooks) (*fl.Engine, fl.Algorithm) {
	t.Helper()
	m := model.NewLogReg(clients[0].D, 2, model.CrossEntropy)
	alg, err := fl.NewAlgorithm(name, fl.Params{Mu: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 0.5, Stragglers: 0.5, Local: fl.LocalConfig{Epochs: 2, BatchSize: 16, LR: 0.05, Momentum: 0.5}}
	e, err := fl.New(m, clients, alg, cfg, rng.New(11, "run"), make([]float64, m.NumParams()), hooks)
	if err != nil {
		t.Fatal(err)
	}
	return e, alg
}

// Upcycled with 2T iterations must touch data exactly T times, upload as
// often as the baseline's T rounds, and select the same clients in its
// k-th training round as the baseline's round k.
func TestEvenRoundsTouchNoData(t *testing.T) {
	clients := fed(t)
	for _, name := range fl.Baselines {
		t.Run(name, func(t *testing.T) {
			base, balg := engine(t, clients, name, fl.Hooks{})
			up, ualg := engine(t, clients, name, fl.Hooks{})
			var bsel, usel [][]int
			if err := Run(base, balg, Schedule{Iterations: 6}, func(it Iteration) {
				bsel = append(bsel, append([]int(nil), it.Round.Selected...))
			}); err != nil {
				t.Fatal(err)
			}
			if err := Run(up, ualg, Schedule{Iterations: 12, Upcycled: true, Coef: 0.5}, func(it Iteration) {
				if it.Training != (it.T%2 == 1) {
					t.Fatalf("iteration %d: training=%v", it.T, it.Training)
				}
				if it.Training {
					usel = append(usel, append([]int(nil), it.Round.Selected...))
				}
			}); err != nil {
				t.Fatal(err)
			}
			bc, uc := base.Server().Counters, up.Server().Counters
			if uc.DataAccesses != bc.DataAccesses || uc.Uploads != bc.Uploads || uc.SGDSteps != bc.SGDSteps || uc.TrainingRounds != 6 || uc.ServerRounds != 6 {
				t.Fatalf("counters: baseline %+v, upcycled %+v", bc, uc)
			}
			if !reflect.DeepEqual(bsel, usel) {
				t.Fatalf("selections differ: %v vs %v", bsel, usel)
			}
		})
	}
}

func TestEvenStepIsTheExtrapolation(t *testing.T) {
	s := &fl.Server{Global: []float64{1, 2}, Prev: []float64{0.5, 3}}
	EvenStep(s, nil, 0.3)
	want := []float64{1 + 0.3*0.5, 2 + 0.3*(-1)}
	for i := range want {
		if !(math.Abs(s.Global[i]-want[i]) <= 1e-15) {
			t.Fatalf("got %v want %v", s.Global, want)
		}
	}
	if s.Counters.ServerRounds != 1 || s.Counters.DataAccesses != 0 {
		t.Fatalf("counters %+v", s.Counters)
	}
}

func TestCoefficientMappings(t *testing.T) {
	if CoefTheory(0.5, 0.5) != 0.5 || CoefAlgorithm1(1.4) != 0.7 {
		t.Fatal("mapping")
	}
	if err := (Schedule{Iterations: 4, Upcycled: true, Coef: 1}).Validate(); err == nil {
		t.Fatal("c = 1 accepted")
	}
}

func TestOutputPerturbationModes(t *testing.T) {
	const n = 20000
	for _, c := range []struct {
		mode Mode
		std  float64
	}{{Paper, 0.8}, {Upstream, 0.64}} {
		o := OutputPerturbation{Tau: 10, Sigma: 0.8, Mode: c.mode}
		p := make([]float64, n)
		for i := range p {
			p[i] = 1 // norm √n ≫ τ: clipped to τ
		}
		o.Apply(rng.Stream(1, "op", c.mode.String()), p)
		var mean, ss float64
		for _, v := range p {
			mean += v
		}
		mean /= n
		for _, v := range p {
			ss += (v - mean) * (v - mean)
		}
		std := math.Sqrt(ss / (n - 1))
		if !(math.Abs(std-c.std) <= 0.02) || !(math.Abs(mean-10/math.Sqrt(n)) <= 0.02) {
			t.Errorf("%v: mean %.4f std %.4f, want %.4f and %.4f", c.mode, mean, std, 10/math.Sqrt(n), c.std)
		}
	}
}

func TestObjectivePerturbationRadius(t *testing.T) {
	// Paper: ‖n‖ ~ Gamma(d, α), mean d/α. Upstream: at most Gamma(20, α)
	// (the sum of tensor norms is ≥ the global norm).
	tensors := model.NewLogReg(20, 2, model.CrossEntropy).Tensors()
	dst := make([]float64, 42)
	var paper, upstream float64
	const trials = 4000
	r := rng.Stream(3, "obj")
	for i := 0; i < trials; i++ {
		paper += ObjectivePerturbation{Alpha: 10}.Sample(r, dst)
		upstream += ObjectivePerturbation{Alpha: 10, Mode: Upstream, InputDim: 20, Tensors: tensors}.Sample(r, dst)
	}
	paper /= trials
	upstream /= trials
	if !(math.Abs(paper-4.2) <= 0.1) {
		t.Errorf("paper mean radius %.3f, want 42/10 = 4.2", paper)
	}
	if !(upstream < 2.0) || upstream < 1 {
		t.Errorf("upstream mean radius %.3f, want below E Gamma(20,10) = 2 (divided by a sum of two norms)", upstream)
	}
}
