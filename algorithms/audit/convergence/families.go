package convergence

import (
	"fmt"
	"math"
	"slices"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/mat"
)

// Families a class admits: quadratics, Huber, logistic and piecewise
// quadratics are convex (strongly convex with μ > 0); the cosine family is
// non-convex and bounded below. A convex function is a member of the
// non-convex class, so every family serves the non-convex class too.
func familiesFor(convexity, heterogeneity string) []string {
	out := []string{"quadratic", "huber", "logistic", "piecewise"}
	if convexity == "nonconvex" {
		out = append(out, "cosine")
	}
	if heterogeneity == "uniform" {
		// logistic and piecewise clients are identical under a uniform
		// heterogeneity bound (their dissimilarity is unbounded or larger than
		// ζ² in general); they still belong to the class.
		return out
	}
	return out
}

// ThetaDims is the number of search coordinates of a family.
func ThetaDims(family string, d, n int, heterogeneity string) int {
	x0 := d + 1
	switch family {
	case "quadratic":
		k := d + x0
		switch heterogeneity {
		case "uniform":
			k += n*d + 1
		case "any":
			k += 2*n*d + 1
		case "shared-minimizer":
			k += n * d
		}
		return k
	case "huber":
		k := (d - 1) + 1 + x0
		if heterogeneity != "none" {
			k += n + 1
		}
		return k
	case "logistic":
		m := d + 2
		if heterogeneity == "any" {
			return n*(m*d+m) + x0
		}
		return m*d + m + x0
	case "piecewise":
		m := 2 * d
		k := m*d + 2*m + x0
		if heterogeneity == "any" {
			k += n*d + 1
		}
		return k
	case "cosine":
		return (d - 1) + x0
	}
	return 0
}

// thetaReader hands out search coordinates in order, each clamped to [0, 1].
type thetaReader struct {
	th []float64
	i  int
}

func (t *thetaReader) next() float64 {
	v := t.th[t.i]
	t.i++
	return math.Max(0, math.Min(1, v))
}

// Generate builds the instance a spec describes and certifies it.
func Generate(s InstanceSpec) (*Instance, error) {
	if s.Dim < 1 || s.Dim > 8 || s.Clients < 1 || s.Clients > 64 {
		return nil, fmt.Errorf("instance: dimension %d and clients %d must be in [1, 8] and [1, 64]", s.Dim, s.Clients)
	}
	if want := ThetaDims(s.Family, s.Dim, s.Clients, s.Heterogeneity); len(s.Theta) != want {
		return nil, fmt.Errorf("instance %s: %d search coordinates, want %d", s.Family, len(s.Theta), want)
	}
	labels := make([]any, len(s.Labels))
	for i, l := range s.Labels {
		labels[i] = l
	}
	r := rng.New(s.Seed, labels...).Rand()
	th := &thetaReader{th: s.Theta}
	d, n := s.Dim, s.Clients
	k := s.Constants
	L, mu := k["L"], k["mu"]
	muLo := 0.0
	if s.Convexity == "strongly-convex" {
		muLo = mu
	}
	eig := func() float64 { // an eigenvalue in [μ_lo, L], bounded away from 0
		v := muLo + (L-muLo)*math.Pow(th.next(), 2)
		return math.Max(v, 1e-9*L)
	}
	q := orthogonal(d, r)
	in := &Instance{Family: s.Family, Dim: d, Spec: s, Identical: true}
	sig := 0.0
	if v, ok := k["sigma2"]; ok {
		sig = v
	}
	in.Sigma2 = make([]float64, n)
	for i := range in.Sigma2 {
		in.Sigma2[i] = sig
	}
	x0dir := func() []float64 {
		v := make([]float64, d)
		for i := range v {
			v[i] = 2*th.next() - 1
		}
		nv := math.Sqrt(dot(v, v))
		if nv < 1e-12 {
			v[0], nv = 1, 1
		}
		rho := math.Pow(10, 2*th.next()-1)
		for i := range v {
			v[i] *= rho / nv
		}
		return v
	}
	u := make([]float64, d)
	for i := range u {
		u[i] = q.At(i, 0)
	}
	perp := func(lam []float64) *mat.SymDense { // Q diag(0, λ…) Qᵀ
		return spectral(q, append([]float64{0}, lam...))
	}
	switch s.Family {
	case "quadratic":
		lam := make([]float64, d)
		for i := range lam {
			lam[i] = eig()
		}
		a := spectral(q, lam)
		zero := make([]float64, d)
		switch s.Heterogeneity {
		case "none":
			for i := 0; i < n; i++ {
				in.Clients = append(in.Clients, newQuad(a, zero, 0))
			}
			in.XStar = zero
		case "uniform":
			del := make([][]float64, n)
			mean := make([]float64, d)
			for i := range del {
				del[i] = make([]float64, d)
				for j := range del[i] {
					del[i][j] = 2*th.next() - 1
					mean[j] += del[i][j] / float64(n)
				}
			}
			ss := 0.0
			for i := range del {
				for j := range del[i] {
					del[i][j] -= mean[j]
					ss += del[i][j] * del[i][j] / float64(n)
				}
			}
			scale := 0.0
			if ss > 1e-300 {
				scale = math.Sqrt(th.next() * k["zeta2"] / ss)
			} else {
				th.next()
			}
			for i := range del {
				for j := range del[i] {
					del[i][j] *= scale
				}
				in.Clients = append(in.Clients, newQuad(a, del[i], 0))
			}
			in.Identical = n == 1 || scale == 0
			// ∇f_i − ∇f = −δ_i exactly, so ζ² = (1/N)Σ‖δ_i‖².
			z := 0.0
			for i := range del {
				z += dot(del[i], del[i]) / float64(n)
			}
			in.Zeta2Cert = z
			for i := range del {
				in.Zeta2MaxCert = math.Max(in.Zeta2MaxCert, dot(del[i], del[i]))
			}
			in.XStar = zero
		case "shared-minimizer":
			// clients ½(x − x*)ᵀA_i(x − x*) with x* = 0: different curvatures,
			// one minimiser.
			for i := 0; i < n; i++ {
				li := make([]float64, d)
				for j := range li {
					li[j] = eig()
				}
				in.Clients = append(in.Clients, newQuad(spectral(orthogonal(d, r), li), make([]float64, d), 0))
			}
			in.Identical = n == 1
			in.Zeta2Cert = math.Inf(1)
			in.XStar = zero
		case "any":
			spread := math.Pow(10, 2*th.next()-1)
			abar := mat.NewSymDense(d, nil)
			bbar := make([]float64, d)
			for i := 0; i < n; i++ {
				li := make([]float64, d)
				for j := range li {
					li[j] = eig()
				}
				ai := spectral(orthogonal(d, r), li)
				ci := make([]float64, d)
				for j := range ci {
					ci[j] = spread * (2*th.next() - 1)
				}
				bi := make([]float64, d)
				matVec(ai, ci, bi)
				qo := newQuad(ai, bi, 0.5*quadForm(ai, ci))
				in.Clients = append(in.Clients, qo)
				abar.AddSym(abar, ai)
				for j := range bbar {
					bbar[j] += bi[j]
				}
			}
			in.Identical = n == 1
			in.Zeta2Cert = math.Inf(1)
			var ch mat.Cholesky
			if !ch.Factorize(abar) {
				return nil, fmt.Errorf("%w: instance quadratic: singular global Hessian", ErrDegenerate)
			}
			xs := mat.NewVecDense(d, nil)
			if err := ch.SolveVecTo(xs, mat.NewVecDense(d, bbar)); err != nil {
				return nil, err
			}
			in.XStar = xs.RawVector().Data
		}
		in.X0 = addv(in.XStar, x0dir())
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, c := range in.Clients {
			qo := c.(*QuadObj)
			in.Quad = append(in.Quad, qo)
			a, b := eigRange(qo.A)
			lo, hi = math.Min(lo, a), math.Max(hi, b)
		}
		in.LCert, in.MuCert = math.Max(hi, -lo), lo
	case "huber":
		lam := make([]float64, d-1)
		for i := range lam {
			lam[i] = eig()
		}
		p := perp(lam)
		// ∇² along u is μ_lo + a·1{|r| < δ} with a = L − μ_lo.
		pu := mat.NewSymDense(d, nil)
		pu.AddSym(p, spectral(q, append([]float64{muLo}, make([]float64, d-1)...)))
		a := L - muLo
		x0 := x0dir()
		rho := math.Sqrt(dot(x0, x0))
		delta := rho * math.Pow(10, -3*th.next())
		cs := make([]float64, n)
		if s.Heterogeneity != "none" {
			spread := th.next()
			for i := range cs {
				cs[i] = spread * rho * (2*th.next() - 1)
			}
			// Uniform heterogeneity: ∇f_i − ∇f = a(clamp_i − mean clamp)u with
			// clamps in [−δ, δ]: (1/N)Σ‖·‖² ≤ a²δ². Keep identical clients
			// when that certificate exceeds ζ².
			if s.Heterogeneity == "uniform" && a*a*delta*delta > k["zeta2"] {
				cs = make([]float64, n)
			}
		}
		for i := 0; i < n; i++ {
			in.Clients = append(in.Clients, &huberObj{u: u, a: a, δ: delta, c: cs[i], P: pu})
			if cs[i] != cs[0] {
				in.Identical = false
			}
		}
		if !in.Identical {
			in.Zeta2Cert = a * a * delta * delta
			// |clamp_i − mean clamp| ≤ 2δ
			in.Zeta2MaxCert = 4 * a * a * delta * delta
		}
		// Solution: ⊥ part 0 (P ≻ 0 there); along u the monotone equation
		// (1/N)Σ a·clamp(s − c_i, ±δ) + μ_lo·s = 0, solved by bisection.
		phi := func(sv float64) float64 {
			v := muLo * sv
			for _, c := range cs {
				v += a * math.Max(-delta, math.Min(delta, sv-c)) / float64(n)
			}
			return v
		}
		// With μ_lo = 0 and spread-out clients φ vanishes on an interval
		// [s1, s2]: the solution set is a segment, and x* is the projection
		// of x0 onto it (R2 is the distance to the solution set).
		s1 := bisect(func(v float64) bool { return phi(v) < 0 })
		s2 := bisect(func(v float64) bool { return phi(v) <= 0 })
		in.X0 = make([]float64, d)
		for i := range u {
			in.X0[i] = s1*u[i] + x0[i]
		}
		sv := math.Max(s1, math.Min(s2, dot(u, in.X0)))
		in.XStar = make([]float64, d)
		for i := range u {
			in.XStar[i] = sv * u[i]
		}
		plo, phi2 := eigRange(pu)
		in.LCert = math.Max(phi2, dot(u, matVecNew(pu, u))+a)
		in.MuCert = plo
	case "logistic":
		// Each client: m = d + 2 points a_j with label weights p_j (never
		// separable), scaled so λ_max((1/4m)Σ a aᵀ) = L − μ_lo exactly.
		m := d + 2
		clients := 1
		if s.Heterogeneity == "any" {
			clients = n
		}
		var objs []*logObj
		for c := 0; c < clients; c++ {
			pts := make([][]float64, m)
			ps := make([]float64, m)
			for j := range pts {
				pts[j] = make([]float64, d)
				for i := range pts[j] {
					pts[j][i] = 2*th.next() - 1
				}
			}
			for j := range ps {
				ps[j] = 0.02 + 0.96*th.next()
			}
			_, top := eigRange(logCov(pts))
			sc := math.Sqrt((L - muLo) / top)
			for _, a := range pts {
				for i := range a {
					a[i] *= sc
				}
			}
			objs = append(objs, &logObj{a: pts, p: ps, mu: muLo})
		}
		in.LCert, in.MuCert = 0, muLo
		for i := 0; i < n; i++ {
			o := objs[i%len(objs)]
			in.Clients = append(in.Clients, o)
			_, top := eigRange(logCov(o.a))
			in.LCert = math.Max(in.LCert, top+muLo)
		}
		in.Identical = len(objs) == 1 || n == 1
		if !in.Identical {
			in.Zeta2Cert = math.Inf(1)
		}
		in.XStar = argmin(&sumObj{in}, make([]float64, d))
		in.X0 = addv(in.XStar, x0dir())
	case "piecewise":
		m := 2 * d
		pts := make([][]float64, m)
		for j := range pts {
			pts[j] = make([]float64, d)
			for i := range pts[j] {
				pts[j][i] = 2*th.next() - 1
			}
			// the first d directions are the rotation's columns, so the
			// minimiser is unique
			if j < d {
				for i := range pts[j] {
					pts[j][i] = pts[j][i]*0.5 + q.At(i, j)
				}
			}
		}
		wp, wm := make([]float64, m), make([]float64, m)
		for j := range wp {
			wp[j], wm[j] = 0.05+th.next(), 0.05+th.next()
		}
		hmax := func() *mat.SymDense {
			h := mat.NewSymDense(d, nil)
			for j, a := range pts {
				h.SymRankOne(h, math.Max(wp[j], wm[j])/float64(m), mat.NewVecDense(d, a))
			}
			return h
		}
		_, top := eigRange(hmax())
		sc := (L - muLo) / top
		for j := range wp {
			wp[j] *= sc
			wm[j] *= sc
		}
		cs := make([][]float64, n)
		spread := 0.0
		if s.Heterogeneity == "any" {
			spread = math.Pow(10, 2*th.next()-1)
		}
		for i := range cs {
			cs[i] = make([]float64, d)
			if s.Heterogeneity == "any" {
				for j := range cs[i] {
					cs[i][j] = spread * (2*th.next() - 1)
				}
			}
			in.Clients = append(in.Clients, &pwObj{a: pts, wp: wp, wm: wm, mu: muLo, c: cs[i]})
		}
		in.Identical = s.Heterogeneity != "any" || n == 1
		if !in.Identical {
			in.Zeta2Cert = math.Inf(1)
		}
		hmin := mat.NewSymDense(d, nil)
		for j, a := range pts {
			hmin.SymRankOne(hmin, math.Min(wp[j], wm[j])/float64(m), mat.NewVecDense(d, a))
		}
		lo, _ := eigRange(hmin)
		_, top2 := eigRange(hmax())
		in.LCert, in.MuCert = top2+muLo, lo+muLo
		if in.Identical {
			in.XStar = make([]float64, d)
		} else {
			glob := &sumObj{in}
			in.XStar = argmin(glob, make([]float64, d))
		}
		in.X0 = addv(in.XStar, x0dir())
	case "cosine":
		if s.Convexity != "nonconvex" {
			return nil, fmt.Errorf("instance cosine: the family is not convex; it serves only the nonconvex class")
		}
		lam := make([]float64, d-1)
		for i := range lam {
			lam[i] = math.Max(L*th.next(), 1e-9*L)
		}
		p := perp(lam)
		o := &cosObj{u: u, a: L, P: p}
		for i := 0; i < n; i++ {
			in.Clients = append(in.Clients, o)
		}
		_, hi := eigRange(p)
		in.LCert = math.Max(hi, L+dot(u, matVecNew(p, u)))
		in.MuCert = -L
		in.XStar = make([]float64, d)
		in.X0 = x0dir()
	default:
		return nil, fmt.Errorf("unknown family %q (want %v)", s.Family, FamilyNames)
	}
	if th.i != len(s.Theta) {
		return nil, fmt.Errorf("instance %s: used %d of %d search coordinates", s.Family, th.i, len(s.Theta))
	}
	in.FStar = in.F(in.XStar)
	if in.Identical {
		in.Zeta2Cert, in.Zeta2MaxCert = 0, 0
	} else if in.Zeta2MaxCert == 0 {
		in.Zeta2MaxCert = math.Inf(1)
	}
	if err := in.Certify(s.Convexity, s.Heterogeneity, k); err != nil {
		return nil, err
	}
	return in, nil
}

// logCov is (1/4m)Σ a aᵀ, the bound on a logistic client's Hessian.
func logCov(pts [][]float64) *mat.SymDense {
	d := len(pts[0])
	c := mat.NewSymDense(d, nil)
	for _, a := range pts {
		c.SymRankOne(c, 1/(4*float64(len(pts))), mat.NewVecDense(d, a))
	}
	return c
}

// sumObj is the global objective as an Objective.
type sumObj struct{ in *Instance }

// Hessian averages the clients' Hessians when they all have one.
func (s *sumObj) Hessian(x []float64, h *mat.SymDense) {
	d := len(x)
	tmp := mat.NewSymDense(d, nil)
	h.Zero()
	for _, c := range s.in.Clients {
		hc, ok := c.(hessianer)
		if !ok {
			h.Zero()
			return
		}
		hc.Hessian(x, tmp)
		h.AddSym(h, tmp)
	}
	h.ScaleSym(1/float64(s.in.N()), h)
}

func (s *sumObj) Value(x []float64) float64 { return s.in.F(x) }
func (s *sumObj) Grad(x, g []float64)       { s.in.GradF(x, g) }

func addv(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

func matVecNew(p *mat.SymDense, x []float64) []float64 {
	g := make([]float64, len(x))
	matVec(p, x, g)
	return g
}

// admits reports whether a family can generate members of the class.
func admits(family, convexity, heterogeneity string) bool {
	if family == "cosine" && convexity != "nonconvex" {
		return false
	}
	if family == "cosine" && heterogeneity != "none" {
		return false
	}
	if heterogeneity == "shared-minimizer" && family != "quadratic" {
		return false
	}
	return slices.Contains(FamilyNames, family)
}

// bisect returns the boundary of a monotone predicate below(v) (true for
// small v, false for large v), to full float64 resolution.
func bisect(below func(float64) bool) float64 {
	lo, hi := -1.0, 1.0
	for below(hi) {
		hi *= 2
	}
	for !below(lo) {
		lo *= 2
	}
	for it := 0; it < 2000; it++ {
		m := lo + (hi-lo)/2
		if m <= lo || m >= hi {
			break
		}
		if below(m) {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}
