package optim

import (
	"math"
	"testing"
)

func TestAdamHandComputed(t *testing.T) {
	cases := []struct {
		name  string
		opt   *Adam
		grads []float64 // one scalar gradient per step
		want  []float64 // p after each step, from p0 = 0
	}{
		// Constant g: m̂ = g and v̂ = g² every step, so each step is lr·g/(|g|+ε).
		{"constant", NewAdam(0.1), []float64{0.5, 0.5, 0.5},
			[]float64{-0.1 * 0.5 / (0.5 + 1e-8), -0.2 * 0.5 / (0.5 + 1e-8), -0.3 * 0.5 / (0.5 + 1e-8)}},
		// g = 1 then −1: step 2 has m = .9·.1 − .1 = −.01, m̂ = −.01/.19,
		// v = .999·.001 + .001 = .001999 = 1 − .999², so v̂ = 1.
		{"sign-flip", NewAdam(0.1), []float64{1, -1},
			[]float64{-0.1 / (1 + 1e-8), -0.1/(1+1e-8) + 0.1*(0.01/0.19)/(1+1e-8)}},
		{"zero-gradient", NewAdam(0.1), []float64{0, 0}, []float64{0, 0}},
		// β1 = 0 and β2 = 0: p ← p − lr·g/(|g|+ε).
		{"no-memory", &Adam{LR: 0.5, Eps: 0.5}, []float64{2, -1}, []float64{-0.5 * 2 / 2.5, -0.4 + 0.5*1/1.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for round := range 2 {
				p := []float64{0}
				for i, g := range c.grads {
					c.opt.Step(p, []float64{g})
					if !near(p[0], c.want[i]) {
						t.Errorf("round %d step %d: p = %.15g, want %.15g", round, i+1, p[0], c.want[i])
					}
				}
				if c.opt.Steps() != len(c.grads) {
					t.Errorf("Steps = %d", c.opt.Steps())
				}
				c.opt.Reset()
			}
		})
	}
}

func TestAdaGradHandComputed(t *testing.T) {
	const eps = 1e-10 // torch's default
	cases := []struct {
		name string
		opt  *AdaGrad
		want []float64 // p after each step of g = 2, from p0 = 0
	}{
		// s = 4, 8, 12: steps .2/(2+ε), .2/(√8+ε), .2/(√12+ε).
		{"default", NewAdaGrad(0.1), []float64{-0.2 / (2 + eps), -0.2/(2+eps) - 0.2/(math.Sqrt(8)+eps), -0.2/(2+eps) - 0.2/(math.Sqrt(8)+eps) - 0.2/(math.Sqrt(12)+eps)}},
		// s = 4.5, 8.5.
		{"initial-accumulator", &AdaGrad{LR: 0.1, InitialAccumulator: 0.5}, []float64{-0.2 / math.Sqrt(4.5), -0.2/math.Sqrt(4.5) - 0.2/math.Sqrt(8.5)}},
		// clr = .1, .1/1.5.
		{"lr-decay", &AdaGrad{LR: 0.1, LRDecay: 0.5}, []float64{-0.1, -0.1 - 0.2/1.5/math.Sqrt(8)}},
		// d = 2 + .5·p: step 1 d = 2, p = −.1; step 2 d = 1.95, s = 4 + 3.8025.
		{"weight-decay", &AdaGrad{LR: 0.1, WeightDecay: 0.5}, []float64{-0.1, -0.1 - 0.1*1.95/math.Sqrt(7.8025)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for round := range 2 {
				p := []float64{0}
				for i, want := range c.want {
					c.opt.Step(p, []float64{2})
					if !near(p[0], want) {
						t.Errorf("round %d step %d: p = %.15g, want %.15g", round, i+1, p[0], want)
					}
				}
				c.opt.Reset()
			}
		})
	}
}

func TestOptimizersDoNotAllocate(t *testing.T) {
	n := 1000
	lin, anchor := make([]float64, n), make([]float64, n)
	opts := map[string]Optimizer{
		"sgd":          NewSGD(0.1, 0),
		"sgd-momentum": &SGD{LR: 0.1, Momentum: 0.5, Prox: 0.1, Linear: lin, Mode: ModeUpstreamBuffer},
		"sgd-anchor":   &SGD{LR: 0.1, Momentum: 0.5, Prox: 0.1, Anchor: anchor, Nesterov: true},
		"adam":         NewAdam(1e-3),
		"adagrad":      NewAdaGrad(1e-2),
	}
	p, g := make([]float64, n), make([]float64, n)
	for name, o := range opts {
		o.Step(p, g)
		if a := testing.AllocsPerRun(10, func() { o.Step(p, g) }); a != 0 {
			t.Errorf("%s: Step allocates %g times", name, a)
		}
		if a := testing.AllocsPerRun(10, func() { o.Reset(); o.Step(p, g) }); a != 0 {
			t.Errorf("%s: Reset+Step allocates %g times", name, a)
		}
	}
}

func TestAdaptivePanicsOnMismatch(t *testing.T) {
	for name, o := range map[string]Optimizer{"adam": NewAdam(1), "adagrad": NewAdaGrad(1)} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			o.Step(make([]float64, 2), make([]float64, 3))
		})
	}
}
