package convergence

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/mat"
)

// Modes of a measurement.
const (
	ModeExact         = "exact-moments" // quadratic, affine step: exact mean and covariance
	ModeDeterministic = "deterministic" // no randomness: one trajectory is the expectation
	ModeMonteCarlo    = "monte-carlo"   // replicates with a 99.9% confidence interval
)

// Measurement is the quantity measured on one instance.
type Measurement struct {
	Mode  string  `json:"mode"`
	Value float64 `json:"value"`
	// Lower and Upper bound a 99.9% confidence interval (Monte Carlo);
	// both equal Value otherwise.
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	// G2 is sup over oracle calls of E‖g‖² along the trajectory.
	G2   float64 `json:"G2"`
	Runs int     `json:"runs,omitempty"`
}

var errNotExact = errors.New("not exact")

// zeroTape returns zeros and counts draws; vecTape returns its values.
type vecTape struct {
	v []float64
	i int
}

func (t *vecTape) Next() float64 {
	x := 0.0
	if t.i < len(t.v) {
		x = t.v[t.i]
	}
	t.i++
	return x
}

type randTape struct{ r *rand.Rand }

func (t *randTape) Next() float64 { return t.r.NormFloat64() }

// outcome is one client-sampling outcome with its probability.
type outcome struct {
	sel []int
	p   float64
}

// outcomes enumerates the sampling outcomes of a step (nil when too many).
func outcomes(n, k int, withRepl bool) []outcome {
	if k == 0 {
		return []outcome{{all(n), 1}}
	}
	var out []outcome
	if withRepl {
		// K independent uniform draws: the step depends on the multiset
		// only (a mean over the drawn clients), so enumerate non-decreasing
		// tuples with their multinomial probabilities K!/∏c_i! / N^K.
		var rec func(start int, cur []int)
		rec = func(start int, cur []int) {
			if len(out) > 256 {
				return
			}
			if len(cur) == k {
				p := math.Lgamma
				lp, _ := p(float64(k + 1))
				for i := 0; i < len(cur); {
					j := i
					for j < len(cur) && cur[j] == cur[i] {
						j++
					}
					l, _ := p(float64(j - i + 1))
					lp -= l
					i = j
				}
				out = append(out, outcome{append([]int(nil), cur...), math.Exp(lp - float64(k)*math.Log(float64(n)))})
				return
			}
			for i := start; i < n; i++ {
				rec(i, append(cur, i))
			}
		}
		rec(0, nil)
		if len(out) > 256 {
			return nil
		}
		return out
	}
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(out) > 256 {
			return
		}
		if len(cur) == k {
			out = append(out, outcome{append([]int(nil), cur...), 0})
			return
		}
		for i := start; i < n; i++ {
			rec(i+1, append(cur, i))
		}
	}
	rec(0, nil)
	if len(out) > 256 {
		return nil
	}
	for i := range out {
		out[i].p = 1 / float64(len(out))
	}
	return out
}

// sampleSel draws a sampling outcome.
func sampleSel(n, k int, withRepl bool, r *rand.Rand) []int {
	if k == 0 {
		return all(n)
	}
	if withRepl {
		s := make([]int, k)
		for i := range s {
			s[i] = r.IntN(n)
		}
		return s
	}
	p := r.Perm(n)[:k]
	// sorted, so the order of client processing is canonical
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j] < p[j-1]; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
	return p
}

// runner evaluates the claim's quantity on an instance.
type runner struct {
	c      *Claim
	m      *Method
	res    *Resolved
	in     *Instance
	seed   uint64
	mc     int
	needG2 bool
}

func (rn *runner) env(tape Tape) *Env { return &Env{In: rn.in, R: rn.res, Tape: tape} }

// measureStep is the measure at x_t; prev is x_{t−1} (nil at t = 0), read
// by measure path only.
func (rn *runner) measureStep(t int, x, prev []float64) float64 {
	if rn.c.Quantity.Measure.S != "path" {
		return rn.measureAt(x)
	}
	g := make([]float64, len(x))
	rn.in.GradF(x, g)
	dx2 := 0.0
	if prev != nil {
		dx2 = dist2(x, prev)
	}
	return rn.res.pathAt(t, dot(g, g), dx2, rn.in.F(x)-rn.in.FStar, dist2(x, rn.in.XStar))
}

// measureAt is the measure (gap, dist, grad) at a point.
func (rn *runner) measureAt(x []float64) float64 {
	switch rn.c.Quantity.Measure.S {
	case "gap":
		return rn.in.F(x) - rn.in.FStar
	case "dist":
		return dist2(x, rn.in.XStar)
	case "gradnorm":
		g := make([]float64, len(x))
		rn.in.GradF(x, g)
		return math.Sqrt(dot(g, g))
	default:
		g := make([]float64, len(x))
		rn.in.GradF(x, g)
		return dot(g, g)
	}
}

func (rn *runner) withRepl() bool {
	_, ok := rn.res.Params["with_replacement"]
	return ok && rn.res.Params["with_replacement"] != 0
}

// measure runs the method and returns the quantity, exactly when it can.
func (rn *runner) measure() (Measurement, error) {
	// E‖∇f‖ (unsquared) is not a function of the first two moments.
	// Nor are the products of norms a path formula may read.
	if rn.in.Quad != nil && rn.m.Affine && rn.c.Quantity.Measure.S != "gradnorm" && rn.c.Quantity.Measure.S != "path" {
		ms, err := rn.exact()
		if err == nil {
			return ms, nil
		}
		if !errors.Is(err, errNotExact) {
			return ms, err
		}
	}
	return rn.monteCarlo()
}

// window returns the weights of the averaging window, by step index.
func (rn *runner) window() (map[int]float64, float64, error) {
	w := map[int]float64{}
	s := 0.0
	if rn.c.Quantity.Over.S == "last" {
		return map[int]float64{rn.res.T: 1}, 1, nil
	}
	for t := rn.res.From; t <= rn.res.To; t++ {
		v := rn.res.weight(t)
		if math.IsNaN(v) || v < 0 {
			return nil, 0, fmt.Errorf("quantity.weight at t = %d is %v: want a non-negative number", t, v)
		}
		w[t] = v
		s += v
	}
	if s <= 0 {
		return nil, 0, fmt.Errorf("quantity.weight sums to %v over [%d, %d]", s, rn.res.From, rn.res.To)
	}
	return w, s, nil
}

// combine turns per-step values (and the averaged iterate's value) into
// the quantity.
func (rn *runner) combine(perT []float64, avgVal float64, w map[int]float64, s float64) float64 {
	switch rn.c.Quantity.Over.S {
	case "last":
		return perT[rn.res.T]
	case "average":
		return avgVal
	case "min":
		m := math.Inf(1)
		for t := range w {
			m = math.Min(m, perT[t])
		}
		return m
	default:
		v := 0.0
		for t := 0; t < len(perT); t++ { // in step order: sums are reproducible
			if wt, ok := w[t]; ok {
				v += wt * perT[t]
			}
		}
		return v / s
	}
}

// exact propagates the mean and second moment of the (augmented) state.
func (rn *runner) exact() (Measurement, error) {
	in := rn.in
	d, n := in.Dim, in.N()
	w, wsum, err := rn.window()
	if err != nil {
		return Measurement{}, err
	}
	ns := rn.m.StateDim(d, n)
	avg := rn.c.Quantity.Over.S == "average"
	na := ns
	if avg {
		na += d
	}
	// P_X: the iterate as a linear map of the state.
	px := mat.NewDense(d, ns, nil)
	for j := 0; j < ns; j++ {
		e := make([]float64, ns)
		e[j] = 1
		x := rn.m.Iterate(e, d, n)
		for i := 0; i < d; i++ {
			px.Set(i, j, x[i])
		}
	}
	s0 := rn.m.Init(in, rn.env(&vecTape{}))
	m := mat.NewVecDense(na, nil)
	for i, v := range s0 {
		m.SetVec(i, v)
	}
	if avg && w[0] > 0 {
		x := rn.m.Iterate(s0, d, n)
		for i := 0; i < d; i++ {
			m.SetVec(ns+i, w[0]*x[i])
		}
	}
	M := mat.NewDense(na, na, nil)
	M.Outer(1, m, m)
	glob := rn.globalQuad()
	perT := make([]float64, rn.res.T+1)
	_, need0 := w[0]
	if need0 {
		perT[0] = rn.quadMeasure(glob, px, m, M, ns)
	}
	g2 := 0.0
	k := 0
	rs := rng.New(rn.seed, "exact", "affinity-check").Rand()
	for t := 0; t < rn.res.T; t++ {
		k = rn.m.Sampled(t, rn.env(nil))
		outs := outcomes(n, k, rn.withRepl())
		if outs == nil {
			return Measurement{}, errNotExact
		}
		nm := mat.NewVecDense(na, nil)
		nM := mat.NewDense(na, na, nil)
		for _, o := range outs {
			A, B, c, calls, err := rn.linearise(t, o.sel, s0, ns, rs)
			if err != nil {
				return Measurement{}, err
			}
			if avg {
				A, B, c = augment(A, B, c, px, w[t+1], ns, d)
			}
			// m' += p(Am + c); M' += p(A M Aᵀ + A m cᵀ + c mᵀ Aᵀ + c cᵀ + B Bᵀ)
			var am mat.VecDense
			am.MulVec(A, m)
			am.AddVec(&am, c)
			nm.AddScaledVec(nm, o.p, &am)
			var t1, t2 mat.Dense
			t1.Mul(A, M)
			t2.Mul(&t1, A.T())
			var amc mat.Dense
			var amv mat.VecDense
			amv.MulVec(A, m)
			amc.Outer(1, &amv, c)
			t2.Add(&t2, &amc)
			t2.Add(&t2, amc.T())
			var cc mat.Dense
			cc.Outer(1, c, c)
			t2.Add(&t2, &cc)
			if B != nil {
				var bb mat.Dense
				bb.Mul(B, B.T())
				t2.Add(&t2, &bb)
			}
			t2.Scale(o.p, &t2)
			nM.Add(nM, &t2)
			if rn.needG2 {
				g2 = math.Max(g2, rn.callsG2(calls, m, M, ns))
			}
		}
		m, M = nm, nM
		if _, ok := w[t+1]; ok && !avg {
			perT[t+1] = rn.quadMeasure(glob, px, m, M, ns)
		}
	}
	avgVal := math.NaN()
	if avg {
		// x̄ = acc / Σw: mean and covariance from the accumulator block.
		mean := make([]float64, d)
		cov := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			mean[i] = m.AtVec(ns+i) / wsum
		}
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				cov.SetSym(i, j, M.At(ns+i, ns+j)/(wsum*wsum)-mean[i]*mean[j])
			}
		}
		avgVal = rn.quadValue(glob, mean, cov)
	}
	v := rn.combine(perT, avgVal, w, wsum)
	return Measurement{Mode: ModeExact, Value: v, Lower: v, Upper: v, G2: g2}, nil
}

// augment appends the accumulator acc' = acc + w·P_X·s' to an affine map.
func augment(A, B *mat.Dense, c *mat.VecDense, px *mat.Dense, w float64, ns, d int) (*mat.Dense, *mat.Dense, *mat.VecDense) {
	na := ns + d
	A2 := mat.NewDense(na, na, nil)
	A2.Slice(0, ns, 0, ns).(*mat.Dense).Copy(A)
	var pa mat.Dense
	pa.Mul(px, A)
	pa.Scale(w, &pa)
	A2.Slice(ns, na, 0, ns).(*mat.Dense).Copy(&pa)
	for i := 0; i < d; i++ {
		A2.Set(ns+i, ns+i, 1)
	}
	var B2 *mat.Dense
	if B != nil {
		_, nz := B.Dims()
		B2 = mat.NewDense(na, nz, nil)
		B2.Slice(0, ns, 0, nz).(*mat.Dense).Copy(B)
		var pb mat.Dense
		pb.Mul(px, B)
		pb.Scale(w, &pb)
		B2.Slice(ns, na, 0, nz).(*mat.Dense).Copy(&pb)
	}
	c2 := mat.NewVecDense(na, nil)
	var pc mat.VecDense
	pc.MulVec(px, c)
	for i := 0; i < ns; i++ {
		c2.SetVec(i, c.AtVec(i))
	}
	for i := 0; i < d; i++ {
		c2.SetVec(ns+i, w*pc.AtVec(i))
	}
	return A2, B2, c2
}

// call is one recorded oracle call: client and the affine map of its
// input x = P·[s; z] + q.
type call struct {
	client int
	P      *mat.Dense
	q      []float64
}

// linearise recovers the affine map s' = A s + B z + c of one step for a
// sampling outcome by evaluating it at 0 and at basis vectors, then checks
// affinity at a random point; a non-affine step returns errNotExact.
func (rn *runner) linearise(t int, sel []int, s0 []float64, ns int, rs *rand.Rand) (*mat.Dense, *mat.Dense, *mat.VecDense, []call, error) {
	type rec struct {
		client int
		x      []float64
	}
	eval := func(s, z []float64) ([]float64, int, []rec) {
		tape := &vecTape{v: z}
		var rs []rec
		e := rn.env(tape)
		if rn.needG2 {
			e.rec = func(i int, x []float64) { rs = append(rs, rec{i, append([]float64(nil), x...)}) }
		}
		out := rn.m.Step(t, s, sel, e)
		return out, tape.i, rs
	}
	zeroS := make([]float64, ns)
	c0, nz, r0 := eval(zeroS, nil)
	A := mat.NewDense(ns, ns, nil)
	nin := ns + nz
	var calls []call
	if rn.needG2 {
		for _, r := range r0 {
			calls = append(calls, call{client: r.client, P: mat.NewDense(len(r.x), nin, nil), q: r.x})
		}
	}
	setCalls := func(col int, rs []rec) {
		for k, r := range rs {
			for i := range r.x {
				calls[k].P.Set(i, col, r.x[i]-calls[k].q[i])
			}
		}
	}
	for j := 0; j < ns; j++ {
		e := make([]float64, ns)
		e[j] = 1
		out, _, rs := eval(e, nil)
		for i := 0; i < ns; i++ {
			A.Set(i, j, out[i]-c0[i])
		}
		if rn.needG2 {
			setCalls(j, rs)
		}
	}
	var B *mat.Dense
	if nz > 0 {
		B = mat.NewDense(ns, nz, nil)
		for k := 0; k < nz; k++ {
			z := make([]float64, nz)
			z[k] = 1
			out, _, rs := eval(zeroS, z)
			for i := 0; i < ns; i++ {
				B.Set(i, k, out[i]-c0[i])
			}
			if rn.needG2 {
				setCalls(ns+k, rs)
			}
		}
	}
	// affinity check at a random point scaled like the start
	sc := math.Sqrt(dot(s0, s0)/float64(ns)) + 1
	u := make([]float64, ns)
	for i := range u {
		u[i] = sc * rs.NormFloat64()
	}
	z := make([]float64, nz)
	for i := range z {
		z[i] = rs.NormFloat64()
	}
	got, _, _ := eval(u, z)
	for i := 0; i < ns; i++ {
		want := c0[i]
		for j := 0; j < ns; j++ {
			want += A.At(i, j) * u[j]
		}
		for k := 0; k < nz; k++ {
			want += B.At(i, k) * z[k]
		}
		if !(math.Abs(got[i]-want) <= 1e-8*(math.Abs(want)+sc)) {
			return nil, nil, nil, nil, errNotExact
		}
	}
	return A, B, mat.NewVecDense(ns, c0), calls, nil
}

// callsG2 is max over calls of E‖∇f_i(x) + ξ‖² = ‖∇f_i(E x)‖² +
// tr(A_i Cov(x) A_i) + σ_i², with x = P[s; z] + q, Cov[s; z] =
// blockdiag(Cov s, I).
func (rn *runner) callsG2(calls []call, m *mat.VecDense, M *mat.Dense, ns int) float64 {
	best := 0.0
	for _, c := range calls {
		d, nin := c.P.Dims()
		mu := make([]float64, nin)
		for i := 0; i < ns; i++ {
			mu[i] = m.AtVec(i)
		}
		cov := mat.NewDense(nin, nin, nil)
		for i := 0; i < ns; i++ {
			for j := 0; j < ns; j++ {
				cov.Set(i, j, M.At(i, j)-m.AtVec(i)*m.AtVec(j))
			}
		}
		for k := ns; k < nin; k++ {
			cov.Set(k, k, 1)
		}
		var mx mat.VecDense
		mx.MulVec(c.P, mat.NewVecDense(nin, mu))
		x := make([]float64, d)
		for i := range x {
			x[i] = mx.AtVec(i) + c.q[i]
		}
		var pc, cx mat.Dense
		pc.Mul(c.P, cov)
		cx.Mul(&pc, c.P.T())
		q := rn.in.Quad[c.client]
		g := make([]float64, d)
		q.Grad(x, g)
		var ac, aca mat.Dense
		ac.Mul(q.A, &cx)
		aca.Mul(&ac, q.A)
		v := dot(g, g) + mat.Trace(&aca) + rn.in.Sigma2[c.client]
		best = math.Max(best, v)
	}
	return best
}

// globalQuad is the global quadratic (1/N)Σ f_i.
func (rn *runner) globalQuad() *QuadObj {
	d := rn.in.Dim
	a := mat.NewSymDense(d, nil)
	b := make([]float64, d)
	k := 0.0
	n := float64(len(rn.in.Quad))
	for _, q := range rn.in.Quad {
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				a.SetSym(i, j, a.At(i, j)+q.A.At(i, j)/n)
			}
			b[i] += q.B[i] / n
		}
		k += q.K / n
	}
	return newQuad(a, b, k)
}

// quadMeasure is the measure at x = P_X s with s's moments (m, M).
func (rn *runner) quadMeasure(g *QuadObj, px *mat.Dense, m *mat.VecDense, M *mat.Dense, ns int) float64 {
	d, _ := px.Dims()
	ms := mat.NewVecDense(ns, nil)
	for i := 0; i < ns; i++ {
		ms.SetVec(i, m.AtVec(i))
	}
	cs := mat.NewDense(ns, ns, nil)
	for i := 0; i < ns; i++ {
		for j := 0; j < ns; j++ {
			cs.Set(i, j, M.At(i, j)-m.AtVec(i)*m.AtVec(j))
		}
	}
	var mx mat.VecDense
	mx.MulVec(px, ms)
	var pc, cx mat.Dense
	pc.Mul(px, cs)
	cx.Mul(&pc, px.T())
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			cov.SetSym(i, j, (cx.At(i, j)+cx.At(j, i))/2)
		}
	}
	return rn.quadValue(g, mx.RawVector().Data, cov)
}

// quadValue is E[measure] for x with mean and covariance on the global
// quadratic: gap f(m) + ½tr(A Σ) − f*, dist ‖m − x*‖² + tr Σ, grad
// ‖Am − b‖² + tr(A Σ A).
func (rn *runner) quadValue(g *QuadObj, mean []float64, cov *mat.SymDense) float64 {
	switch rn.c.Quantity.Measure.S {
	case "gap":
		var ac mat.Dense
		ac.Mul(g.A, cov)
		return g.Value(mean) + 0.5*mat.Trace(&ac) - rn.in.FStar
	case "dist":
		return dist2(mean, rn.in.XStar) + mat.Trace(cov)
	default:
		gr := make([]float64, len(mean))
		g.Grad(mean, gr)
		var ac, aca mat.Dense
		ac.Mul(g.A, cov)
		aca.Mul(&ac, g.A)
		return dot(gr, gr) + mat.Trace(&aca)
	}
}

// monteCarlo runs replicates (one when nothing is random).
func (rn *runner) monteCarlo() (Measurement, error) {
	in := rn.in
	d, n := in.Dim, in.N()
	w, wsum, err := rn.window()
	if err != nil {
		return Measurement{}, err
	}
	type runOut struct {
		perT []float64
		avg  float64
		g2   []float64
	}
	one := func(rep int) (runOut, bool) {
		random := false
		selR := rng.New(rn.seed, "mc", rep, "select").Rand()
		tape := &countTape{r: rng.New(rn.seed, "mc", rep, "noise").Rand()}
		st := rn.m.Init(in, rn.env(&vecTape{}))
		perT := make([]float64, rn.res.T+1)
		x := rn.m.Iterate(st, d, n)
		if _, ok := w[0]; ok {
			perT[0] = rn.measureStep(0, x, nil)
		}
		acc := make([]float64, d)
		if rn.c.Quantity.Over.S == "average" {
			for i := range acc {
				acc[i] += w[0] * x[i]
			}
		}
		var g2 []float64
		for t := 0; t < rn.res.T; t++ {
			k := rn.m.Sampled(t, rn.env(nil))
			var sel []int
			if k == 0 {
				sel = all(n)
			} else {
				random = true
				sel = sampleSel(n, k, rn.withRepl(), selR)
			}
			e := rn.env(tape)
			if rn.needG2 {
				gi := make([]float64, d)
				e.rec = func(i int, x []float64) {
					in.Clients[i].Grad(x, gi)
					g2 = append(g2, dot(gi, gi)+in.Sigma2[i])
				}
			}
			st = rn.m.Step(t, st, sel, e)
			if tape.n > 0 {
				random = true
			}
			prev := x
			x = append([]float64(nil), rn.m.Iterate(st, d, n)...)
			for _, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return runOut{}, random
				}
			}
			if _, ok := w[t+1]; ok && rn.c.Quantity.Over.S != "average" {
				perT[t+1] = rn.measureStep(t+1, x, prev)
			}
			if wt := w[t+1]; rn.c.Quantity.Over.S == "average" && wt > 0 {
				for i := range acc {
					acc[i] += wt * x[i]
				}
			}
		}
		avg := math.NaN()
		if rn.c.Quantity.Over.S == "average" {
			for i := range acc {
				acc[i] /= wsum
			}
			avg = rn.measureAt(acc)
		}
		return runOut{perT, avg, g2}, random
	}
	first, random := one(0)
	if first.perT == nil {
		return Measurement{}, fmt.Errorf("the iterates diverge to a non-finite value")
	}
	if !random {
		v := rn.combine(first.perT, first.avg, w, wsum)
		return Measurement{Mode: ModeDeterministic, Value: v, Lower: v, Upper: v, G2: maxOf(first.g2)}, nil
	}
	reps := max(rn.mc, 2)
	outs := []runOut{first}
	for r := 1; r < reps; r++ {
		o, _ := one(r)
		if o.perT == nil {
			return Measurement{}, fmt.Errorf("the iterates diverge to a non-finite value")
		}
		outs = append(outs, o)
	}
	// per-step means and standard errors
	T := rn.res.T
	mean := make([]float64, T+1)
	se := make([]float64, T+1)
	for t := 0; t <= T; t++ {
		var s, s2 float64
		for _, o := range outs {
			s += o.perT[t]
			s2 += o.perT[t] * o.perT[t]
		}
		mu := s / float64(reps)
		mean[t] = mu
		se[t] = math.Sqrt(math.Max(0, s2/float64(reps)-mu*mu) / float64(reps-1))
	}
	z := zQuantile(0.001 / 2)
	var v, lo, hi float64
	scalar := func(vals []float64) (float64, float64) {
		var s, s2 float64
		for _, x := range vals {
			s += x
			s2 += x * x
		}
		mu := s / float64(len(vals))
		return mu, math.Sqrt(math.Max(0, s2/float64(len(vals))-mu*mu) / float64(len(vals)-1))
	}
	switch rn.c.Quantity.Over.S {
	case "last":
		v, lo, hi = mean[T], mean[T]-z*se[T], mean[T]+z*se[T]
	case "average", "mean":
		vals := make([]float64, reps)
		for i, o := range outs {
			if rn.c.Quantity.Over.S == "average" {
				vals[i] = o.avg
			} else {
				vals[i] = rn.combine(o.perT, 0, w, wsum)
			}
		}
		mu, s := scalar(vals)
		v, lo, hi = mu, mu-z*s, mu+z*s
	case "min":
		// every step's mean must exceed the bound: Bonferroni over the window
		zb := zQuantile(0.001 / 2 / float64(len(w)))
		v, lo, hi = math.Inf(1), math.Inf(1), math.Inf(1)
		for t := range w {
			v = math.Min(v, mean[t])
			lo = math.Min(lo, mean[t]-zb*se[t])
			hi = math.Min(hi, mean[t]+zb*se[t])
		}
	}
	// G2: per call index, the mean over replicates of E[‖g‖² | x].
	g2 := 0.0
	if rn.needG2 {
		nc := len(outs[0].g2)
		for k := 0; k < nc; k++ {
			s := 0.0
			cnt := 0
			for _, o := range outs {
				if k < len(o.g2) {
					s += o.g2[k]
					cnt++
				}
			}
			g2 = math.Max(g2, s/float64(cnt))
		}
	}
	return Measurement{Mode: ModeMonteCarlo, Value: v, Lower: lo, Upper: hi, G2: g2, Runs: reps}, nil
}

type countTape struct {
	r *rand.Rand
	n int
}

func (t *countTape) Next() float64 { t.n++; return t.r.NormFloat64() }

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// zQuantile is the upper p-quantile of the standard normal.
func zQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(1-2*p) }
