package model

import (
	"math/rand/v2"
	"testing"
)

// plainModel hides LossPredictor, forcing Evaluate's generic path.
type plainModel struct{ Model }

func TestEvaluate(t *testing.T) {
	models := []struct {
		name string
		m    Model
	}{
		{"logreg-ce", NewLogReg(6, 3, CrossEntropy)},
		{"logreg-ds", NewLogReg(6, 3, DoubleSoftmax)},
		{"mlp-ds", NewMLP([]int{6, 8, 3}, 0.5, DoubleSoftmax)},
	}
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			r := stream(7, tc.name)
			n := 1000
			p := randomParams(r, tc.m.NumParams(), 0.7)
			b := randomBatch(r, n, 6, 3)
			// Reference: whole batch, by hand.
			wantLoss := tc.m.LossGrad(p, b, nil, nil)
			probs := make([]float64, n*3)
			tc.m.Predict(p, b, probs)
			correct := 0
			for i := range n {
				if argmax(probs[i*3:(i+1)*3]) == b.Y[i] {
					correct++
				}
			}
			wantAcc := float64(correct) / float64(n)
			for _, chunk := range []int{0, 1, 7, 256, 5000} {
				for _, m := range []Model{tc.m, plainModel{tc.m.Clone()}} {
					e := Evaluator{Chunk: chunk}
					l, a := e.Evaluate(m, p, b.X, b.Y, n, 6)
					if !closeTo(l, wantLoss, 1e-12) || a != wantAcc {
						t.Errorf("chunk %d %T: (%g, %g), want (%g, %g)", chunk, m, l, a, wantLoss, wantAcc)
					}
				}
			}
			if l, a := Evaluate(tc.m, p, b.X, b.Y, n, 6); !closeTo(l, wantLoss, 1e-12) || a != wantAcc {
				t.Errorf("Evaluate: (%g, %g), want (%g, %g)", l, a, wantLoss, wantAcc)
			}
			if l, a := Evaluate(tc.m, p, nil, nil, 0, 6); l != 0 || a != 0 {
				t.Errorf("empty: (%g, %g)", l, a)
			}
		})
	}
}

func TestEvaluatorReusesBuffers(t *testing.T) {
	m := NewMLP([]int{20, 16, 4}, 0.5, CrossEntropy)
	r := rand.New(rand.NewPCG(1, 2))
	p := randomParams(r, m.NumParams(), 0.3)
	b := randomBatch(r, 600, 20, 4)
	var e Evaluator
	e.Evaluate(m, p, b.X, b.Y, b.N, b.D)
	if allocs := testing.AllocsPerRun(20, func() { e.Evaluate(m, p, b.X, b.Y, b.N, b.D) }); allocs != 0 {
		t.Errorf("Evaluator.Evaluate allocates %g times per call", allocs)
	}
}
