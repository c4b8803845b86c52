package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// fmaDefScore is the forward definition of fma2.go written out plainly
// (independently of dot2 and the kernel): lane l sums the columns
// j ≡ l (mod 4) below d − d mod 4 by fused multiply-adds in column order,
// the lanes fold as (l0 + l2) + (l1 + l3), the tail columns follow by fused
// multiply-adds, and bd is added last.
func fmaDefScore(wd, x []float64, bd float64) float64 {
	d := len(wd)
	full := d - d%4
	var lane [4]float64
	for j := 0; j < full; j++ {
		lane[j%4] = math.FMA(wd[j], x[j], lane[j%4])
	}
	s := (lane[0] + lane[2]) + (lane[1] + lane[3])
	for j := full; j < d; j++ {
		s = math.FMA(wd[j], x[j], s)
	}
	return s + bd
}

// fmaDefAcc is the backward definition written out plainly: column by
// column, the examples in order, each a fused multiply-add into g1[j].
func fmaDefAcc(g []float64, xs [][]float64, g1 []float64) {
	for j := range g1 {
		for i, c := range g {
			g1[j] = math.FMA(c, xs[i][j], g1[j])
		}
	}
}

// fmaValues draws n·d inputs mixing the awkward cases: ±0, subnormal-ish
// and huge magnitudes, exact small integers (so products tie and cancel),
// and ordinary normals.
func fmaValues(r *rand.Rand, k int) []float64 {
	v := make([]float64, k)
	for i := range v {
		switch r.IntN(8) {
		case 0:
			v[i] = math.Copysign(0, r.NormFloat64())
		case 1:
			v[i] = r.NormFloat64() * 1e-160
		case 2:
			v[i] = r.NormFloat64() * 1e150
		case 3:
			v[i] = float64(r.IntN(9) - 4)
		default:
			v[i] = r.NormFloat64()
		}
	}
	return v
}

// The AVX2+FMA kernels must write the bits of the Go definition (dot2 /
// accRowsGo) and of the plain frozen definition above: every d mod 4 (and
// d = 100, 197 for three and five column blocks of accRowsFMA), every
// n mod 4 from 1 to 70, rows nil and shuffled, inputs with ±0 and
// extreme magnitudes. Without the kernels (purego, no FMA) the Go loops are
// still checked against the frozen definition.
func TestFMAKernelsMatchDefinition(t *testing.T) {
	r := stream(31, "fma2")
	for _, d := range []int{1, 2, 3, 4, 5, 8, 20, 60, 61, 64, 100, 197} {
		for n := 1; n <= 70; n++ {
			for _, shuffled := range []bool{false, true} {
				name := fmt.Sprintf("d%d/n%d/shuffled=%v", d, n, shuffled)
				const nrows = 75
				X := fmaValues(r, nrows*d)
				w := fmaValues(r, 2*d) // class 0, then class 1
				wd := make([]float64, d)
				for j := range wd {
					wd[j] = w[d+j] - w[j]
				}
				g := fmaValues(r, n)
				bd := r.NormFloat64()
				inv := 1 / float64(n)
				var rows []int
				if shuffled {
					rows = r.Perm(nrows)[:n]
				}
				row := func(i int) []float64 {
					k := i
					if rows != nil {
						k = rows[i]
					}
					return X[k*d : k*d+d]
				}
				// Forward.
				want := make([]float64, n)
				xs := make([][]float64, n)
				for i := range want {
					xs[i] = row(i)
					want[i] = fmaDefScore(wd, xs[i], bd)
				}
				got := make([]float64, n)
				scores2Go(wd, bd, X, rows, got)
				sameBits(t, name+" scores2Go", got, want)
				// Backward, from a non-zero start to exercise the accumulation.
				start := fmaValues(r, d)
				wantG := append([]float64(nil), start...)
				fmaDefAcc(g, xs, wantG)
				gotG := append([]float64(nil), start...)
				accRowsGo(g, X, rows, gotG, 0)
				sameBits(t, name+" accRowsGo", gotG, wantG)
				if !useFMA {
					continue
				}
				m := NewLogReg(d, 2, CrossEntropy)
				rr := m.checkRows(X, rows, n)
				clear(got)
				gotWd := make([]float64, d)
				scores2FMA(&w[0], &X[0], &rr[0], n, d, bd, &got[0], &gotWd[0])
				sameBits(t, name+" scores2FMA weight difference", gotWd, wd)
				sameBits(t, name+" scores2FMA", got, want)
				d4 := d &^ 3
				if d4 == 0 {
					continue
				}
				// accRowsFMA: the accumulation, then ·inv into g1 and the
				// negation into g0, on the first d4 columns only.
				wantG1 := make([]float64, d)
				wantG0 := make([]float64, d)
				for j := range wantG1 {
					wantG1[j], wantG0[j] = start[j], start[j]
					if j < d4 {
						v := wantG[j] * inv
						wantG1[j], wantG0[j] = v, -v
					}
				}
				gotG1 := append([]float64(nil), start...)
				gotG0 := append([]float64(nil), start...)
				accRowsFMA(g, X, rr, n, d, d4, gotG1, gotG0, inv)
				sameBits(t, name+" accRowsFMA g1", gotG1, wantG1)
				sameBits(t, name+" accRowsFMA g0", gotG0, wantG0)
			}
		}
	}
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("%s: entry %d: got %v (%#x), want %v (%#x)", what, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// The kernels index X through rows unchecked, so rows2 must refuse a row
// outside the data with a clear panic rather than read past it.
func TestLogRegGradRowsRejectsOutOfRangeRow(t *testing.T) {
	m := NewLogReg(4, 2, CrossEntropy)
	p := make([]float64, m.NumParams())
	X := make([]float64, 3*4)
	Y := make([]int, 3)
	g := make([]float64, len(p))
	for _, bad := range []int{3, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("row %d of 3: no panic", bad)
				}
			}()
			m.GradRows(p, X, Y, 4, []int{0, bad}, g, nil)
		}()
	}
}
