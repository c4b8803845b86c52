package upcycled

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/proofs"
	"gonum.org/v1/gonum/mat"
)

func init() {
	// Algebra: an inequality of elementary functions, checked on a grid and
	// analytically.
	registerAlgebra("thm6.3-log-inequality", "App. E, proof of Thm 6.3, after Eq. (19)",
		"−ln(1−x) < 1.4x for all x ∈ [0, 0.5].",
		checkLogInequality)
	register("thm6.3-assumptions-released-data", "Thm 6.3 assumptions; Fig. 4 (ε̄ 7.36/7.25); spec §7 item 13",
		"Thm 6.3's assumptions hold in the objective-perturbation experiments on the synthetic data: features normalised to ‖x‖ ≤ 1, μ > 0 and u₂ ≤ 0.5|D_i|μ (u₂ = ¼ for binary logistic), so the Jacobian ratio of Eq. (19) is at most exp(2.8u₂/(|D|μ)).",
		checkThm63Assumptions)
	register("thm6.3-jacobian-rank", "App. E, proof of Thm 6.3 ('Under generalized linear models, A_Δ has rank at most 2')",
		"A_Δ = (∇²F̂(ω; d₁) − ∇²F̂(ω; d₁'))/|D| has rank at most 2, so det(I + A⁻¹A_Δ) has at most two factors (1 + λ_k).",
		checkJacobianRank)
}

func checkLogInequality(cfg proofs.Config) proofs.Result {
	n := 2000000
	if cfg.Quick {
		n = 200000
	}
	worstRatio := 0.0 // max of −ln(1−x)/(1.4x) on the grid (x > 0)
	fails := 0
	for i := 1; i <= n; i++ {
		x := 0.5 * float64(i) / float64(n)
		lhs := -math.Log1p(-x)
		worstRatio = math.Max(worstRatio, lhs/(1.4*x))
		if !(lhs < 1.4*x) {
			fails++
		}
	}
	// Analytic: g(x) = −ln(1−x)/x is increasing on (0,1) (g' = [x/(1−x) + ln(1−x)]/x² > 0),
	// so the max over (0, 0.5] is g(0.5) = 2 ln 2; the crossing g(x*) = 1.4 lies above 0.5.
	gMax := 2 * math.Ln2
	lo, hi := 0.5, 0.99
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if -math.Log1p(-mid) < 1.4*mid {
			lo = mid
		} else {
			hi = mid
		}
	}
	atZero := -math.Log1p(-0.0) < 1.4*0
	res := proofs.Result{Values: map[string]any{"grid_points": n, "grid_failures_on_(0,0.5]": fails,
		"max_ratio_lhs_over_1.4x": num(worstRatio), "analytic_max_g_2ln2": num(gMax), "crossing_x": num(lo), "strict_at_zero": atZero}}
	if fails > 0 || gMax >= 1.4 {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("%d grid points violate −ln(1−x) < 1.4x", fails)
		return res
	}
	res.Verdict = proofs.HoldsWithErratum
	res.Evidence = fmt.Sprintf("On %d grid points of (0, 0.5] −ln(1−x) < 1.4x holds (max ratio −ln(1−x)/(1.4x) = %.6f); analytically −ln(1−x)/x increases on (0,1), so its max on (0, 0.5] is 2 ln 2 = %.6f < 1.4, and the inequality first fails at x* = %.4f > 0.5. At x = 0 both sides are 0, so the strict '<' fails there: it holds on (0, 0.5] (or with ≤ on [0, 0.5]), which is all Eq. (19) needs since x = u₂/(|D|μ) > 0.",
		n, worstRatio, gMax, lo)
	return res
}

// withBias returns x̃ = (x, 1).
func withBias(x []float64) []float64 { return append(append([]float64(nil), x...), 1) }

// logisticHessian adds w·σ'(θᵀx̃)·x̃x̃ᵀ to h (binary logistic GLM).
func logisticHessian(h *mat.SymDense, theta, xt []float64, w float64) {
	z := dot(theta, xt)
	s := 1 / (1 + math.Exp(-z))
	c := w * s * (1 - s)
	for i := range xt {
		for j := i; j < len(xt); j++ {
			h.SetSym(i, j, h.At(i, j)+c*xt[i]*xt[j])
		}
	}
}

// logDet returns log det of a symmetric positive-definite matrix.
func logDet(a *mat.SymDense) (float64, bool) {
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return 0, false
	}
	return ch.LogDet(), true
}

func checkThm63Assumptions(cfg proofs.Config) proofs.Result {
	feds, err := loadFederations(cfg.Seed)
	if err != nil {
		return inconclusive("data: %v", err)
	}
	const u2, mu = 0.25, 0.5 // binary logistic curvature bound; Fig. 4's FedProx μ
	perData := map[string]any{}
	var failures []string
	worstLogRatio, worstBound := 0.0, 0.0
	worstWhere := ""
	for _, f := range feds {
		var maxNorm float64
		var above, total int
		minSize := math.MaxInt
		for _, c := range f.fed.Clients {
			minSize = min(minSize, c.Train.N)
			for r := 0; r < c.Train.N; r++ {
				nx := norm(c.Train.Row(r))
				maxNorm = math.Max(maxNorm, nx)
				total++
				if nx > 1 {
					above++
				}
			}
		}
		// Explicit pair for Eq. (19): the smallest client, ω = 0 (σ'' = ¼),
		// d₁ = its largest-norm point, d₁' = (x = 0, same label).
		var small *data.Dataset
		for _, c := range f.fed.Clients {
			if c.Train.N == minSize {
				small = c.Train
				break
			}
		}
		dim := small.D + 1
		theta := make([]float64, dim)
		big, bigNorm := 0, 0.0
		for r := 0; r < small.N; r++ {
			if nx := norm(small.Row(r)); nx > bigNorm {
				big, bigNorm = r, nx
			}
		}
		n := float64(small.N)
		hD := mat.NewSymDense(dim, nil)
		hD2 := mat.NewSymDense(dim, nil)
		for r := 0; r < small.N; r++ {
			xt := withBias(small.Row(r))
			logisticHessian(hD, theta, xt, 1/n)
			if r == big {
				xt = withBias(make([]float64, small.D))
			}
			logisticHessian(hD2, theta, xt, 1/n)
		}
		for i := 0; i < dim; i++ {
			hD.SetSym(i, i, hD.At(i, i)+mu)
			hD2.SetSym(i, i, hD2.At(i, i)+mu)
		}
		l1, ok1 := logDet(hD)
		l2, ok2 := logDet(hD2)
		if !ok1 || !ok2 {
			return inconclusive("%s: Hessian not positive definite", f.name)
		}
		logRatio := math.Abs(l1 - l2)
		bound := 2.8 * u2 / (n * mu)
		xEff := u2 * (bigNorm*bigNorm + 1) / (n * mu)
		if logRatio/bound > worstLogRatio/math.Max(worstBound, 1e-300) || worstWhere == "" {
			worstLogRatio, worstBound, worstWhere = logRatio, bound, fmt.Sprintf("%s client with |D| = %d, ‖x‖ = %.3f", f.name, small.N, bigNorm)
		}
		perData[f.name] = map[string]any{"max_feature_norm": num(round(maxNorm, 6)), "share_norm_above_1": num(round(float64(above)/float64(total), 4)),
			"min_client_size": minSize, "u2_le_half_D_mu": u2 <= 0.5*float64(minSize)*mu,
			"eq19_log_det_ratio": num(round(logRatio, 6)), "eq19_bound": num(round(bound, 6)), "eigen_bound_with_real_norm": num(round(xEff, 6))}
		if maxNorm > 1 {
			failures = append(failures, fmt.Sprintf("%s: max ‖x‖ = %.2f (%.0f%% of points above 1)", f.name, maxNorm, 100*float64(above)/float64(total)))
		}
	}
	res := proofs.Result{Values: map[string]any{"data": feds[0].source, "u2": u2, "mu_fedprox": mu, "mu_fedavg": 0,
		"by_dataset": perData, "fedavg_jacobian_term": "2.8u₂/(|D|·0) = +Inf"}}
	if len(failures) == 0 && worstLogRatio <= worstBound {
		res.Verdict = proofs.Holds
		res.Evidence = "features are normalised and Eq. (19) holds on the explicit pairs"
		return res
	}
	res.Verdict = proofs.Refuted
	res.Evidence = fmt.Sprintf("Data: %s. ‖x‖ ≤ 1 fails on every dataset: %s. μ > 0 fails for six of the seven baselines (FedAvg, FedAvgM, Scaffold, FedDyn, pFedMe, FedYogi run with μ = 0, making 2.8u₂/(|D|μ) infinite); only FedProx (μ = 0.5) is covered, where u₂ = ¼ ≤ 0.5|D|μ holds for every client. Counterexample to Eq. (19) on the released data (%s; binary logistic GLM at ω = 0, d₁ = that point, d₁' = x = 0): |log det J(D) − log det J(D')| = %.4f > 2.8u₂/(|D|μ) = %.4f, because the eigenvalue bound u₂/(|D|μ) assumed ‖x‖ ≤ 1 (with the real norm it is u₂(‖x‖²+1)/(|D|μ)). The local solver is also SGD, not the exact minimiser the change of variables needs. The 7.36/7.25 of Fig. 4 are therefore the formula evaluated outside its assumptions (see the audit).",
		feds[0].source, strings.Join(failures, "; "), worstWhere, worstLogRatio, worstBound)
	return res
}

// fdHessian returns the finite-difference Hessian of a per-example loss
// gradient g at p (symmetrised).
func fdHessian(n int, p []float64, grad func(p, g []float64)) *mat.SymDense {
	h := mat.NewDense(n, n, nil)
	gp, gm := make([]float64, n), make([]float64, n)
	q := append([]float64(nil), p...)
	const step = 1e-5
	for k := 0; k < n; k++ {
		q[k] = p[k] + step
		grad(q, gp)
		q[k] = p[k] - step
		grad(q, gm)
		q[k] = p[k]
		for i := 0; i < n; i++ {
			h.Set(i, k, (gp[i]-gm[i])/(2*step))
		}
	}
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			out.SetSym(i, j, (h.At(i, j)+h.At(j, i))/2)
		}
	}
	return out
}

// numRank counts eigenvalues with |λ| > tol·max|λ|.
func numRank(a *mat.SymDense, tol float64) int {
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		return -1
	}
	vals := es.Values(nil)
	var mx float64
	for _, v := range vals {
		mx = math.Max(mx, math.Abs(v))
	}
	r := 0
	for _, v := range vals {
		if math.Abs(v) > tol*mx {
			r++
		}
	}
	return r
}

func checkJacobianRank(cfg proofs.Config) proofs.Result {
	r := rng.Stream(cfg.Seed, paper, "jacobian-rank")
	const d = 20
	trials := 5
	if cfg.Quick {
		trials = 2
	}
	type cas struct {
		name    string
		params  int
		bound   int // 2 for the paper; 2(C−1) for softmax
		grad    func(p, g []float64, x []float64, y int)
		init    func(p []float64)
		maxRank int
		isGLM   bool
	}
	x1, x2 := randVec(r, d, 1), randVec(r, d, 1)
	cases := []*cas{{
		name: "binary logistic (θ ∈ R^21)", params: d + 1, bound: 2, isGLM: true,
		grad: func(p, g []float64, x []float64, y int) {
			xt := withBias(x)
			s := 1/(1+math.Exp(-dot(p, xt))) - float64(y)
			for i := range g {
				g[i] = s * xt[i]
			}
		},
		init: func(p []float64) { copy(p, randVec(r, len(p), 0.3)) },
	}}
	for _, c := range []int{2, 3, 10} {
		m := model.NewLogReg(d, c, model.CrossEntropy)
		cases = append(cases, &cas{
			name: fmt.Sprintf("softmax C = %d (model.LogReg)", c), params: m.NumParams(), bound: 2 * (c - 1), isGLM: true,
			grad: func(p, g []float64, x []float64, y int) {
				m.LossGrad(p, model.Batch{X: x, Y: []int{y}, N: 1, D: d}, g, nil)
			},
			init: func(p []float64) { copy(p, randVec(r, len(p), 0.3)) },
		})
	}
	mlp := model.NewMLP([]int{d, 8, 2}, 0, model.CrossEntropy)
	cases = append(cases, &cas{
		name: "MLP 20-8-2 (not a GLM)", params: mlp.NumParams(), bound: -1,
		grad: func(p, g []float64, x []float64, y int) {
			mlp.LossGrad(p, model.Batch{X: x, Y: []int{y}, N: 1, D: d}, g, nil)
		},
		init: func(p []float64) { copy(p, randVec(r, len(p), 0.5)) },
	})
	vals := map[string]any{}
	var bad []string
	for _, c := range cases {
		p := make([]float64, c.params)
		for t := 0; t < trials; t++ {
			c.init(p)
			h1 := fdHessian(c.params, p, func(q, g []float64) { c.grad(q, g, x1, 0) })
			h2 := fdHessian(c.params, p, func(q, g []float64) { c.grad(q, g, x2, 1) })
			diff := mat.NewSymDense(c.params, nil)
			for i := 0; i < c.params; i++ {
				for j := i; j < c.params; j++ {
					diff.SetSym(i, j, h1.At(i, j)-h2.At(i, j))
				}
			}
			c.maxRank = max(c.maxRank, numRank(diff, 1e-6))
		}
		vals[c.name] = map[string]any{"params": c.params, "rank_A_delta": c.maxRank, "bound_2(C-1)": c.bound}
		if c.bound > 0 && c.maxRank > c.bound {
			bad = append(bad, fmt.Sprintf("%s: rank %d > %d", c.name, c.maxRank, c.bound))
		}
	}
	res := proofs.Result{Values: vals}
	if len(bad) > 0 {
		res.Verdict = proofs.Inconclusive
		res.Evidence = "numerical ranks exceed even the softmax bound: " + strings.Join(bad, "; ")
		return res
	}
	bin, c2, c10, mlpc := cases[0], cases[1], cases[3], cases[4]
	if bin.maxRank <= 2 && c2.maxRank <= 2 && c10.maxRank > 2 {
		res.Verdict = proofs.HoldsWithErratum
		res.Evidence = fmt.Sprintf("Finite-difference Hessians of two examples' losses (random θ, %d trials, rank tolerance 1e-6): A_Δ has rank %d for binary logistic and %d for the 2-class softmax the code trains (≤ 2, as claimed), but %d for 3 classes and %d for a 10-class softmax GLM (= 2(C−1)), and %d for a small MLP, which is not a GLM. The claim holds for scalar-output GLMs; for C-class softmax the determinant bound becomes (1 − u₂/(|D|μ))^{−2(C−1)}, i.e. ε gains 1.4·2(C−1)u₂/(|D|μ) per round instead of 2.8u₂/(|D|μ), and Figs 7–9's objective-perturbation ε for FEMNIST (MLP, 10 classes) is outside the theorem.",
			trials, bin.maxRank, c2.maxRank, cases[2].maxRank, c10.maxRank, mlpc.maxRank)
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("ranks: %v", vals)
	return res
}
