package convergence

import (
	"gonum.org/v1/gonum/mat"
	"math"
	"sort"
)

// Method is one registered algorithm in oracle form. A step maps the
// state (a flat vector) to the next state, calling the clients' gradient
// oracles through an Env; Iterate extracts the model the quantity is
// measured at (linear in the state). A step may sample clients: Sampled
// says how many (0: no sampling at this step).
type Method struct {
	Name     string
	Summary  string
	Params   []string
	Required []string
	// Affine is false when the step is not affine in (state, noise) even
	// on quadratics (clipping, normalisation); the engine then never tries
	// exact moments. It still verifies affinity when true.
	Affine   bool
	StateDim func(d, n int) int
	Init     func(in *Instance, e *Env) []float64
	Iterate  func(st []float64, d, n int) []float64
	// Sampled is the number of clients sampled at step t (0: none).
	Sampled func(t int, e *Env) int
	Step    func(t int, st []float64, sel []int, e *Env) []float64
	// Groups, when set, is the number of component functions per client:
	// the instance's objectives are read as clients of that many
	// consecutive components, and the instance gains the symbols
	// GroupNames (Δ^inf at client level, …).
	Groups func(e *Env) int
}

// Env gives a step the instance, its parameters and the noise tape.
type Env struct {
	In   *Instance
	R    *Resolved
	Tape Tape
	// rec, when set, records every oracle call's input (client, x).
	rec func(i int, x []float64)
}

// Tape supplies standard normal draws.
type Tape interface{ Next() float64 }

// P is a parameter at step t (round r); def when the claim omits it.
func (e *Env) P(name string, t, r int, def float64) float64 {
	if _, ok := e.R.Params[name]; !ok {
		if _, ok := e.R.StepParams[name]; !ok {
			return def
		}
	}
	return e.R.stepParam(name, t, r)
}

// N is the number of clients of the instance.
func (e *Env) N() int { return e.In.N() }

// Grad writes client i's stochastic gradient at x into g:
// ∇f_i(x) + (σ_i/√d)·z, z ~ N(0, I_d) from the tape.
func (e *Env) Grad(i int, x, g []float64) {
	if e.rec != nil {
		e.rec(i, x)
	}
	e.In.Clients[i].Grad(x, g)
	s := e.In.Sigma2[i]
	if s > 0 {
		sd := math.Sqrt(s / float64(len(x)))
		for j := range g {
			g[j] += sd * e.Tape.Next()
		}
	}
}

// localSGD runs E local steps of client i from x with step sizes lr(t),
// t = r·E + k, plus the extra gradient term extra(y, g) (proximal or
// control-variate corrections); it returns the final local model.
func localRun(e *Env, i int, x []float64, r, E int, extra func(y, g []float64)) []float64 {
	y := append([]float64(nil), x...)
	g := make([]float64, len(x))
	for k := 0; k < E; k++ {
		lr := e.P("lr", r*E+k, r, math.NaN())
		e.Grad(i, y, g)
		if extra != nil {
			extra(y, g)
		}
		for j := range y {
			y[j] -= lr * g[j]
		}
	}
	return y
}

func intP(e *Env, name string, def int) int {
	v := e.P(name, 0, 0, float64(def))
	if v != math.Trunc(v) || v < 0 {
		return def
	}
	return int(v)
}

func roundSampled(t int, e *Env) int {
	k := intP(e, "K", e.N())
	if k >= e.N() && e.P("with_replacement", 0, 0, 0) == 0 {
		return 0
	}
	return k
}

func copyInit(in *Instance, _ *Env) []float64 { return append([]float64(nil), in.X0...) }
func first(st []float64, d, _ int) []float64  { return st[:d] }
func all(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Methods is the registry.
var Methods = map[string]*Method{
	"gd": {
		Name: "gd", Summary: "gradient descent (SGD with noise): x ← x − lr·(1/N)Σ g_i(x)",
		Params: []string{"lr"}, Required: []string{"lr"}, Affine: true,
		StateDim: func(d, n int) int { return d }, Init: copyInit, Iterate: first,
		Sampled: func(int, *Env) int { return 0 },
		Step: func(t int, st []float64, _ []int, e *Env) []float64 {
			d := len(st)
			g := make([]float64, d)
			acc := make([]float64, d)
			for i := 0; i < e.N(); i++ {
				e.Grad(i, st, g)
				for j := range acc {
					acc[j] += g[j] / float64(e.N())
				}
			}
			lr := e.P("lr", t, t, math.NaN())
			out := make([]float64, d)
			for j := range out {
				out[j] = st[j] - lr*acc[j]
			}
			return out
		},
	},
	"local-sgd": {
		Name: "local-sgd", Summary: "local SGD, one engine step per local step, averaging after step t when (t + 1 + offset) mod H = 0; measured at the virtual average",
		Params: []string{"lr", "H", "offset"}, Required: []string{"lr", "H"}, Affine: true,
		StateDim: func(d, n int) int { return n * d },
		Init: func(in *Instance, _ *Env) []float64 {
			var s []float64
			for i := 0; i < in.N(); i++ {
				s = append(s, in.X0...)
			}
			return s
		},
		Iterate: func(st []float64, d, n int) []float64 {
			m := make([]float64, d)
			for i := 0; i < n; i++ {
				for j := 0; j < d; j++ {
					m[j] += st[i*d+j] / float64(n)
				}
			}
			return m
		},
		Sampled: func(int, *Env) int { return 0 },
		Step: func(t int, st []float64, _ []int, e *Env) []float64 {
			n := e.N()
			d := len(st) / n
			H := intP(e, "H", 1)
			lr := e.P("lr", t, t/max(H, 1), math.NaN())
			out := make([]float64, len(st))
			g := make([]float64, d)
			for i := 0; i < n; i++ {
				e.Grad(i, st[i*d:(i+1)*d], g)
				for j := 0; j < d; j++ {
					out[i*d+j] = st[i*d+j] - lr*g[j]
				}
			}
			if (t+1+intP(e, "offset", 0))%max(H, 1) == 0 {
				m := make([]float64, d)
				for i := 0; i < n; i++ {
					for j := 0; j < d; j++ {
						m[j] += out[i*d+j] / float64(n)
					}
				}
				for i := 0; i < n; i++ {
					copy(out[i*d:(i+1)*d], m)
				}
			}
			return out
		},
	},
	"fedavg": {
		Name: "fedavg", Summary: "FedAvg: K of N clients (uniform without replacement, or with_replacement: 1), E local SGD steps of lr(t = r·E + k), server step glr·mean Δ",
		Params: []string{"lr", "E", "K", "glr", "with_replacement"}, Required: []string{"lr", "E"}, Affine: true,
		StateDim: func(d, n int) int { return d }, Init: copyInit, Iterate: first, Sampled: roundSampled,
		Step: func(r int, st []float64, sel []int, e *Env) []float64 {
			return fedRound(r, st, sel, e, nil)
		},
	},
	"fedprox": {
		Name: "fedprox", Summary: "FedProx: FedAvg whose local steps minimise f_i(y) + (prox/2)‖y − x‖² (E gradient steps, or exact_prox: 1 for the exact minimiser on quadratic clients)",
		Params: []string{"lr", "E", "K", "glr", "prox", "with_replacement", "exact_prox"}, Required: []string{"prox"}, Affine: true,
		StateDim: func(d, n int) int { return d }, Init: copyInit, Iterate: first, Sampled: roundSampled,
		Step: func(r int, st []float64, sel []int, e *Env) []float64 {
			mu := e.P("prox", 0, r, 0)
			if e.P("exact_prox", 0, r, 0) != 0 && e.In.Quad != nil {
				nx := make([]float64, len(st))
				for _, i := range sel {
					y := exactProx(e.In.Quad[i], st, mu)
					for j := range nx {
						nx[j] += y[j] / float64(len(sel))
					}
				}
				return nx
			}
			return fedRound(r, st, sel, e, func(_ int, x, y, g []float64) {
				for j := range g {
					g[j] += mu * (y[j] - x[j])
				}
			})
		},
	},
	"fedavgm": {
		Name: "fedavgm", Summary: "FedAvgM: FedAvg with server heavy-ball momentum v ← beta·v + mean Δ, x ← x + glr·v",
		Params: []string{"lr", "E", "K", "glr", "beta", "with_replacement"}, Required: []string{"lr", "E", "beta"}, Affine: true,
		StateDim: func(d, n int) int { return 2 * d },
		Init: func(in *Instance, _ *Env) []float64 {
			return append(append([]float64(nil), in.X0...), make([]float64, in.Dim)...)
		},
		Iterate: first, Sampled: roundSampled,
		Step: func(r int, st []float64, sel []int, e *Env) []float64 {
			d := len(st) / 2
			x := st[:d]
			mean := meanDelta(r, x, sel, e, nil)
			b, glr := e.P("beta", 0, r, 0), e.P("glr", 0, r, 1)
			out := make([]float64, 2*d)
			for j := 0; j < d; j++ {
				v := b*st[d+j] + mean[j]
				out[d+j] = v
				out[j] = x[j] + glr*v
			}
			return out
		},
	},
	"scaffold": {
		Name: "scaffold", Summary: "SCAFFOLD (Karimireddy et al. 2020, option II control variates): local steps y ← y − lr(g_i(y) − c_i + c)",
		Params: []string{"lr", "E", "K", "glr"}, Required: []string{"lr", "E"}, Affine: true,
		StateDim: func(d, n int) int { return (2 + n) * d },
		Init: func(in *Instance, _ *Env) []float64 {
			return append(append([]float64(nil), in.X0...), make([]float64, (1+in.N())*in.Dim)...)
		},
		Iterate: first, Sampled: roundSampled,
		Step: func(r int, st []float64, sel []int, e *Env) []float64 {
			n := e.N()
			d := len(st) / (2 + n)
			x, c := st[:d], st[d:2*d]
			ci := func(i int) []float64 { return st[(2+i)*d : (3+i)*d] }
			E := intP(e, "E", 1)
			out := append([]float64(nil), st...)
			dx := make([]float64, d)
			dc := make([]float64, d)
			for _, i := range sel {
				cc := ci(i)
				y := localRun(e, i, x, r, E, func(_, g []float64) {
					for j := range g {
						g[j] += c[j] - cc[j]
					}
				})
				lr := e.P("lr", r*E, r, math.NaN())
				for j := 0; j < d; j++ {
					nc := cc[j] - c[j] + (x[j]-y[j])/(float64(E)*lr)
					dx[j] += (y[j] - x[j]) / float64(len(sel))
					dc[j] += (nc - cc[j]) / float64(n)
					out[(2+i)*d+j] = nc
				}
			}
			glr := e.P("glr", 0, r, 1)
			for j := 0; j < d; j++ {
				out[j] = x[j] + glr*dx[j]
				out[d+j] = c[j] + dc[j]
			}
			return out
		},
	},
	"feddyn": {
		Name: "feddyn", Summary: "FedDyn (Acar et al. 2021, Alg. 1): local E steps on f_i(y) − ⟨λ_i, y⟩ + (alpha/2)‖y − x‖²; λ_i ← λ_i − alpha(y_i − x); h ← h − alpha·(1/N)Σ(y_i − x); x ← mean y_i − h/alpha",
		Params: []string{"lr", "E", "K", "alpha"}, Required: []string{"lr", "E", "alpha"}, Affine: true,
		StateDim: func(d, n int) int { return (2 + n) * d },
		Init: func(in *Instance, _ *Env) []float64 {
			return append(append([]float64(nil), in.X0...), make([]float64, (1+in.N())*in.Dim)...)
		},
		Iterate: first, Sampled: roundSampled,
		Step: func(r int, st []float64, sel []int, e *Env) []float64 {
			n := e.N()
			d := len(st) / (2 + n)
			x, h := st[:d], st[d:2*d]
			a := e.P("alpha", 0, r, math.NaN())
			E := intP(e, "E", 1)
			out := append([]float64(nil), st...)
			ym := make([]float64, d)
			for _, i := range sel {
				li := st[(2+i)*d : (3+i)*d]
				y := localRun(e, i, x, r, E, func(y, g []float64) {
					for j := range g {
						g[j] += -li[j] + a*(y[j]-x[j])
					}
				})
				for j := 0; j < d; j++ {
					out[(2+i)*d+j] = li[j] - a*(y[j]-x[j])
					out[d+j] -= a * (y[j] - x[j]) / float64(n)
					ym[j] += y[j] / float64(len(sel))
				}
			}
			for j := 0; j < d; j++ {
				out[j] = ym[j] - out[d+j]/a
			}
			_ = h
			return out
		},
	},
	"upcycled": {
		Name: "upcycled", Summary: "Upcycled-FL: data rounds are FedProx rounds (prox, default 0 = FedAvg; exact_prox: 1 solves each client's proximal problem exactly on quadratic clients), the other rounds the data-free extrapolation x ← x + c·(x − x_prev); start: 1 begins with an extrapolation, delta0 sets x_prev = x⁰ − delta0·(x⁰ − x*)",
		Params: []string{"lr", "E", "K", "prox", "c", "with_replacement", "exact_prox", "start", "delta0"}, Required: []string{"c"}, Affine: true,
		StateDim: func(d, n int) int { return 2 * d },
		Init: func(in *Instance, e *Env) []float64 {
			s := append([]float64(nil), in.X0...)
			d0 := e.P("delta0", 0, 0, 0)
			for j := range in.X0 {
				s = append(s, in.X0[j]-d0*(in.X0[j]-in.XStar[j]))
			}
			return s
		},
		Iterate: first,
		Sampled: func(t int, e *Env) int {
			if upExtrapolates(t, e) {
				return 0
			}
			return roundSampled(t, e)
		},
		Step: func(t int, st []float64, sel []int, e *Env) []float64 {
			d := len(st) / 2
			x, xp := st[:d], st[d:]
			out := make([]float64, 2*d)
			copy(out[d:], x)
			if upExtrapolates(t, e) {
				c := e.P("c", 0, t, 0)
				for j := 0; j < d; j++ {
					out[j] = x[j] + c*(x[j]-xp[j])
				}
				return out
			}
			mu := e.P("prox", 0, t, 0)
			var nx []float64
			if e.P("exact_prox", 0, t, 0) != 0 && e.In.Quad != nil {
				nx = make([]float64, d)
				for _, i := range sel {
					y := exactProx(e.In.Quad[i], x, mu)
					for j := range nx {
						nx[j] += y[j] / float64(len(sel))
					}
				}
			} else {
				nx = fedRound(t/2, x, sel, e, func(_ int, x, y, g []float64) {
					for j := range g {
						g[j] += mu * (y[j] - x[j])
					}
				})
			}
			copy(out[:d], nx)
			return out
		},
	},
	"fedddpm": {
		Name: "fedddpm", Summary: "FedDDPM (Algorithm 1 on a generic objective): K of N clients (uniform without replacement) run E local SGD steps of lr, the server averages the updates, then takes S steps of slr on an unbiased auxiliary gradient ∇f(w) + noise of the clients' variance (Assumption 4)",
		Params: []string{"lr", "E", "K", "slr", "S"}, Required: []string{"lr", "E", "slr", "S"}, Affine: true,
		StateDim: func(d, n int) int { return d }, Init: copyInit, Iterate: first, Sampled: roundSampled,
		Step: func(r int, st []float64, sel []int, e *Env) []float64 {
			w := fedRound(r, st, sel, e, nil)
			S := intP(e, "S", 0)
			d := len(w)
			g := make([]float64, d)
			sig := maxOf(e.In.Sigma2)
			for k := 0; k < S; k++ {
				e.In.GradF(w, g)
				eta := e.P("slr", r*S+k, r, math.NaN())
				sd := math.Sqrt(sig / float64(d))
				for j := range w {
					noise := 0.0
					if sig > 0 {
						noise = sd * e.Tape.Next()
					}
					w[j] -= eta * (g[j] + noise)
				}
			}
			return w
		},
	},
	"dp-sgd": {
		Name: "dp-sgd", Summary: "DP-SGD over clients as examples: K sampled, gradients clipped to clip, Gaussian noise z·clip added to the sum, divided by K",
		Params: []string{"lr", "K", "clip", "z", "with_replacement"}, Required: []string{"lr", "clip", "z"}, Affine: false,
		StateDim: func(d, n int) int { return d }, Init: copyInit, Iterate: first, Sampled: roundSampled,
		Step: func(t int, st []float64, sel []int, e *Env) []float64 {
			d := len(st)
			C, z := e.P("clip", 0, t, math.NaN()), e.P("z", 0, t, 0)
			sum := make([]float64, d)
			g := make([]float64, d)
			for _, i := range sel {
				e.Grad(i, st, g)
				s := 1.0
				if n := math.Sqrt(dot(g, g)); n > C {
					s = C / n
				}
				for j := range sum {
					sum[j] += s * g[j]
				}
			}
			lr := e.P("lr", t, t, math.NaN())
			out := make([]float64, d)
			for j := range out {
				out[j] = st[j] - lr*(sum[j]+z*C*e.Tape.Next())/float64(len(sel))
			}
			return out
		},
	},
	"normec": normecMethod("normec", "Fed-α-NormEC (Algorithm 1, full participation): local operator of T_local GD steps of gamma/T_local, smoothed normalisation Norm_α, error feedback beta, normalised server step eta; v_i⁰ = (x⁰ − T_i(x⁰))/γ + (R0, 0, …)",
		[]string{"gamma", "T_local", "alpha", "beta", "eta", "R0"}, nil, normecUpdate),
	"normec-ig": normecMethod("normec-ig", "Fed-α-NormEC with local cyclic incremental-gradient steps (§5.3, App. D eq. (3)): the instance's objectives are read as clients of `components` consecutive components f_{i,j}; T_i(x) is one pass x_i^{j+1} = x_i^j − (gamma/components)∇f_{i,j}(x_i^j), j = 0, …, components − 1, in order; then as normec",
		[]string{"gamma", "components", "alpha", "beta", "eta", "R0"}, func(e *Env) int { return intP(e, "components", 1) }, normecIGUpdate),
}

// normecUpdate is (x − T_i(x))/γ for T_local GD steps of size γ/T_local:
// the average of the local gradients.
func normecUpdate(e *Env, i int, x []float64) []float64 {
	gam := e.P("gamma", 0, 0, math.NaN())
	tl := intP(e, "T_local", 1)
	y := append([]float64(nil), x...)
	g := make([]float64, len(x))
	avg := make([]float64, len(x))
	for k := 0; k < tl; k++ {
		e.Grad(i, y, g)
		for j := range y {
			avg[j] += g[j] / float64(tl)
			y[j] -= gam / float64(tl) * g[j]
		}
	}
	return avg
}

// meanDelta is the mean over sel of the local updates y_i − x.
func meanDelta(r int, x []float64, sel []int, e *Env, extra func(i int, x, y, g []float64)) []float64 {
	E := intP(e, "E", 1)
	mean := make([]float64, len(x))
	for _, i := range sel {
		var ex func(y, g []float64)
		if extra != nil {
			ex = func(y, g []float64) { extra(i, x, y, g) }
		}
		y := localRun(e, i, x, r, E, ex)
		for j := range mean {
			mean[j] += (y[j] - x[j]) / float64(len(sel))
		}
	}
	return mean
}

func fedRound(r int, x []float64, sel []int, e *Env, extra func(i int, x, y, g []float64)) []float64 {
	mean := meanDelta(r, x, sel, e, extra)
	glr := e.P("glr", 0, r, 1)
	out := make([]float64, len(x))
	for j := range out {
		out[j] = x[j] + glr*mean[j]
	}
	return out
}

// MethodNames lists the registry, sorted.
func MethodNames() []string {
	var out []string
	for k := range Methods {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// upExtrapolates reports whether engine step t of Upcycled-FL is the
// data-free extrapolation (odd steps; even ones with start: 1).
func upExtrapolates(t int, e *Env) bool {
	return (t+intP(e, "start", 0))%2 == 1
}

// exactProx solves argmin_y f(y) + (μ/2)‖y − x‖² = (A + μI)⁻¹(b + μx)
// for a quadratic client (linear in x, so the step stays affine).
func exactProx(q *QuadObj, x []float64, mu float64) []float64 {
	d := len(x)
	a := mat.NewSymDense(d, nil)
	a.CopySym(q.A)
	rhs := make([]float64, d)
	for i := 0; i < d; i++ {
		a.SetSym(i, i, a.At(i, i)+mu)
		rhs[i] = q.B[i] + mu*x[i]
	}
	var ch mat.Cholesky
	out := make([]float64, d)
	if !ch.Factorize(a) {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	v := mat.NewVecDense(d, nil)
	if ch.SolveVecTo(v, mat.NewVecDense(d, rhs)) != nil {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	copy(out, v.RawVector().Data)
	return out
}

// normecMethod is Fed-α-NormEC (Shulgin et al. 2025, Algorithm 1) with
// full participation and no DP noise, for a local operator given as the
// update u_i(x) = (x − T_i(x))/γ. With groups == nil every objective of
// the instance is a client (M = n); otherwise client i holds the c =
// groups(e) consecutive objectives i·c, …, i·c + c − 1 and M = n/c (the
// state keeps n client slots; the last n − M stay zero). One engine step
// is one round k:
//
//	v_i^{k+1} = v_i^k + β·Norm_α(u_i(x^k) − v_i^k),  Norm_α(y) = y/(α + ‖y‖),
//	v^{k+1}   = (1/M)Σ_i v_i^{k+1},                 x^{k+1} = x^k − η·v^{k+1}/‖v^{k+1}‖,
//
// with v_i⁰ = u_i(x⁰) + (R0, 0, …, 0), so R = max_i ‖v_i⁰ − u_i(x⁰)‖ = R0.
func normecMethod(name, summary string, params []string, groups func(*Env) int, update func(e *Env, i int, x []float64) []float64) *Method {
	clients := func(e *Env) int {
		if groups == nil {
			return e.N()
		}
		c := groups(e)
		if c < 1 || e.N()%c != 0 {
			return 0 // the claim's constraint must require N % components == 0
		}
		return e.N() / c
	}
	return &Method{
		Name: name, Summary: summary,
		Params: params, Required: []string{"gamma", "alpha", "beta", "eta"}, Affine: false, Groups: groups,
		StateDim: func(d, n int) int { return (2 + n) * d },
		Init: func(in *Instance, e *Env) []float64 {
			d, n := in.Dim, in.N()
			st := make([]float64, (2+n)*d)
			copy(st, in.X0)
			m := clients(e)
			if m == 0 {
				for j := range st {
					st[j] = math.NaN()
				}
				return st
			}
			r0 := e.P("R0", 0, 0, 0)
			for i := 0; i < m; i++ {
				u := update(e, i, in.X0)
				u[0] += r0
				copy(st[(2+i)*d:], u)
				for j := 0; j < d; j++ {
					st[d+j] += u[j] / float64(m)
				}
			}
			return st
		},
		Iterate: first, Sampled: func(int, *Env) int { return 0 },
		Step: func(t int, st []float64, _ []int, e *Env) []float64 {
			n := e.N()
			d := len(st) / (2 + n)
			m := clients(e)
			x := st[:d]
			al, be, eta := e.P("alpha", 0, t, 0), e.P("beta", 0, t, 0), e.P("eta", 0, t, 0)
			out := append([]float64(nil), st...)
			for i := 0; i < m; i++ {
				u := update(e, i, x)
				v := st[(2+i)*d : (3+i)*d]
				diff := sub(u, v)
				nd := math.Sqrt(dot(diff, diff))
				for j := 0; j < d; j++ {
					dl := diff[j] / (al + nd)
					out[(2+i)*d+j] = v[j] + be*dl
					out[d+j] += be * dl / float64(m)
				}
			}
			vh := out[d : 2*d]
			nv := math.Sqrt(dot(vh, vh))
			if nv > 0 {
				for j := 0; j < d; j++ {
					out[j] = x[j] - eta*vh[j]/nv
				}
			}
			return out
		},
	}
}

// normecIGUpdate is (x − T_i^IG(x))/γ for one cyclic incremental-gradient
// pass over client i's c components in their fixed order (Shulgin et al.
// 2025, §5.3 and App. D eq. (3)): x_i^0 = x, x_i^{j+1} = x_i^j −
// (γ/c)∇f_{i,j}(x_i^j) for j = 0, …, c − 1 (the paper's T = N: one pass
// over the local data set), T_i^IG(x) = x − (γ/c)Σ_j ∇f_{i,j}(x_i^j), so the
// update is the mean of the gradients met along the pass.
func normecIGUpdate(e *Env, i int, x []float64) []float64 {
	gam := e.P("gamma", 0, 0, math.NaN())
	c := intP(e, "components", 1)
	y := append([]float64(nil), x...)
	g := make([]float64, len(x))
	avg := make([]float64, len(x))
	for j := 0; j < c; j++ {
		e.Grad(i*c+j, y, g)
		for k := range y {
			avg[k] += g[k] / float64(c)
			y[k] -= gam / float64(c) * g[k]
		}
	}
	return avg
}
