package normec

import (
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/normec"
	"github.com/fedrepro/fedrepro/algorithms/quad"
)

// isoQuad is f(x) = (s/2)‖x − c‖² + k: an L = s smooth objective whose
// gradient costs O(d), for the checks that need many high-dimensional runs.
type isoQuad struct {
	c    []float64
	s, k float64
}

// NumParams is d.
func (q *isoQuad) NumParams() int { return len(q.c) }

// Grad writes s(x − c) and returns f(x).
func (q *isoQuad) Grad(x, g []float64) float64 {
	var v float64
	for i := range x {
		d := x[i] - q.c[i]
		g[i] = q.s * d
		v += d * d
	}
	return q.s/2*v + q.k
}

// scalarQuad is f(x) = (L/2)x² on R: the one-dimensional problem on which
// the β > α counterexample trajectories of Theorem 1's Step 1 live.
type scalarQuad struct{ l float64 }

// NumParams is 1.
func (q scalarQuad) NumParams() int { return 1 }

// Grad writes Lx and returns Lx²/2.
func (q scalarQuad) Grad(x, g []float64) float64 {
	g[0] = q.l * x[0]
	return q.l / 2 * x[0] * x[0]
}

// componentFed groups quadratic parts into M clients of N components each
// (client i = mean of parts[i·N:(i+1)·N]) for the IG lemmas on quadratics.
func componentFed(parts []*quad.Quadratic, m int) []normec.Objective {
	n := len(parts) / m
	objs := make([]normec.Objective, m)
	for i := range m {
		comps := make([]model.Differentiable, 0, n)
		for _, q := range parts[i*n : (i+1)*n] {
			comps = append(comps, q)
		}
		objs[i] = normec.NewMeanObjective(comps...)
	}
	return objs
}
