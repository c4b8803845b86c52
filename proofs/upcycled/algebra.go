package upcycled

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	up "github.com/fedrepro/fedrepro/algorithms/upcycled"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
	"gonum.org/v1/gonum/mat"
)

func init() {
	register("eq5-eq6-closed-form", "§4, Example 4.2, Eqs. (5)–(6)",
		"The minimiser of (5), argmin_ω μ(ω̄^{2m−2} − ω_i^{2m−1})ᵀω + (λ_m/2)‖ω − ω_i^{2m−1}‖² + (μ/2)‖ω − ω̄^{2m−1}‖², is ω_i^{2m−1} + μ/(μ+λ_m)·(ω̄^{2m−1} − ω̄^{2m−2}) (Eq. 6).",
		checkEq6)
	register("eq4-exact-odd-step", "§4, Eqs. (3)–(4)",
		"With an exact odd (FedProx) step, the first-order condition (4) ∇F_i(ω_i^{2m−1}) + μ(ω_i^{2m−1} − ω̄^{2m−2}) = 0 holds, so (6) equals the exact minimiser of the even objective of (3) that uses the true gradient.",
		checkEq4)
	register("even-aggregation-identity", "§4 (aggregation after Eq. 6); Algorithm 1 line 6",
		"Aggregating the even local models gives Σ_i p_i(ω_i^{2m−1} + cΔ) = ω̄^{2m−1} + cΔ with Δ = ω̄^{2m−1} − ω̄^{2m−2}, so the even step is a server-only extrapolation (upcycled.EvenStep).",
		checkAggregation)
	register("spec7-01-coefficient", "§4 Eq. (6) vs Algorithm 1 line 6 (spec §7 item 1)",
		"The even-step coefficient is μ/(μ+λ_m) (Eq. 6, proof of Lemma B.1); Algorithm 1 prints λ_m/2.",
		checkCoefficient)
}

// eq5Grad is the gradient of objective (5) at ω.
func eq5Grad(w, wi, barPrev, barOdd []float64, mu, lambda float64, g []float64) {
	for j := range w {
		g[j] = mu*(barPrev[j]-wi[j]) + lambda*(w[j]-wi[j]) + mu*(w[j]-barOdd[j])
	}
}

// solveAffineZero solves grad(ω) = 0 for an affine gradient map by probing
// it (H e_j = grad(e_j) − grad(0)) and an LU solve: an implementation of the
// first-order condition that does not use the closed form being tested. It
// also returns the smallest eigenvalue of the symmetrised H (> 0: a minimum).
func solveAffineZero(n int, grad func(w, g []float64)) ([]float64, float64, error) {
	zero := make([]float64, n)
	g0 := make([]float64, n)
	grad(zero, g0)
	h := mat.NewDense(n, n, nil)
	e := make([]float64, n)
	g := make([]float64, n)
	for j := 0; j < n; j++ {
		e[j] = 1
		grad(e, g)
		e[j] = 0
		for i := 0; i < n; i++ {
			h.Set(i, j, g[i]-g0[i])
		}
	}
	rhs := mat.NewVecDense(n, nil)
	for i := range g0 {
		rhs.SetVec(i, -g0[i])
	}
	var x mat.VecDense
	if err := x.SolveVec(h, rhs); err != nil {
		return nil, 0, err
	}
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (h.At(i, j)+h.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, false) {
		return nil, 0, fmt.Errorf("eigendecomposition failed")
	}
	return x.RawVector().Data, es.Values(nil)[0], nil
}

// randVec draws n entries N(0, scale²).
func randVec(r *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * r.NormFloat64()
	}
	return v
}

// eq6Case checks one draw of the eq5-eq6 claim: dimension n, μ = e^logMu,
// λ, and s seeding the vectors (scale e^{2Z}). It returns the largest
// relative coordinate error of (6) against the argmin of (5) found by LU,
// the smallest Hessian eigenvalue over μ+λ, and why the draw fails ("" if
// it holds: every error ≤ 1e-12 and the Hessian positive definite).
func eq6Case(n int, logMu, lambda float64, s uint64) (worst, minEig float64, fail string) {
	r := rng.Stream(s, "eq6")
	mu := math.Exp(logMu)
	scale := math.Exp(2 * r.NormFloat64())
	wi, barPrev, barOdd := randVec(r, n, scale), randVec(r, n, scale), randVec(r, n, scale)
	got, eig, err := solveAffineZero(n, func(w, g []float64) { eq5Grad(w, wi, barPrev, barOdd, mu, lambda, g) })
	if err != nil {
		return 0, math.Inf(1), "solve: " + err.Error()
	}
	minEig = eig / (mu + lambda)
	c := up.CoefTheory(mu, lambda)
	var inf float64
	for j := 0; j < n; j++ {
		inf = math.Max(inf, math.Max(math.Abs(wi[j]), math.Max(math.Abs(barPrev[j]), math.Abs(barOdd[j]))))
	}
	for j := 0; j < n; j++ {
		want := wi[j] + c*(barOdd[j]-barPrev[j])
		e := math.Abs(got[j]-want) / math.Max(1, inf)
		worst = math.Max(worst, e)
		if e > 1e-12 {
			return worst, minEig, fmt.Sprintf("n=%d μ=%g λ=%g coordinate %d: argmin %g vs (6) %g", n, mu, lambda, j, got[j], want)
		}
	}
	if eig <= 0 {
		return worst, minEig, fmt.Sprintf("Hessian of (5) not positive definite (min eig %g)", eig)
	}
	return worst, minEig, ""
}

func checkEq6(cfg proofs.Config) proofs.Result {
	st, n := sweepOf(cfg, "eq5-eq6-closed-form", 400, 100)
	worst, minEig := 0.0, math.Inf(1)
	out := sweep.Run(st, n, func(c *sweep.Case) string {
		w, e, fail := eq6Case(c.IntRange(1, 40), c.Float64Range(math.Log(1e-3), math.Log(1e3)), c.Float64Range(0, 100), c.Uint64())
		worst, minEig = math.Max(worst, w), math.Min(minEig, e)
		return fail
	})
	res := proofs.Result{Values: map[string]any{"tests": n,
		"max_rel_error": num(worst), "min_hessian_eig_over_mu_plus_lambda": num(minEig)}}
	if !out.OK() {
		res.Verdict = proofs.Refuted
		res.Evidence = "closed form (6) differs from the argmin of (5): " + out.String()
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("%d random cases (dimension 1..40, μ ∈ [1e-3, 1e3], λ ∈ [0, 100], vector scales e^{2Z}; sweep stream %s): the first-order condition of (5), probed as an affine map and solved by LU, gives (6) to max relative error %.2g ≤ 1e-12; the Hessian is (μ+λ)I (min eigenvalue/(μ+λ) = %.6f), so it is the unique minimiser. Given (5), the '≈' in (6) is an equality; the approximation is in (2) and in substituting (4).",
		n, out.Stream, worst, minEig)
	return res
}

func checkEq4(cfg proofs.Config) proofs.Result {
	cases := 60
	if cfg.Quick {
		cases = 20
	}
	r := rng.Stream(cfg.Seed, paper, "eq4")
	var worstFOC, worstEven, minInexact float64
	minInexact = math.Inf(1)
	for k := 0; k < cases; k++ {
		dim := 1 + r.IntN(12)
		fed, err := quad.Random(r, quad.Spec{Clients: 2 + r.IntN(8), Dim: dim, MinEig: 0.05 + r.Float64(), MaxEig: 2 + 8*r.Float64(), Spread: 2 * r.Float64()})
		if err != nil {
			return inconclusive("quad.Random: %v", err)
		}
		mu := math.Exp(r.Float64()*4 - 2)
		lambda := 5 * r.Float64()
		c := up.CoefTheory(mu, lambda)
		barPrev := randVec(r, dim, 1)
		// Odd step 2m−1: every client's exact prox from ω̄^{2m−2}.
		locals := make([][]float64, len(fed.Clients))
		barOdd := make([]float64, dim)
		for i, q := range fed.Clients {
			w, err := q.Prox(barPrev, mu)
			if err != nil {
				return inconclusive("prox: %v", err)
			}
			locals[i] = w
			for j := range w {
				barOdd[j] += fed.Weights[i] * w[j]
			}
		}
		g := make([]float64, dim)
		for i, q := range fed.Clients {
			wi := locals[i]
			q.Grad(wi, g)
			foc := make([]float64, dim)
			for j := range g {
				foc[j] = g[j] + mu*(wi[j]-barPrev[j])
			}
			worstFOC = math.Max(worstFOC, norm(foc)/math.Max(1, norm(g)))
			// Exact even step of (3): ∇F_i(ω_i)ᵀω + λ/2‖ω−ω_i‖² + μ/2‖ω−ω̄^{2m−1}‖².
			for j := range g {
				exact := (lambda*wi[j] + mu*barOdd[j] - g[j]) / (lambda + mu)
				eq6 := wi[j] + c*(barOdd[j]-barPrev[j])
				worstEven = math.Max(worstEven, math.Abs(exact-eq6)/math.Max(1, math.Abs(exact)))
			}
			// Inexact odd step: one gradient step on the prox objective
			// from ω̄^{2m−2} instead of the exact prox.
			approx := make([]float64, dim)
			q.Grad(barPrev, g)
			step := 1 / (q.Smoothness() + mu)
			for j := range approx {
				approx[j] = barPrev[j] - step*g[j]
			}
			q.Grad(approx, g)
			var gap float64
			for j := range g {
				exact := (lambda*approx[j] + mu*barOdd[j] - g[j]) / (lambda + mu)
				eq6 := approx[j] + c*(barOdd[j]-barPrev[j])
				gap = math.Max(gap, math.Abs(exact-eq6))
			}
			if norm(sub(wi, approx)) > 1e-6 {
				minInexact = math.Min(minInexact, gap/norm(sub(wi, approx)))
			}
		}
	}
	res := proofs.Result{Values: map[string]any{"cases": cases, "max_rel_foc_residual": num(worstFOC),
		"max_rel_gap_exact_even_vs_eq6": num(worstEven), "min_gap_over_distance_inexact": num(minInexact)}}
	if worstFOC > 1e-10 || worstEven > 1e-10 {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("exact prox on quadratic clients: FOC residual %.3g, even-step gap %.3g (> 1e-10)", worstFOC, worstEven)
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("%d random quadratic federations with exact prox odd steps: (4) holds to relative residual %.2g and (6) equals the exact minimiser of (3)'s even objective to %.2g. With an inexact odd step (one gradient step) the gap is nonzero (≥ %.3g × the distance to the exact prox), so (6) relies on exact odd steps, as the paper says.",
		cases, worstFOC, worstEven, minInexact)
	return res
}

// aggregationCase checks one draw of the even-aggregation identity: K = k
// clients with Dirichlet(1) weights, dimension n, coefficient c, and s
// seeding the vectors. It returns the largest relative errors of
// Σp_i(ω_i + cΔ) against ω̄ + cΔ and of upcycled.EvenStep against the
// former, and why the draw fails ("" if both are ≤ 1e-12).
func aggregationCase(k, n int, c float64, s uint64) (worst, worstServer float64, fail string) {
	r := rng.Stream(s, "agg")
	p := make([]float64, k)
	var tot float64
	for i := range p {
		p[i] = r.ExpFloat64() // Dirichlet(1,…,1) after normalising
		tot += p[i]
	}
	for i := range p {
		p[i] /= tot
	}
	scale := math.Exp(r.NormFloat64())
	locals := make([][]float64, k)
	bar := make([]float64, n)
	for i := range locals {
		locals[i] = randVec(r, n, scale)
		for j := range bar {
			bar[j] += p[i] * locals[i][j]
		}
	}
	prev := randVec(r, n, scale)
	lhs := make([]float64, n)
	for i := range locals {
		for j := range lhs {
			lhs[j] += p[i] * (locals[i][j] + c*(bar[j]-prev[j]))
		}
	}
	s2 := &fl.Server{Global: append([]float64(nil), bar...), Prev: append([]float64(nil), prev...)}
	up.EvenStep(s2, nil, c)
	for j := range lhs {
		rhs := bar[j] + c*(bar[j]-prev[j])
		e := math.Abs(lhs[j]-rhs) / math.Max(1, math.Abs(rhs))
		es := math.Abs(s2.Global[j]-lhs[j]) / math.Max(1, math.Abs(rhs))
		worst = math.Max(worst, e)
		worstServer = math.Max(worstServer, es)
		if e > 1e-12 || es > 1e-12 {
			return worst, worstServer, fmt.Sprintf("K=%d n=%d c=%g coordinate %d: Σp(ω+cΔ)=%g, ω̄+cΔ=%g, EvenStep=%g", k, n, c, j, lhs[j], rhs, s2.Global[j])
		}
	}
	return worst, worstServer, ""
}

func checkAggregation(cfg proofs.Config) proofs.Result {
	st, n := sweepOf(cfg, "even-aggregation-identity", 400, 100)
	worst, worstServer := 0.0, 0.0
	out := sweep.Run(st, n, func(c *sweep.Case) string {
		w, ws, fail := aggregationCase(c.IntRange(1, 30), c.IntRange(1, 50), c.Float64Range(0, 0.999), c.Uint64())
		worst, worstServer = math.Max(worst, w), math.Max(worstServer, ws)
		return fail
	})
	res := proofs.Result{Values: map[string]any{"tests": n,
		"max_rel_error_identity": num(worst), "max_rel_error_evenstep": num(worstServer)}}
	if !out.OK() {
		res.Verdict = proofs.Refuted
		res.Evidence = out.String()
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("%d random cases (K ≤ 30 clients with Dirichlet(1) weights — also the renormalised weights of a sampled subset —, dimension ≤ 50, c ∈ [0,1); sweep stream %s): Σp_i(ω_i + cΔ) = ω̄ + cΔ to %.2g, and upcycled.EvenStep on the server state (Global = ω̄^{2m−1}, Prev = ω̄^{2m−2}) gives the same vector to %.2g. The identity needs only Σp_i = 1.",
		n, out.Stream, worst, worstServer)
	return res
}

func checkCoefficient(cfg proofs.Config) proofs.Result {
	// The two mappings over a grid of (μ, λ).
	mus := []float64{0.01, 0.1, 0.5, 1, 2, 10}
	var agree, total, alg1AtLeastOne int
	crossing := map[string]any{}
	for _, mu := range mus {
		for i := 0; i <= 400; i++ {
			lambda := 0.025 * float64(i) // λ ∈ [0, 10]
			total++
			t, a := up.CoefTheory(mu, lambda), up.CoefAlgorithm1(lambda)
			if math.Abs(t-a) < 1e-9 {
				agree++
			}
			if a >= 1 {
				alg1AtLeastOne++
			}
		}
		// The single λ where λ/2 = μ/(μ+λ): λ² + μλ − 2μ = 0.
		l := (-mu + math.Sqrt(mu*mu+8*mu)) / 2
		crossing[fmt.Sprint(mu)] = num(l)
	}
	// The paper's and the code's settings: μ = 0.5 (Fig. 4), c = 0.3 / 0.7 (README).
	implied := map[string]any{}
	for _, c := range []float64{0.3, 0.7} {
		implied[fmt.Sprintf("c=%g", c)] = map[string]any{
			"lambda_eq6_mu0.5": num(0.5 * (1 - c) / c), // μ/(μ+λ) = c
			"lambda_alg1":      num(2 * c),             // λ/2 = c
		}
	}
	// The derivation: one exact instance of (5) → (6) with the theory map.
	wi, barPrev, barOdd := []float64{0.3, -1}, []float64{2, 0.5}, []float64{1, 1}
	mu, lambda := 0.5, 1.0
	got, _, err := solveAffineZero(2, func(w, g []float64) { eq5Grad(w, wi, barPrev, barOdd, mu, lambda, g) })
	if err != nil {
		return inconclusive("solve: %v", err)
	}
	cTheory := (got[0] - wi[0]) / (barOdd[0] - barPrev[0])
	res := proofs.Result{Values: map[string]any{
		"grid_points": total, "grid_points_where_maps_agree": agree, "grid_points_alg1_coef_ge_1": alg1AtLeastOne,
		"lambda_where_maps_agree_by_mu": crossing, "implied_lambda_for_readme_c": implied,
		"coef_from_eq5_mu0.5_lambda1": num(cTheory), "coef_theory_mu0.5_lambda1": num(up.CoefTheory(mu, lambda)), "coef_alg1_lambda1": num(up.CoefAlgorithm1(lambda)),
	}}
	if math.Abs(cTheory-up.CoefTheory(mu, lambda)) > 1e-12 {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("the coefficient implied by (5) is %g, not μ/(μ+λ) = %g", cTheory, up.CoefTheory(mu, lambda))
		return res
	}
	if agree == total {
		res.Verdict = proofs.Holds
		res.Evidence = "Algorithm 1's λ_m/2 equals μ/(μ+λ_m) on the whole grid"
		return res
	}
	res.Verdict = proofs.HoldsWithErratum
	res.Evidence = fmt.Sprintf("Eq. (5) gives c = μ/(μ+λ) (μ = 0.5, λ = 1: %.6f; Algorithm 1's λ/2 = %.2f). On a grid of %d (μ, λ) pairs the two maps agree at %d points (only at λ = (−μ+√(μ²+8μ))/2, e.g. %.4f for μ = 0.5); Algorithm 1 gives c ≥ 1 (no longer a contraction of the step; c = 1 is rejected by the implementation) in %d of them, whenever λ ≥ 2. The README's c = 0.3/0.7 correspond to λ = %.3f/%.3f under Eq. (6) with μ = 0.5 but λ = 0.6/1.4 under Algorithm 1. Erratum: Algorithm 1 line 6 should read μ/(μ+λ_m).",
		cTheory, up.CoefAlgorithm1(lambda), total, agree, (-0.5+math.Sqrt(0.25+4))/2, alg1AtLeastOne, 0.5*0.7/0.3, 0.5*0.3/0.7)
	return res
}
