package model

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedrepro/fedrepro/algorithms/linalg"
)

// clipFactorFor is the factor of DP-SGD's Gaussian mechanism as dpfl
// computes it: min(1, c/‖g‖) with ‖g‖ = sqrt(g·g) when the sum of squares
// is safely inside float64's range, else a scaled norm of g.
func clipFactorFor(c float64) func(ss float64, g func() []float64) float64 {
	return func(ss float64, g func() []float64) float64 {
		if ss > 1e-280 && ss < 1e280 {
			return clipScale(math.Sqrt(ss), c)
		}
		return clipScale(floats.Norm(g(), 2), c)
	}
}

// materialisedExact is the reference of ExactClippedGradSum: the
// per-example gradients of PerExampleGrads, their dot products and
// floats.AddScaled in example order.
func materialisedExact(m Model, p []float64, b Batch, c float64) []float64 {
	np := m.NumParams()
	g := make([]float64, b.N*np)
	m.PerExampleGrads(p, b, g, nil, stream(1, "dropout"))
	sum := make([]float64, np)
	factor := clipFactorFor(c)
	for i := range b.N {
		gi := g[i*np : (i+1)*np]
		floats.AddScaled(sum, factor(floats.Dot(gi, gi), func() []float64 { return gi }), gi)
	}
	return sum
}

type exactModel interface {
	Model
	ExactClipper
}

// TestExactClippedGradSumBitExact checks that ExactClippedGradSum is the
// materialised clipped sum bit for bit: MLPs whose rows are and are not
// aligned with gonum's four partial sums (784 and 37 inputs), a network
// with fewer than 4 parameters in its last tensor, logistic regression;
// clip bounds that clip all, some and no examples; inputs with ±Inf and
// NaN, and scales whose squared norms over- and underflow (the scaled
// fallback).
func TestExactClippedGradSumBitExact(t *testing.T) {
	if !linalg.GonumAsmOrder {
		t.Skip("gonum's generic kernels: ExactClippedGradSum declines")
	}
	models := []func() exactModel{
		func() exactModel { return NewMLP([]int{784, 196, 10}, 0.5, DoubleSoftmax) },
		func() exactModel { return NewMLP([]int{37, 30, 21, 10}, 0.3, CrossEntropy) },
		func() exactModel { return NewMLP([]int{5, 3, 2}, 0, CrossEntropy) },
		func() exactModel { return NewLogReg(20, 2, DoubleSoftmax) },
		func() exactModel { return NewLogReg(21, 10, CrossEntropy) },
	}
	for mi, mk := range models {
		for _, n := range []int{0, 1, 7, 32} {
			for _, mode := range []string{"plain", "special", "huge", "tiny"} {
				m := mk()
				r := stream(uint64(40+mi), "exact")
				p := randomParams(r, m.NumParams(), 0.3)
				b := randomBatch(r, n, m.InputDim(), m.Classes())
				for i := range b.X {
					switch mode {
					case "special":
						if r.IntN(200) == 0 {
							b.X[i] = []float64{math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(3)]
						}
					case "huge":
						b.X[i] *= 1e150
					case "tiny":
						b.X[i] *= 1e-160
					}
					if r.IntN(4) == 0 {
						b.X[i] = 0
					}
				}
				for _, c := range []float64{0, 0.01, 1, math.Inf(1)} {
					name := fmt.Sprintf("%T%d-n%d-%s-c%g", m, m.InputDim(), n, mode, c)
					want := materialisedExact(m, p, b, c)
					got := make([]float64, m.NumParams())
					for k := range got {
						got[k] = 42 // must be overwritten
					}
					if !m.ExactClippedGradSum(p, b, got, clipFactorFor(c), stream(1, "dropout")) {
						t.Fatalf("%s: declined", name)
					}
					for k := range want {
						if math.Float64bits(got[k]) != math.Float64bits(want[k]) && !(math.IsNaN(got[k]) && math.IsNaN(want[k])) {
							t.Fatalf("%s: entry %d = %v, materialised %v", name, k, got[k], want[k])
						}
					}
				}
			}
		}
	}
}
