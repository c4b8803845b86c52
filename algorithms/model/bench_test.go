package model

import (
	"fmt"
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
)

// reportCPU adds the process CPU time per op since start ("cpu-ns/op")
// and, when per > 1, per example ("cpu-ns/example"). On a machine shared
// with other work the CPU time measures a kernel better than the wall
// time; the benchmarks allocate nothing, so no garbage collector work is
// counted. scripts/bench_torch.py compares it with PyTorch's CPU time.
func reportCPU(b *testing.B, start time.Duration, per int) {
	end := processCPU()
	if start < 0 || end < 0 {
		return
	}
	ns := float64((end - start).Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns, "cpu-ns/op")
	if per > 1 {
		b.ReportMetric(ns/float64(per), "cpu-ns/example")
	}
}

// benchSetup draws parameters (the model's own init) and a batch of n
// examples; MNIST-like inputs (784 features) are non-negative and ~80%
// zero, like pixels.
func benchSetup(m Model, n int) ([]float64, Batch) {
	r := stream(9, "bench")
	p := make([]float64, m.NumParams())
	m.Init(p, r)
	b := randomBatch(r, n, m.InputDim(), m.Classes())
	if m.InputDim() == 784 {
		for i := range b.X {
			if r.Float64() < 0.8 {
				b.X[i] = 0
			} else {
				b.X[i] = math.Abs(b.X[i]) / 3
			}
		}
	}
	return p, b
}

func BenchmarkLogRegPerExampleGrads(b *testing.B) {
	for _, classes := range []int{2, 10} {
		for _, n := range []int{1, 32} {
			b.Run(fmt.Sprintf("d20-c%d-n%d", classes, n), func(b *testing.B) {
				m := NewLogReg(20, classes, DoubleSoftmax)
				p, batch := benchSetup(m, n)
				g := make([]float64, n*m.NumParams())
				ls := make([]float64, n)
				b.ReportAllocs()
				for b.Loop() {
					m.PerExampleGrads(p, batch, g, ls, nil)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/example")
			})
		}
	}
}

func BenchmarkLogRegLossGrad(b *testing.B) {
	for _, classes := range []int{2, 10} {
		b.Run(fmt.Sprintf("d20-c%d-n32", classes), func(b *testing.B) {
			m := NewLogReg(20, classes, DoubleSoftmax)
			p, batch := benchSetup(m, 32)
			grad := make([]float64, m.NumParams())
			b.ReportAllocs()
			for b.Loop() {
				m.LossGrad(p, batch, grad, nil)
			}
		})
	}
}

func BenchmarkMLPLossGrad(b *testing.B) {
	for _, n := range []int{32, 128} {
		b.Run(fmt.Sprintf("784-196-10-n%d", n), func(b *testing.B) {
			benchKernels(b, func(b *testing.B) {
				m := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
				p, batch := benchSetup(m, n)
				grad := make([]float64, m.NumParams())
				r := stream(9, "dropout")
				b.ReportAllocs()
				start := processCPU()
				for b.Loop() {
					m.LossGrad(p, batch, grad, r)
				}
				reportCPU(b, start, 1)
			})
		})
	}
}

func BenchmarkMLPPerExampleGrads(b *testing.B) {
	benchKernels(b, func(b *testing.B) {
		m := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
		n := 32
		p, batch := benchSetup(m, n)
		g := make([]float64, n*m.NumParams())
		ls := make([]float64, n)
		r := stream(9, "dropout")
		b.ReportAllocs()
		start := processCPU()
		for b.Loop() {
			m.PerExampleGrads(p, batch, g, ls, r)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/example")
		reportCPU(b, start, n)
	})
}

// BenchmarkMLPClippedSum times DP-SGD's clipped gradient sum
// Σ_i min(1, C/‖g_i‖)·g_i of a lot of 32 (the work issue 24 item 3
// changes; noise and the optimizer step are the same either way):
// "materialised" is PerExampleGrads followed by the Gaussian mechanism's
// loop (norm and scaled add per example), "exact" is ExactClippedGradSum
// (the same bits without the per-example gradients; DP-SGD's default),
// "ghost" is ClippedGradSum (DPSGD.Ghost). C is
// the median norm, so about half the examples are clipped.
func BenchmarkMLPClippedSum(b *testing.B) {
	m := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
	n := 32
	p, batch := benchSetup(m, n)
	np := m.NumParams()
	g := make([]float64, n*np)
	sum := make([]float64, np)
	norms := make([]float64, n)
	m.ClippedGradSum(p, batch, math.Inf(1), sum, norms, stream(9, "dropout"))
	c := floats.Max(norms) / 2
	b.Run(fmt.Sprintf("materialised-n%d", n), func(b *testing.B) {
		r := stream(9, "dropout")
		b.ReportAllocs()
		start := processCPU()
		for b.Loop() {
			m.PerExampleGrads(p, batch, g, nil, r)
			clear(sum)
			for i := range n {
				gi := g[i*np : (i+1)*np]
				floats.AddScaled(sum, clipScale(math.Sqrt(floats.Dot(gi, gi)), c), gi)
			}
		}
		reportCPU(b, start, 1)
	})
	b.Run(fmt.Sprintf("exact-n%d", n), func(b *testing.B) {
		r := stream(9, "dropout")
		factor := func(ss float64, g func() []float64) float64 { return clipScale(math.Sqrt(ss), c) }
		b.ReportAllocs()
		start := processCPU()
		for b.Loop() {
			m.ExactClippedGradSum(p, batch, sum, factor, r)
		}
		reportCPU(b, start, 1)
	})
	b.Run(fmt.Sprintf("ghost-n%d", n), func(b *testing.B) {
		r := stream(9, "dropout")
		b.ReportAllocs()
		start := processCPU()
		for b.Loop() {
			m.ClippedGradSum(p, batch, c, sum, nil, r)
		}
		reportCPU(b, start, 1)
	})
}

func BenchmarkMLPEvaluate(b *testing.B) {
	m := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
	p, batch := benchSetup(m, 1024)
	var e Evaluator
	b.ReportAllocs()
	for b.Loop() {
		e.Evaluate(m, p, batch.X, batch.Y, batch.N, batch.D)
	}
}
