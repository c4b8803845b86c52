package model

import (
	"fmt"
	"testing"
)

// GradRows reads rows in place; it must give Grad of the gathered batch
// bit for bit (two classes: the same fused code; more: a gathered batch),
// including a last group of fewer than four rows.
func TestLogRegGradRowsMatchesGatheredGrad(t *testing.T) {
	r := stream(3, "rows")
	for _, loss := range []Loss{CrossEntropy, DoubleSoftmax} {
		for _, classes := range []int{2, 3} {
			for _, n := range []int{1, 4, 7, 32} {
				t.Run(fmt.Sprintf("%v/c%d/n%d", loss, classes, n), func(t *testing.T) {
					m := NewLogReg(6, classes, loss)
					p := make([]float64, m.NumParams())
					for i := range p {
						p[i] = r.NormFloat64()
					}
					all := randomBatch(r, 40, 6, classes)
					rows := r.Perm(40)[:n]
					b := Batch{X: make([]float64, n*6), Y: make([]int, n), N: n, D: 6}
					for i, k := range rows {
						copy(b.X[i*6:(i+1)*6], all.Row(k))
						b.Y[i] = all.Y[k]
					}
					want := make([]float64, len(p))
					got := make([]float64, len(p))
					m.Grad(p, b, want, nil)
					m.GradRows(p, all.X, all.Y, 6, rows, got, nil)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("coordinate %d: GradRows %g, Grad %g", i, got[i], want[i])
						}
					}
				})
			}
		}
	}
}

func TestLogRegGradRowsAllocatesNothing(t *testing.T) {
	m := NewLogReg(20, 2, DoubleSoftmax)
	r := stream(4, "rows-alloc")
	p := make([]float64, m.NumParams())
	all := randomBatch(r, 100, 20, 2)
	rows := r.Perm(100)[:32]
	g := make([]float64, len(p))
	m.GradRows(p, all.X, all.Y, 20, rows, g, nil)
	if a := testing.AllocsPerRun(50, func() { m.GradRows(p, all.X, all.Y, 20, rows, g, nil) }); a != 0 {
		t.Errorf("GradRows allocates %g times per call", a)
	}
}
