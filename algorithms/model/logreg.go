package model

import (
	"fmt"
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
	// two-class scratch: w_1 − w_0, per-example scores then head gradients;
	// a gathered batch for GradRows with more classes.
	wd, sc, bx []float64
	yf         []float64 // two-class labels as float64 for dsHeadsAVX2
	by         []int
	ident      []int      // 0, 1, 2, …: the row list of a contiguous batch for the FMA kernels
	dl         []float64  // N×classes: head gradients of ClippedGradSum
	ex         exactState // scratch of ExactClippedGradSum
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
	if m.c == 2 {
		m.predictLoss2(w, bias, b, out, loss)
		return
	}
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

// predictLoss2 is PredictLoss for two classes: the score differences as in
// rows2, then the probabilities and loss from head2.
func (m *LogReg) predictLoss2(w, bias []float64, b Batch, out, loss []float64) {
	sc, _ := m.scores2(w, bias, b.X, nil, b.N)
	for i, d := range sc {
		y := 0
		if loss != nil {
			y = b.Y[i]
		}
		_, l, s0, s1 := head2(m.Loss, d, y, loss != nil)
		if out != nil {
			out[2*i], out[2*i+1] = s0, s1
		}
		if loss != nil {
			loss[i] = l
		}
	}
}

// scores2 writes d_i = (w_1 − w_0)·x_i + (b_1 − b_0) for n examples of X
// (rows[i] when rows is not nil) into scratch and returns it, by the fused
// definition of fma2.go (dot2): the AVX2+FMA kernel where it runs, else
// the Go loops, with the same bits. With the kernel, checked is rows as
// checkRows returns it (nil otherwise).
func (m *LogReg) scores2(w, bias, X []float64, rows []int, n int) (sc []float64, checked []int) {
	d := m.d
	m.wd = grow(m.wd, d)
	wd := m.wd[:d]
	bd := bias[1] - bias[0]
	m.sc = grow(m.sc, n)
	sc = m.sc[:n]
	if useFMA && n > 0 {
		checked = m.checkRows(X, rows, n)
		_ = w[2*d-1]
		scores2FMA(&w[0], &X[0], &checked[0], n, d, bd, &sc[0], &wd[0])
		return sc, checked
	}
	for j := range wd {
		wd[j] = w[d+j] - w[j]
	}
	scores2Go(wd, bd, X, rows, sc)
	return sc, nil
}

// checkRows returns rows after checking that each names a whole row of
// X, or, when rows is nil, the identity 0…n−1 (scratch) after checking
// that X holds n rows: the assembly kernels index X through it unchecked.
func (m *LogReg) checkRows(X []float64, rows []int, n int) []int {
	d := m.d
	if rows == nil {
		_ = X[:n*d]
		if len(m.ident) < n {
			m.ident = growInt(m.ident, n)
			for i := range m.ident {
				m.ident[i] = i
			}
		}
		return m.ident[:n]
	}
	rows = rows[:n]
	nr := uint(len(X) / d)
	for _, k := range rows {
		if uint(k) >= nr {
			panic(fmt.Sprintf("model: LogReg: row %d outside the %d rows of the data", k, nr))
		}
	}
	return rows
}

// lossGrad2 is LossGrad for two classes on a contiguous batch: rows2
// with rows = nil.
func (m *LogReg) lossGrad2(w, bias []float64, b Batch, gw, gb []float64, wantLoss bool) float64 {
	return m.rows2(w, bias, b.X, b.Y, nil, b.N, gw, gb, wantLoss)
}

// rows2 is the two-class mean loss and gradient over n examples of a
// row-major X: rows[i] when rows is not nil, else example i. Softmax of two
// scores depends on d = (w_1 − w_0)·x + (b_1 − b_0) only, so the forward
// pass is one dot product per example, dloss/dz = (−g, g) with g from
// head2, and the gradient is ∂/∂w_1 = mean g·x = −∂/∂w_0. The mini-batch is
// handled as two small matrix products (X·w_d, then gᵀ·X), four examples
// at a time so that the sums are independent chains; the caller has
// cleared gw and gb. Nothing is copied or allocated once scratch has grown.
func (m *LogReg) rows2(w, bias, X []float64, Y []int, rows []int, n int, gw, gb []float64, wantLoss bool) float64 {
	if n == 0 {
		return 0
	}
	d := m.d
	sc, rr := m.scores2(w, bias, X, rows, n)
	// Head: scores → g_i (in place).
	var total, gsum float64
	if useAVX2 && n >= 4 && !wantLoss && (m.Loss == DoubleSoftmax || m.Loss == CrossEntropy) {
		// Four lanes at a time, then the Go head for what is left (n mod 4,
		// or from a group with a score beyond exp's fast range); Σg in
		// index order, as the Go heads sum.
		m.yf = grow(m.yf, n)
		yf := m.yf[:n]
		labelsFloat(yf, Y, rows)
		var done int
		if m.Loss == DoubleSoftmax {
			done = dsHeadsAVX2(&sc[0], &yf[0], n&^3)
			if done < n {
				if rows != nil {
					dsGrads(sc[done:], Y, rows[done:])
				} else {
					dsGrads(sc[done:], Y[done:], nil)
				}
			}
		} else {
			done = ceHeadsAVX2(&sc[0], &yf[0], n&^3)
			for i := done; i < n; i++ {
				k := i
				if rows != nil {
					k = rows[i]
				}
				sc[i], _, _, _ = head2(CrossEntropy, sc[i], Y[k], false)
			}
		}
		for _, g := range sc {
			gsum += g
		}
	} else if m.Loss == DoubleSoftmax && !wantLoss {
		gsum = dsGrads(sc, Y, rows)
	} else {
		for i, di := range sc {
			k := i
			if rows != nil {
				k = rows[i]
			}
			g, l, _, _ := head2(m.Loss, di, Y[k], wantLoss)
			sc[i] = g
			gsum += g
			total += l
		}
	}
	// ∂/∂w_1 = Σ g_i x_i into gw's second row by the fused definition of
	// fma2.go (per column, fma in row order): the first d4 = d − d mod 4
	// columns by accRowsFMA where it runs, the rest by the Go loops.
	g1, g0 := gw[d:2*d:2*d], gw[:d:d]
	inv := 1 / float64(n)
	j0 := 0
	if d4 := d &^ 3; rr != nil && d4 > 0 {
		accRowsFMA(sc, X, rr, n, d, d4, g1, g0, inv)
		j0 = d4
	}
	if j0 < d {
		accRowsGo(sc, X, rows, g1, j0)
	}
	// The mean (done by accRowsFMA for its columns): g1 = Σ/n, g0 = −g1.
	for j := j0; j < d; j++ {
		v := g1[j] * inv
		g1[j], g0[j] = v, -v
	}
	gb[1] = gsum * inv
	gb[0] = -gb[1]
	return total * inv
}

// labelsFloat writes yf[i] = Y[rows[i]] (Y[i] when rows is nil) as a
// float64 for the AVX2 heads. A function of its own so that its loop keeps
// its counter in a register (inside rows2 it was spilled to the stack,
// ~8 % of a step), and not inlined for that reason.
//
//go:noinline
func labelsFloat(yf []float64, Y, rows []int) {
	if rows == nil {
		for i, y := range Y[:len(yf)] {
			yf[i] = float64(y)
		}
		return
	}
	for i, k := range rows[:len(yf)] {
		yf[i] = float64(Y[k])
	}
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

// GradRows implements RowGrad: Grad of the examples rows of the row-major
// data set (X, Y) of d features, read in place (the local loops of fl use
// it to skip copying each shuffled mini-batch).
func (m *LogReg) GradRows(p, X []float64, Y []int, d int, rows []int, grad []float64, r *rand.Rand) {
	if d != m.d {
		panic("model: LogReg.GradRows: wrong feature count")
	}
	if m.c != 2 {
		m.bx = grow(m.bx, len(rows)*d)
		m.by = growInt(m.by, len(rows))
		for i, k := range rows {
			copy(m.bx[i*d:(i+1)*d], X[k*d:(k+1)*d])
			m.by[i] = Y[k]
		}
		m.LossGrad(p, Batch{X: m.bx[:len(rows)*d], Y: m.by[:len(rows)], N: len(rows), D: d}, grad, r)
		return
	}
	m.checkParams(p)
	m.checkParams(grad)
	clear(grad)
	w, bias := m.split(p)
	gw, gb := m.split(grad)
	m.rows2(w, bias, X, Y, rows, len(rows), gw, gb, false)
}
