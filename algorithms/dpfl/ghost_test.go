package dpfl

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/model"
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
