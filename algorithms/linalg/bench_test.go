package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// benchShape is one product of the project's models.
type benchShape struct {
	name    string
	tA, tB  blas.Transpose
	m, n, k int
	zerosA  float64 // fraction of zero entries in A (ReLU and dropout)
	beta    float64
}

// benchShapes are the products of one LossGrad of the MLP 784-196-10
// (Upcycled-FL FEMNIST, Haar, NormEC) at batch n, with ReLU+dropout
// zeros in the backpropagated errors, and of one step of the FedDDPM
// denoiser (default scale: data 196 + time 32 → 128 → 128 → 196, 128
// rows; diffusion's layout, weights in×out).
func benchShapes() []benchShape {
	var s []benchShape
	for _, n := range []int{32, 128} {
		s = append(s,
			benchShape{fmt.Sprintf("mlp-fwd1-n%d", n), blas.NoTrans, blas.Trans, n, 196, 784, 0.8, 1},
			benchShape{fmt.Sprintf("mlp-fwd2-n%d", n), blas.NoTrans, blas.Trans, n, 10, 196, 0.75, 1},
			benchShape{fmt.Sprintf("mlp-back-n%d", n), blas.NoTrans, blas.NoTrans, n, 196, 10, 0, 0},
			benchShape{fmt.Sprintf("mlp-wgrad1-n%d", n), blas.Trans, blas.NoTrans, 196, 784, n, 0.75, 0},
			benchShape{fmt.Sprintf("mlp-wgrad2-n%d", n), blas.Trans, blas.NoTrans, 10, 196, n, 0, 0},
		)
	}
	return append(s,
		// Rows with three quarters of their blocks of 4 zero, as the
		// border of a digit image: the sparse-row path of dotProducts.
		benchShape{"mlp-fwd1-sparse-n32", blas.NoTrans, blas.Trans, 32, 196, 784, 0.93, 1},
		benchShape{"ddpm-fwd1", blas.NoTrans, blas.NoTrans, 128, 128, 228, 0, 1},
		benchShape{"ddpm-fwd2", blas.NoTrans, blas.NoTrans, 128, 128, 128, 0, 1},
		benchShape{"ddpm-wgrad", blas.Trans, blas.NoTrans, 228, 128, 128, 0, 0},
		benchShape{"ddpm-back", blas.NoTrans, blas.Trans, 128, 128, 128, 0, 0},
	)
}

// benchOperands draws the operands of s (A with its zero fraction).
func benchOperands(s benchShape) (a, b, c blas64.General) {
	r := rand.New(rand.NewPCG(24, 3))
	gen := func(rows, cols int, zeros float64) blas64.General {
		g := blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: make([]float64, rows*cols)}
		for i := range g.Data {
			if r.Float64() >= zeros {
				g.Data[i] = r.NormFloat64()
			}
		}
		return g
	}
	if s.tA == blas.Trans {
		a = gen(s.k, s.m, s.zerosA)
	} else {
		a = gen(s.m, s.k, s.zerosA)
	}
	if s.tB == blas.Trans {
		b = gen(s.n, s.k, 0)
	} else {
		b = gen(s.k, s.n, 0)
	}
	return a, b, gen(s.m, s.n, 0)
}

// reportRate reports flops (per op) per second of CPU time since start
// ("cpu-GFLOP/s", which on a shared machine measures the kernel better than
// wall time) and of wall time ("GFLOP/s").
func reportRate(b *testing.B, start time.Duration, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if end := processCPU(); start >= 0 && end >= 0 {
		b.ReportMetric(flops*float64(b.N)/(end-start).Seconds()/1e9, "cpu-GFLOP/s")
	}
}

// BenchmarkGemm times each product with gonum (the models' kernel before
// this package: tiled serial blas64.Gemm) and with Gemm, and reports the
// dense rate 2mnk/time (zeros skipped by both kernels still count).
func BenchmarkGemm(b *testing.B) {
	for _, s := range benchShapes() {
		a, bm, c := benchOperands(s)
		for _, impl := range []struct {
			name string
			f    func(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General)
		}{{"gonum", gemmTiled}, {"linalg", Gemm}} {
			b.Run(s.name+"/"+impl.name, func(b *testing.B) {
				start := processCPU()
				for b.Loop() {
					impl.f(s.tA, s.tB, 1, a, bm, s.beta, c)
				}
				reportRate(b, start, 2*float64(s.m*s.n*s.k))
			})
		}
	}
}
