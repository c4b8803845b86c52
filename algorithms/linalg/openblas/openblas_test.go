//go:build openblas && cgo

package openblas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/fedrepro/fedrepro/algorithms/linalg"
)

// shape is one product of the models (see linalg's BenchmarkGemm).
type shape struct {
	name    string
	tA, tB  blas.Transpose
	m, n, k int
	zerosA  float64
	beta    float64
}

func shapes() []shape {
	var s []shape
	for _, n := range []int{32, 128} {
		s = append(s,
			shape{fmt.Sprintf("mlp-fwd1-n%d", n), blas.NoTrans, blas.Trans, n, 196, 784, 0.8, 1},
			shape{fmt.Sprintf("mlp-wgrad1-n%d", n), blas.Trans, blas.NoTrans, 196, 784, n, 0.75, 0},
			shape{fmt.Sprintf("mlp-back-n%d", n), blas.NoTrans, blas.NoTrans, n, 196, 10, 0, 0},
		)
	}
	return append(s,
		shape{"ddpm-fwd1", blas.NoTrans, blas.NoTrans, 128, 128, 228, 0, 1},
		shape{"ddpm-wgrad", blas.Trans, blas.NoTrans, 228, 128, 128, 0, 0},
		shape{"ddpm-back", blas.NoTrans, blas.Trans, 128, 128, 128, 0, 0},
	)
}

func operands(s shape) (a, b, c blas64.General) {
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

// TestAgreement measures how OpenBLAS's products differ from linalg's
// (which are gonum's bit for bit): the fraction of entries that differ in
// any bit and the largest difference relative to Σ|a_il·b_lj|. It fails
// only when the results disagree beyond rounding (1e-13 relative): that
// they differ in the last bits is the finding it logs.
func TestAgreement(t *testing.T) {
	t.Logf("OpenBLAS core %s (%s)", Core(), Config())
	for _, s := range shapes() {
		a, b, c := operands(s)
		want := blas64.General{Rows: c.Rows, Cols: c.Cols, Stride: c.Stride, Data: append([]float64(nil), c.Data...)}
		got := blas64.General{Rows: c.Rows, Cols: c.Cols, Stride: c.Stride, Data: append([]float64(nil), c.Data...)}
		linalg.Gemm(s.tA, s.tB, 1, a, b, s.beta, want)
		Dgemm(s.tA, s.tB, 1, a, b, s.beta, got)
		// Scale of each entry: Σ_l |a_il·b_lj| + |β·c_ij|.
		abs := func(g blas64.General) blas64.General {
			h := g
			h.Data = make([]float64, len(g.Data))
			for i, v := range g.Data {
				h.Data[i] = math.Abs(v)
			}
			return h
		}
		scale := abs(c)
		linalg.Gemm(s.tA, s.tB, 1, abs(a), abs(b), math.Abs(s.beta), scale)
		differ, worst := 0, 0.0
		for i := range want.Data {
			if math.Float64bits(got.Data[i]) != math.Float64bits(want.Data[i]) {
				differ++
			}
			worst = math.Max(worst, math.Abs(got.Data[i]-want.Data[i])/scale.Data[i])
		}
		t.Logf("%-16s %5.1f%% of entries differ from gonum/linalg in some bit; worst |Δ|/Σ|terms| = %.1e", s.name, 100*float64(differ)/float64(len(want.Data)), worst)
		if worst > 1e-13 {
			t.Errorf("%s: OpenBLAS and linalg disagree beyond rounding (%.1e)", s.name, worst)
		}
	}
}

// BenchmarkGemm times each product with OpenBLAS and linalg; cpu-GFLOP/s
// is the dense rate per second of process CPU time.
func BenchmarkGemm(b *testing.B) {
	for _, s := range shapes() {
		a, bm, c := operands(s)
		for _, impl := range []struct {
			name string
			f    func(blas.Transpose, blas.Transpose, float64, blas64.General, blas64.General, float64, blas64.General)
		}{{"openblas", Dgemm}, {"linalg", linalg.Gemm}} {
			b.Run(s.name+"/"+impl.name, func(b *testing.B) {
				start := processCPU()
				for b.Loop() {
					impl.f(s.tA, s.tB, 1, a, bm, s.beta, c)
				}
				flops := 2 * float64(s.m*s.n*s.k) * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				if end := processCPU(); start >= 0 && end >= 0 {
					b.ReportMetric(flops/(end-start).Seconds()/1e9, "cpu-GFLOP/s")
				}
			})
		}
	}
}
