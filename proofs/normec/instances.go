package normec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/normec"
	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// infSlack is subtracted from numerically computed minima so that the
// values used as f^inf, f_i^inf are valid lower bounds (Assumption 1 only
// needs lower bounds) despite the optimizer's tolerance.
const infSlack = 1e-8

// fed is a federated problem with the constants the theory needs: the
// clients' objectives, smoothness constants and lower bounds.
type fed struct {
	name string
	objs []normec.Objective
	d    int
	// L bounds the smoothness of every f_i and of f (the GD lemmas and
	// Theorem 1 only use these); Lc bounds every component f_{i,j}
	// (Assumption 1 proper, needed by the IG lemmas).
	L, Lc float64
	// fInf, fiInf: lower bounds of f and f_i (numerical minima minus
	// infSlack); fijInfMean[i] = (1/N)Σ_j f_{i,j}^inf (0 for logistic
	// losses); deltaInf = fInf − mean(fiInf).
	fInf       float64
	fiInf      []float64
	fijInfMean []float64
	deltaInf   float64
	x0         []float64
	buf        []float64
}

// m is the number of clients.
func (f *fed) m() int { return len(f.objs) }

// value returns f(x) and writes ∇f(x) into g when g is not nil.
func (f *fed) value(x, g []float64) float64 {
	if f.buf == nil {
		f.buf = make([]float64, f.d)
	}
	if g != nil {
		clear(g)
	}
	var v float64
	for _, o := range f.objs {
		v += o.Grad(x, f.buf)
		if g != nil {
			floats.Add(g, f.buf)
		}
	}
	inv := 1 / float64(f.m())
	if g != nil {
		floats.Scale(inv, g)
	}
	return v * inv
}

// gradNorm returns ‖∇f(x)‖.
func (f *fed) gradNorm(x []float64) float64 {
	g := make([]float64, f.d)
	f.value(x, g)
	return floats.Norm(g, 2)
}

// deltaIInfPrinted is Δ_i^inf as printed (Thm 2): f^inf − (1/N)Σ_j f_{i,j}^inf.
func (f *fed) deltaIInfPrinted(i int) float64 { return f.fInf - f.fijInfMean[i] }

// meanDeltaIInf is (1/M)Σ_i Δ_i^inf (printed definition).
func (f *fed) meanDeltaIInf() float64 {
	var s float64
	for i := range f.objs {
		s += f.deltaIInfPrinted(i)
	}
	return s / float64(f.m())
}

var (
	instMu sync.Mutex
	inst   = map[string]*fed{}
)

// cached builds an instance once per (seed, name): the checks share them.
func cached(seed uint64, name string, build func() *fed) *fed {
	key := fmt.Sprintf("%d/%s", seed, name)
	instMu.Lock()
	defer instMu.Unlock()
	if f, ok := inst[key]; ok {
		return f
	}
	f := build()
	inst[key] = f
	return f
}

// minimize returns min f over R^d from x0 (f smooth, bounded below, the
// minimum attained) by damped Newton steps on a finite-difference Hessian
// with backtracking; the instances here have d ≤ 20.
func minimize(d int, val func(x, g []float64) float64, x0 []float64) (float64, []float64, bool) {
	x := append([]float64(nil), x0...)
	g := make([]float64, d)
	gp, gm := make([]float64, d), make([]float64, d)
	xt := make([]float64, d)
	fx := val(x, g)
	h := mat.NewSymDense(d, nil)
	step := make([]float64, d)
	for it := 0; it < 500; it++ {
		if floats.Norm(g, math.Inf(1)) < 1e-12 {
			break
		}
		const e = 1e-5
		cols := make([][]float64, d)
		for j := range d {
			copy(xt, x)
			xt[j] += e
			val(xt, gp)
			xt[j] -= 2 * e
			val(xt, gm)
			cols[j] = make([]float64, d)
			for i := range d {
				cols[j][i] = (gp[i] - gm[i]) / (2 * e)
			}
		}
		for i := range d {
			for j := i; j < d; j++ {
				h.SetSym(i, j, (cols[j][i]+cols[i][j])/2)
			}
		}
		lambda := 1e-10
		var sol mat.VecDense
		for {
			hd := mat.NewSymDense(d, nil)
			hd.CopySym(h)
			for i := range d {
				hd.SetSym(i, i, hd.At(i, i)+lambda)
			}
			var ch mat.Cholesky
			if ch.Factorize(hd) && ch.SolveVecTo(&sol, mat.NewVecDense(d, g)) == nil {
				break
			}
			lambda *= 100
		}
		copy(step, sol.RawVector().Data)
		t := 1.0
		improved := false
		for range 60 {
			floats.AddScaledTo(xt, x, -t, step)
			if ft := val(xt, nil); ft <= fx-1e-4*t*floats.Dot(g, step) || (ft <= fx && t < 1e-6) {
				copy(x, xt)
				fx = val(x, g)
				improved = true
				break
			}
			t /= 2
		}
		if !improved {
			break
		}
	}
	return fx, x, floats.Norm(g, math.Inf(1)) <= 1e-7
}

// logisticFed is binary softmax (multinomial, 2 classes, with bias)
// logistic regression over M heterogeneous clients with N examples of dim
// features each: client i draws features around its own mean and labels
// from its own noisy logistic teacher (hetero scales both shifts), so the
// data are not separable, minima are attained and Δ^inf > 0.
//
// Constants: the softmax Hessian in the scores is diag(s) − ssᵀ ≼ ½I
// (Gershgorin: 2s_c(1−s_c) ≤ ½), so with x̃ = (x, 1) each f_i is
// L_i-smooth for L_i = ½·λ_max((1/N)Σ_j x̃_j x̃_jᵀ) and each example
// ½‖x̃_j‖²-smooth. L = max_i L_i, Lc = max_{i,j} ½‖x̃_j‖². Component lower
// bounds are 0 (cross-entropy ≥ 0).
func logisticFed(seed uint64, name string, m, n, dim int, hetero, scale float64) *fed {
	return cached(seed, fmt.Sprintf("logistic/%s/%d/%d/%d/%g/%g", name, m, n, dim, hetero, scale), func() *fed {
		// Redraw (deterministically) until no client's data are separable,
		// so every f_i attains its minimum.
		for attempt := 0; attempt < 100; attempt++ {
			if f := drawLogistic(rng.Stream(seed, "normec-claims", "logistic", name, attempt), name, m, n, dim, hetero, scale); f != nil {
				return f
			}
		}
		panic("normec claims: could not draw non-separable logistic data")
	})
}

// drawLogistic draws one logistic federation from r; nil if some client's
// data are (numerically) separable.
func drawLogistic(r *rand.Rand, name string, m, n, dim int, hetero, scale float64) *fed {
	lr := model.NewLogReg(dim, 2, model.CrossEntropy)
	teacher := make([]float64, dim)
	rng.FillNormal(r, teacher, 1)
	f := &fed{name: "logistic/" + name, d: lr.NumParams()}
	for range m {
		mu := make([]float64, dim)
		rng.FillNormal(r, mu, hetero)
		w := make([]float64, dim)
		rng.FillNormal(r, w, hetero)
		floats.Add(w, teacher)
		b := model.Batch{X: make([]float64, n*dim), Y: make([]int, n), N: n, D: dim}
		for j := range n {
			row := b.X[j*dim : (j+1)*dim]
			rng.FillNormal(r, row, 1)
			floats.Add(row, mu)
			floats.Scale(scale, row)
			pr := 1 / (1 + math.Exp(-floats.Dot(w, row)/scale))
			if r.Float64() < pr {
				b.Y[j] = 1
			}
		}
		f.objs = append(f.objs, &normec.ModelObjective{Model: lr, Data: b})
	}
	for _, o := range f.objs {
		b := o.(*normec.ModelObjective).Data
		cov := mat.NewSymDense(dim+1, nil)
		for j := range n {
			xt := append(append([]float64(nil), b.Row(j)...), 1)
			cov.SymRankOne(cov, 1/float64(n), mat.NewVecDense(dim+1, xt))
			f.Lc = math.Max(f.Lc, 0.5*floats.Dot(xt, xt))
		}
		var es mat.EigenSym
		if !es.Factorize(cov, false) {
			return nil
		}
		ev := es.Values(nil)
		f.L = math.Max(f.L, 0.5*ev[len(ev)-1])
		fi, xi, ok := minimize(f.d, o.Grad, make([]float64, f.d))
		if !ok || floats.Norm(xi, 2) > 1e3 || fi < 1e-6 {
			return nil
		}
		f.fiInf = append(f.fiInf, fi-infSlack)
		f.fijInfMean = append(f.fijInfMean, 0)
	}
	fstar, _, ok := minimize(f.d, f.value, make([]float64, f.d))
	if !ok {
		return nil
	}
	f.fInf = fstar - infSlack
	f.deltaInf = f.fInf - mean(f.fiInf)
	f.x0 = make([]float64, f.d)
	rng.FillNormal(r, f.x0, 1)
	return f
}

// quadFed is a federation of quadratics with exact constants: L = max_i
// L_i; for convex instances f^inf, f_i^inf are the exact minima (no
// slack needed beyond rounding); indefinite instances have no lower bound
// (fInf = −Inf) and serve the lemmas that do not use one.
func quadFed(seed uint64, name string, spec quad.Spec) (*fed, *quad.Federation) {
	var qf *quad.Federation
	f := cached(seed, fmt.Sprintf("quad/%s/%+v", name, spec), func() *fed {
		r := rng.Stream(seed, "normec-claims", "quad", name)
		var err error
		qf, err = quad.Random(r, spec)
		if err != nil {
			panic(err)
		}
		f := &fed{name: "quad/" + name, d: spec.Dim, L: qf.Smoothness(), Lc: qf.Smoothness()}
		for _, q := range qf.Clients {
			f.objs = append(f.objs, &normec.ModelObjective{Model: q})
		}
		if spec.MinEig > 0 {
			for _, q := range qf.Clients {
				xs, err := q.Minimizer()
				if err != nil {
					panic(err)
				}
				f.fiInf = append(f.fiInf, q.Value(xs)-infSlack)
				f.fijInfMean = append(f.fijInfMean, q.Value(xs)-infSlack)
			}
			g := qf.Global()
			xs, err := g.Minimizer()
			if err != nil {
				panic(err)
			}
			f.fInf = g.Value(xs) - infSlack
			f.deltaInf = f.fInf - mean(f.fiInf)
		} else {
			f.fInf = math.Inf(-1)
		}
		f.x0 = make([]float64, spec.Dim)
		rng.FillNormal(r, f.x0, 1)
		return f
	})
	if qf == nil { // cached: rebuild the federation quad.Random made (uniform weights)
		var clients []*quad.Quadratic
		for _, o := range f.objs {
			clients = append(clients, o.(*normec.ModelObjective).Model.(*quad.Quadratic))
		}
		qf = quad.Uniform(clients)
	}
	return f, qf
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
