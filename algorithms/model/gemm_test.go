package model

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gonumGemm is the product the models used before linalg: gonum's
// blas64.Gemm on tiles of at most 64×192 of C, so that gonum runs
// serially (each entry accumulated over k in order).
func gonumGemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	k := a.Cols
	if tA == blas.Trans {
		k = a.Rows
	}
	for i0 := 0; i0 < c.Rows; i0 += 64 {
		mi := min(64, c.Rows-i0)
		var as blas64.General
		if tA == blas.Trans {
			as = blas64.General{Rows: k, Cols: mi, Stride: a.Stride, Data: a.Data[i0:]}
		} else {
			as = blas64.General{Rows: mi, Cols: k, Stride: a.Stride, Data: a.Data[i0*a.Stride:]}
		}
		for j0 := 0; j0 < c.Cols; j0 += 192 {
			nj := min(192, c.Cols-j0)
			var bs blas64.General
			if tB == blas.Trans {
				bs = blas64.General{Rows: nj, Cols: k, Stride: b.Stride, Data: b.Data[j0*b.Stride:]}
			} else {
				bs = blas64.General{Rows: k, Cols: nj, Stride: b.Stride, Data: b.Data[j0:]}
			}
			blas64.Gemm(tA, tB, alpha, as, bs, beta, blas64.General{Rows: mi, Cols: nj, Stride: c.Stride, Data: c.Data[i0*c.Stride+j0:]})
		}
	}
}

// withGemm runs f with gemmImpl set to g.
func withGemm(g func(blas.Transpose, blas.Transpose, float64, blas64.General, blas64.General, float64, blas64.General), f func()) {
	old := gemmImpl
	gemmImpl = g
	defer func() { gemmImpl = old }()
	f()
}

// TestKernelsBitExact checks that the models' results with linalg.Gemm
// are bitwise those with the gonum product it replaced (the goldens
// depend on it): losses, gradients, per-example gradients, predictions
// and clipped sums of MLPs of one to three hidden layers (with the
// Upcycled-FL network at an odd batch) and of logistic regression.
func TestKernelsBitExact(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		n     int
	}{{[]int{784, 196, 10}, 13}, {[]int{37, 30, 20, 10}, 32}, {[]int{5, 3, 2}, 1}} {
		m := NewMLP(tc.sizes, 0.5, DoubleSoftmax)
		r := stream(31, "bitexact")
		p := randomParams(r, m.NumParams(), 0.2)
		b := randomBatch(r, tc.n, m.InputDim(), m.Classes())
		run := func() []float64 {
			np := m.NumParams()
			out := make([]float64, np+tc.n*np+tc.n*m.Classes()+np+tc.n+1)
			loss := m.LossGrad(p, b, out[:np], stream(1, "dropout"))
			m.PerExampleGrads(p, b, out[np:np+tc.n*np], nil, stream(1, "dropout"))
			o := np + tc.n*np
			m.Predict(p, b, out[o:o+tc.n*m.Classes()])
			o += tc.n * m.Classes()
			m.ClippedGradSum(p, b, 0.1, out[o:o+np], out[o+np:o+np+tc.n], stream(1, "dropout"))
			out[len(out)-1] = loss
			return out
		}
		var want []float64
		withGemm(gonumGemm, func() { want = run() })
		got := run()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("MLP%v: output %d = %v, gonum gives %v", tc.sizes, i, got[i], want[i])
			}
		}
	}
	m := NewLogReg(21, 10, CrossEntropy)
	r := stream(32, "bitexact")
	p := randomParams(r, m.NumParams(), 0.2)
	b := randomBatch(r, 9, 21, 10)
	run := func() []float64 {
		out := make([]float64, m.NumParams())
		m.ClippedGradSum(p, b, 0.1, out, nil, nil)
		return out
	}
	var want []float64
	withGemm(gonumGemm, func() { want = run() })
	got := run()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("LogReg: output %d = %v, gonum gives %v", i, got[i], want[i])
		}
	}
}

// kernels are the two products the benchmarks time: "gonum" (before
// issue 24) and "linalg".
var kernels = []struct {
	name string
	f    func(blas.Transpose, blas.Transpose, float64, blas64.General, blas64.General, float64, blas64.General)
}{{"gonum", gonumGemm}, {"linalg", nil}}

// benchKernels runs f as sub-benchmarks kernel=gonum and kernel=linalg.
func benchKernels(b *testing.B, f func(b *testing.B)) {
	for _, k := range kernels {
		b.Run(fmt.Sprintf("kernel=%s", k.name), func(b *testing.B) {
			if k.f == nil {
				f(b)
				return
			}
			withGemm(k.f, func() { f(b) })
		})
	}
}
