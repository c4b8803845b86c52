package normec

import (
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// BenchmarkRoundLogRegFashionShape runs one round of Algorithm 1 (theory
// mode: all M = 20 clients update, p = 0.5, DP noise, one local GD step)
// on multinomial logistic regression of Fashion-MNIST shape: 784 features,
// 10 classes (7850 parameters), 3000 examples per client. The synthetic
// examples come from an rng stream; to keep memory at 19 MB instead of
// 376 MB the clients share one feature matrix and differ in their labels,
// which costs the same arithmetic per client as distinct data.
// It reports ns per client step and allocations per round (0 after
// warm-up).
func BenchmarkRoundLogRegFashionShape(b *testing.B) {
	const m, n, d, classes = 20, 3000, 784, 10
	r := rng.Stream(1, "bench", "fashion-shape")
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.Float64() // pixel-like values in [0, 1)
	}
	lr := model.NewLogReg(d, classes, model.CrossEntropy)
	objs := make([]Objective, m)
	for i := range objs {
		y := make([]int, n)
		for j := range y {
			y[j] = r.IntN(classes)
		}
		objs[i] = &ModelObjective{Model: lr, Data: model.Batch{X: x, Y: y, N: n, D: d}}
	}
	x0 := make([]float64, lr.NumParams())
	lr.Init(x0, r)
	cfg := Config{Alpha: 0.01, Beta: 0.01, Gamma: 0.01, Eta: 0.01, P: 0.5,
		Sigma: ExperimentSigma(0.5, 0.01, 300, 8, 1e-5), Server: PlainStep}
	a, err := New(cfg, objs, x0, rng.New(1, "bench"))
	if err != nil {
		b.Fatal(err)
	}
	a.Step() // warm-up: model scratch grows once
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a.Step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/client-step")
}
