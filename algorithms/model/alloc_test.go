package model

import (
	"fmt"
	"testing"
)

func TestNoAllocationsAfterWarmUp(t *testing.T) {
	type call struct {
		name string
		f    func()
	}
	var calls []call
	factor := func(ss float64, g func() []float64) float64 {
		if ss > 1 {
			return 1 / ss
		}
		return 1
	}
	for _, m := range []Model{
		NewLogReg(20, 2, CrossEntropy),
		NewLogReg(20, 10, DoubleSoftmax),
		NewMLP([]int{50, 30, 10}, 0.5, DoubleSoftmax),
		NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax),
	} {
		r := stream(8, "alloc")
		n := 32
		p := randomParams(r, m.NumParams(), 0.1)
		b := randomBatch(r, n, m.InputDim(), m.Classes())
		g := make([]float64, n*m.NumParams())
		grad := make([]float64, m.NumParams())
		ls := make([]float64, n)
		out := make([]float64, n*m.Classes())
		name := fmt.Sprintf("%T(%d→%d)", m, m.InputDim(), m.Classes())
		calls = append(calls,
			call{name + ".PerExampleGrads", func() { m.PerExampleGrads(p, b, g, ls, r) }},
			call{name + ".LossGrad", func() { m.LossGrad(p, b, grad, r) }},
			call{name + ".LossGrad(no grad)", func() { m.LossGrad(p, b, nil, nil) }},
			call{name + ".Predict", func() { m.Predict(p, b, out) }},
			call{name + ".ClippedGradSum", func() { m.(ClippedSummer).ClippedGradSum(p, b, 0.5, grad, ls, r) }},
			call{name + ".ExactClippedGradSum", func() { m.(ExactClipper).ExactClippedGradSum(p, b, grad, factor, r) }},
		)
	}
	for _, c := range calls {
		c.f() // warm-up grows scratch
		if a := testing.AllocsPerRun(5, c.f); a != 0 {
			t.Errorf("%s allocates %g times per call", c.name, a)
		}
	}
}
