// Package quad provides quadratic objectives with exactly known constants,
// the test bed on which fedrepro checks convergence lemmas: each client
// holds f_i(x) = ½ xᵀA_i x − b_iᵀx + k_i with symmetric A_i, so gradients,
// smoothness L = max|eig(A_i)|, strong convexity (or its absence) λ_min,
// exact proximal steps and the global minimiser are all computable.
//
// A Quadratic satisfies model.Differentiable (the batch is ignored), with
// optional additive Gaussian gradient noise, so the FL engine and the paper
// algorithms run on it unchanged.
package quad

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"gonum.org/v1/gonum/mat"
)

// Quadratic is f(x) = ½ xᵀAx − bᵀx + K.
type Quadratic struct {
	A *mat.SymDense
	B []float64
	K float64
	// NoiseStd adds N(0, NoiseStd²·I) to every gradient LossGrad returns
	// when it is given a random stream (stochastic-gradient model).
	NoiseStd float64

	eig []float64 // cached eigenvalues, ascending
}

var _ model.Differentiable = (*Quadratic)(nil)

// New builds a quadratic; A is copied and must be square with len(b) rows.
func New(a *mat.SymDense, b []float64, k float64) (*Quadratic, error) {
	n := a.SymmetricDim()
	if len(b) != n {
		return nil, fmt.Errorf("quad: A is %d×%d but b has %d entries", n, n, len(b))
	}
	cp := mat.NewSymDense(n, nil)
	cp.CopySym(a)
	return &Quadratic{A: cp, B: append([]float64(nil), b...), K: k}, nil
}

// Dim is the dimension of x.
func (q *Quadratic) Dim() int { return len(q.B) }

// NumParams implements model.Differentiable.
func (q *Quadratic) NumParams() int { return len(q.B) }

// Value returns f(x).
func (q *Quadratic) Value(x []float64) float64 {
	n := len(q.B)
	var quad, lin float64
	for i := 0; i < n; i++ {
		var row float64
		for j := 0; j < n; j++ {
			row += q.A.At(i, j) * x[j]
		}
		quad += x[i] * row
		lin += q.B[i] * x[i]
	}
	return 0.5*quad - lin + q.K
}

// Grad writes ∇f(x) = Ax − b into g.
func (q *Quadratic) Grad(x, g []float64) {
	n := len(q.B)
	for i := 0; i < n; i++ {
		var row float64
		for j := 0; j < n; j++ {
			row += q.A.At(i, j) * x[j]
		}
		g[i] = row - q.B[i]
	}
}

// LossGrad implements model.Differentiable: it returns f(p) and writes the
// gradient, plus N(0, NoiseStd²) noise per coordinate when r is not nil.
func (q *Quadratic) LossGrad(p []float64, _ model.Batch, grad []float64, r *rand.Rand) float64 {
	if grad != nil {
		q.Grad(p, grad)
		if r != nil && q.NoiseStd > 0 {
			for i := range grad {
				grad[i] += q.NoiseStd * r.NormFloat64()
			}
		}
	}
	return q.Value(p)
}

// Eigenvalues returns the eigenvalues of A in ascending order.
func (q *Quadratic) Eigenvalues() []float64 {
	if q.eig == nil {
		var es mat.EigenSym
		if !es.Factorize(q.A, false) {
			panic("quad: eigendecomposition failed")
		}
		q.eig = es.Values(nil)
	}
	return q.eig
}

// Smoothness returns L = max |eig(A)|, the Lipschitz constant of ∇f.
func (q *Quadratic) Smoothness() float64 {
	e := q.Eigenvalues()
	return math.Max(math.Abs(e[0]), math.Abs(e[len(e)-1]))
}

// MinEig returns λ_min(A): the strong-convexity constant when positive, the
// amount of non-convexity when negative.
func (q *Quadratic) MinEig() float64 { return q.Eigenvalues()[0] }

// ErrNotConvex is returned when a solve needs a positive-definite matrix.
var ErrNotConvex = errors.New("quad: matrix is not positive definite")

// Prox returns argmin_x f(x) + (mu/2)‖x − anchor‖², i.e. the solution of
// (A + μI)x = b + μ·anchor; it fails when A + μI is not positive definite.
func (q *Quadratic) Prox(anchor []float64, mu float64) ([]float64, error) {
	n := len(q.B)
	m := mat.NewSymDense(n, nil)
	m.CopySym(q.A)
	rhs := make([]float64, n)
	for i := 0; i < n; i++ {
		m.SetSym(i, i, m.At(i, i)+mu)
		rhs[i] = q.B[i]
		if anchor != nil {
			rhs[i] += mu * anchor[i]
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(m) {
		return nil, ErrNotConvex
	}
	x := mat.NewVecDense(n, nil)
	if err := ch.SolveVecTo(x, mat.NewVecDense(n, rhs)); err != nil {
		return nil, err
	}
	return x.RawVector().Data, nil
}

// Minimizer returns argmin f (A must be positive definite).
func (q *Quadratic) Minimizer() ([]float64, error) { return q.Prox(nil, 0) }

// Federation is a weighted set of client quadratics; the global objective
// is f = Σ_i w_i f_i with weights summing to one.
type Federation struct {
	Clients []*Quadratic
	Weights []float64
}

// Uniform returns a federation with equal weights.
func Uniform(clients []*Quadratic) *Federation {
	w := make([]float64, len(clients))
	for i := range w {
		w[i] = 1 / float64(len(clients))
	}
	return &Federation{Clients: clients, Weights: w}
}

// Global returns the weighted-average quadratic f = Σ w_i f_i.
func (f *Federation) Global() *Quadratic {
	n := f.Clients[0].Dim()
	a := mat.NewSymDense(n, nil)
	b := make([]float64, n)
	var k float64
	for c, q := range f.Clients {
		w := f.Weights[c]
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				a.SetSym(i, j, a.At(i, j)+w*q.A.At(i, j))
			}
			b[i] += w * q.B[i]
		}
		k += w * q.K
	}
	return &Quadratic{A: a, B: b, K: k}
}

// Smoothness returns max_i L_i.
func (f *Federation) Smoothness() float64 {
	var l float64
	for _, q := range f.Clients {
		l = math.Max(l, q.Smoothness())
	}
	return l
}

// Dissimilarity returns B²(x) = Σ w_i‖∇f_i(x)‖² / ‖∇f(x)‖² (the local
// B-dissimilarity of FedProx) and the heterogeneity Σ w_i‖∇f_i(x) − ∇f(x)‖².
func (f *Federation) Dissimilarity(x []float64) (b2, zeta2 float64) {
	n := len(x)
	gi := make([]float64, n)
	g := make([]float64, n)
	f.Global().Grad(x, g)
	var num float64
	for c, q := range f.Clients {
		q.Grad(x, gi)
		var s, d float64
		for j := range gi {
			s += gi[j] * gi[j]
			d += (gi[j] - g[j]) * (gi[j] - g[j])
		}
		num += f.Weights[c] * s
		zeta2 += f.Weights[c] * d
	}
	var den float64
	for _, v := range g {
		den += v * v
	}
	if den == 0 {
		return math.Inf(1), zeta2
	}
	return num / den, zeta2
}

// RandomSymmetric returns Q·diag(eigs)·Qᵀ with Q a Haar-random orthogonal
// matrix (QR of a Gaussian matrix with sign correction) drawn from r.
func RandomSymmetric(r *rand.Rand, eigs []float64) *mat.SymDense {
	n := len(eigs)
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, r.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var qm, rm mat.Dense
	qr.QTo(&qm)
	qr.RTo(&rm)
	for j := 0; j < n; j++ { // make the distribution Haar: sign of R's diagonal
		if rm.At(j, j) < 0 {
			for i := 0; i < n; i++ {
				qm.Set(i, j, -qm.At(i, j))
			}
		}
	}
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += qm.At(i, k) * eigs[k] * qm.At(j, k)
			}
			out.SetSym(i, j, s)
		}
	}
	return out
}

// Spec describes a random federation of quadratics.
type Spec struct {
	Clients int
	Dim     int
	// Eigenvalues of each A_i are drawn uniformly from [MinEig, MaxEig]
	// (MinEig < 0 gives non-convex clients); the extremes are always
	// included so the constants are exact.
	MinEig, MaxEig float64
	// Spread scales the client-specific minimiser offsets: b_i = A_i c_i
	// with c_i ~ N(0, Spread²·I) around a shared centre (heterogeneity).
	Spread float64
	// NoiseStd is the stochastic-gradient noise of every client.
	NoiseStd float64
}

// Random draws a federation from spec using r (uniform weights).
func Random(r *rand.Rand, s Spec) (*Federation, error) {
	if s.Clients < 1 || s.Dim < 1 {
		return nil, fmt.Errorf("quad: need ≥1 client and dimension, got %d and %d", s.Clients, s.Dim)
	}
	if s.MaxEig < s.MinEig {
		return nil, fmt.Errorf("quad: MaxEig %g < MinEig %g", s.MaxEig, s.MinEig)
	}
	centre := make([]float64, s.Dim)
	for i := range centre {
		centre[i] = r.NormFloat64()
	}
	clients := make([]*Quadratic, s.Clients)
	for c := range clients {
		eigs := make([]float64, s.Dim)
		for i := range eigs {
			eigs[i] = s.MinEig + (s.MaxEig-s.MinEig)*r.Float64()
		}
		eigs[0] = s.MinEig
		if s.Dim > 1 {
			eigs[s.Dim-1] = s.MaxEig
		}
		a := RandomSymmetric(r, eigs)
		ci := make([]float64, s.Dim)
		for i := range ci {
			ci[i] = centre[i] + s.Spread*r.NormFloat64()
		}
		b := make([]float64, s.Dim)
		for i := 0; i < s.Dim; i++ {
			for j := 0; j < s.Dim; j++ {
				b[i] += a.At(i, j) * ci[j]
			}
		}
		clients[c] = &Quadratic{A: a, B: b, NoiseStd: s.NoiseStd}
	}
	return Uniform(clients), nil
}
