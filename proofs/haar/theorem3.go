package haar

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	hwt "github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
	"gonum.org/v1/gonum/mat"
)

func init() {
	// Algebra: a sweep (proofs/sweep) of the printed coefficient functions
	// (14)–(16), transcribed in t3; no project implementation is run.
	registerAlgebra("theorem3-coefficients", "Theorem 3, eqs. (14)–(16)",
		"Δ_t = 1 − μη_t ∈ [0,1) for 0 < μη_t ≤ 1; c_t and B_t are non-negative and grow with η_t; at t = t_c+1 the drift sums are empty, so c_t = Mη_t²B_2²/(2K) and the B_t term vanishes.",
		checkTheorem3Coefficients)
	register("theorem3-recursion", "Theorem 3, eq. (13), with (14)–(16); Assumptions 1–3",
		"Under bounded dissimilarity (B_1, B_2), M-smoothness and μ-PL, DP-FedAvg-WAV (and, with K = 1, DP-SGD-WAV) satisfies E[L(θ_{t+1})] − L* ≤ Δ_t·E[L(θ_t) − L*] + c_t + (η_t/2)[−1 + λMη_t(B_1+K)/K]·‖Σ_k p_k∇L̂_k‖² + B_t·Σ_{j=t_c+1}^{t−1} η_j²‖Σ_k p_k∇L̂_k‖², with ∇L̂_k the noisy local gradient (noise variance ((2+log2 m)/2)σ_Haar²).",
		checkTheorem3Recursion)
	// Algebra: compares the printed constants (15)–(16) with the appendix's
	// steps (29), (36), (44)–(45), all transcribed here, at random numbers.
	registerAlgebra("theorem3-constants", "Theorem 3 proof, eqs. (28)–(29), (36), (44)–(48)",
		"The constants of (14)–(16) follow from the appendix: (45) combines (29)×η_t²M/2, (36) and (44) into c_t and B_t.",
		checkTheorem3Constants)
}

// t3 holds the printed coefficient functions of Theorem 3.
type t3 struct {
	M, mu, B1, B2sq float64
	K               float64 // number of (sampled) clients
	N               float64 // local iterations |N|
}

func (c t3) delta(eta float64) float64 { return 1 - c.mu*eta } // (14)

// ct is (15); past = Σ_{j=t_c+1}^{t−1} η_j².
func (c t3) ct(eta, past float64) float64 {
	return eta * c.M * c.B2sq / c.K * (eta/2 + c.M*(c.K+1)/c.K*past)
}

// bt is (16).
func (c t3) bt(lambda, eta float64) float64 {
	return lambda * (c.K + 1) * eta * c.M * c.M / (c.K * c.K) * (c.B1 + c.N)
}

// gradCoef is the coefficient (η/2)[−1 + λMη(B_1+K)/K] of the gradient term.
func (c t3) gradCoef(lambda, eta float64) float64 {
	return eta / 2 * (-1 + lambda*c.M*eta*(c.B1+c.K)/c.K)
}

// theorem3Case checks one draw of the coefficient claim: μ, M = κμ, B_1,
// B_2, λ, μη = frac, the past drift sum, K and N. It returns why the draw
// fails, "" if Δ_t ∈ [0,1), c_t, B_t ≥ 0 and non-decreasing in η_t, and
// c_t at t = t_c+1 equals Mη²B_2²/(2K) to 1e-12.
func theorem3Case(mu, kappa, b1, b2, lambda, frac, past float64, k, n int) string {
	c := t3{M: mu * kappa, mu: mu, B1: b1, B2sq: b2 * b2, K: float64(k), N: float64(n)}
	eta := frac / mu // μη = frac ∈ (0,1]
	if d := c.delta(eta); !(d >= 0 && d < 1) {
		return fmt.Sprintf("Δ = %g outside [0,1)", d)
	}
	e2 := eta * 1.1
	if c.ct(eta, past) < 0 || c.bt(lambda, eta) < 0 {
		return "negative c_t or B_t"
	}
	if c.ct(e2, past) < c.ct(eta, past) || c.bt(lambda, e2) < c.bt(lambda, eta) {
		return "c_t or B_t decreases in η"
	}
	if want := c.M * eta * eta * c.B2sq / (2 * c.K); math.Abs(c.ct(eta, 0)-want) > 1e-12*math.Max(1, want) {
		return fmt.Sprintf("c_t at t_c+1 = %g, want %g", c.ct(eta, 0), want)
	}
	return ""
}

func checkTheorem3Coefficients(cfg proofs.Config) proofs.Result {
	st, tests := sweepOf(cfg, "theorem3-coefficients", 500, 100)
	out := sweep.Run(st, tests, func(c *sweep.Case) string {
		return theorem3Case(c.Float64Range(0.01, 10), c.Float64Range(1, 100), c.Float64Range(0, 10), c.Float64Range(0, 10),
			c.Float64Range(1, 20), c.Float64Range(1e-3, 1), c.Float64Range(0, 5), c.IntRange(1, 100), c.IntRange(1, 100))
	})
	vals := map[string]any{"tests": tests}
	if out.OK() {
		return proofs.Result{Verdict: proofs.Holds, Values: vals,
			Evidence: fmt.Sprintf("%d random (μ, M/μ, B_1, B_2, λ, μη ∈ (0,1], K, N), sweep stream %s: Δ_t ∈ [0,1), c_t, B_t ≥ 0 and non-decreasing in η_t, c_t = Mη²B_2²/(2K) with empty drift sums", tests, out.Stream)}
	}
	return proofs.Result{Verdict: proofs.Refuted, Values: vals, Evidence: out.String()}
}

// federation is a set of client quadratics with the constants of
// Assumptions 1–3 computed exactly (M, μ) or as valid bounds (B_1, B_2).
type federation struct {
	name      string
	clients   []*quad.Quadratic
	global    *quad.Quadratic
	thetaStar []float64
	lstar     float64
	c         t3
}

// sharedQ builds L_k(θ) = ½(θ−a_k)ᵀQ(θ−a_k): ∇L_k − ∇L = Q(ā − a_k) is
// constant, so B_1 = 0 and B_2² = K·Σ_k‖Q(ā−a_k)‖² exactly (Assumption 1
// with equality).
func sharedQ(r *rand.Rand, name string, k, d int, mu, mMax, spread float64) *federation {
	eigs := make([]float64, d)
	for i := range eigs {
		eigs[i] = mu + (mMax-mu)*r.Float64()
	}
	eigs[0], eigs[d-1] = mu, mMax
	q := quad.RandomSymmetric(r, eigs)
	centre := make([]float64, d)
	for i := range centre {
		centre[i] = r.NormFloat64()
	}
	clients := make([]*quad.Quadratic, k)
	abar := make([]float64, d) // θ* = ā, also when Q is singular
	for c := range clients {
		a := make([]float64, d)
		for i := range a {
			a[i] = centre[i] + spread*r.NormFloat64()
			abar[i] += a[i] / float64(k)
		}
		b := make([]float64, d)
		var kk float64
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				b[i] += q.At(i, j) * a[j]
			}
			kk += 0.5 * a[i] * b[i]
		}
		cl, err := quad.New(q, b, kk)
		if err != nil {
			panic(err)
		}
		clients[c] = cl
	}
	f := finish(name, clients, abar)
	// Assumption 1 with equality: the dissimilarity is the same at every θ.
	f.c.B1 = 0
	f.c.B2sq = float64(k) * dissimilarity(f, f.thetaStar)
	return f
}

// heterogeneous builds clients with different Hessians (quad.Random): then
// Σ_k‖∇L_k−∇L‖² = Σ_k‖D_k u + r_k‖² with u = θ−θ*, D_k = A_k − Ā and
// r_k = A_kθ* − b_k, and ‖a+b‖² ≤ 2‖a‖²+2‖b‖² gives the valid constants
// B_1 = 2·λ_max(Ā⁻¹(Σ_k D_k²)Ā⁻¹), B_2² = 2K·Σ_k‖r_k‖².
func heterogeneous(r *rand.Rand, name string, k, d int, mu, mMax, spread float64) *federation {
	fed, err := quad.Random(r, quad.Spec{Clients: k, Dim: d, MinEig: mu, MaxEig: mMax, Spread: spread})
	if err != nil {
		panic(err)
	}
	f := finish(name, fed.Clients, nil)
	abar := f.global.A
	var inv mat.Dense
	if err := inv.Inverse(abar); err != nil {
		panic(err)
	}
	s := mat.NewDense(d, d, nil)
	var rsq float64
	g := make([]float64, d)
	for _, cl := range f.clients {
		var dk mat.Dense
		dk.Sub(cl.A, abar)
		var d2 mat.Dense
		d2.Mul(&dk, &dk)
		s.Add(s, &d2)
		cl.Grad(f.thetaStar, g)
		for _, v := range g {
			rsq += v * v
		}
	}
	var t1, t2 mat.Dense
	t1.Mul(&inv, s)
	t2.Mul(&t1, &inv)
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, (t2.At(i, j)+t2.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, false) {
		panic("eigendecomposition failed")
	}
	ev := es.Values(nil)
	f.c.B1 = 2 * ev[len(ev)-1]
	f.c.B2sq = 2 * float64(k) * rsq
	return f
}

// finish computes the global objective and constants; thetaStar may be
// given (a minimiser of a singular global objective), else it is solved.
func finish(name string, clients []*quad.Quadratic, thetaStar []float64) *federation {
	fed := quad.Uniform(clients)
	g := fed.Global()
	ts := thetaStar
	if ts == nil {
		var err error
		if ts, err = g.Minimizer(); err != nil {
			panic(err)
		}
	}
	return &federation{name: name, clients: clients, global: g, thetaStar: ts, lstar: g.Value(ts),
		c: t3{M: fed.Smoothness(), mu: g.MinEig(), K: float64(len(clients)), N: 1}}
}

// dissimilarity is Σ_k‖∇L_k(θ) − ∇L(θ)‖².
func dissimilarity(f *federation, theta []float64) float64 {
	d := len(theta)
	g := make([]float64, d)
	gk := make([]float64, d)
	f.global.Grad(theta, g)
	var s float64
	for _, cl := range f.clients {
		cl.Grad(theta, gk)
		for i := range g {
			s += (gk[i] - g[i]) * (gk[i] - g[i])
		}
	}
	return s
}

// step is one evaluation of (13) at a state of the virtual sequence.
type step struct {
	lhs, rhs             float64
	lambda               float64
	gradNormSq, trSigma  float64
	gap                  float64 // L(θ_t) − L*
	assumptionsOK        bool
	regime               bool // μη < 1 and λMη(B_1+K)/K < 1 (the paper's convergence regime)
	noiseVarPerCoordMean float64
}

// evalStep evaluates both sides of (13) exactly, in expectation over the
// current step's noise ξ ~ N(0, Σ) shared by all clients (so ∇L̂_k =
// ∇L_k(θ_t^k) + ξ and Σ_k p_k∇L̂_k = ḡ + ξ, the noisy aggregate of eq. 23):
//
//	E L(θ_t − η(ḡ+ξ)) − L* = L(θ_t − ηḡ) − L* + (η²/2)·tr(ĀΣ)
//	E‖ḡ+ξ‖²               = ‖ḡ‖² + tr Σ
//
// λ is the weighted gradient diversity (30) — the larger of its noiseless
// value and its value in expectation — maximised with lambdaFloor (the
// diversity over earlier steps of the round). hist = Σ_{j=t_c+1}^{t−1}
// η_j²·E‖ĝ_j‖² and past = Σ_{j=t_c+1}^{t−1} η_j².
func evalStep(f *federation, locals [][]float64, eta float64, sigma *mat.SymDense, lambdaFloor, hist, past float64) step {
	d := len(f.thetaStar)
	k := len(f.clients)
	theta := make([]float64, d)
	gbar := make([]float64, d)
	gk := make([]float64, d)
	var sumSq float64
	for c, cl := range f.clients {
		cl.Grad(locals[c], gk)
		for i := range gk {
			theta[i] += locals[c][i] / float64(k)
			gbar[i] += gk[i] / float64(k)
			sumSq += gk[i] * gk[i] / float64(k)
		}
	}
	var gn float64
	for _, v := range gbar {
		gn += v * v
	}
	var tr, trA float64
	if sigma != nil {
		for i := 0; i < d; i++ {
			tr += sigma.At(i, i)
			for j := 0; j < d; j++ {
				trA += f.global.A.At(i, j) * sigma.At(i, j)
			}
		}
	}
	next := make([]float64, d)
	for i := range next {
		next[i] = theta[i] - eta*gbar[i]
	}
	lhs := f.global.Value(next) - f.lstar + eta*eta/2*trA
	lambda := math.Max(sumSq/gn, (sumSq+tr)/(gn+tr))
	lambda = math.Max(lambda, lambdaFloor)
	gap := f.global.Value(theta) - f.lstar
	c := f.c
	rhs := c.delta(eta)*gap + c.ct(eta, past) + c.gradCoef(lambda, eta)*(gn+tr) + c.bt(lambda, eta)*hist
	return step{lhs: lhs, rhs: rhs, lambda: lambda, gradNormSq: gn, trSigma: tr, gap: gap,
		assumptionsOK:        c.mu > 1e-9 && eta > 0,
		regime:               c.mu*eta < 1 && lambda*c.M*eta*(c.B1+c.K)/c.K < 1,
		noiseVarPerCoordMean: tr / float64(d)}
}

// noiseModel returns the covariance of the per-step gradient noise for
// noise multiplier z on an aggregate of K clients clipped at C: "wav" is
// the true covariance of HWT⁻¹(ν), ν_j ~ N(0, (σ_Haar·C/K/W_j)²) with
// σ_Haar = SigmaHaar(z, m); "paper" is eq. (23)'s isotropic
// N(0, ((2+log2 m)/2)σ_Haar²(C/K)²) = N(0, (zC/K)²).
func noiseModel(kind string, d int, z, c float64, k int) *mat.SymDense {
	m := hwt.PaddedLen(d)
	sh := hwt.SigmaHaar(z, m) * c / float64(k)
	switch kind {
	case "wav":
		return hwt.NoiseCovariance(d, sh)
	case "paper":
		v := paperBound(m) * sh * sh
		s := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			s.SetSym(i, i, v)
		}
		return s
	}
	panic("unknown noise model " + kind)
}

func checkTheorem3Recursion(cfg proofs.Config) proofs.Result {
	const d = 64
	r := rng.Stream(cfg.Seed, "haar/theorem3-recursion", "federations")
	feds := []*federation{
		sharedQ(r, "dpsgd-wav K=1", 1, d, 0.5, 4, 0),
		sharedQ(r, "shared-Q K=10", 10, d, 0.5, 4, 0.5),
		sharedQ(r, "shared-Q K=10 near-iid", 10, d, 0.5, 4, 0.02),
		heterogeneous(r, "heterogeneous K=10", 10, d, 0.5, 4, 0.5),
		// Assumption 3 fails: λ_min = 0, no PL inequality (reported, not
		// counted).
		sharedQ(r, "no PL (λ_min = 0) K=1", 1, d, 0, 4, 0),
	}
	zs := []float64{1, 1.5, 3}
	type caseRow = map[string]any
	var rows []caseRow
	violations, regimeViolations, negativeRHS, outsideViolations := 0, 0, 0, 0
	var firstViolation string
	noiseless := 0
	noiselessViol := 0
	for fi, f := range feds {
		eta := 0.5 / f.c.M
		start := make([]float64, d)
		rs := rng.Stream(cfg.Seed, "haar/theorem3-recursion", "start", fi)
		for i := range start {
			start[i] = f.thetaStar[i] + rs.NormFloat64()
		}
		locals := make([][]float64, len(f.clients))
		for c := range locals {
			locals[c] = start
		}
		// Clip bound: the largest client gradient norm, so clipping is
		// inactive and the update is exactly the one the theorem analyses.
		cn := 0.0
		g := make([]float64, d)
		for _, cl := range f.clients {
			cl.Grad(start, g)
			cn = math.Max(cn, math.Sqrt(dot(g, g)))
		}
		for _, kind := range []string{"wav", "paper"} {
			for _, z := range zs {
				sig := noiseModel(kind, d, z, cn, len(f.clients))
				s := evalStep(f, locals, eta, sig, 0, 0, 0)
				row := caseRow{"federation": f.name, "noise": kind, "z": z, "eta": round(eta, 6),
					"lhs": round(s.lhs, 8), "rhs": round(s.rhs, 8), "slack": round(s.rhs-s.lhs, 8),
					"lambda": round(s.lambda, 6), "mu_eta": round(f.c.mu*eta, 6), "in_paper_regime": s.regime,
					"B1": round(f.c.B1, 6), "B2_sq": round(f.c.B2sq, 6), "M": round(f.c.M, 6), "mu": round(f.c.mu, 6),
					"clip": round(cn, 6), "tr_sigma": round(s.trSigma, 6), "assumptions_hold": s.assumptionsOK,
					"violated": s.lhs > s.rhs*(1+1e-9)+1e-12}
				rows = append(rows, row)
				if s.rhs < 0 && s.assumptionsOK {
					negativeRHS++
				}
				if s.lhs > s.rhs*(1+1e-9)+1e-12 && !s.assumptionsOK {
					outsideViolations++
				}
				if s.lhs > s.rhs*(1+1e-9)+1e-12 && s.assumptionsOK {
					violations++
					if s.regime {
						regimeViolations++
					}
					if firstViolation == "" {
						firstViolation = fmt.Sprintf("%s, %s noise, z=%g, η=0.5/M: E[L(θ_{t+1})]−L* = %.5g > RHS %.5g (L(θ_t)−L* = %.4g, ‖ḡ‖² = %.4g, tr Σ = %.4g, λ = %.4g, μη = %.3g, λMη(B_1+K)/K = %.3g)",
							f.name, kind, z, s.lhs, s.rhs, s.gap, s.gradNormSq, s.trSigma, s.lambda, f.c.mu*eta, s.lambda*f.c.M*eta*(f.c.B1+f.c.K)/f.c.K)
					}
				}
			}
		}
		// The same state without noise: (13) must hold at every step of a
		// round of N = 4 local steps (client drift, t = t_c … t_c+3).
		fc := *f
		fc.c.N = 4
		loc := make([][]float64, len(f.clients))
		for c := range loc {
			loc[c] = append([]float64(nil), start...)
		}
		var hist, past, lam float64
		for t := 0; t < 4; t++ {
			s := evalStep(&fc, loc, eta, nil, lam, hist, past)
			if s.assumptionsOK {
				noiseless++
				if s.lhs > s.rhs*(1+1e-9)+1e-12 {
					noiselessViol++
				}
			}
			lam = s.lambda
			if t >= 1 { // the sums run over j = t_c+1 … t−1
				hist += eta * eta * s.gradNormSq
				past += eta * eta
			}
			for c, cl := range fc.clients {
				cl.Grad(loc[c], g)
				for i := range g {
					loc[c][i] -= eta * g[i]
				}
			}
		}
	}

	// Monte-Carlo cross-check of the exact expectation for one case.
	mc := theorem3MonteCarlo(cfg, feds[1], d)

	vals := map[string]any{"cases": rows, "violations": violations, "violations_in_paper_regime": regimeViolations, "negative_rhs_cases": negativeRHS,
		"violations_where_assumptions_fail": outsideViolations, "noiseless_steps_checked": noiseless, "noiseless_violations": noiselessViol, "monte_carlo": mc.values}
	ev := fmt.Sprintf("%d of %d noisy one-step cases (federations × {true WAV covariance, eq. (23)'s isotropic noise} × z ∈ {1,1.5,3}, clip C = max client gradient norm, noise std zC/K) violate (13) (%d inside the paper's regime μη < 1, λMη(B_1+K)/K < 1; in %d the RHS is negative although the LHS is an expected excess loss ≥ 0); strongly heterogeneous federations pass only because c_t ∝ B_2² is large; noise-free rounds of N = 4 local steps: %d/%d steps violate. Where Assumption 3 fails (λ_min = 0, no PL; not counted) %d of 6 noisy cases violate. Monte Carlo (%d draws) agrees with the exact expectation: %v",
		violations, len(rows)-6, regimeViolations, negativeRHS, noiselessViol, noiseless, outsideViolations, mc.draws, mc.ok)
	switch {
	case !mc.ok:
		return proofs.Result{Verdict: proofs.Inconclusive, Values: vals, Evidence: "Monte Carlo disagrees with the exact expectation; " + ev}
	case violations > 0:
		return proofs.Result{Verdict: proofs.Refuted, Values: vals,
			Evidence: "counterexample: " + firstViolation + ". " + ev + ". All assumptions hold exactly (quadratics: M, μ, B_1, B_2 computed). The proof drops the noise: (31)–(35) expand −η⟨∇L, ĝ⟩ with the noisy ĝ, so the noise enters the RHS only through −(η/2)(1−λMη(B_1+K)/K)·tr Σ (with a negative sign) while the LHS grows by (η²/2)·tr(ĀΣ); the RHS even decreases as σ grows"}
	default:
		return proofs.Result{Verdict: proofs.Holds, Values: vals, Evidence: ev}
	}
}

type mcResult struct {
	ok     bool
	draws  int
	values map[string]any
}

// theorem3MonteCarlo estimates E[L(θ − η(ḡ+ξ))] − L* and E‖ḡ+ξ‖² by
// sampling ξ = HWT⁻¹(ν) through the actual noise mechanism, and compares
// them with the exact expectations evalStep uses (5 standard errors).
func theorem3MonteCarlo(cfg proofs.Config, f *federation, d int) mcResult {
	draws := 10000
	if cfg.Quick {
		draws = 2000
	}
	r := rng.Stream(cfg.Seed, "haar/theorem3-recursion", "mc")
	start := make([]float64, d)
	rs := rng.Stream(cfg.Seed, "haar/theorem3-recursion", "start", 1)
	for i := range start {
		start[i] = f.thetaStar[i] + rs.NormFloat64()
	}
	eta := 0.5 / f.c.M
	gbar := make([]float64, d)
	g := make([]float64, d)
	cn := 0.0
	for _, cl := range f.clients {
		cl.Grad(start, g)
		cn = math.Max(cn, math.Sqrt(dot(g, g)))
		for i := range g {
			gbar[i] += g[i] / float64(len(f.clients))
		}
	}
	scale := hwt.SigmaHaar(1, hwt.PaddedLen(d)) * cn / float64(len(f.clients))
	xi := make([]float64, d)
	scr := make([]float64, hwt.ScratchLen(d))
	next := make([]float64, d)
	var s1, s2, n1, n2 float64
	for i := 0; i < draws; i++ {
		hwt.ReconstructedNoiseInto(xi, r, scale, scr)
		var nn float64
		for j := range next {
			gj := gbar[j] + xi[j]
			next[j] = start[j] - eta*gj
			nn += gj * gj
		}
		v := f.global.Value(next) - f.lstar
		s1 += v
		s2 += v * v
		n1 += nn
		n2 += nn * nn
	}
	nd := float64(draws)
	mean, nmean := s1/nd, n1/nd
	se := math.Sqrt(math.Max(s2/nd-mean*mean, 0) / nd)
	nse := math.Sqrt(math.Max(n2/nd-nmean*nmean, 0) / nd)
	locals := make([][]float64, len(f.clients))
	for c := range locals {
		locals[c] = start
	}
	ex := evalStep(f, locals, eta, noiseModel("wav", d, 1, cn, len(f.clients)), 0, 0, 0)
	exactNorm := ex.gradNormSq + ex.trSigma
	ok := math.Abs(mean-ex.lhs) <= 5*se && math.Abs(nmean-exactNorm) <= 5*nse
	return mcResult{ok: ok, draws: draws, values: map[string]any{
		"federation": f.name, "z": 1.0, "draws": draws,
		"lhs_mc": round(mean, 8), "lhs_mc_se": round(se, 4), "lhs_exact": round(ex.lhs, 8),
		"norm_sq_mc": round(nmean, 8), "norm_sq_se": round(nse, 4), "norm_sq_exact": round(exactNorm, 8)}}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func checkTheorem3Constants(cfg proofs.Config) proofs.Result {
	// Each printed step as a function of the same inputs; compare what the
	// appendix derives with what (15)–(16) state.
	r := rng.Stream(cfg.Seed, "haar/theorem3-constants")
	type mismatch struct {
		name                   string
		derived, printed, diff float64
	}
	var worst = map[string]mismatch{}
	trials := 1000
	for i := 0; i < trials; i++ {
		eta := 0.01 + r.Float64()
		m := 0.1 + 10*r.Float64()
		b1 := 5 * r.Float64()
		b2 := 0.1 + 5*r.Float64()
		lambda := 1 + 5*r.Float64()
		k := float64(2 + r.IntN(99))
		n := float64(1 + r.IntN(50))
		c := t3{M: m, B1: b1, B2sq: b2 * b2, K: k, N: n}
		checks := []mismatch{
			// (45)'s B_2 term vs c_t's at t = t_c+1: Mη²B_2/(2K) vs Mη²B_2²/(2K).
			{name: "c_t noise-free term: (45) has B_2, (15) has B_2²", derived: m * eta * eta * b2 / (2 * k), printed: c.ct(eta, 0)},
			// (29)×η²M/2 gives η²Mλ(B_1+K)/(2K²); the theorem has η²Mλ(B_1+K)/(2K).
			{name: "gradient term: (29)×η²M/2 gives (B_1+K)/K², (13) has (B_1+K)/K", derived: eta * eta * m * lambda * (b1 + k) / (2 * k * k), printed: c.gradCoef(lambda, eta) + eta/2},
			// (36)×(44): (ηM²/2)·2((K+1)/K)λ(B_1+N) vs B_t = λ(K+1)ηM²(B_1+N)/K².
			{name: "B_t: (36)×(44) gives λ(K+1)ηM²(B_1+N)/K, (16) has /K²", derived: eta * m * m * (k + 1) / k * lambda * (b1 + n), printed: c.bt(lambda, eta)},
		}
		for _, x := range checks {
			x.diff = math.Abs(x.derived-x.printed) / math.Max(math.Abs(x.derived), math.Abs(x.printed))
			if x.diff > worst[x.name].diff {
				worst[x.name] = x
			}
		}
	}
	vals := map[string]any{"trials": trials}
	var bad []string
	rel := map[string]any{}
	for _, name := range sortedKeys(worst) {
		x := worst[name]
		rel[name] = round(x.diff, 6)
		if x.diff > 1e-9 {
			bad = append(bad, fmt.Sprintf("%s (worst relative gap %.3g: derived %.4g vs printed %.4g)", name, x.diff, x.derived, x.printed))
		}
	}
	vals["max_relative_gap"] = rel
	if len(bad) == 0 {
		return proofs.Result{Verdict: proofs.Holds, Values: vals, Evidence: "the printed constants match the appendix steps"}
	}
	return proofs.Result{Verdict: proofs.Refuted, Values: vals,
		Evidence: fmt.Sprintf("over %d random (η, M, B_1, B_2, λ, K ≥ 2, N) the appendix steps do not produce the stated constants: %s. The (29) slip makes the theorem looser (×K), the B_t slip tighter (÷K) than its own proof supports", trials, strings.Join(bad, "; "))}
}
