package fedddpm

// Unit pins (issue 12, item 4): one round of FedDDPM and of each baseline,
// FedDDPM+'s correction and QuickTest's decisions, on a model whose
// updates are computable by hand. The model is the mean estimator
// f(w; batch) = (1/n)Σ_rows ½‖w − x_row‖², ∇f = w − x̄_batch, trained with
// plain SGD. Every client and the server train full-batch (batch ≥ rows),
// so the updates do not depend on the shuffle order (only on summation
// order, far below the tolerance). Expected values are worked out in the
// comments; tolerance 1e-12 absolute.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

const pinTol = 1e-12

// meanModel is f(w; b) = (1/n)Σ_r ½‖w − x_r‖² on d-dimensional rows.
type meanModel struct{ d int }

func (m meanModel) NumParams() int { return m.d }

func (m meanModel) LossGrad(p []float64, b model.Batch, grad []float64, _ *rand.Rand) float64 {
	var loss float64
	if grad != nil {
		for j := range grad {
			grad[j] = p[j]
		}
	}
	for r := 0; r < b.N; r++ {
		for j := 0; j < m.d; j++ {
			diff := p[j] - b.X[r*b.D+j]
			loss += 0.5 * diff * diff / float64(b.N)
			if grad != nil {
				grad[j] -= b.X[r*b.D+j] / float64(b.N)
			}
		}
	}
	return loss
}

func rows(xs ...[2]float64) *data.Dataset {
	ds := &data.Dataset{N: len(xs), D: 2, Classes: 1, Y: make([]int, len(xs))}
	for _, x := range xs {
		ds.X = append(ds.X, x[0], x[1])
	}
	return ds
}

// pinClients: client 0 holds (1, 0), (3, 2) (mean (2, 1)); client 1 holds
// (−2, 4) (mean (−2, 4)).
func pinClients() []*data.Dataset {
	return []*data.Dataset{rows([2]float64{1, 0}, [2]float64{3, 2}), rows([2]float64{-2, 4})}
}

// pinAux: A = {(0, 0), (4, −2)}, mean (2, −1).
func pinAux() *data.Dataset { return rows([2]float64{0, 0}, [2]float64{4, -2}) }

func nearVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s has length %d, want %d", what, len(got), len(want))
	}
	for j := range got {
		if !(math.Abs(got[j]-want[j]) <= pinTol) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

// pinEngine: both clients every round, K = 2 local epochs of one full
// batch each (B = 2 ≥ rows), client SGD with ζ = 0.5, from w_0 = 0.
func pinEngine(t *testing.T, alg fl.Algorithm) *fl.Engine {
	t.Helper()
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 2, BatchSize: 2, LR: 1}}
	e, err := fl.New(meanModel{2}, pinClients(), alg, cfg, rng.New(5, "fedddpm-pin"), []float64{0, 0}, fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var pinSGD = Opt{Kind: "sgd", LR: 0.5}

// Client updates of round 0 from w = 0 (SGD ζ = 0.5, two full-batch steps,
// each w ← w − ½(w − m) = (w + m)/2, so w_2 = m + ¼(w_0 − m) = ¾m):
//
//	client 0: m = (2, 1):  (1, 0.5) then (1.5, 0.75);
//	client 1: m = (−2, 4): (−1, 2)  then (−1.5, 3).
//
// Uniform mean (Eq. 9): (0, 1.875). Size-weighted (2 : 1): (2·(1.5, 0.75) +
// (−1.5, 3))/3 = (0.5, 1.5).
//
// Server correction, SGD η = 0.25 on A (mean a = (2, −1)), E = 2 full-batch
// epochs: w ← w − ¼(w − a), so w_E = a + (¾)^E (w − a) = a + 0.5625(w − a).
// From (0, 1.875): (2, −1) + 0.5625·(−2, 2.875) = (0.875, 0.6171875).
func TestPinFedDDPMRound(t *testing.T) {
	for _, tc := range []struct {
		w         Weighting
		avg, want []float64
	}{
		{Uniform, []float64{0, 1.875}, []float64{0.875, 0.6171875}},
		// From (0.5, 1.5): (2, −1) + 0.5625·(−1.5, 2.5) = (1.15625, 0.40625).
		{BySize, []float64{0.5, 1.5}, []float64{1.15625, 0.40625}},
	} {
		t.Run(tc.w.String(), func(t *testing.T) {
			alg, err := NewFedDDPM(Base{Opt: pinSGD, Weights: tc.w},
				Correction{Model: meanModel{2}, Aux: pinAux(), Opt: Opt{Kind: "sgd", LR: 0.25}, Epochs: 2, Batch: 4})
			if err != nil {
				t.Fatal(err)
			}
			e := pinEngine(t, alg)
			e.TrainRound()
			s := e.Server()
			nearVec(t, "w_1 (FedDDPM)", s.Global, tc.want)
			nearVec(t, "w_0 kept as Prev", s.Prev, []float64{0, 0})
			if c := s.Counters; c.SGDSteps != 4 || c.SampleGrads != 6 || c.Uploads != 2 {
				t.Errorf("client counters %+v, want 4 steps and 6 sample gradients", c)
			}
			if w := alg.ServerWork(); w != (Work{Steps: 2, SampleGrads: 4}) {
				t.Errorf("server work %+v, want 2 steps over 2 aux rows each", w)
			}
			// The plain FedAvg round is the average alone.
			fa := &FedAvg{Base{Opt: pinSGD, Weights: tc.w}}
			e2 := pinEngine(t, fa)
			e2.TrainRound()
			nearVec(t, "w_1 (FedAvg)", e2.Server().Global, tc.avg)
		})
	}
}

// TestPinFedDDPMAdamRound: the default optimizer is Adam (β = (0.9,
// 0.999), ε = 1e-8), fresh per ClientUpdate. Written out for one client
// with m = (2, 1) from w = 0, lr 0.1: step 1 has g = (−2, −1), m̂ = g,
// v̂ = g², so w moves by −lr·g/(|g| + ε) ≈ +0.1 per coordinate; step 2 is
// computed by the plain Adam recursion below.
func TestPinFedDDPMAdamRound(t *testing.T) {
	adam := func(mean []float64, lr float64, steps int) []float64 {
		w := []float64{0, 0}
		m, v := []float64{0, 0}, []float64{0, 0}
		for k := 1; k <= steps; k++ {
			for j := range w {
				g := w[j] - mean[j]
				m[j] = 0.9*m[j] + 0.1*g
				v[j] = 0.999*v[j] + 0.001*g*g
				mh := m[j] / (1 - math.Pow(0.9, float64(k)))
				vh := v[j] / (1 - math.Pow(0.999, float64(k)))
				w[j] -= lr * mh / (math.Sqrt(vh) + 1e-8)
			}
		}
		return w
	}
	w0, w1 := adam([]float64{2, 1}, 0.1, 2), adam([]float64{-2, 4}, 0.1, 2)
	want := []float64{(w0[0] + w1[0]) / 2, (w0[1] + w1[1]) / 2}
	if !(math.Abs(w0[0]-0.2) <= 1e-3) { // sanity check of the reference only
		t.Fatalf("reference Adam: two steps of ≈ lr each expected, got %v", w0)
	}
	fa := &FedAvg{Base{Opt: Opt{LR: 0.1}}} // Kind "" = Adam
	e := pinEngine(t, fa)
	e.TrainRound()
	nearVec(t, "FedAvg/Adam w_1", e.Server().Global, want)
	// Round 1 starts from a fresh Adam state (decision 2), so each client
	// again moves by two Adam steps from the new global model.
	adamFrom := func(start, mean []float64) []float64 {
		w := append([]float64(nil), start...)
		m, v := []float64{0, 0}, []float64{0, 0}
		for k := 1; k <= 2; k++ {
			for j := range w {
				g := w[j] - mean[j]
				m[j] = 0.9*m[j] + 0.1*g
				v[j] = 0.999*v[j] + 0.001*g*g
				w[j] -= 0.1 * (m[j] / (1 - math.Pow(0.9, float64(k)))) / (math.Sqrt(v[j]/(1-math.Pow(0.999, float64(k)))) + 1e-8)
			}
		}
		return w
	}
	a, b := adamFrom(want, []float64{2, 1}), adamFrom(want, []float64{-2, 4})
	e.TrainRound()
	nearVec(t, "FedAvg/Adam w_2 (fresh state)", e.Server().Global, []float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2})
}

// TestPinBaselineRounds pins FedProx, SCAFFOLD and MoFedSAM rounds.
func TestPinBaselineRounds(t *testing.T) {
	t.Run("fedprox", func(t *testing.T) {
		// μ = 0.5, anchor w_t = 0; g ← (w − m) + μ(w − 0).
		// Client 0: step 1 at w = 0: g = (−2, −1) → w = (1, 0.5);
		//   step 2: g = (−1, −0.5) + (0.5, 0.25) = (−0.5, −0.25) → w = (1.25, 0.625).
		// Client 1: step 1: g = (2, −4) → w = (−1, 2);
		//   step 2: g = (1, −2) + (−0.5, 1) = (0.5, −1) → w = (−1.25, 2.5).
		// Mean: (0, 1.5625).
		e := pinEngine(t, &FedProx{Base: Base{Opt: pinSGD}, Mu: 0.5})
		e.TrainRound()
		nearVec(t, "FedProx w_1", e.Server().Global, []float64{0, 1.5625})
		// Round 1, anchor w_1 = (0, 1.5625) ≠ 0.
		// Client 0: g = w − m = (−2, 0.5625) → w = (1, 1.28125);
		//   g = (−1, 0.28125) + 0.5·(1, −0.28125) = (−0.5, 0.140625) → (1.25, 1.2109375).
		// Client 1: g = (2, −2.4375) → w = (−1, 2.78125);
		//   g = (1, −1.21875) + 0.5·(−1, 1.21875) = (0.5, −0.609375) → (−1.25, 3.0859375).
		// Mean: (0, 2.1484375).
		e.TrainRound()
		nearVec(t, "FedProx w_2", e.Server().Global, []float64{0, 2.1484375})
	})
	t.Run("scaffold", func(t *testing.T) {
		// Round 0 (c = c_i = 0) is FedAvg: x_1 = (0, 1.875). c_i⁺ = mean raw
		// gradient: client 0: ((−2, −1) + (−1, −0.5))/2 = (−1.5, −0.75);
		// client 1: ((2, −4) + (1, −2))/2 = (1.5, −3).
		// c_1 = (1/N)Σ(c_i⁺ − c_i) = ½(0, −3.75) = (0, −1.875).
		sc := &Scaffold{Base: Base{Opt: pinSGD}}
		e := pinEngine(t, sc)
		e.TrainRound()
		nearVec(t, "x_1", e.Server().Global, []float64{0, 1.875})
		nearVec(t, "c_1", sc.ControlVariate(), []float64{0, -1.875})
		nearVec(t, "c_0⁺", e.ClientState(0).(*clientState).ci, []float64{-1.5, -0.75})
		nearVec(t, "c_1⁺", e.ClientState(1).(*clientState).ci, []float64{1.5, -3})
		// Round 1. Client 0: correction c − c_0 = (1.5, −1.125).
		//   raw g = (0, 1.875) − (2, 1) = (−2, 0.875), used (−0.5, −0.25) → w = (0.25, 2);
		//   raw g = (−1.75, 1), used (−0.25, −0.125) → w = (0.375, 2.0625);
		//   c_0⁺ = ((−2, 0.875) + (−1.75, 1))/2 = (−1.875, 0.9375).
		// Client 1: correction (−1.5, 1.125).
		//   raw g = (2, −2.125), used (0.5, −1) → w = (−0.25, 2.375);
		//   raw g = (1.75, −1.625), used (0.25, −0.5) → w = (−0.375, 2.625);
		//   c_1⁺ = (1.875, −1.875).
		// x_2 = (0, 2.34375); c_2 = c_1 + ½[(−0.375, 1.6875) + (0.375, 1.125)]
		//     = (0, −1.875 + 1.40625) = (0, −0.46875).
		e.TrainRound()
		nearVec(t, "x_2", e.Server().Global, []float64{0, 2.34375})
		nearVec(t, "c_2", sc.ControlVariate(), []float64{0, -0.46875})
		nearVec(t, "c_0⁺ round 1", e.ClientState(0).(*clientState).ci, []float64{-1.875, 0.9375})
		// A global step η_g = 0.5 moves half-way to the client mean:
		// x_1 = 0 + 0.5·((0, 1.875) − 0) = (0, 0.9375).
		half := &Scaffold{Base: Base{Opt: pinSGD}, GlobalLR: 0.5}
		e = pinEngine(t, half)
		e.TrainRound()
		nearVec(t, "x_1 (η_g = 0.5)", e.Server().Global, []float64{0, 0.9375})
	})
	t.Run("mofedsam", func(t *testing.T) {
		// Clients with means (3, 4) and (0, 5); ρ = 0.5, α = 0.5, Δ_0 = 0.
		// For this model ∇f(w + ρĝ) = g + ρ·g/‖g‖.
		// Client 0: g = (−3, −4) (norm 5), g̃ = 1.1·g = (−3.3, −4.4),
		//   v = 0.5·g̃ = (−1.65, −2.2), w = (0.825, 1.1);
		//   g = (−2.175, −2.9) (norm 3.625), g̃ = g + 0.5·(−0.6, −0.8) = (−2.475, −3.3),
		//   v = (−1.2375, −1.65), w = (1.44375, 1.925); mean v = (−1.44375, −1.925).
		// Client 1: g = (0, −5), g̃ = (0, −5.5), v = (0, −2.75), w = (0, 1.375);
		//   g = (0, −3.625), g̃ = (0, −4.125), v = (0, −2.0625), w = (0, 2.40625);
		//   mean v = (0, −2.40625).
		// Global: (0.721875, 2.165625); Δ_1 = (−0.721875, −2.165625).
		clients := []*data.Dataset{rows([2]float64{3, 4}), rows([2]float64{0, 5})}
		cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 2, BatchSize: 1, LR: 1}}
		ms := &MoFedSAM{Base: Base{Opt: pinSGD}, Rho: 0.5, Alpha: 0.5}
		e, err := fl.New(meanModel{2}, clients, ms, cfg, rng.New(6), []float64{0, 0}, fl.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		e.TrainRound()
		nearVec(t, "MoFedSAM w_1", e.Server().Global, []float64{0.721875, 2.165625})
		nearVec(t, "MoFedSAM Δ_1", ms.Direction(), []float64{-0.721875, -2.165625})
		if c := e.Server().Counters; c.SGDSteps != 4 || c.SampleGrads != 8 {
			t.Errorf("MoFedSAM counters %+v: want 4 steps, 2 gradients each", c)
		}
		// Round 1, written as a plain loop: v = α·g̃ + (1 − α)·Δ_1.
		want := []float64{0, 0}
		dir := []float64{0, 0}
		for _, m := range [][]float64{{3, 4}, {0, 5}} {
			w := []float64{0.721875, 2.165625}
			sum := []float64{0, 0}
			for range 2 {
				g := []float64{w[0] - m[0], w[1] - m[1]}
				n := math.Hypot(g[0], g[1])
				for j := range w {
					gt := g[j] + 0.5*g[j]/n
					v := 0.5*gt + 0.5*(-[]float64{0.721875, 2.165625}[j])
					sum[j] += v
					w[j] -= 0.5 * v
				}
			}
			for j := range w {
				want[j] += w[j] / 2
				dir[j] += sum[j] / 4
			}
		}
		e.TrainRound()
		nearVec(t, "MoFedSAM w_2", e.Server().Global, want)
		nearVec(t, "MoFedSAM Δ_2", ms.Direction(), dir)
	})
}

// TestPinQuickTestDecisions: Algorithm 3 with γ = 0.4, threshold 0.25.
//
//	state ∅, score 10   → no fire, AvgScore = 10;
//	score 9             → |10 − 9| = 1 > 0.25: no fire, Avg = 0.4·9 + 0.6·10 = 9.6;
//	score 9.85          → |9.6 − 9.85| = 0.25 ≤ 0.25: fire, state unchanged (9.6);
//	(from 9.6) 9.8500001 → just above the threshold: no fire, Avg = 0.4·9.8500001 + 0.6·9.6.
func TestPinQuickTestDecisions(t *testing.T) {
	c := QuickTestConfig{Gamma: 0.4, Threshold: 0.25, TestSize: 10}
	fire, st := QuickTest(QuickTestState{}, 10, c)
	if fire || st != (QuickTestState{AvgScore: 10, Set: true}) {
		t.Fatalf("first score: fire %v, state %+v", fire, st)
	}
	fire, st = QuickTest(st, 9, c)
	if fire || !(math.Abs(st.AvgScore-9.6) <= pinTol) || !st.Set {
		t.Fatalf("second score: fire %v, state %+v", fire, st)
	}
	st.AvgScore = 9.625 // exactly representable: |9.625 − 9.875| = 0.25 exactly
	fire, next := QuickTest(st, 9.875, c)
	if !fire || next != st {
		t.Errorf("score at exactly the threshold: fire %v, state %+v (want fire, unchanged)", fire, next)
	}
	fire, next = QuickTest(st, math.Nextafter(9.875, 10), c)
	if fire || !(math.Abs(next.AvgScore-(0.4*9.875+0.6*9.625)) <= pinTol) {
		t.Errorf("score just past the threshold: fire %v, state %+v", fire, next)
	}
	fire, next = QuickTest(st, math.NaN(), c)
	if fire || next != st {
		t.Errorf("NaN score: fire %v, state %+v (want no fire, unchanged)", fire, next)
	}
	// γ = 1 keeps only the newest score.
	_, next = QuickTest(QuickTestState{AvgScore: 3, Set: true}, 7, QuickTestConfig{Gamma: 1, Threshold: 0})
	if next.AvgScore != 7 {
		t.Errorf("γ = 1: AvgScore %v, want 7", next.AvgScore)
	}
}

// TestPinFedDDPMPlusCorrection: FedDDPM+ with QuickTest every round and
// scores 10 (round 0: initialises) then 10.1 (round 1: |10 − 10.1| ≤ 0.2,
// fires). Round 0 gives (0, 1.875) as in TestPinFedDDPMRound; round 1 from
// there (w_2 = m + ¼(w − m) per client):
//
//	client 0: (2, 1) + ¼·(−2, 0.875) = (1.5, 1.21875);
//	client 1: (−2, 4) + ¼·(2, −2.125) = (−1.5, 3.46875);
//	mean (0, 2.34375).
//
// The correction (η = 0.25, E = 2) then gives (2, −1) + 0.5625·(−2, 3.34375)
// = (0.875, 0.880859375), and training stops after 2 of 5 rounds.
func TestPinFedDDPMPlusCorrection(t *testing.T) {
	scores := []float64{10, 10.1, 1, 1}
	calls := 0
	score := func(global []float64, _ *rand.Rand) float64 { calls++; return scores[calls-1] }
	rule, err := NewStopRule(1, QuickTestConfig{Gamma: 0.4, Threshold: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	corr := Correction{Model: meanModel{2}, Aux: pinAux(), Opt: Opt{Kind: "sgd", LR: 0.25}, Epochs: 2, Batch: 4}
	plus, err := NewFedDDPMPlus(Base{Opt: pinSGD}, corr, rule, score, CorrectAtEnd)
	if err != nil {
		t.Fatal(err)
	}
	e := pinEngine(t, plus)
	var after []int
	n := RunRounds(e, plus, 5, func(t int) { after = append(after, t) })
	if n != 2 || len(after) != 2 || !plus.Done() {
		t.Fatalf("ran %d rounds (after-hooks %v), done %v; want 2", n, after, plus.Done())
	}
	nearVec(t, "FedDDPM+ output", e.Server().Global, []float64{0.875, 0.880859375})
	if ok, at := plus.Corrected(); !ok || at != 1 || rule.StopRound != 1 || calls != 2 {
		t.Errorf("corrected %v at %d, StopRound %d, score calls %d", ok, at, rule.StopRound, calls)
	}
	if w := plus.ServerWork(); w != (Work{Steps: 2, SampleGrads: 4}) {
		t.Errorf("server work %+v", w)
	}
	// Never firing: CorrectAtEnd corrects w_T after the last round,
	// NoCorrection returns w_T.
	for _, never := range []NeverFired{CorrectAtEnd, NoCorrection} {
		rule, _ := NewStopRule(1, QuickTestConfig{Gamma: 0.4, Threshold: 0.2})
		k := 0.0
		far := func([]float64, *rand.Rand) float64 { k += 10; return k }
		plus, err := NewFedDDPMPlus(Base{Opt: pinSGD}, corr, rule, far, never)
		if err != nil {
			t.Fatal(err)
		}
		e := pinEngine(t, plus)
		if n := RunRounds(e, plus, 2, nil); n != 2 {
			t.Fatalf("%v: ran %d rounds", never, n)
		}
		want := []float64{0, 2.34375}
		if never == CorrectAtEnd {
			want = []float64{0.875, 0.880859375}
		}
		nearVec(t, never.String()+" output", e.Server().Global, want)
		ok, at := plus.Corrected()
		if ok != (never == CorrectAtEnd) || (ok && at != 2) || (!ok && at != -1) {
			t.Errorf("%v: corrected %v at %d", never, ok, at)
		}
		plus.Finish(e.Server()) // a second Finish does nothing
		nearVec(t, never.String()+" output after second Finish", e.Server().Global, want)
	}
}
