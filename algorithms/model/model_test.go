package model

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// Interface conformance.
var (
	_ Model         = (*LogReg)(nil)
	_ Model         = (*MLP)(nil)
	_ LossPredictor = (*LogReg)(nil)
	_ LossPredictor = (*MLP)(nil)
	_ TensorLayout  = (*LogReg)(nil)
	_ TensorLayout  = (*MLP)(nil)
)

func TestLogRegLayout(t *testing.T) {
	// W = [[1,2,3],[4,5,6]], b = [10, 20]; x = [1, 0, -1].
	m := NewLogReg(3, 2, CrossEntropy)
	p := []float64{1, 2, 3, 4, 5, 6, 10, 20}
	if m.NumParams() != len(p) {
		t.Fatalf("NumParams = %d", m.NumParams())
	}
	b := Batch{X: []float64{1, 0, -1}, Y: []int{0}, N: 1, D: 3}
	z := []float64{1 - 3 + 10, 4 - 6 + 20} // 8, 18
	want := make([]float64, 2)
	softmaxTo(want, z)
	got := make([]float64, 2)
	m.Predict(p, b, got)
	if ok, msg := closeVec(got, want, 0, 1e-15); !ok {
		t.Errorf("Predict: %s", msg)
	}
	g := make([]float64, len(p))
	m.PerExampleGrads(p, b, g, nil, nil)
	d0 := want[0] - 1
	wantG := []float64{d0, 0, -d0, want[1], 0, -want[1], d0, want[1]}
	if ok, msg := closeVec(g, wantG, 1e-15, 1e-12); !ok {
		t.Errorf("gradient layout: %s", msg)
	}
	ts := m.Tensors()
	if ts[0].Name != "linear.weight" || ts[0].Rows != 2 || ts[0].Cols != 3 || ts[1].Offset != 6 || ts[1].Len() != 2 {
		t.Errorf("Tensors = %+v", ts)
	}
	if got := ts[1].Of(p); got[0] != 10 || got[1] != 20 {
		t.Errorf("bias view %v", got)
	}
}

func TestMLPLayout(t *testing.T) {
	m := NewMLP([]int{3, 2, 2}, 0, CrossEntropy)
	// fc1: W1 = [[1,0,0],[0,-1,0]], b1 = [0, 1]; fc2: W2 = [[1,1],[2,-1]], b2 = [0.5, 0].
	p := []float64{1, 0, 0, 0, -1, 0, 0, 1, 1, 1, 2, -1, 0.5, 0}
	if m.NumParams() != len(p) {
		t.Fatalf("NumParams = %d, want %d", m.NumParams(), len(p))
	}
	x := []float64{2, 3, 7}
	// h = relu([2, -3+1]) = [2, 0]; z = [2+0.5, 4] .
	want := make([]float64, 2)
	softmaxTo(want, []float64{2.5, 4})
	got := make([]float64, 2)
	m.Predict(p, Batch{X: x, N: 1, D: 3}, got)
	if ok, msg := closeVec(got, want, 0, 1e-15); !ok {
		t.Errorf("Predict: %s", msg)
	}
	names := []string{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}
	next := 0
	for i, ts := range m.Tensors() {
		if ts.Name != names[i] || ts.Offset != next {
			t.Errorf("tensor %d = %+v", i, ts)
		}
		next += ts.Len()
	}
	if next != m.NumParams() {
		t.Errorf("tensors cover %d of %d parameters", next, m.NumParams())
	}
	w, b := m.Layer(p, 1)
	if len(w) != 4 || w[2] != 2 || b[0] != 0.5 {
		t.Errorf("Layer(1) = %v, %v", w, b)
	}
	if fem := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax); fem.NumParams() != 784*196+196+196*10+10 {
		t.Errorf("FEMNIST net has %d parameters", fem.NumParams())
	}
}

func TestInitSchemes(t *testing.T) {
	cases := []struct {
		scheme   InitScheme
		wantMean float64
		wantStd  float64 // of the weights of fc1 (fanIn 400, fanOut 100)
		biasZero bool
	}{
		{InitNormal, 0, 0.01, true},
		{InitHe, 0, math.Sqrt(2.0 / 400), true},
		{InitGlorot, 0, math.Sqrt(6.0/500) / math.Sqrt(3), true},
		{InitTorchDefault, 0, 1 / math.Sqrt(400) / math.Sqrt(3), false},
		{InitZero, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.scheme.String(), func(t *testing.T) {
			m := NewMLP([]int{400, 100, 10}, 0, CrossEntropy)
			m.Scheme = c.scheme
			p := make([]float64, m.NumParams())
			m.Init(p, stream(1, "init"))
			w, b := m.Layer(p, 0)
			mean, std := stat.MeanStdDev(w, nil)
			if !(math.Abs(mean-c.wantMean) <= 3*c.wantStd/math.Sqrt(float64(len(w)))+1e-15) {
				t.Errorf("weight mean %g", mean)
			}
			if !(math.Abs(std-c.wantStd) <= 0.02*c.wantStd+1e-15) {
				t.Errorf("weight std %g, want %g", std, c.wantStd)
			}
			zero := true
			for _, v := range b {
				zero = zero && v == 0
			}
			if zero != c.biasZero {
				t.Errorf("biases all zero = %v, want %v", zero, c.biasZero)
			}
			q := make([]float64, m.NumParams())
			m.Init(q, stream(1, "init"))
			if ok, _ := closeVec(p, q, 0, 0); !ok {
				t.Errorf("Init is not a function of r")
			}
		})
	}
	lr := NewLogReg(20, 2, DoubleSoftmax)
	if lr.InitStd != 0.01 || lr.Scheme != InitNormal {
		t.Errorf("LogReg default init %v %g", lr.Scheme, lr.InitStd)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	for _, m := range []Model{NewLogReg(4, 3, DoubleSoftmax), NewMLP([]int{4, 5, 3}, 0.3, DoubleSoftmax)} {
		r := stream(3, "clone")
		p := randomParams(r, m.NumParams(), 0.5)
		b := randomBatch(r, 6, 4, 3)
		c := m.Clone()
		g1, g2 := make([]float64, len(p)), make([]float64, len(p))
		l1 := m.LossGrad(p, b, g1, stream(3, "drop"))
		// Interleave: the clone runs a different batch size in between.
		c.LossGrad(p, randomBatch(r, 2, 4, 3), g2, nil)
		l2 := c.LossGrad(p, b, g2, stream(3, "drop"))
		if l1 != l2 {
			t.Errorf("%T: clone loss %g, original %g", m, l2, l1)
		}
		if ok, msg := closeVec(g1, g2, 0, 0); !ok {
			t.Errorf("%T: clone gradient differs: %s", m, msg)
		}
	}
}

func TestDropoutOnlyInTraining(t *testing.T) {
	m := NewMLP([]int{5, 30, 3}, 0.5, CrossEntropy)
	r := stream(4, "case")
	p := randomParams(r, m.NumParams(), 0.5)
	b := randomBatch(r, 8, 5, 3)
	noDrop := NewMLP([]int{5, 30, 3}, 0, CrossEntropy)
	if m.LossGrad(p, b, nil, nil) != noDrop.LossGrad(p, b, nil, stream(4, "x")) {
		t.Errorf("r == nil must disable dropout; Dropout 0 must ignore r")
	}
	a := m.LossGrad(p, b, nil, stream(4, "a"))
	a2 := m.LossGrad(p, b, nil, stream(4, "a"))
	c := m.LossGrad(p, b, nil, stream(4, "c"))
	if a != a2 || a == c {
		t.Errorf("dropout losses: same stream %g %g, other stream %g", a, a2, c)
	}
}

func TestEmptyBatch(t *testing.T) {
	for _, m := range []Model{NewLogReg(3, 2, CrossEntropy), NewMLP([]int{3, 4, 2}, 0.5, CrossEntropy)} {
		p := randomParams(stream(5, "p"), m.NumParams(), 1)
		g := randomParams(stream(5, "g"), m.NumParams(), 1)
		if l := m.LossGrad(p, Batch{D: 3}, g, stream(5, "r")); l != 0 {
			t.Errorf("%T: empty loss %g", m, l)
		}
		for _, v := range g {
			if v != 0 {
				t.Fatalf("%T: empty batch left gradient %v", m, g)
			}
		}
		m.PerExampleGrads(p, Batch{D: 3}, nil, nil, nil)
	}
}

func TestPanicsOnMisuse(t *testing.T) {
	m := NewLogReg(3, 2, CrossEntropy)
	p := make([]float64, m.NumParams())
	cases := map[string]func(){
		"short params":  func() { m.LossGrad(p[:3], Batch{D: 3}, nil, nil) },
		"wrong D":       func() { m.LossGrad(p, Batch{X: []float64{1, 2}, Y: []int{0}, N: 1, D: 2}, nil, nil) },
		"bad label":     func() { m.LossGrad(p, Batch{X: []float64{1, 2, 3}, Y: []int{2}, N: 1, D: 3}, nil, nil) },
		"short g":       func() { m.PerExampleGrads(p, Batch{X: []float64{1, 2, 3}, Y: []int{0}, N: 1, D: 3}, p[:7], nil, nil) },
		"mlp dropout 1": func() { NewMLP([]int{2, 2}, 1, CrossEntropy) },
		"one class":     func() { NewLogReg(2, 1, CrossEntropy) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		})
	}
}

// Upstream's FEMNIST net at init: N(0, 0.01²) weights make the logits
// nearly equal, so the double-softmax loss starts at ≈ log 10 and its
// gradient is tiny (softmax of values in [0,1] is almost flat).
func TestFEMNISTNetAtInit(t *testing.T) {
	m := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
	p := make([]float64, m.NumParams())
	m.Init(p, stream(6, "init"))
	r := stream(6, "data")
	b := randomBatch(r, 16, 784, 10)
	for i := range b.X {
		b.X[i] = math.Abs(b.X[i]) / 3 // pixel-like, non-negative
	}
	g := make([]float64, len(p))
	l := m.LossGrad(p, b, g, stream(6, "drop"))
	if !(math.Abs(l-math.Log(10)) <= 1e-3) {
		t.Errorf("initial loss %g, want ≈ log 10", l)
	}
}

// The gradient-only path must give LossGrad's gradient bit for bit.
func TestLogRegGradOnlyMatchesLossGrad(t *testing.T) {
	for _, loss := range []Loss{CrossEntropy, DoubleSoftmax} {
		for _, classes := range []int{2, 3} {
			m := NewLogReg(7, classes, loss)
			p := make([]float64, m.NumParams())
			for i := range p {
				p[i] = float64(i%5-2) * 0.3
			}
			b := Batch{X: make([]float64, 9*7), Y: make([]int, 9), N: 9, D: 7}
			for i := range b.X {
				b.X[i] = float64(i%13)/4 - 1.5
			}
			for i := range b.Y {
				b.Y[i] = i % classes
			}
			g1 := make([]float64, len(p))
			g2 := make([]float64, len(p))
			m.LossGrad(p, b, g1, nil)
			m.Grad(p, b, g2, nil)
			for i := range g1 {
				if g1[i] != g2[i] {
					t.Fatalf("%v, %d classes: coordinate %d: %g vs %g", loss, classes, i, g1[i], g2[i])
				}
			}
		}
	}
}
