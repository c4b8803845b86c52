package model

import (
	"fmt"
	"math"
	"testing"
)

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
			m := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
			p, batch := benchSetup(m, n)
			grad := make([]float64, m.NumParams())
			r := stream(9, "dropout")
			b.ReportAllocs()
			for b.Loop() {
				m.LossGrad(p, batch, grad, r)
			}
		})
	}
}

func BenchmarkMLPPerExampleGrads(b *testing.B) {
	m := NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax)
	n := 32
	p, batch := benchSetup(m, n)
	g := make([]float64, n*m.NumParams())
	ls := make([]float64, n)
	r := stream(9, "dropout")
	b.ReportAllocs()
	for b.Loop() {
		m.PerExampleGrads(p, batch, g, ls, r)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/example")
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
