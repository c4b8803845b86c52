package upcycled

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	up "github.com/fedrepro/fedrepro/algorithms/upcycled"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
	"gonum.org/v1/gonum/mat"
)

func init() {
	register("lemma5.5-one-step", "Lemma 5.5; App. C Eqs. (11)–(13); Lemmas B.1–B.2",
		"Under Assumptions 5.2 and 5.4, E_{S_m}[f(ω̄^{2m+1})] ≤ f(ω̄^{2m−1}) − C₁‖∇f(ω̄^{2m−1})‖² + C₂h¹_m + C₃h²_m for Upcycled-FedProx with K randomly selected clients.",
		checkLemma55)
	register("lemma5.5-constants", "Lemma 5.5 text after Eq. (13); Lemmas B.1–B.2",
		"C₁ does not depend on λ_m; C₂ and C₃ are non-negative and decrease in λ_m/μ; and C₁ = Ĉ₁ − C̃₁, C₂ = Ĉ₂ + C̃₂, C₃ = Ĉ₃ + C̃₃ with the constants of Lemmas B.1 and B.2.",
		checkLemma55Constants)
	register("cor5.8-rate", "Thm 5.6; Corollary 5.8",
		"With μ and K fixed and μ/(μ+λ_m) = O(1/√M), Upcycled-FedProx converges at rate O(1/√M): min_m E‖∇f(ω̄^{2m−1})‖² ≤ (1/M)Σ_m E‖∇f(ω̄^{2m−1})‖² = O(1/√M), bounded by Thm 5.6's right-hand side when C₁ > 0.",
		checkCor58)
	register("thm5.6-b-zero", "§5, remark after Thm 5.6 ('C₁ > 0 must hold when B = 0 (i.i.d. clients)'); spec §7 item 21",
		"According to Eq. (11), C₁ > 0 must hold when B = 0 (i.i.d. clients).",
		checkBZero)
}

// lemmaConsts are the constants of Assumptions 5.2/5.4 and the sampling.
type lemmaConsts struct{ L, B, Rho, Mu, K float64 }

// C1 is Eq. (11).
func (k lemmaConsts) C1() float64 {
	L, B, r, mu, K := k.L, k.B, k.Rho, k.Mu, k.K
	return 1/mu - L*B/(mu*mu*r) - L*B*B/(2*r*r) - 2*B*B/(K*r*r) - (2*L*B+r)/r*math.Sqrt(2/K)*B/r
}

// C2 is Eq. (12) with c = μ/(μ+λ_m).
func (k lemmaConsts) C2(c float64) float64 {
	L, B, r, mu, K := k.L, k.B, k.Rho, k.Mu, k.K
	return (L*L/(mu*mu*r) + (L+mu)/(mu*mu) + L*(L+r)*B/(r*r) + 4*L*B/(K*r*r) + (4*L*L*B+r*L*(1+2*B))/(r*r)*math.Sqrt(2/K)) * c
}

// C3 is Eq. (13) with c = μ/(μ+λ_m).
func (k lemmaConsts) C3(c float64) float64 {
	L, r, K := k.L, k.Rho, k.K
	return (L*(L+r)*(L+r)/(2*r*r) + 2/K*L*L/(r*r) + 2*L*(L+r)/r*math.Sqrt(2/K)*L/r) * c * c
}

// Split constants of Lemma B.1 (hat) and Lemma B.2 (tilde).
func (k lemmaConsts) split(c float64) (h1, h2, h3, t1, t2, t3 float64) {
	L, B, r, mu, K := k.L, k.B, k.Rho, k.Mu, k.K
	s := math.Sqrt(2 / K)
	h1 = 1/mu - L*B/(mu*mu*r) - L*B*B/(2*r*r)
	h2 = (L*L/(mu*mu*r) + (L+mu)/(mu*mu) + L*(L+r)*B/(r*r)) * c
	h3 = L * (L + r) * (L + r) / (2 * r * r) * c * c
	t1 = 2*B*B/(K*r*r) + (2*L*B+r)/r*s*B/r
	t2 = (4*L*B/(K*r*r) + (2*L*B+r)/r*s*L/r + 2*L*(L+r)/r*s*B/r) * c
	t3 = (2/K*L*L/(r*r) + 2*L*(L+r)/r*s*L/r) * c * c
	return
}

// Corrected constants. The proof of Lemma B.1 bounds the cross term
// ⟨∇f(ω̄^{2m−1}), Φ^{2m+1}⟩ by (1/μ)‖∇f‖‖Φ‖, but Φ is defined without a 1/μ
// factor (ω̃^{2m+1} − ω̄^{2m−1} = −∇f/μ + Φ), so the bound is ‖∇f‖‖Φ‖. Redoing
// the proof's own steps with it multiplies the Φ-terms of Ĉ₁ and Ĉ₂ by μ.

// C1Fixed is Ĉ₁' − C̃₁ with Ĉ₁' = 1/μ − LB/(μρ) − LB²/(2ρ²).
func (k lemmaConsts) C1Fixed() float64 {
	L, B, r, mu := k.L, k.B, k.Rho, k.Mu
	_, _, _, t1, _, _ := k.split(1)
	return 1/mu - L*B/(mu*r) - L*B*B/(2*r*r) - t1
}

// C2Fixed is Ĉ₂' + C̃₂ with Ĉ₂' = (L(L+ρ)/(μρ) + 1 + L(L+ρ)B/ρ²)·c.
func (k lemmaConsts) C2Fixed(c float64) float64 {
	L, B, r, mu := k.L, k.B, k.Rho, k.Mu
	_, _, _, _, t2, _ := k.split(c)
	return (L*(L+r)/(mu*r)+1+L*(L+r)*B/(r*r))*c + t2
}

// quadFed is a quadratic federation with its exact constants.
type quadFed struct {
	fed    *quad.Federation
	global *quad.Quadratic
	L      float64 // max client smoothness
	minEig float64 // min over clients of λ_min(A_i)
	B      float64 // sup_ω B(ω) (shared minimiser: finite)
	fStar  float64
}

// newQuadFed draws a federation whose clients share one minimiser (so the
// B-dissimilarity constant is finite: B² = λ_max(Ā⁻¹ (Σ w_i A_i²) Ā⁻¹)).
func newQuadFed(r *rand.Rand, clients, dim int, minEig, maxEig float64) (*quadFed, error) {
	fed, err := quad.Random(r, quad.Spec{Clients: clients, Dim: dim, MinEig: minEig, MaxEig: maxEig, Spread: 0})
	if err != nil {
		return nil, err
	}
	g := fed.Global()
	q := &quadFed{fed: fed, global: g, L: fed.Smoothness(), minEig: math.Inf(1)}
	s := mat.NewSymDense(dim, nil)
	for i, c := range fed.Clients {
		q.minEig = math.Min(q.minEig, c.MinEig())
		var a2 mat.Dense
		a2.Mul(c.A, c.A)
		for x := 0; x < dim; x++ {
			for y := x; y < dim; y++ {
				s.SetSym(x, y, s.At(x, y)+fed.Weights[i]*a2.At(x, y))
			}
		}
	}
	var ainv mat.Dense
	if err := ainv.Inverse(g.A); err != nil {
		return nil, err
	}
	var m1, m2 mat.Dense
	m1.Mul(&ainv, s)
	m2.Mul(&m1, &ainv)
	sym := mat.NewSymDense(dim, nil)
	for x := 0; x < dim; x++ {
		for y := x; y < dim; y++ {
			sym.SetSym(x, y, (m2.At(x, y)+m2.At(y, x))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, false) {
		return nil, fmt.Errorf("eigendecomposition failed")
	}
	ev := es.Values(nil)
	q.B = math.Sqrt(ev[len(ev)-1])
	xs, err := g.Minimizer()
	if err != nil {
		return nil, err
	}
	q.fStar = g.Value(xs)
	return q, nil
}

// proxAll returns every client's exact prox from anchor and their p-average.
func (q *quadFed) proxAll(anchor []float64, mu float64) ([][]float64, []float64, error) {
	ys := make([][]float64, len(q.fed.Clients))
	avg := make([]float64, len(anchor))
	for i, c := range q.fed.Clients {
		y, err := c.Prox(anchor, mu)
		if err != nil {
			return nil, nil, err
		}
		ys[i] = y
		for j := range avg {
			avg[j] += q.fed.Weights[i] * y[j]
		}
	}
	return ys, avg, nil
}

// expectedF returns E f(mean of K sampled prox solutions), exactly (f is
// quadratic): with replacement with probabilities p_i (FedProx's scheme, the
// one Lemma B.2's 1/K variance step assumes), and uniformly without
// replacement (the code's scheme; finite-population factor).
func (q *quadFed) expectedF(ys [][]float64, avg []float64, K int) (withRepl, withoutRepl float64) {
	n := len(ys)
	var tr float64 // Σ p_i (y_i − ȳ)ᵀ Ā (y_i − ȳ)
	tmp := make([]float64, len(avg))
	for i, y := range ys {
		d := sub(y, avg)
		mat.NewVecDense(len(tmp), tmp).MulVec(q.global.A, mat.NewVecDense(len(d), d))
		tr += q.fed.Weights[i] * dot(d, tmp)
	}
	f0 := q.global.Value(avg)
	withRepl = f0 + tr/(2*float64(K))
	withoutRepl = math.NaN()
	if K <= n && n > 1 {
		withoutRepl = f0 + tr*float64(n-K)/(float64(K)*float64(n-1))/2
	}
	return
}

// sampleMean draws K clients with replacement (probabilities p_i) and
// averages their prox solutions.
func (q *quadFed) sampleMean(r *rand.Rand, ys [][]float64, K int) []float64 {
	out := make([]float64, len(ys[0]))
	for k := 0; k < K; k++ {
		u, i := r.Float64(), 0
		for acc := q.fed.Weights[0]; u > acc && i < len(ys)-1; {
			i++
			acc += q.fed.Weights[i]
		}
		for j := range out {
			out[j] += ys[i][j] / float64(K)
		}
	}
	return out
}

func (q *quadFed) gradNorm2(x []float64) float64 {
	g := make([]float64, len(x))
	q.global.Grad(x, g)
	return dot(g, g)
}

// lemmaStats accumulates the one-step check.
type lemmaStats struct {
	steps, positive, violWR, violWOR int
	minSlackWR                       float64
	configs, configsPositive         int
	worst                            string
	worstExcess                      float64
	// the corrected constants
	positiveFixed, violFixed int
	minSlackFixed            float64
}

func checkLemma55(cfg proofs.Config) proofs.Result {
	nFeds, steps := 24, 8
	if cfg.Quick {
		nFeds, steps = 8, 8
	}
	r := rng.Stream(cfg.Seed, paper, "lemma5.5")
	st := lemmaStats{minSlackWR: math.Inf(1), minSlackFixed: math.Inf(1)}
	mus := []float64{0.3, 1, 3, 10, 30, 100}
	ks := []int{2, 5, 10, 30, 100}
	coefs := []float64{0.1, 0.5, 0.9}
	for f := 0; f < nFeds; f++ {
		clients := 4 + r.IntN(7)
		dim := 2 + r.IntN(5)
		lo := 0.2 + 0.8*r.Float64()
		q, err := newQuadFed(r, clients, dim, lo, lo*(1.2+2*r.Float64()))
		if err != nil {
			return inconclusive("federation: %v", err)
		}
		for _, muScale := range mus {
			mu := muScale * q.L
			for _, K := range ks {
				kc := lemmaConsts{L: q.L, B: q.B, Rho: mu + q.minEig, Mu: mu, K: float64(K)}
				st.configs++
				c1 := kc.C1()
				if c1 > 0 {
					st.configsPositive++
				}
				for _, c := range coefs {
					// Trajectory: ω̄^0 random, ω̄^1 one sampled FedProx round.
					w0 := randVec(r, dim, 3)
					ys, _, err := q.proxAll(w0, mu)
					if err != nil {
						return inconclusive("prox: %v", err)
					}
					prev, cur := w0, q.sampleMean(r, ys, K)
					for m := 1; m <= steps; m++ {
						delta := sub(cur, prev)
						even := make([]float64, dim)
						for j := range even {
							even[j] = cur[j] + c*delta[j]
						}
						ys, avg, err := q.proxAll(even, mu)
						if err != nil {
							return inconclusive("prox: %v", err)
						}
						ewr, ewor := q.expectedF(ys, avg, K)
						g2 := q.gradNorm2(cur)
						h1 := math.Sqrt(g2) * norm(delta)
						h2 := dot(delta, delta)
						rhs := q.global.Value(cur) - c1*g2 + kc.C2(c)*h1 + kc.C3(c)*h2
						st.steps++
						if c1 > 0 {
							st.positive++
							scale := math.Max(1e-12, math.Abs(q.global.Value(cur)-q.fStar))
							slack := (rhs - ewr) / scale
							st.minSlackWR = math.Min(st.minSlackWR, slack)
							if ewr > rhs+1e-9*scale {
								st.violWR++
								if ex := (ewr - rhs) / scale; ex > st.worstExcess {
									st.worstExcess = ex
									st.worst = fmt.Sprintf("N = %d clients, d = %d, L = %.3g, B = %.4g, μ = %.3g, K = %d, c = %.1f, step m = %d (C₁ = %.4g): E f(ω̄^{2m+1}) − f* = %.5g > RHS − f* = %.5g (f(ω̄^{2m−1}) − f* = %.5g)",
										clients, dim, q.L, q.B, mu, K, c, m, c1, ewr-q.fStar, rhs-q.fStar, q.global.Value(cur)-q.fStar)
								}
							}
							if !math.IsNaN(ewor) && ewor > rhs+1e-9*scale {
								st.violWOR++
							}
						}
						if c1f := kc.C1Fixed(); c1f > 0 {
							st.positiveFixed++
							scale := math.Max(1e-12, math.Abs(q.global.Value(cur)-q.fStar))
							rhsF := q.global.Value(cur) - c1f*g2 + kc.C2Fixed(c)*h1 + kc.C3(c)*h2
							st.minSlackFixed = math.Min(st.minSlackFixed, (rhsF-ewr)/scale)
							if ewr > rhsF+1e-9*scale || (!math.IsNaN(ewor) && ewor > rhsF+1e-9*scale) {
								st.violFixed++
							}
						}
						prev, cur = cur, q.sampleMean(r, ys, K)
					}
				}
			}
		}
	}
	// Realistic B: the released data's B at ω = 0 (binary logistic GLM).
	realistic, err := realisticB(cfg)
	if err != nil {
		return inconclusive("released data: %v", err)
	}
	res := proofs.Result{Values: map[string]any{"federations": nFeds, "steps": st.steps, "steps_with_C1_positive": st.positive,
		"violations_with_replacement": st.violWR, "violations_without_replacement": st.violWOR,
		"min_rel_slack_with_replacement": num(st.minSlackWR), "configs": st.configs, "configs_with_C1_positive": st.configsPositive,
		"corrected_steps_with_C1_positive": st.positiveFixed, "corrected_violations": st.violFixed, "corrected_min_rel_slack": num(st.minSlackFixed),
		"released_data": realistic}}
	if st.violWR > 0 || st.violWOR > 0 {
		if st.violFixed > 0 || st.positiveFixed == 0 {
			res.Verdict = proofs.Refuted
			res.Evidence = fmt.Sprintf("%d of %d steps with C₁ > 0 violate the inequality (with replacement; %d without), e.g. %s; the corrected constants also fail (%d of %d).", st.violWR, st.positive, st.violWOR, st.worst, st.violFixed, st.positiveFixed)
			return res
		}
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("Counterexample: on %d quadratic federations with a shared minimiser (sup_ω B finite and exact: B² = λ_max(Ā⁻¹ΣwA_i²Ā⁻¹)), exact prox odd steps, μ ∈ {0.3,…,100}·L, K ∈ {2,…,100}, c ∈ {0.1,0.5,0.9}, with E_{S_m} f(ω̄^{2m+1}) computed exactly (f quadratic: f(mean) + tr(Ā·Cov)/2) for K draws with replacement ∝ p_i (Lemma B.2's scheme) and uniformly without replacement, %d of the %d steps with C₁ > 0 violate Lemma 5.5 (%d without replacement), e.g. %s. The violations come from Lemma B.1 (full participation), when the last update Δ = ω̄^{2m−1} − ω̄^{2m−2} points uphill (sampling noise, large c): f(ω̄^{2m}) ≈ f(ω̄^{2m−1}) + c⟨∇f, Δ⟩, but C₂ ≈ c(1/μ + LB/ρ) ≪ c for μ ≫ L. The proof bounds ⟨∇f, Φ⟩ by (1/μ)‖∇f‖‖Φ‖ although Φ = ω̃^{2m+1} − ω̄^{2m−1} + ∇f/μ carries no 1/μ; with ‖∇f‖‖Φ‖ the proof's own steps give Ĉ₁ = 1/μ − LB/(μρ) − LB²/(2ρ²) and Ĉ₂ = (L(L+ρ)/(μρ) + 1 + L(L+ρ)B/ρ²)·μ/(μ+λ), and with these corrected constants the inequality holds in all %d steps where the corrected C₁ > 0 (min relative slack %.3g, both sampling schemes). Realistic B: on the released data B(ω = 0) is %s, and sup_μ of the printed C₁ is %s.",
			nFeds, st.violWR, st.positive, st.violWOR, st.worst, st.positiveFixed, st.minSlackFixed, realistic["summary_b"], realistic["summary_c1"])
		return res
	}
	if st.positive == 0 {
		res.Verdict = proofs.Inconclusive
		res.Evidence = "C₁ ≤ 0 in every configuration: the lemma was never tested"
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("%d quadratic federations with a shared minimiser (so sup_ω B is finite and computed exactly: B² = λ_max(Ā⁻¹ΣwA_i²Ā⁻¹)), exact prox odd steps, μ ∈ {0.3,…,100}·L, K ∈ {2,…,100}, c ∈ {0.1,0.5,0.9}: E_{S_m} f(ω̄^{2m+1}) computed exactly (f is quadratic: f(mean) + tr(Ā·Cov)/2) for K draws with replacement ∝ p_i (Lemma B.2's variance step) and for uniform sampling without replacement. In all %d steps where C₁ > 0 (%d of %d steps; %d of %d (federation, μ, K) configurations) the inequality holds under both schemes (min relative slack %.3g). C₁ > 0 needs K > 2B² and μ ≫ L: with the released data's B at ω = 0 (%s) sup_μ C₁ is %s.",
		nFeds, st.positive, st.positive, st.steps, st.configsPositive, st.configs, st.minSlackWR, realistic["summary_b"], realistic["summary_c1"])
	return res
}

// realisticB computes, per released dataset, B(ω=0) of the binary logistic
// GLM (a lower bound on sup B), its smoothness L, and sup over μ of C₁ for
// the paper's K = 9 (30% of 30) and K = 30 (private runs).
func realisticB(cfg proofs.Config) (map[string]any, error) {
	feds, err := loadFederations(cfg.Seed)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"data": feds[0].source}
	var bs, c1s []string
	for _, f := range feds {
		dim := f.fed.D + 1
		total := 0
		for _, c := range f.fed.Clients {
			total += c.Train.N
		}
		gAll := make([]float64, dim)
		var num2, L float64
		for _, c := range f.fed.Clients {
			g := make([]float64, dim)
			xtx := mat.NewSymDense(dim, nil)
			for r := 0; r < c.Train.N; r++ {
				xt := withBias(c.Train.Row(r))
				s := 0.5 - float64(c.Train.Y[r]) // σ(0) − y
				for j := range g {
					g[j] += s * xt[j] / float64(c.Train.N)
				}
				for a := 0; a < dim; a++ {
					for b := a; b < dim; b++ {
						xtx.SetSym(a, b, xtx.At(a, b)+xt[a]*xt[b]/float64(c.Train.N))
					}
				}
			}
			p := float64(c.Train.N) / float64(total)
			num2 += p * dot(g, g)
			for j := range g {
				gAll[j] += p * g[j]
			}
			var es mat.EigenSym
			if es.Factorize(xtx, false) {
				v := es.Values(nil)
				L = math.Max(L, v[len(v)-1]/4)
			}
		}
		B := math.Sqrt(num2 / dot(gAll, gAll))
		best := map[string]float64{}
		for _, K := range []int{9, 30} {
			m := math.Inf(-1)
			for e := -3.0; e <= 6; e += 0.01 {
				mu := L * math.Pow(10, e)
				m = math.Max(m, lemmaConsts{L: L, B: B, Rho: mu, Mu: mu, K: float64(K)}.C1())
			}
			best[fmt.Sprint(K)] = m
		}
		out[f.name] = map[string]any{"B_at_0": num(round(B, 6)), "L": num(round(L, 6)), "sup_mu_C1_K9": num(best["9"]), "sup_mu_C1_K30": num(best["30"])}
		bs = append(bs, fmt.Sprintf("%s %.2f", strings.TrimPrefix(f.name, "synthetic_"), B))
		c1s = append(c1s, fmt.Sprintf("%s: %s (K = 9), %s (K = 30)", strings.TrimPrefix(f.name, "synthetic_"), sign(best["9"]), sign(best["30"])))
	}
	out["summary_b"] = strings.Join(bs, ", ")
	out["summary_c1"] = strings.Join(c1s, "; ")
	return out, nil
}

func sign(x float64) string {
	if x > 0 {
		return fmt.Sprintf("positive (%.3g)", x)
	}
	return fmt.Sprintf("≤ 0 (%.3g)", x)
}

func checkLemma55Constants(cfg proofs.Config) proofs.Result {
	st, tests := sweepOf(cfg, "lemma5.5-constants", 400, 100)
	worstSplit := 0.0
	out := sweep.Run(st, tests, func(cs *sweep.Case) string {
		lL, b, lMu := cs.Float64Range(math.Log(0.01), math.Log(100)), cs.Float64Range(1, 10), cs.Float64Range(math.Log(1e-3), math.Log(1e3))
		rhoFrac, K := cs.Float64Range(0.05, 5), cs.IntRange(1, 1000)
		L, mu := math.Exp(lL), math.Exp(lMu)
		rho := mu * rhoFrac
		k := lemmaConsts{L: L, B: b, Rho: rho, Mu: mu, K: float64(K)}
		c1 := k.C1()
		prev2, prev3 := math.Inf(1), math.Inf(1)
		for _, ratio := range []float64{0, 0.01, 0.1, 0.5, 1, 2, 5, 10, 100} {
			lambda := ratio * mu
			c := up.CoefTheory(mu, lambda)
			// C₁ is evaluated without λ: the formula has no λ input,
			// so check the split identity at this λ instead.
			h1, h2, h3, t1, t2, t3 := k.split(c)
			c2, c3 := k.C2(c), k.C3(c)
			e := math.Max(relErr(c1, h1-t1), math.Max(relErr(c2, h2+t2), relErr(c3, h3+t3)))
			worstSplit = math.Max(worstSplit, e)
			if e > 1e-12 {
				return fmt.Sprintf("split mismatch %.3g at L=%g B=%g μ=%g ρ=%g K=%d λ/μ=%g", e, L, b, mu, rho, K, ratio)
			}
			if c2 < 0 || c3 < 0 {
				return fmt.Sprintf("C₂=%g or C₃=%g negative", c2, c3)
			}
			if ratio > 0 && !(c2 < prev2 && c3 < prev3) {
				return fmt.Sprintf("not decreasing at λ/μ=%g: C₂ %g→%g, C₃ %g→%g", ratio, prev2, c2, prev3, c3)
			}
			prev2, prev3 = c2, c3
		}
		return ""
	})
	res := proofs.Result{Values: map[string]any{"tests": tests, "max_rel_split_error": num(worstSplit)}}
	if !out.OK() {
		res.Verdict = proofs.Refuted
		res.Evidence = out.String()
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("%d random (L, B ≥ 1, μ, ρ, K) × 9 values of λ/μ (sweep stream %s): Eq. (11) has no λ_m (C₁ depends on L, B, ρ, μ, K only); C₂ and C₃ are non-negative and strictly decrease in λ/μ (they are a positive constant times μ/(μ+λ) and its square); and Eqs. (11)–(13) equal Ĉ − C̃ / Ĉ + C̃ of Lemmas B.1 and B.2 to %.2g — the printed constants are consistent with their proofs' pieces.",
		tests, out.Stream, worstSplit)
	return res
}

func checkCor58(cfg proofs.Config) proofs.Result {
	Ms := []int{8, 16, 32, 64, 128, 256}
	reps := 8
	if cfg.Quick {
		reps = 4
	}
	r := rng.Stream(cfg.Seed, paper, "cor5.8")
	q, err := newQuadFed(r, 10, 5, 1, 2)
	if err != nil {
		return inconclusive("federation: %v", err)
	}
	// μ and K fixed; choose μ maximising the corrected C₁ (see
	// lemma5.5-one-step) so Thm 5.6's bound is informative.
	const K = 20
	mu, bestC1 := 0.0, math.Inf(-1)
	for e := -1.0; e <= 4; e += 0.01 {
		m := q.L * math.Pow(10, e)
		if c := (lemmaConsts{L: q.L, B: q.B, Rho: m + q.minEig, Mu: m, K: K}).C1Fixed(); c > bestC1 {
			mu, bestC1 = m, c
		}
	}
	kc := lemmaConsts{L: q.L, B: q.B, Rho: mu + q.minEig, Mu: mu, K: K}
	const c0 = 2.0
	w0 := randVec(rng.Stream(cfg.Seed, paper, "cor5.8", "start"), 5, 3)
	for i := range w0 {
		w0[i] += q.minimiser()[i]
	}
	f0 := q.global.Value(w0) - q.fStar
	var xs, avgs, mins []float64
	rows := map[string]any{}
	boundOK := true
	for _, M := range Ms {
		c := c0 / math.Sqrt(float64(M))
		var avg, mn, rhs float64
		for rep := 0; rep < reps; rep++ {
			rr := rng.Stream(cfg.Seed, paper, "cor5.8", M, rep)
			ys, _, err := q.proxAll(w0, mu)
			if err != nil {
				return inconclusive("prox: %v", err)
			}
			prev, cur := w0, q.sampleMean(rr, ys, K)
			sum, best, extra := 0.0, math.Inf(1), 0.0
			for m := 1; m <= M; m++ {
				g2 := q.gradNorm2(cur)
				delta := sub(cur, prev)
				sum += g2
				best = math.Min(best, g2)
				extra += kc.C2Fixed(c)*math.Sqrt(g2)*norm(delta) + kc.C3(c)*dot(delta, delta)
				even := make([]float64, len(cur))
				for j := range even {
					even[j] = cur[j] + c*delta[j]
				}
				ys, _, err := q.proxAll(even, mu)
				if err != nil {
					return inconclusive("prox: %v", err)
				}
				// Algorithm 1 and Lemma 5.5's h_m difference the odd
				// iterate with the even one before it, ω̄^{2m−1} − ω̄^{2m−2}:
				// the next round's prev is ω̄^{2m}, not ω̄^{2m−1}.
				prev, cur = even, q.sampleMean(rr, ys, K)
			}
			avg += sum / float64(M) / float64(reps)
			mn += best / float64(reps)
			rhs += (f0 + extra) / (float64(M) * bestC1) / float64(reps)
		}
		xs = append(xs, math.Log(float64(M)))
		avgs = append(avgs, math.Log(avg))
		mins = append(mins, math.Log(mn))
		rows[fmt.Sprint(M)] = map[string]any{"c": num(round(c, 6)), "avg_grad2": num(round(avg, 6)), "min_grad2": num(round(mn, 6)), "thm56_rhs": num(round(rhs, 6))}
		if avg > rhs {
			boundOK = false
		}
	}
	slopeAvg, slopeMin := fitSlope(xs, avgs), fitSlope(xs, mins)
	res := proofs.Result{Values: map[string]any{"L": num(q.L), "B": num(q.B), "mu": num(mu), "K": K, "C1_corrected": num(bestC1), "C1_printed": num(kc.C1()), "c0": c0, "reps": reps,
		"by_M": rows, "loglog_slope_avg": num(round(slopeAvg, 4)), "loglog_slope_min": num(round(slopeMin, 4))}}
	if slopeAvg > -0.4 || !boundOK || bestC1 <= 0 {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("slope of (1/M)Σ‖∇f‖² vs M: %.3f (want ≤ −0.5+0.1); Thm 5.6 bound respected: %v; C₁ = %.3g; %v", slopeAvg, boundOK, bestC1, rows)
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("Quadratic federation (10 clients, d = 5, eigenvalues in [1, 2], shared minimiser: L = %.3f, B = %.4f), exact prox, K = %d sampled with replacement, μ = %.2f (maximises the corrected C₁ = %.4g > 0; see lemma5.5-one-step), c_m = %.0f/√M, M ∈ {8,…,256}, %d runs each: the log-log slope of (1/M)Σ_m‖∇f(ω̄^{2m−1})‖² is %.3f and of min_m ‖∇f‖² %.3f, both ≤ −0.5, and the average stays below Thm 5.6's right-hand side with the corrected constants at every M (e.g. M = 256: %v). On exactly solvable strongly convex problems the true rate is linear, so O(1/√M) holds but is loose; the rate comes from the h terms (C₂ ∝ c_m = O(1/√M)).",
		q.L, q.B, K, mu, bestC1, c0, reps, slopeAvg, slopeMin, rows["256"])
	return res
}

// minimiser returns argmin f (the shared client minimiser).
func (q *quadFed) minimiser() []float64 {
	x, _ := q.global.Minimizer()
	return x
}

// fitSlope is the least-squares slope of y on x.
func fitSlope(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i] / float64(len(x))
		my += y[i] / float64(len(x))
	}
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	return sxy / sxx
}

func checkBZero(cfg proofs.Config) proofs.Result {
	// Jensen: E‖∇F_i‖² ≥ ‖E∇F_i‖² = ‖∇f‖², so B ≥ 1 wherever ∇f ≠ 0.
	st, tests := sweepOf(cfg, "thm5.6-b-zero", 300, 100)
	minB2 := math.Inf(1)
	out := sweep.Run(st, tests, func(cs *sweep.Case) string {
		n, d, spread, s := cs.IntRange(1, 12), cs.IntRange(1, 8), cs.Float64Range(0, 3), cs.Uint64()
		r := rng.Stream(s, "bzero")
		fed, err := quad.Random(r, quad.Spec{Clients: n, Dim: d, MinEig: -0.5 + r.Float64(), MaxEig: 1 + 3*r.Float64(), Spread: spread})
		if err != nil {
			return err.Error()
		}
		x := randVec(r, d, 3)
		b2, _ := fed.Dissimilarity(x)
		minB2 = math.Min(minB2, b2)
		if b2 < 1-1e-12 {
			return fmt.Sprintf("B² = %g < 1", b2)
		}
		return ""
	})
	// i.i.d. clients: identical quadratics give B = 1 exactly.
	r := rng.Stream(cfg.Seed, paper, "bzero-iid")
	one, err := quad.Random(r, quad.Spec{Clients: 1, Dim: 4, MinEig: 0.5, MaxEig: 2})
	if err != nil {
		return inconclusive("quad: %v", err)
	}
	iid := quad.Uniform([]*quad.Quadratic{one.Clients[0], one.Clients[0], one.Clients[0], one.Clients[0]})
	bIID, _ := iid.Dissimilarity(randVec(r, 4, 1))
	// Also the released Syn(iid) data: binary logistic GLM at ω = 0.
	L, lmin := one.Clients[0].Smoothness(), one.Clients[0].MinEig()
	var pos, total int
	for e := -2.0; e <= 3; e += 0.05 {
		mu := L * math.Pow(10, e)
		for K := 1; K <= 100; K++ {
			total++
			if (lemmaConsts{L: L, B: math.Sqrt(bIID), Rho: mu + lmin, Mu: mu, K: float64(K)}).C1() > 0 {
				pos++
			}
		}
	}
	ex := lemmaConsts{L: L, B: math.Sqrt(bIID), Rho: 1 + lmin, Mu: 1, K: 9}
	exZero := ex
	exZero.B = 0
	res := proofs.Result{Values: map[string]any{"tests": tests, "min_B2": num(minB2),
		"iid_B2": num(bIID), "iid_L": num(L), "iid_lambda_min": num(lmin),
		"iid_grid_mu_K": total, "iid_grid_C1_positive": pos,
		"example_mu1_K9": map[string]any{"C1_B1": num(ex.C1()), "C1_B0": num(exZero.C1())}}}
	if !out.OK() {
		return inconclusive("Jensen check failed (check is wrong): %s", out)
	}
	if math.Abs(bIID-1) > 1e-9 {
		return inconclusive("identical clients give B² = %g, not 1", bIID)
	}
	if pos == total {
		res.Verdict = proofs.HoldsWithErratum
		res.Evidence = "B = 0 is impossible but C₁ > 0 for all i.i.d. settings tried"
		return res
	}
	res.Verdict = proofs.Refuted
	res.Evidence = fmt.Sprintf("B is defined by E‖∇F_i‖² ≤ B²‖∇f‖², and Jensen gives E‖∇F_i‖² ≥ ‖∇f‖², so B ≥ 1 (min B² over %d random federations and points, sweep stream %s: %.6f); B = 0 never occurs and with B = 0 Eq. (11) collapses to C₁ = 1/μ. I.i.d. clients (identical quadratics) have B = 1 exactly, and then C₁ is not necessarily positive: on a grid of μ ∈ [0.01, 1000]·L and K = 1..100 (L = %.3f, λ_min = %.3f) C₁ > 0 in only %d of %d cases; e.g. μ = 1, K = 9: C₁ = %.4f (B = 1) vs %.4f (B = 0). Erratum: 'B = 1 (i.i.d.)', and C₁ > 0 additionally needs roughly K > 2B² and μ large relative to L.",
		tests, out.Stream, minB2, L, lmin, pos, total, ex.C1(), exZero.C1())
	return res
}
