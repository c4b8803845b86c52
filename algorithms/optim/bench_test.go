package optim

import "testing"

func BenchmarkStep(b *testing.B) {
	n := 160_000
	lin, anchor := make([]float64, n), make([]float64, n)
	for j := range lin {
		lin[j], anchor[j] = 1e-3*float64(j%7), 1e-2*float64(j%5)
	}
	cases := []struct {
		name string
		opt  Optimizer
	}{
		{"sgd", NewSGD(0.1, 0)},
		{"sgd-momentum", NewSGD(0.1, 0.5)},
		{"sgd-prox-upstream", &SGD{LR: 0.1, Momentum: 0.5, Prox: 0.5, Linear: lin, Mode: ModeUpstreamBuffer}},
		{"sgd-prox-gradient", &SGD{LR: 0.1, Momentum: 0.5, Prox: 0.5, Anchor: anchor, Mode: ModeGradient}},
		{"adam", NewAdam(1e-3)},
		{"adagrad", NewAdaGrad(1e-2)},
	}
	for _, c := range cases {
		b.Run(c.name+"-160k", func(b *testing.B) {
			p, g := make([]float64, n), make([]float64, n)
			for j := range g {
				g[j] = 1e-3 * float64(j%11)
			}
			b.ReportAllocs()
			for b.Loop() {
				c.opt.Step(p, g)
			}
		})
	}
}
