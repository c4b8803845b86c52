package model

// Checks aimed at mutants gremlins left alive (issue 12, item 5).

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// TestEvaluateRejectsShortInput: X must hold n·d values and Y n labels.
func TestEvaluateRejectsShortInput(t *testing.T) {
	m := NewLogReg(2, 2, CrossEntropy)
	p := make([]float64, m.NumParams())
	for _, tc := range []struct {
		name string
		x    []float64
		y    []int
	}{
		// Spare capacity must not hide a short slice.
		{"short X", make([]float64, 3, 4), []int{0, 1}},
		{"short Y", []float64{1, 2, 3, 4}, make([]int, 1, 2)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Evaluate did not panic", tc.name)
				}
			}()
			Evaluate(m, p, tc.x, tc.y, 2, 2)
		}()
	}
	// Exactly n·d values and n labels are enough: p = 0 gives loss ln 2
	// and equal probabilities, which the first-largest rule resolves to
	// class 0: accuracy 1 on labels (0, 0), 0 on (1, 1).
	l, a := Evaluate(m, p, []float64{1, 2, 3, 4}, []int{0, 0}, 2, 2)
	if a != 1 || !(math.Abs(l-math.Ln2) <= 1e-15) {
		t.Errorf("Evaluate = %v, %v; want ln 2, 1", l, a)
	}
	if _, a := Evaluate(m, p, []float64{1, 2, 3, 4}, []int{1, 1}, 2, 2); a != 0 {
		t.Errorf("ties must go to the first class: accuracy %v on labels 1", a)
	}
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// TestBufferChecks: every buffer shorter than the batch needs panics;
// exactly long enough works; nil optional buffers are skipped.
func TestBufferChecks(t *testing.T) {
	lr := NewLogReg(2, 3, CrossEntropy)
	mlp := NewMLP([]int{2, 2, 3}, 0, CrossEntropy)
	b := Batch{X: []float64{1, 2, 3, 4}, Y: []int{0, 2}, N: 2, D: 2}
	for _, m := range []Model{lr, mlp} {
		p := make([]float64, m.NumParams())
		np := len(p)
		// Spare capacity must not hide a short buffer.
		mustPanic(t, "short per-example buffer", func() { m.PerExampleGrads(p, b, make([]float64, 2*np-1, 2*np), nil, nil) })
		mustPanic(t, "short per-example loss", func() { m.PerExampleGrads(p, b, make([]float64, 2*np), make([]float64, 1), nil) })
		m.PerExampleGrads(p, b, make([]float64, 2*np), nil, nil)
		mustPanic(t, "short prediction buffer", func() { m.Predict(p, b, make([]float64, 5, 6)) })
		m.Predict(p, Batch{X: b.X, N: 2, D: 2}, make([]float64, 6)) // Predict needs no labels
		lp := m.(LossPredictor)
		mustPanic(t, "short loss buffer", func() { lp.PredictLoss(p, b, nil, make([]float64, 1)) })
		loss := make([]float64, 2)
		lp.PredictLoss(p, b, nil, loss) // probabilities not wanted
		if !(math.Abs(loss[0]-math.Log(3)) <= 1e-15) || !(math.Abs(loss[1]-math.Log(3)) <= 1e-15) {
			t.Errorf("losses at p = 0: %v, want ln 3", loss)
		}
		mustPanic(t, "short X", func() { m.LossGrad(p, Batch{X: b.X[:3], Y: b.Y, N: 2, D: 2}, nil, nil) })
		mustPanic(t, "short Y", func() { m.LossGrad(p, Batch{X: b.X, Y: b.Y[:1], N: 2, D: 2}, nil, nil) })
		mustPanic(t, "negative N", func() { m.LossGrad(p, Batch{X: b.X, N: -1, D: 2}, nil, nil) })
	}
	mustPanic(t, "unknown loss", func() { headLoss(Loss(7), []float64{1, 2, 3}, 0, nil, make([]float64, 3)) })
	mustPanic(t, "unknown loss (2 classes)", func() { headLoss2(Loss(7), []float64{1, 2}, 0, nil) })
	mustPanic(t, "unknown init", func() { initLinear(InitScheme(9), 1, make([]float64, 2), make([]float64, 1), 2, 1, rng.Stream(1)) })
	if Loss(7).String() != "unknown-loss" || InitScheme(9).String() != "unknown-init" {
		t.Error("names of unknown enums")
	}
}

// TestMLPShapes: a single linear layer (sizes of length 2) is allowed;
// fewer sizes, non-positive sizes, one class or dropout outside [0, 1)
// panic; dropout just below 1 is allowed.
func TestMLPShapes(t *testing.T) {
	m := NewMLP([]int{2, 3}, 0, CrossEntropy)
	if m.NumParams() != 9 || m.Layers() != 1 {
		t.Errorf("single layer: %d params, %d layers", m.NumParams(), m.Layers())
	}
	NewMLP([]int{2, 2, 2}, math.Nextafter(1, 0), CrossEntropy)
	mustPanic(t, "one size", func() { NewMLP([]int{2}, 0, CrossEntropy) })
	mustPanic(t, "zero size", func() { NewMLP([]int{2, 0, 2}, 0, CrossEntropy) })
	mustPanic(t, "one class", func() { NewMLP([]int{2, 1}, 0, CrossEntropy) })
	mustPanic(t, "negative dropout", func() { NewMLP([]int{2, 2}, -1e-300, CrossEntropy) })
	m.Dropout = 1
	mustPanic(t, "dropout changed to 1", func() {
		m.LossGrad(make([]float64, 9), Batch{X: []float64{1, 2}, Y: []int{0}, N: 1, D: 2}, nil, rng.Stream(1))
	})
	if tt := NewMLP([]int{4, 3, 2}, 0, CrossEntropy).Tensors(); len(tt) != 4 || tt[3].Name != "fc2.bias" || tt[3].Offset != 15+6 || tt[2].Len() != 6 {
		t.Errorf("Tensors = %+v", tt)
	}
}

// TestTorchDefaultInitExact: weights then biases of each layer from
// U(−1/√fanIn, 1/√fanIn) as a·(2u − 1), u from the stream in layout order.
func TestTorchDefaultInitExact(t *testing.T) {
	m := NewMLP([]int{4, 2, 2}, 0, CrossEntropy)
	m.Scheme = InitTorchDefault
	p := make([]float64, m.NumParams())
	m.Init(p, rng.Stream(3, "torch"))
	r := rng.Stream(3, "torch")
	var want []float64
	for _, l := range []struct{ in, out int }{{4, 2}, {2, 2}} {
		a := 1 / math.Sqrt(float64(l.in))
		for i := 0; i < l.in*l.out+l.out; i++ {
			want = append(want, a*(2*r.Float64()-1))
		}
	}
	pinVec(t, "torch-default init", p, want)
}

// TestTwoClassHeadsExtreme: with a score difference of ±1000 the two-class
// heads stay finite: cross-entropy gives loss ≈ 0 or 1000, the double
// softmax gives probabilities s = (0, 1) or (1, 0) and loss −log σ(±1).
func TestTwoClassHeadsExtreme(t *testing.T) {
	for _, d := range []float64{1000, -1000} {
		z := []float64{0, d}
		for _, l := range []Loss{CrossEntropy, DoubleSoftmax} {
			delta := make([]float64, 2)
			loss := headLoss2(l, z, 1, delta)
			_, wd := refHead(l, z, 1) // the gradient is bounded, so the plain formula is exact enough
			// Losses written stably: CE = softplus(−d); DS = log(1 + e^{s_0 − s_1})
			// with s = (0, 1) for d = 1000 and (1, 0) for d = −1000.
			want := math.Max(-d, 0) + math.Log1p(math.Exp(-math.Abs(d)))
			if l == DoubleSoftmax {
				want = math.Log1p(math.Exp(-math.Copysign(1, d)))
			}
			if math.IsNaN(loss) || !(math.Abs(loss-want) <= 1e-12*math.Max(1, want)) || !(math.Abs(delta[0]-wd[0]) <= 1e-12) || !(math.Abs(delta[1]-wd[1]) <= 1e-12) {
				t.Errorf("%v, d = %v: loss %v Δ %v, want %v %v", l, d, loss, delta, want, wd)
			}
		}
	}
}

// TestSoftmaxLargeLogits: probabilities stay finite and exact for logits
// far beyond exp's range (the maximum is subtracted first): scores
// (700, 701, 699) give softmax (1, e, e^{−1})/(1 + e + e^{−1}).
func TestSoftmaxLargeLogits(t *testing.T) {
	m := NewLogReg(1, 3, CrossEntropy)
	p := []float64{0, 0, 0, 700, 701, 699}
	out := make([]float64, 3)
	m.Predict(p, Batch{X: []float64{1}, N: 1, D: 1}, out)
	z := 1 + math.E + 1/math.E
	pinVec(t, "softmax", out, []float64{1 / z, math.E / z, 1 / math.E / z})
	loss := make([]float64, 1)
	m.PredictLoss(p, Batch{X: []float64{1}, Y: []int{2}, N: 1, D: 1}, nil, loss)
	pinNear(t, "loss", loss[0], math.Log(z)+1)
}

// TestNoDropoutDrawsNothing: with Dropout = 0 a stream passed to LossGrad
// is not consumed (dropout draws happen only when dropout is active), so
// the caller's next draw is the stream's first.
func TestNoDropoutDrawsNothing(t *testing.T) {
	m := NewMLP([]int{2, 3, 2}, 0, CrossEntropy)
	p := make([]float64, m.NumParams())
	r := rng.Stream(5, "nodrop")
	m.LossGrad(p, Batch{X: []float64{1, 2}, Y: []int{1}, N: 1, D: 2}, make([]float64, len(p)), r)
	if got, want := r.Float64(), rng.Stream(5, "nodrop").Float64(); got != want {
		t.Errorf("LossGrad without dropout consumed draws: next %v, want %v", got, want)
	}
	// With dropout, exactly one draw per hidden unit per example: 3.
	m.Dropout = 0.5
	r = rng.Stream(5, "nodrop")
	m.LossGrad(p, Batch{X: []float64{1, 2}, Y: []int{1}, N: 1, D: 2}, make([]float64, len(p)), r)
	ref := rng.Stream(5, "nodrop")
	for range 3 {
		ref.Float64()
	}
	if got, want := r.Float64(), ref.Float64(); got != want {
		t.Errorf("dropout consumed a different number of draws")
	}
}
