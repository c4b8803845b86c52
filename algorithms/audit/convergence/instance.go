package convergence

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Objective is one client's function f_i.
type Objective interface {
	Value(x []float64) float64
	Grad(x, g []float64)
}

// Instance is one member of a problem class: N clients with objectives
// f_i, the global objective f = (1/N)Σ f_i, additive Gaussian gradient
// noise of variance σ_i² per client, a starting point and the solution.
type Instance struct {
	Family  string      `json:"family"`
	Dim     int         `json:"dim"`
	Clients []Objective `json:"-"`
	Sigma2  []float64   `json:"sigma2"`
	X0      []float64   `json:"x0"`
	XStar   []float64   `json:"x_star"`
	FStar   float64     `json:"f_star"`
	// Certified constants: every f_i is L-smooth with L ≤ LCert and
	// μ-strongly convex with μ ≥ MuCert (MuCert < 0: not convex);
	// sup_x (1/N)Σ‖∇f_i(x) − ∇f(x)‖² ≤ Zeta2Cert; Identical when every
	// client holds the same function.
	LCert     float64 `json:"L_certified"`
	MuCert    float64 `json:"mu_certified"`
	Zeta2Cert float64 `json:"zeta2_certified"`
	// Zeta2MaxCert bounds sup_x max_i ‖∇f_i(x) − ∇f(x)‖² (the per-client
	// form of bounded heterogeneity, e.g. FedDDPM's σ_g²).
	Zeta2MaxCert float64 `json:"zeta2_max_certified"`
	Identical    bool    `json:"identical"`
	// Quadratic clients (exact moments): f_i(x) = ½xᵀA_i x − b_iᵀx + k_i.
	Quad []*QuadObj `json:"quadratic,omitempty"`
	// Spec reproduces the instance: family, class, dimension, clients,
	// the search point θ and the rotation stream's key.
	Spec InstanceSpec `json:"spec"`
}

// InstanceSpec is everything Generate needs to rebuild an instance.
type InstanceSpec struct {
	Family        string             `json:"family"`
	Dim           int                `json:"dim"`
	Clients       int                `json:"clients"`
	Theta         []float64          `json:"theta"`
	Seed          uint64             `json:"seed"`
	Labels        []string           `json:"labels"`
	Convexity     string             `json:"convexity"`
	Heterogeneity string             `json:"heterogeneity"`
	Constants     map[string]float64 `json:"constants"`
}

// N is the number of clients.
func (in *Instance) N() int { return len(in.Clients) }

// F is the global objective.
func (in *Instance) F(x []float64) float64 {
	var s float64
	for _, c := range in.Clients {
		s += c.Value(x)
	}
	return s / float64(len(in.Clients))
}

// GradF writes ∇f(x) into g.
func (in *Instance) GradF(x, g []float64) {
	tmp := make([]float64, len(x))
	for i := range g {
		g[i] = 0
	}
	for _, c := range in.Clients {
		c.Grad(x, tmp)
		for j := range g {
			g[j] += tmp[j] / float64(len(in.Clients))
		}
	}
}

// Symbols are the instance quantities a bound may read: R2 = ‖x0 − x*‖²,
// F0 = f(x0) − f*, G0 = ‖∇f(x0)‖², zeta2_star = (1/N)Σ‖∇f_i(x*)‖²,
// Gamma = f* − (1/N)Σ_i min f_i (Li et al. 2020), d.
func (in *Instance) Symbols() map[string]float64 {
	d := in.Dim
	g := make([]float64, d)
	in.GradF(in.X0, g)
	z := 0.0
	for _, c := range in.Clients {
		c.Grad(in.XStar, g)
		z += dot(g, g)
	}
	in.GradF(in.X0, g)
	return map[string]float64{
		"R2": dist2(in.X0, in.XStar), "F0": in.F(in.X0) - in.FStar, "G0": dot(g, g),
		"zeta2_star": z / float64(in.N()), "Gamma": in.gamma(), "d": float64(d),
		"B2": in.dissimilarity(), "mu_clients": in.MuCert, "zeta2_max": in.Zeta2MaxCert, "zeta2_sup": in.Zeta2Cert,
	}
}

// dissimilarity is FedProx's B² = sup_x (1/N)Σ‖∇f_i(x)‖²/‖∇f(x)‖², finite
// and exact for quadratic clients that share the minimiser x*:
// B² = λ_max(Ā⁻¹ ((1/N)Σ A_i²) Ā⁻¹). +Inf otherwise.
func (in *Instance) dissimilarity() float64 {
	if in.Quad == nil {
		return math.Inf(1)
	}
	d := in.Dim
	g := make([]float64, d)
	for _, q := range in.Quad {
		q.Grad(in.XStar, g)
		if math.Sqrt(dot(g, g)) > 1e-9 {
			return math.Inf(1)
		}
	}
	abar := mat.NewSymDense(d, nil)
	s := mat.NewDense(d, d, nil)
	for _, q := range in.Quad {
		abar.AddSym(abar, q.A)
		var a2 mat.Dense
		a2.Mul(q.A, q.A)
		s.Add(s, &a2)
	}
	n := float64(in.N())
	abar.ScaleSym(1/n, abar)
	s.Scale(1/n, s)
	var inv mat.Dense
	if err := inv.Inverse(abar); err != nil {
		return math.Inf(1)
	}
	var m1, m2 mat.Dense
	m1.Mul(&inv, s)
	m2.Mul(&m1, &inv)
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, (m2.At(i, j)+m2.At(j, i))/2)
		}
	}
	_, hi := eigRange(sym)
	return hi
}

func (in *Instance) gamma() float64 {
	s := 0.0
	for _, c := range in.Clients {
		s += minimise(c, in.XStar)
	}
	return math.Max(0, in.FStar-s/float64(in.N()))
}

// Certify checks that the instance belongs to the class: smoothness,
// (strong) convexity, noise variance and heterogeneity, with a relative
// slack of 1e-9 for rounding. It recomputes the constants from the
// instance's data, not from the generator's intentions.
func (in *Instance) Certify(convexity, heterogeneity string, k map[string]float64) error {
	const tol = 1e-9
	L := k["L"]
	if in.LCert > L*(1+tol) {
		return fmt.Errorf("instance %s: smoothness %.17g exceeds L = %g", in.Family, in.LCert, L)
	}
	switch convexity {
	case "strongly-convex":
		if in.MuCert < k["mu"]*(1-tol)-1e-12*L {
			return fmt.Errorf("instance %s: strong convexity %.17g below mu = %g", in.Family, in.MuCert, k["mu"])
		}
	case "convex":
		if in.MuCert < -1e-12*L { // eigenvalue rounding of a PSD matrix
			return fmt.Errorf("instance %s: not convex (curvature %.3g)", in.Family, in.MuCert)
		}
	}
	for i, s := range in.Sigma2 {
		if s > k["sigma2"]*(1+tol)+1e-300 {
			return fmt.Errorf("instance %s: client %d noise variance %g exceeds sigma2 = %g", in.Family, i, s, k["sigma2"])
		}
	}
	g0 := make([]float64, in.Dim)
	switch heterogeneity {
	case "none":
		if !in.Identical {
			return fmt.Errorf("instance %s: clients differ in a class without heterogeneity", in.Family)
		}
	case "shared-minimizer":
		for i, c := range in.Clients {
			c.Grad(in.XStar, g0)
			if n := math.Sqrt(dot(g0, g0)); n > 1e-9*math.Max(1, L*math.Sqrt(dist2(in.X0, in.XStar))) {
				return fmt.Errorf("instance %s: client %d has ‖∇f_i(x*)‖ = %.3g in a shared-minimiser class", in.Family, i, n)
			}
		}
	case "uniform":
		if in.Zeta2Cert > k["zeta2"]*(1+tol)+1e-300 {
			return fmt.Errorf("instance %s: heterogeneity %.17g exceeds zeta2 = %g", in.Family, in.Zeta2Cert, k["zeta2"])
		}
	}
	g := make([]float64, in.Dim)
	in.GradF(in.XStar, g)
	if n := math.Sqrt(dot(g, g)); n > 1e-7*math.Max(1, L*math.Sqrt(dist2(in.X0, in.XStar))) {
		return fmt.Errorf("%w: instance %s: ‖∇f(x*)‖ = %.3g, the solution is not accurate (flat or ill-conditioned)", ErrDegenerate, in.Family, n)
	}
	return nil
}

// ErrDegenerate marks a search point whose instance has no accurate
// unique solution (e.g. collinear logistic data with μ = 0); the search
// skips and counts it. Any other certification failure is a bug.
var ErrDegenerate = errors.New("degenerate instance")

// QuadObj is f(x) = ½xᵀAx − bᵀx + k.
type QuadObj struct {
	A *mat.SymDense `json:"-"`
	// AData is A row-major, for the instance file.
	AData []float64 `json:"A"`
	B     []float64 `json:"b"`
	K     float64   `json:"k"`
}

func (q *QuadObj) Value(x []float64) float64 {
	n := len(x)
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += 0.5 * x[i] * q.A.At(i, j) * x[j]
		}
		s -= q.B[i] * x[i]
	}
	return s + q.K
}

func (q *QuadObj) Grad(x, g []float64) {
	n := len(x)
	for i := 0; i < n; i++ {
		s := -q.B[i]
		for j := 0; j < n; j++ {
			s += q.A.At(i, j) * x[j]
		}
		g[i] = s
	}
}

func newQuad(a *mat.SymDense, b []float64, k float64) *QuadObj {
	n := len(b)
	d := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d[i*n+j] = a.At(i, j)
		}
	}
	return &QuadObj{A: a, AData: d, B: b, K: k}
}

// huberObj is a·clampfree Huber along u plus a quadratic:
// f(x) = a·δ·h_δ(uᵀx − c) + ½xᵀPx, h_δ(r) = r²/(2δ) for |r| ≤ δ,
// |r| − δ/2 beyond; ∇²f = a·uuᵀ·1{|uᵀx−c|<δ} + P.
type huberObj struct {
	u    []float64
	a, δ float64
	c    float64
	P    *mat.SymDense
}

func (h *huberObj) Value(x []float64) float64 {
	r := dot(h.u, x) - h.c
	var hv float64
	if math.Abs(r) <= h.δ {
		hv = r * r / (2 * h.δ)
	} else {
		hv = math.Abs(r) - h.δ/2
	}
	return h.a*h.δ*hv + 0.5*quadForm(h.P, x)
}

func (h *huberObj) Grad(x, g []float64) {
	r := dot(h.u, x) - h.c
	s := h.a * math.Max(-h.δ, math.Min(h.δ, r))
	matVec(h.P, x, g)
	for i := range g {
		g[i] += s * h.u[i]
	}
}

// hessianer is an objective with an exact Hessian (Newton in argmin).
type hessianer interface {
	Hessian(x []float64, h *mat.SymDense)
}

func isLog(o Objective) bool { _, ok := o.(*logObj); return ok }

// Hessian writes (1/m)Σ σ(z)(1 − σ(z)) a aᵀ + μI.
func (l *logObj) Hessian(x []float64, h *mat.SymDense) {
	d := len(x)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := 0.0
			if i == j {
				v = l.mu
			}
			h.SetSym(i, j, v)
		}
	}
	for _, a := range l.a {
		s := sigmoid(dot(a, x))
		h.SymRankOne(h, s*(1-s)/float64(len(l.a)), mat.NewVecDense(d, a))
	}
}

// logObj is (1/m)Σ_j [p_j ℓ(a_jᵀx) + (1−p_j) ℓ(−a_jᵀx)] + (μ/2)‖x‖²,
// ℓ(z) = log(1 + e^{−z}); ∇² = (1/m)Σ σ(z)(1−σ(z)) a aᵀ + μI ⪯ (1/4m)Σ a aᵀ + μI.
type logObj struct {
	a  [][]float64
	p  []float64
	mu float64
}

func softplus(z float64) float64 { // log(1+e^z)
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func (l *logObj) Value(x []float64) float64 {
	s := 0.0
	for j, a := range l.a {
		z := dot(a, x)
		s += l.p[j]*softplus(-z) + (1-l.p[j])*softplus(z)
	}
	return s/float64(len(l.a)) + 0.5*l.mu*dot(x, x)
}

func (l *logObj) Grad(x, g []float64) {
	for i := range g {
		g[i] = l.mu * x[i]
	}
	m := float64(len(l.a))
	for j, a := range l.a {
		z := dot(a, x)
		// d/dz [p·softplus(−z) + (1−p)·softplus(z)] = σ(z) − p
		w := (sigmoid(z) - l.p[j]) / m
		for i := range g {
			g[i] += w * a[i]
		}
	}
}

// pwObj is the piecewise quadratic ½(1/m)Σ_j [w⁺_j max(0, a_jᵀy)² +
// w⁻_j max(0, −a_jᵀy)²] + (μ/2)‖y‖², y = x − c: convex, C¹, with a
// Hessian that jumps across the hyperplanes a_jᵀy = 0.
type pwObj struct {
	a      [][]float64
	wp, wm []float64
	mu     float64
	c      []float64
}

func (p *pwObj) Value(x []float64) float64 {
	y := sub(x, p.c)
	s := 0.0
	for j, a := range p.a {
		z := dot(a, y)
		if z > 0 {
			s += p.wp[j] * z * z
		} else {
			s += p.wm[j] * z * z
		}
	}
	return 0.5*s/float64(len(p.a)) + 0.5*p.mu*dot(y, y)
}

func (p *pwObj) Grad(x, g []float64) {
	y := sub(x, p.c)
	for i := range g {
		g[i] = p.mu * y[i]
	}
	for j, a := range p.a {
		z := dot(a, y)
		w := p.wm[j]
		if z > 0 {
			w = p.wp[j]
		}
		for i := range g {
			g[i] += w * z * a[i] / float64(len(p.a))
		}
	}
}

// cosObj is the non-convex (L/ω²)(1 − cos(ω uᵀx)) + ½xᵀPx with ω = 1:
// curvature along u in [−L, L], f* = 0 at x = 0.
type cosObj struct {
	u []float64
	a float64
	P *mat.SymDense
}

func (c *cosObj) Value(x []float64) float64 {
	return c.a*(1-math.Cos(dot(c.u, x))) + 0.5*quadForm(c.P, x)
}

func (c *cosObj) Grad(x, g []float64) {
	s := c.a * math.Sin(dot(c.u, x))
	matVec(c.P, x, g)
	for i := range g {
		g[i] += s * c.u[i]
	}
}

// ---- small linear algebra helpers ----

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func quadForm(p *mat.SymDense, x []float64) float64 {
	n := len(x)
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += x[i] * p.At(i, j) * x[j]
		}
	}
	return s
}

func matVec(p *mat.SymDense, x, g []float64) {
	n := len(x)
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			s += p.At(i, j) * x[j]
		}
		g[i] = s
	}
}

// eigRange returns the smallest and largest eigenvalue of a symmetric matrix.
func eigRange(a *mat.SymDense) (lo, hi float64) {
	var e mat.EigenSym
	if !e.Factorize(a, false) {
		return math.NaN(), math.NaN()
	}
	v := e.Values(nil)
	return v[0], v[len(v)-1]
}

// orthogonal draws a random orthogonal matrix (QR of a Gaussian matrix).
func orthogonal(d int, r *rand.Rand) *mat.Dense {
	g := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.Set(i, j, r.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// spectral builds Q diag(λ) Qᵀ.
func spectral(q *mat.Dense, lam []float64) *mat.SymDense {
	d := len(lam)
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := 0.0
			for k := 0; k < d; k++ {
				v += q.At(i, k) * lam[k] * q.At(j, k)
			}
			s.SetSym(i, j, v)
		}
	}
	return s
}

// minimise returns min f from a start point (L-BFGS to a gradient norm of
// 1e-12); used for Γ's per-client minima and non-closed-form solutions.
func minimise(o Objective, x0 []float64) float64 {
	if q, ok := o.(*QuadObj); ok {
		var ch mat.Cholesky
		if ch.Factorize(q.A) {
			x := mat.NewVecDense(len(q.B), nil)
			if ch.SolveVecTo(x, mat.NewVecDense(len(q.B), append([]float64(nil), q.B...))) == nil {
				return q.Value(x.RawVector().Data)
			}
		}
	}
	x := argmin(o, x0)
	return o.Value(x)
}

// argmin minimises a smooth convex objective by damped Newton steps with
// a finite-difference Hessian (gradients are exact) and Armijo
// backtracking, falling back to gradient steps; it stops when the
// gradient no longer decreases (machine precision).
func argmin(o Objective, x0 []float64) []float64 {
	d := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, d)
	gp := make([]float64, d)
	gm := make([]float64, d)
	for it := 0; it < 500; it++ {
		o.Grad(x, g)
		gn := math.Sqrt(dot(g, g))
		if gn == 0 {
			break
		}
		h := mat.NewSymDense(d, nil)
		exact := false
		if ho, ok := o.(hessianer); ok {
			ho.Hessian(x, h)
			exact = mat.Trace(h) != 0 || isLog(o)
		}
		for j := 0; j < d && !exact; j++ {
			e := 1e-6 * math.Max(1, math.Abs(x[j]))
			x[j] += e
			o.Grad(x, gp)
			x[j] -= 2 * e
			o.Grad(x, gm)
			x[j] += e
			for i := 0; i <= j; i++ {
				v := (gp[i] - gm[i]) / (2 * e)
				if i == j {
					h.SetSym(i, j, v)
				} else {
					h.SetSym(i, j, (h.At(i, j)+v)/2)
				}
			}
		}
		dir := make([]float64, d)
		var ch mat.Cholesky
		ok := ch.Factorize(h)
		if ok {
			v := mat.NewVecDense(d, nil)
			if ch.SolveVecTo(v, mat.NewVecDense(d, append([]float64(nil), g...))) == nil {
				copy(dir, v.RawVector().Data)
			} else {
				ok = false
			}
		}
		if !ok || dot(dir, g) <= 0 {
			copy(dir, g)
		}
		f0 := o.Value(x)
		moved := false
		for step := 1.0; step > 1e-16; step /= 2 {
			y := make([]float64, d)
			for i := range x {
				y[i] = x[i] - step*dir[i]
			}
			o.Grad(y, gp)
			if o.Value(y) <= f0 && (math.Sqrt(dot(gp, gp)) < gn || o.Value(y) < f0) {
				x, moved = y, true
				break
			}
		}
		if !moved {
			break
		}
	}
	return x
}
