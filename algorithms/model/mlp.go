package model

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
)

// MLP is a fully connected network: sizes = [input, hidden..., classes],
// a linear layer between consecutive sizes, ReLU after every hidden layer,
// and optional inverted dropout after each hidden ReLU. The upstream
// Upcycled-FL FEMNIST network (Linear 784→196, ReLU, Dropout 0.5, Linear
// 196→10, Softmax, CrossEntropyLoss) is
//
//	NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
//
// Parameter layout, torch's state-dict order: for layer l = 1..L (mapping
// sizes[l-1] → sizes[l]) the weights W_l, row-major sizes[l]×sizes[l-1]
// (row j = output unit j, torch's (out, in) shape), then the biases b_l
// (sizes[l]); layers follow each other. Tensors and Layer give the offsets.
//
// Dropout is active only when r is not nil and Dropout > 0: each hidden
// unit of each example is dropped when r.Float64() < Dropout, otherwise
// scaled by 1/(1−Dropout). One draw is made per hidden unit per example,
// layer by layer, example by example (row-major), whatever the parameters,
// so two calls with equal r streams use the same mask: LossGrad and
// PerExampleGrads draw identically, and finite differences can hold the
// mask fixed.
//
// Forward and backward passes are batched matrix products (gonum blas64,
// tiled so that gonum never spawns goroutines: parallelism belongs to the
// caller, one Clone per goroutine). Scratch grows to the largest batch seen
// and is then reused; no call allocates after that.
type MLP struct {
	// Loss selects cross-entropy or the upstream double softmax.
	Loss Loss
	// Dropout is the probability of dropping a hidden unit in training
	// mode, in [0, 1).
	Dropout float64
	// Scheme and InitStd control Init (defaults InitNormal, 0.01: the
	// upstream N(0, 0.01²) weights and zero biases). For the
	// Fashion-MNIST/MNIST experiments of other papers use InitHe or
	// InitTorchDefault.
	Scheme  InitScheme
	InitStd float64

	sizes      []int
	offW, offB []int // offsets of W_l and b_l for layers 0..L-1
	np         int

	h    [][]float64 // per layer, N×sizes[l+1]: pre-activations, then activations of hidden layers
	dlt  [][]float64 // per layer, N×sizes[l+1]: dloss/dz
	work []float64   // classes: scratch of the loss head
	fac  []float64   // N: clip factors of ClippedGradSum
	ex   exactState  // scratch of ExactClippedGradSum
}

// NewMLP returns an MLP with the given layer sizes (at least input and
// classes), hidden-layer dropout probability and loss, initialised like
// upstream (weights N(0, 0.01²), biases 0) unless Scheme is changed.
func NewMLP(sizes []int, dropout float64, loss Loss) *MLP {
	if len(sizes) < 2 {
		panic("model: MLP needs at least input and output sizes")
	}
	for _, s := range sizes {
		if s < 1 {
			panic("model: MLP layer sizes must be positive")
		}
	}
	if sizes[len(sizes)-1] < 2 {
		panic("model: MLP needs at least 2 classes")
	}
	if !(dropout >= 0 && dropout < 1) {
		panic("model: MLP dropout must be in [0, 1)")
	}
	m := &MLP{Loss: loss, Dropout: dropout, Scheme: InitNormal, InitStd: DefaultInitStd,
		sizes: append([]int(nil), sizes...)}
	L := len(sizes) - 1
	m.offW, m.offB = make([]int, L), make([]int, L)
	for l := range L {
		m.offW[l] = m.np
		m.np += sizes[l+1] * sizes[l]
		m.offB[l] = m.np
		m.np += sizes[l+1]
	}
	m.h, m.dlt = make([][]float64, L), make([][]float64, L)
	return m
}

// NumParams is Σ_l sizes[l]·(sizes[l-1]+1).
func (m *MLP) NumParams() int { return m.np }

// Classes is the last entry of sizes.
func (m *MLP) Classes() int { return m.sizes[len(m.sizes)-1] }

// InputDim is the first entry of sizes.
func (m *MLP) InputDim() int { return m.sizes[0] }

// Sizes returns a copy of the layer sizes.
func (m *MLP) Sizes() []int { return append([]int(nil), m.sizes...) }

// Layers is the number of linear layers, len(sizes)−1.
func (m *MLP) Layers() int { return len(m.sizes) - 1 }

// Layer returns the views of layer l's weights (row-major out×in) and
// biases in the flat vector p, for l in [0, Layers()).
func (m *MLP) Layer(p []float64, l int) (w, b []float64) {
	return p[m.offW[l]:m.offB[l]], p[m.offB[l] : m.offB[l]+m.sizes[l+1]]
}

// Tensors lists "fc1.weight", "fc1.bias", "fc2.weight", ... in layout order.
func (m *MLP) Tensors() []Tensor {
	t := make([]Tensor, 0, 2*m.Layers())
	for l := range m.Layers() {
		t = append(t,
			Tensor{Name: fmt.Sprintf("fc%d.weight", l+1), Offset: m.offW[l], Rows: m.sizes[l+1], Cols: m.sizes[l]},
			Tensor{Name: fmt.Sprintf("fc%d.bias", l+1), Offset: m.offB[l], Rows: m.sizes[l+1], Cols: 1})
	}
	return t
}

// Init writes initial parameters drawn from r according to Scheme, layer
// by layer (weights row-major, then biases).
func (m *MLP) Init(p []float64, r *rand.Rand) {
	m.checkParams(p)
	for l := range m.Layers() {
		w, b := m.Layer(p, l)
		initLinear(m.Scheme, m.InitStd, w, b, m.sizes[l], m.sizes[l+1], r)
	}
}

// Clone returns an MLP of the same shape and settings with its own scratch.
func (m *MLP) Clone() Model {
	c := NewMLP(m.sizes, m.Dropout, m.Loss)
	c.Scheme, c.InitStd = m.Scheme, m.InitStd
	return c
}

func (m *MLP) checkParams(p []float64) {
	if len(p) != m.np {
		panic("model: MLP parameter vector has the wrong length")
	}
}

// forward runs the batch through the network; afterwards m.h[l] holds the
// activations of hidden layer l (after ReLU and dropout) and m.h[L-1] the
// logits. It returns the factor kept units were scaled by (1 without
// dropout).
func (m *MLP) forward(p []float64, b Batch, r *rand.Rand) float64 {
	n, L := b.N, m.Layers()
	drop := r != nil && m.Dropout > 0
	if m.Dropout < 0 || m.Dropout >= 1 {
		panic("model: MLP dropout must be in [0, 1)")
	}
	scale := 1.0
	if drop {
		scale = 1 / (1 - m.Dropout)
	}
	in := general(n, m.sizes[0], b.X)
	for l := range L {
		out := m.sizes[l+1]
		m.h[l] = grow(m.h[l], n*out)
		h := m.h[l]
		w, bias := m.Layer(p, l)
		for i := range n {
			copy(h[i*out:(i+1)*out], bias)
		}
		c := general(n, out, h)
		gemm(blas.NoTrans, blas.Trans, 1, in, general(out, m.sizes[l], w), 1, c)
		if l < L-1 {
			for i, v := range h {
				if drop && r.Float64() < m.Dropout {
					h[i] = 0
				} else if v > 0 {
					h[i] = v * scale
				} else {
					h[i] = 0
				}
			}
		}
		in = c
	}
	return scale
}

// headPass computes the loss of every example from the logits and, when
// withGrad, writes dloss/dlogits into m.dlt[L-1]. It returns the sum of the
// losses; loss[i] gets example i's loss when loss is not nil.
func (m *MLP) headPass(b Batch, withGrad bool, loss []float64) float64 {
	L, c := m.Layers(), m.Classes()
	logits := m.h[L-1]
	var delta []float64
	if withGrad {
		m.dlt[L-1] = grow(m.dlt[L-1], b.N*c)
		delta = m.dlt[L-1]
	}
	m.work = grow(m.work, c)
	var total float64
	for i := range b.N {
		var d []float64
		if withGrad {
			d = delta[i*c : (i+1)*c]
		}
		li := headLoss(m.Loss, logits[i*c:(i+1)*c], b.Y[i], d, m.work)
		if loss != nil {
			loss[i] = li
		}
		total += li
	}
	return total
}

// backprop turns m.dlt[L-1] into dloss/dz for every layer (m.dlt[l]).
func (m *MLP) backprop(p []float64, n int, scale float64) {
	for l := m.Layers() - 1; l > 0; l-- {
		in, out := m.sizes[l], m.sizes[l+1]
		m.dlt[l-1] = grow(m.dlt[l-1], n*in)
		da := m.dlt[l-1]
		w, _ := m.Layer(p, l)
		gemm(blas.NoTrans, blas.NoTrans, 1, general(n, out, m.dlt[l]), general(out, in, w), 0, general(n, in, da))
		// ReLU and dropout: a unit passes gradient iff its activation is
		// positive (z > 0 and kept), with the dropout scale.
		for i, a := range m.h[l-1] {
			if a > 0 {
				da[i] *= scale
			} else {
				da[i] = 0
			}
		}
	}
}

// layerInput returns the input of layer l as an n×sizes[l] slice.
func (m *MLP) layerInput(b Batch, l int) []float64 {
	if l == 0 {
		return b.X[:b.N*b.D]
	}
	return m.h[l-1]
}

// LossGrad returns the mean loss over b and, when grad is not nil,
// overwrites grad with its gradient. r drives dropout (nil: none). An empty
// batch has loss 0 and gradient 0.
func (m *MLP) LossGrad(p []float64, b Batch, grad []float64, r *rand.Rand) float64 {
	m.checkParams(p)
	checkBatch(b, m.InputDim(), true)
	if grad != nil {
		m.checkParams(grad)
	}
	if b.N == 0 {
		clear(grad)
		return 0
	}
	scale := m.forward(p, b, r)
	total := m.headPass(b, grad != nil, nil)
	inv := 1 / float64(b.N)
	if grad == nil {
		return total * inv
	}
	floats.Scale(inv, m.dlt[m.Layers()-1])
	m.backprop(p, b.N, scale)
	for l := range m.Layers() {
		in, out := m.sizes[l], m.sizes[l+1]
		gw, gb := m.Layer(grad, l)
		d := m.dlt[l][:b.N*out]
		gemm(blas.Trans, blas.NoTrans, 1, general(b.N, out, d), general(b.N, in, m.layerInput(b, l)), 0, general(out, in, gw))
		copy(gb, d[:out])
		for i := 1; i < b.N; i++ {
			floats.Add(gb, d[i*out:(i+1)*out])
		}
	}
	return total * inv
}

// PerExampleGrads writes example i's gradient into g[i·P:(i+1)·P]
// (P = NumParams) and its loss into loss[i] when loss is not nil. The
// forward pass and dropout masks are those of LossGrad with the same r, so
// the mean of the per-example gradients is LossGrad's gradient. The
// per-example weight gradients are outer products δ_l[i] ⊗ a_{l-1}[i].
func (m *MLP) PerExampleGrads(p []float64, b Batch, g []float64, loss []float64, r *rand.Rand) {
	m.checkParams(p)
	checkBatch(b, m.InputDim(), true)
	checkLen("per-example gradient buffer", g, b.N*m.np)
	if loss != nil {
		checkLen("per-example loss buffer", loss, b.N)
	}
	if b.N == 0 {
		return
	}
	scale := m.forward(p, b, r)
	m.headPass(b, true, loss)
	m.backprop(p, b.N, scale)
	for l := range m.Layers() {
		in, out := m.sizes[l], m.sizes[l+1]
		a := m.layerInput(b, l)
		for i := range b.N {
			gi := g[i*m.np : (i+1)*m.np]
			gw, gb := m.Layer(gi, l)
			x := a[i*in : (i+1)*in]
			d := m.dlt[l][i*out : (i+1)*out]
			copy(gb, d)
			for j, dj := range d {
				row := gw[j*in : (j+1)*in]
				if dj == 0 {
					clear(row)
				} else {
					floats.ScaleTo(row, dj, x)
				}
			}
		}
	}
}

// Predict writes softmax(logits) row by row into out (N×Classes), in
// evaluation mode (no dropout). In DoubleSoftmax mode this is the upstream
// network's output (its final Softmax layer), whose argmax is the
// predicted class.
func (m *MLP) Predict(p []float64, b Batch, out []float64) {
	m.PredictLoss(p, b, out, nil)
}

// PredictLoss is Predict that also writes each example's loss (under Loss,
// evaluation mode) into loss when loss is not nil; out may be nil.
func (m *MLP) PredictLoss(p []float64, b Batch, out, loss []float64) {
	m.checkParams(p)
	checkBatch(b, m.InputDim(), loss != nil)
	c := m.Classes()
	if out != nil {
		checkLen("prediction buffer", out, b.N*c)
	}
	if loss != nil {
		checkLen("loss buffer", loss, b.N)
	}
	if b.N == 0 {
		return
	}
	m.forward(p, b, nil)
	if loss != nil {
		m.headPass(b, false, loss)
	}
	if out != nil {
		logits := m.h[m.Layers()-1]
		for i := range b.N {
			softmaxTo(out[i*c:(i+1)*c], logits[i*c:(i+1)*c])
		}
	}
}
