package dpfl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/linalg"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// recordStep is an optimizer that keeps the last gradient it was given.
type recordStep struct{ g []float64 }

func (o *recordStep) Step(_, g []float64) { o.g = slices.Clone(g) }
func (o *recordStep) Reset()              {}

// ghostLot runs one DP-SGD step of a on p and returns the privatised
// gradient the optimizer received and the lot size.
func ghostLot(a *DPSGD, m PerExample, p []float64, clip, sigma float64) ([]float64, int) {
	d := toyData(5, 60, m.(model.Model).InputDim())
	o := &recordStep{}
	q := 0.5
	k := a.step(m, d, slices.Clone(p), o, q, q*float64(d.N), sigma, clip, rng.Stream(2, "lot"), rng.Stream(2, "noise"))
	return o.g, k
}

// TestGhostLotMatchesMaterialised checks the Ghost option (issue 24 item
// 3): with the Gaussian mechanism, one DP-SGD step's privatised gradient
// equals the materialised path's within 1e-12 of the scale of a clipped
// sum (k·C/denom: every clipped coordinate is at most C), with the same
// lot, dropout masks and noise draws; with another mechanism Ghost changes
// nothing (bit for bit).
func TestGhostLotMatchesMaterialised(t *testing.T) {
	differ := 0 // cases where the paths differ in the last bits: the ghost path ran
	for _, mk := range []func() model.Model{
		func() model.Model { return model.NewMLP([]int{8, 5, 3}, 0.5, model.DoubleSoftmax) },
		func() model.Model { return model.NewLogReg(8, 3, model.CrossEntropy) },
	} {
		for _, clip := range []float64{0.05, 1, math.Inf(1)} {
			for _, sigma := range []float64{0, 1.1} {
				if math.IsInf(clip, 1) && sigma > 0 {
					continue
				}
				m := mk()
				p := make([]float64, m.NumParams())
				m.Init(p, rng.Stream(3, "init"))
				for i := range p {
					p[i] += 0.3 * math.Sin(float64(i))
				}
				name := fmt.Sprintf("%T-C%g-σ%g", m, clip, sigma)
				want, k := ghostLot(&DPSGD{Mechanism: Gaussian{}}, m.(PerExample), p, clip, sigma)
				got, k2 := ghostLot(&DPSGD{Mechanism: Gaussian{}, Ghost: true}, m.Clone().(PerExample), p, clip, sigma)
				if k != k2 || k == 0 {
					t.Fatalf("%s: lot sizes %d and %d", name, k, k2)
				}
				tol := 1e-12 * float64(k) * math.Min(clip, 100) / (0.5 * 60)
				for i := range want {
					if !(math.Abs(got[i]-want[i]) <= tol) {
						t.Fatalf("%s: coordinate %d = %.17g, want %.17g", name, i, got[i], want[i])
					}
				}
				if !slices.Equal(got, want) {
					differ++
				}
				w := NewWavelet(haar.GradientDomain, Lemma2)
				want, _ = ghostLot(&DPSGD{Mechanism: w}, m.(PerExample), p, clip, sigma)
				got, _ = ghostLot(&DPSGD{Mechanism: NewWavelet(haar.GradientDomain, Lemma2), Ghost: true}, m.(PerExample), p, clip, sigma)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: Ghost changed a wavelet lot", name)
				}
			}
		}
	}
	if differ == 0 {
		t.Error("Ghost never changed a rounding: the ghost path did not run")
	}
}

// materialising hides a model's ExactClipper and ClippedSummer, so that
// DPSGD takes the materialised path (PerExampleGrads, Gaussian.Lot).
type materialising struct{ PerExample }

// TestExactLotIsMaterialisedLot checks the default Gaussian path of
// DP-SGD without materialised gradients (issue 24 item 3) against
// Gaussian.Lot on PerExampleGrads bit for bit, step by step — clip bounds
// that clip all, some or no examples, σ = 0 and > 0, inputs whose squared
// norms overflow (dp.Norm2 fallback) and non-finite inputs — and over
// whole training runs (which the goldens of the Haar reproduction depend
// on).
func TestExactLotIsMaterialisedLot(t *testing.T) {
	if !linalg.GonumAsmOrder {
		t.Skip("gonum's generic kernels: the exact path declines")
	}
	for _, mk := range []func() model.Model{
		func() model.Model { return model.NewMLP([]int{8, 5, 3}, 0.5, model.DoubleSoftmax) },
		func() model.Model { return model.NewMLP([]int{8, 6, 5, 3}, 0, model.CrossEntropy) },
		func() model.Model { return model.NewLogReg(8, 3, model.CrossEntropy) },
		func() model.Model { return model.NewLogReg(8, 3, model.DoubleSoftmax) },
	} {
		for _, scale := range []float64{1, 1e145, math.Inf(1)} {
			for _, clip := range []float64{0, 0.05, 1, math.Inf(1)} {
				for _, sigma := range []float64{0, 1.1} {
					if math.IsInf(clip, 1) && sigma > 0 {
						continue
					}
					m := mk()
					p := make([]float64, m.NumParams())
					m.Init(p, rng.Stream(3, "init"))
					d := toyData(5, 60, m.InputDim())
					for i := range 10 * d.D {
						if i%3 == 0 {
							d.X[i] *= scale
						}
					}
					name := fmt.Sprintf("%T-x%g-C%g-σ%g", m, scale, clip, sigma)
					step := func(pe PerExample) []float64 {
						o := &recordStep{}
						q := 0.5
						a := &DPSGD{Mechanism: Gaussian{}}
						a.step(pe, d, slices.Clone(p), o, q, q*float64(d.N), sigma, clip, rng.Stream(2, "lot"), rng.Stream(2, "noise"))
						return o.g
					}
					want := step(materialising{m.(PerExample)})
					got := step(m.Clone().(PerExample))
					for i := range want {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
							t.Fatalf("%s: coordinate %d = %v, materialised %v", name, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
	// Whole runs: 3 rounds of 4 clients, momentum SGD and Adam.
	for _, opt := range []func() optim.Optimizer{func() optim.Optimizer { return nil }, func() optim.Optimizer { return optim.NewAdam(0.01) }} {
		run := func(wrap bool) []float64 {
			clients := toyClients(11, 4, 60, 8)
			var m model.Model = model.NewMLP([]int{8, 5, 3}, 0.2, model.CrossEntropy)
			init := make([]float64, m.NumParams())
			m.Init(init, rng.Stream(1, "init"))
			if wrap {
				m = wrapped{materialising{m.(PerExample)}, m}
			}
			alg := &DPSGD{Mechanism: Gaussian{}, Schedule: Decay{Sigma0: 1.2, C0: 1, RhoSigma: 2, RhoC: 1.5, Rounds: 3}, Lot: 10, Optimizer: opt()}
			e, err := fl.New(m, clients, alg, fl.Config{Sampling: fl.Uniform, Frac: 0.5, Local: fl.LocalConfig{Epochs: 2, BatchSize: 10, LR: 0.1}}, rng.New(3, "run"), init, fl.Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				e.TrainRound()
			}
			return slices.Clone(e.Server().Global)
		}
		want, got := run(true), run(false)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("run: parameter %d = %v, materialised %v", i, got[i], want[i])
			}
		}
	}
}

// wrapped is a model.Model whose per-example interface is materialising
// (for fl.New, which needs a Model; Clone keeps the wrapping).
type wrapped struct {
	materialising
	model.Model
}

func (w wrapped) PerExampleGrads(p []float64, b model.Batch, g []float64, loss []float64, r *rand.Rand) {
	w.materialising.PerExampleGrads(p, b, g, loss, r)
}
func (w wrapped) LossGrad(p []float64, b model.Batch, grad []float64, r *rand.Rand) float64 {
	return w.Model.LossGrad(p, b, grad, r)
}
func (w wrapped) NumParams() int { return w.Model.NumParams() }
func (w wrapped) Clone() model.Model {
	c := w.Model.Clone()
	return wrapped{materialising{c.(PerExample)}, c}
}
