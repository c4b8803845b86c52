package attack

import (
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dpfl"
	"github.com/fedrepro/fedrepro/algorithms/model"
)

// White-box gradient canaries (Nasr et al. 2023, "Tight Auditing of
// Differentially Private Machine Learning", §4): the auditor may insert
// an example whose gradient it chooses. We realise one as a row of the
// client's dataset whose first feature is the sentinel value (no image
// pixel or standardized feature comes near it); canaryModel answers for
// such a row with the chosen gradient and for every other row with the
// wrapped model's own gradient. A sentinel row labelled canaryLabel is the
// canary (gradient Scale·Dir); any other sentinel row is a null example
// (gradient 0), which the clipped sums of DP-SGD and DP-FedAvg treat
// exactly as an absent example while keeping the dataset size — and so
// the lot sampling rate q = L/n and the denominators — unchanged. D holds
// the null row, D′ the canary: add/remove neighbours in effect.
//
// The direction Dir is the unit all-ones vector. For the softmax logistic
// regressions the papers train, every example's gradient is orthogonal to
// it (∂/∂W_{jc} = x_j(p_c − y_c) and ∂/∂b_c = p_c − y_c sum to zero over
// the classes c), and so is every SGD update built from them: the real
// data add nothing to the projection on Dir, and the attack reads the
// canary against the privacy noise alone — the worst case the accountants
// are computed for, on the real data.

// sentinel marks canary and null rows in the first feature.
const sentinel = -1e9

// canaryLabel is the label of the canary row; other sentinel rows are null.
const canaryLabel = 1

// canaryModel wraps a per-example model with gradient canaries.
type canaryModel struct {
	dpfl.PerExample
	dir   []float64 // unit canary direction
	scale float64   // ‖canary gradient‖
	// dirs, when set, are the directions of many canaries (one-run
	// audits): a canary row's second feature indexes its direction.
	dirs [][]float64
	buf  []float64
}

func newCanaryModel(m dpfl.PerExample, scale float64) *canaryModel {
	n := m.NumParams()
	dir := make([]float64, n)
	for i := range dir {
		dir[i] = 1 / math.Sqrt(float64(n))
	}
	return &canaryModel{PerExample: m, dir: dir, scale: scale}
}

func isSentinel(b model.Batch, i int) bool { return b.X[i*b.D] == sentinel }

func hasSentinel(b model.Batch) bool {
	for i := 0; i < b.N; i++ {
		if isSentinel(b, i) {
			return true
		}
	}
	return false
}

// rowGrad overwrites g with the gradient of sentinel row x labelled y:
// the canary's (label canaryLabel) or the null row's (zero).
func (m *canaryModel) rowGrad(x []float64, y int, g []float64) {
	if y != canaryLabel {
		clear(g)
		return
	}
	dir := m.dir
	if m.dirs != nil {
		dir = m.dirs[int(x[1])]
	}
	for k, v := range dir {
		g[k] = m.scale * v
	}
}

// PerExampleGrads is the wrapped model's, with sentinel rows replaced.
func (m *canaryModel) PerExampleGrads(p []float64, b model.Batch, g []float64, loss []float64, r *rand.Rand) {
	m.PerExample.PerExampleGrads(p, b, g, loss, r)
	np := m.NumParams()
	for i := 0; i < b.N; i++ {
		if isSentinel(b, i) {
			m.rowGrad(b.Row(i), b.Y[i], g[i*np:(i+1)*np])
			if loss != nil {
				loss[i] = 0
			}
		}
	}
}

// LossGrad is the mean over the batch of the per-example gradients (the
// wrapped model's own when the batch holds no sentinel row).
func (m *canaryModel) LossGrad(p []float64, b model.Batch, grad []float64, r *rand.Rand) float64 {
	if !hasSentinel(b) {
		return m.PerExample.LossGrad(p, b, grad, r)
	}
	np := m.NumParams()
	if len(m.buf) < b.N*np {
		m.buf = make([]float64, b.N*np)
	}
	loss := make([]float64, b.N)
	m.PerExampleGrads(p, b, m.buf[:b.N*np], loss, r)
	var total float64
	if grad != nil {
		clear(grad)
	}
	for i := 0; i < b.N; i++ {
		total += loss[i]
		if grad != nil {
			for k, v := range m.buf[i*np : (i+1)*np] {
				grad[k] += v / float64(b.N)
			}
		}
	}
	return total / float64(b.N)
}

// withSentinel returns a copy of ds whose row i is a sentinel row with
// label y (canaryLabel: the canary; anything else: the null example).
func withSentinel(ds *data.Dataset, i, y int) *data.Dataset {
	out := &data.Dataset{X: append([]float64(nil), ds.X...), Y: append([]int(nil), ds.Y...), N: ds.N, D: ds.D, Classes: ds.Classes}
	row := out.X[i*ds.D : (i+1)*ds.D]
	clear(row)
	row[0] = sentinel
	out.Y[i] = y
	return out
}

// canaryRow is the sentinel row of canary j (one-run audits).
func canaryRow(d, j int) []float64 {
	x := make([]float64, d)
	x[0], x[1] = sentinel, float64(j)
	return x
}

// project is ⟨v, dir⟩.
func project(v, dir []float64) float64 {
	var s float64
	for i, d := range dir {
		s += v[i] * d
	}
	return s
}

// mixtureLLR is the log-likelihood ratio of one observation z (in units
// of the noise sd) of a release that contains the canary's shift a (same
// units) with probability q: log(1 − q + q·exp(a·z − a²/2)), computed
// without overflow. Summed over independent releases it is the
// Neyman–Pearson statistic of the Poisson-subsampled Gaussian mechanism.
func mixtureLLR(z, a, q float64) float64 {
	x := a*z - a*a/2
	if q >= 1 {
		return x
	}
	l0, l1 := math.Log1p(-q), math.Log(q)+x
	if l0 > l1 {
		return l0 + math.Log1p(math.Exp(l1-l0))
	}
	return l1 + math.Log1p(math.Exp(l0-l1))
}
