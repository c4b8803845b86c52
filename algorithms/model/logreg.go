package model

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// LogReg is multinomial logistic regression: class scores z = W x + b.
//
// Parameter layout (NumParams = classes·(inputDim+1)), the layout of torch's
// nn.Linear state dict (weight, then bias):
//
//	p[0 : classes·inputDim]   W, row-major classes×inputDim (row c = class c)
//	p[classes·inputDim : ]    b, one bias per class
//
// LogReg has no stochastic part: r is ignored everywhere except by Init.
type LogReg struct {
	// Loss selects cross-entropy or the upstream double softmax.
	Loss Loss
	// Scheme and InitStd control Init (defaults InitNormal, 0.01: the
	// upstream `normal_(0, 0.01)` weights and zero bias).
	Scheme  InitScheme
	InitStd float64

	d, c int
	z    []float64 // scratch, 3·classes: scores, head gradient, head work
}

// NewLogReg returns a logistic regression of inputDim features and classes
// outputs with the upstream initialisation (weights N(0, 0.01²), bias 0).
func NewLogReg(inputDim, classes int, loss Loss) *LogReg {
	if inputDim < 1 || classes < 2 {
		panic("model: LogReg needs inputDim ≥ 1 and classes ≥ 2")
	}
	return &LogReg{Loss: loss, Scheme: InitNormal, InitStd: DefaultInitStd, d: inputDim, c: classes}
}

// NumParams is classes·(inputDim+1).
func (m *LogReg) NumParams() int { return m.c * (m.d + 1) }

// Classes is the number of output classes.
func (m *LogReg) Classes() int { return m.c }

// InputDim is the number of input features.
func (m *LogReg) InputDim() int { return m.d }

// Tensors lists "linear.weight" (classes×inputDim) and "linear.bias".
func (m *LogReg) Tensors() []Tensor {
	return []Tensor{
		{Name: "linear.weight", Offset: 0, Rows: m.c, Cols: m.d},
		{Name: "linear.bias", Offset: m.c * m.d, Rows: m.c, Cols: 1},
	}
}

// Init writes initial parameters drawn from r according to Scheme.
func (m *LogReg) Init(p []float64, r *rand.Rand) {
	m.checkParams(p)
	w, b := m.split(p)
	initLinear(m.Scheme, m.InitStd, w, b, m.d, m.c, r)
}

// Clone returns a LogReg of the same shape and settings with its own scratch.
func (m *LogReg) Clone() Model {
	return &LogReg{Loss: m.Loss, Scheme: m.Scheme, InitStd: m.InitStd, d: m.d, c: m.c}
}

func (m *LogReg) split(p []float64) (w, b []float64) {
	return p[:m.c*m.d], p[m.c*m.d : m.c*(m.d+1)]
}

func (m *LogReg) checkParams(p []float64) {
	if len(p) != m.NumParams() {
		panic("model: LogReg parameter vector has the wrong length")
	}
}

// scores writes z = W x + b into m.z and returns it.
func (m *LogReg) scores(w, b, x []float64) []float64 {
	m.z = grow(m.z, 3*m.c)
	z := m.z[:m.c]
	for c := range z {
		z[c] = floats.Dot(w[c*m.d:(c+1)*m.d], x) + b[c]
	}
	return z
}

// LossGrad returns the mean loss over b and, when grad is not nil,
// overwrites grad with its gradient. An empty batch has loss 0 and gradient 0.
func (m *LogReg) LossGrad(p []float64, b Batch, grad []float64, _ *rand.Rand) float64 {
	m.checkParams(p)
	checkBatch(b, m.d, true)
	w, bias := m.split(p)
	var gw, gb []float64
	if grad != nil {
		m.checkParams(grad)
		clear(grad)
		gw, gb = m.split(grad)
	}
	if m.c == 2 && grad != nil {
		return m.lossGrad2(w, bias, b, gw, gb, true)
	}
	var total float64
	for i := 0; i < b.N; i++ {
		x := b.Row(i)
		z := m.scores(w, bias, x)
		if grad == nil {
			total += headLoss(m.Loss, z, b.Y[i], nil, m.z[m.c:2*m.c])
			continue
		}
		delta := m.z[m.c : 2*m.c]
		total += headLoss(m.Loss, z, b.Y[i], delta, m.z[2*m.c:3*m.c])
		for c, dc := range delta {
			if dc != 0 {
				floats.AddScaled(gw[c*m.d:(c+1)*m.d], dc, x)
			}
			gb[c] += dc
		}
	}
	if b.N == 0 {
		return 0
	}
	inv := 1 / float64(b.N)
	if grad != nil {
		floats.Scale(inv, grad)
	}
	return total * inv
}

// PerExampleGrads writes example i's gradient into g[i·P:(i+1)·P]
// (P = NumParams) and its loss into loss[i] when loss is not nil. It does
// not allocate once its scratch has grown.
func (m *LogReg) PerExampleGrads(p []float64, b Batch, g []float64, loss []float64, _ *rand.Rand) {
	m.checkParams(p)
	checkBatch(b, m.d, true)
	np := m.NumParams()
	checkLen("per-example gradient buffer", g, b.N*np)
	if loss != nil {
		checkLen("per-example loss buffer", loss, b.N)
	}
	w, bias := m.split(p)
	for i := 0; i < b.N; i++ {
		x := b.Row(i)
		z := m.scores(w, bias, x)
		gi := g[i*np : (i+1)*np]
		gw, gb := m.split(gi)
		// The head gradient goes straight into the bias block.
		li := headLoss(m.Loss, z, b.Y[i], gb, m.z[m.c:2*m.c])
		if loss != nil {
			loss[i] = li
		}
		for c, dc := range gb {
			row := gw[c*m.d : (c+1)*m.d]
			if dc == 0 {
				clear(row)
				continue
			}
			floats.ScaleTo(row, dc, x)
		}
	}
}

// Predict writes softmax(z) row by row into out (N×Classes). In
// DoubleSoftmax mode this is the upstream network's output (its final
// Softmax layer), whose argmax is the predicted class.
func (m *LogReg) Predict(p []float64, b Batch, out []float64) {
	m.PredictLoss(p, b, out, nil)
}

// PredictLoss is Predict that also writes each example's loss (under Loss)
// into loss when loss is not nil; out may be nil.
func (m *LogReg) PredictLoss(p []float64, b Batch, out, loss []float64) {
	m.checkParams(p)
	checkBatch(b, m.d, loss != nil)
	if out != nil {
		checkLen("prediction buffer", out, b.N*m.c)
	}
	if loss != nil {
		checkLen("loss buffer", loss, b.N)
	}
	w, bias := m.split(p)
	for i := 0; i < b.N; i++ {
		z := m.scores(w, bias, b.Row(i))
		if loss != nil {
			loss[i] = headLoss(m.Loss, z, b.Y[i], nil, m.z[m.c:2*m.c])
		}
		if out != nil {
			softmaxTo(out[i*m.c:(i+1)*m.c], z)
		}
	}
}

// lossGrad2 is LossGrad for two classes (the binary synthetic tasks of
// Upcycled-FL spend almost all their time here): one fused pass computes
// both scores, the two-class head (headLoss2) gives dloss/dz, and one fused
// pass accumulates both weight rows, avoiding per-sample calls on 20-long
// vectors. grad (gw, gb) has been cleared by the caller.
func (m *LogReg) lossGrad2(w, bias []float64, b Batch, gw, gb []float64, wantLoss bool) float64 {
	d := m.d
	w0, w1 := w[:d], w[d:2*d]
	g0, g1 := gw[:d], gw[d:2*d]
	var z, delta [2]float64
	var total, gb0, gb1 float64
	for i := 0; i < b.N; i++ {
		x := b.X[i*d : (i+1)*d]
		x = x[:len(w0)]
		var s0, s1 float64
		for j, xj := range x {
			s0 += w0[j] * xj
			s1 += w1[j] * xj
		}
		z[0], z[1] = s0+bias[0], s1+bias[1]
		total += headLoss2Opt(m.Loss, z[:], b.Y[i], delta[:], wantLoss)
		d0, d1 := delta[0], delta[1]
		g0 := g0[:len(x)]
		g1 := g1[:len(x)]
		for j, xj := range x {
			g0[j] += d0 * xj
			g1[j] += d1 * xj
		}
		gb0 += d0
		gb1 += d1
	}
	if b.N == 0 {
		return 0
	}
	gb[0], gb[1] = gb0, gb1
	inv := 1 / float64(b.N)
	floats.Scale(inv, gw)
	gb[0] *= inv
	gb[1] *= inv
	return total * inv
}

// Grad implements GradOnly: the gradient of LossGrad without the loss,
// which for two classes saves the per-example logarithm.
func (m *LogReg) Grad(p []float64, b Batch, grad []float64, r *rand.Rand) {
	if m.c != 2 {
		m.LossGrad(p, b, grad, r)
		return
	}
	m.checkParams(p)
	checkBatch(b, m.d, true)
	m.checkParams(grad)
	clear(grad)
	w, bias := m.split(p)
	gw, gb := m.split(grad)
	m.lossGrad2(w, bias, b, gw, gb, false)
}
