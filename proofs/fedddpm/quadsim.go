package fedddpm

import (
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/quad"
	"gonum.org/v1/gonum/mat"
)

// qfed is a quadratic federation f_i(w) = ½wᵀA_iw − b_iᵀw with the global
// objective f = (1/N)Σf_i (uniform weights, as Appendix A), copied into
// dense slices for fast loops. Gradient oracles add N(0, Noise²·I): the
// local variance of A3 is σ_l² = d·Noise² exactly.
type qfed struct {
	N, d   int
	A      [][]float64 // N × (d·d) row-major
	b      [][]float64
	Ag, bg []float64 // global Hessian and linear term
	L      float64   // max_i ‖A_i‖ (A1's constant)
	Noise  float64
	wstar  []float64 // global minimiser (nil when f is not convex)
	fstar  float64
}

func newQFed(fed *quad.Federation, noise float64) *qfed {
	N, d := len(fed.Clients), fed.Clients[0].Dim()
	q := &qfed{N: N, d: d, Noise: noise, L: fed.Smoothness(), Ag: make([]float64, d*d), bg: make([]float64, d)}
	for _, c := range fed.Clients {
		a := make([]float64, d*d)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				a[i*d+j] = c.A.At(i, j)
				q.Ag[i*d+j] += c.A.At(i, j) / float64(N)
			}
			q.bg[i] += c.B[i] / float64(N)
		}
		q.A = append(q.A, a)
		q.b = append(q.b, append([]float64(nil), c.B...))
	}
	if w, err := fed.Global().Minimizer(); err == nil {
		q.wstar = w
		q.fstar = q.f(w)
	}
	return q
}

func matVec(a, x, out []float64, d int) {
	for i := 0; i < d; i++ {
		var s float64
		for j, v := range a[i*d : (i+1)*d] {
			s += v * x[j]
		}
		out[i] = s
	}
}

// grad writes ∇f_i(w) (client i ≥ 0) or ∇f(w) (i < 0) into g.
func (q *qfed) grad(i int, w, g []float64) {
	a, b := q.Ag, q.bg
	if i >= 0 {
		a, b = q.A[i], q.b[i]
	}
	matVec(a, w, g, q.d)
	for j := range g {
		g[j] -= b[j]
	}
}

// f returns the global objective at w.
func (q *qfed) f(w []float64) float64 {
	g := make([]float64, q.d)
	matVec(q.Ag, w, g, q.d)
	var s float64
	for j := range w {
		s += 0.5*w[j]*g[j] - q.bg[j]*w[j]
	}
	return s
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// heterogeneity returns max_i and mean_i of ‖∇f_i(w) − ∇f(w)‖² (the
// per-client and the client-averaged readings of A3's σ_g² at w).
func (q *qfed) heterogeneity(w []float64) (maxv, mean float64) {
	g, gi := make([]float64, q.d), make([]float64, q.d)
	q.grad(-1, w, g)
	for i := 0; i < q.N; i++ {
		q.grad(i, w, gi)
		var s float64
		for j := range g {
			s += (gi[j] - g[j]) * (gi[j] - g[j])
		}
		maxv = math.Max(maxv, s)
		mean += s / float64(q.N)
	}
	return maxv, mean
}

// gdMeanCov runs k steps x ← x − step·(Ax − b + ξ), ξ ~ N(0, s²I), from the
// deterministic x0 and returns the exact mean and covariance of the result:
// the mean follows gradient descent and C ← MCMᵀ + step²s²I with M = I − step·A.
func gdMeanCov(a, b, x0 []float64, d, k int, step, s float64) (mean, cov []float64) {
	mean = append([]float64(nil), x0...)
	cov = make([]float64, d*d)
	g := make([]float64, d)
	mc := make([]float64, d*d)
	m := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			m[i*d+j] = -step * a[i*d+j]
		}
		m[i*d+i]++
	}
	for it := 0; it < k; it++ {
		matVec(a, mean, g, d)
		for j := range mean {
			mean[j] -= step * (g[j] - b[j])
		}
		// mc = M·C, cov = mc·Mᵀ + step²s²I.
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				var v float64
				for l := 0; l < d; l++ {
					v += m[i*d+l] * cov[l*d+j]
				}
				mc[i*d+j] = v
			}
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				var v float64
				for l := 0; l < d; l++ {
					v += mc[i*d+l] * m[j*d+l]
				}
				cov[i*d+j] = v
			}
			cov[i*d+i] += step * step * s * s
		}
	}
	return mean, cov
}

// expectedF returns E f(x) for x with the given mean and covariance:
// f(mean) + ½ tr(A_g Cov).
func (q *qfed) expectedF(mean, cov []float64) float64 {
	v := q.f(mean)
	d := q.d
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v += 0.5 * q.Ag[i*d+j] * cov[j*d+i]
		}
	}
	return v
}

// clientPhaseExpectedF returns E f(ŵ_{t+1}) exactly for the client phase of
// Algorithm 1 from the deterministic w_t: n clients sampled uniformly
// without replacement, K noisy local steps of size ζ each, uniform 1/n
// averaging. With d_i = E w^i_{t,K} − w_t and C_i the covariance of
// client i's noise: mean = w_t + (1/N)Σd_i and
// Cov = (1/(nN))ΣC_i + (N−n)/(n(N−1))·(1/N)Σ(d_i − d̄)(d_i − d̄)ᵀ.
func (q *qfed) clientPhaseExpectedF(w []float64, K, n int, zeta float64) float64 {
	d, N := q.d, q.N
	ds := make([][]float64, N)
	dbar := make([]float64, d)
	cov := make([]float64, d*d)
	for i := 0; i < N; i++ {
		m, c := gdMeanCov(q.A[i], q.b[i], w, d, K, zeta, q.Noise)
		ds[i] = make([]float64, d)
		for j := range m {
			ds[i][j] = m[j] - w[j]
			dbar[j] += ds[i][j] / float64(N)
		}
		for j := range c {
			cov[j] += c[j] / (float64(n) * float64(N))
		}
	}
	r := rho(N, n)
	for i := 0; i < N; i++ {
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				cov[a*d+b] += r / float64(N) * (ds[i][a] - dbar[a]) * (ds[i][b] - dbar[b])
			}
		}
	}
	mean := make([]float64, d)
	for j := range mean {
		mean[j] = w[j] + dbar[j]
	}
	return q.expectedF(mean, cov)
}

// serverPhaseExpectedF returns E f(w_{t+1}) exactly for E server steps of
// size η on unbiased noisy global gradients (A4) from the deterministic ŵ.
func (q *qfed) serverPhaseExpectedF(w []float64, E int, eta float64) float64 {
	m, c := gdMeanCov(q.Ag, q.bg, w, q.d, E, eta, q.Noise)
	return q.expectedF(m, c)
}

// simCfg configures one simulated run of Algorithm 1 (or FedAvg) with
// single-sample SGD steps, as in the analysis.
type simCfg struct {
	T, K, E, n  int
	zeta, eta   float64
	server      bool      // run the E server steps on aux gradients
	auxTilt     []float64 // aux gradient = Σ_i q_i ∇f_i (nil: ∇f, i.e. A4 holds)
	w0          []float64
	trackLosses bool
}

// simResult is what one run measured.
type simResult struct {
	AvgGrad2 float64   // (1/T)Σ_{t<T} ‖∇f(w_t)‖²
	MaxSG2   float64   // max over visited w_t of max_i ‖∇f_i − ∇f‖²
	MaxDel2  float64   // max over visited w_t of ‖E∇̃f_A(w_t) − ∇f(w_t)‖² (server points included)
	Gap      []float64 // f(w_t) − f* for t = 0..T when trackLosses
}

// simulate runs cfg on q with all draws from r: per round, n clients
// sampled without replacement (fl.SampleUniform), K local steps
// w ← w − ζ(∇f_i(w) + ξ), uniform averaging, then (if server) E steps
// w ← w − η(∇f_A(w) + ξ).
func (q *qfed) simulate(c simCfg, r *rand.Rand) simResult {
	d := q.d
	w := append([]float64(nil), c.w0...)
	loc := make([]float64, d)
	acc := make([]float64, d)
	g := make([]float64, d)
	ga := make([]float64, d)
	gi := make([]float64, d)
	var sel, scratch []int
	scratch = make([]int, q.N)
	var res simResult
	auxGrad := func(x, out []float64) {
		if c.auxTilt == nil {
			q.grad(-1, x, out)
			return
		}
		clear(out)
		for i, qi := range c.auxTilt {
			if qi == 0 {
				continue
			}
			q.grad(i, x, gi)
			for j := range out {
				out[j] += qi * gi[j]
			}
		}
	}
	trackDelta := func(x []float64) {
		if c.auxTilt == nil {
			return
		}
		q.grad(-1, x, g)
		auxGrad(x, ga)
		var s float64
		for j := range g {
			s += (ga[j] - g[j]) * (ga[j] - g[j])
		}
		res.MaxDel2 = math.Max(res.MaxDel2, s)
	}
	if c.trackLosses {
		res.Gap = append(res.Gap, q.f(w)-q.fstar)
	}
	for t := 0; t < c.T; t++ {
		q.grad(-1, w, g)
		res.AvgGrad2 += norm2(g) / float64(c.T)
		sg, _ := q.heterogeneity(w)
		res.MaxSG2 = math.Max(res.MaxSG2, sg)
		trackDelta(w)
		sel = fl.SampleUniform(r, q.N, c.n, sel, scratch)
		clear(acc)
		for _, i := range sel {
			copy(loc, w)
			for k := 0; k < c.K; k++ {
				q.grad(i, loc, gi)
				for j := range loc {
					loc[j] -= c.zeta * (gi[j] + q.Noise*r.NormFloat64())
				}
			}
			for j := range acc {
				acc[j] += (loc[j] - w[j]) / float64(c.n)
			}
		}
		for j := range w {
			w[j] += acc[j]
		}
		if c.server {
			for e := 0; e < c.E; e++ {
				trackDelta(w)
				auxGrad(w, ga)
				for j := range w {
					w[j] -= c.eta * (ga[j] + q.Noise*r.NormFloat64())
				}
			}
		}
		if c.trackLosses {
			res.Gap = append(res.Gap, q.f(w)-q.fstar)
		}
	}
	return res
}

// symFrom wraps a d×d row-major symmetric matrix (copied) as a SymDense.
func symFrom(a []float64, d int) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s.SetSym(i, j, 0.5*(a[i*d+j]+a[j*d+i]))
		}
	}
	return s
}
