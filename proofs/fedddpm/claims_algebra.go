package fedddpm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
)

const paper = "fedddpm"

func register(id, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + id, Paper: paper, Source: source, Statement: statement, Check: check})
}

// registerAlgebra registers a check of the paper's own algebra or
// transcription: its verdict rests on the paper's formulas, not on the
// project's implementations (proofs.Algebra).
func registerAlgebra(id, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + id, Paper: paper, Source: source, Statement: statement, Check: check, Kind: proofs.Algebra})
}

// stream returns the named random stream of a check.
func stream(cfg proofs.Config, claim string, labels ...any) *rand.Rand {
	return rng.New(cfg.Seed, append([]any{paper, claim}, labels...)...).Rand()
}

// sweepOf names the sweep of a claim (or of one of its properties):
// sweep.New(cfg.Seed, paper, claim, labels…).
func sweepOf(cfg proofs.Config, claim string, labels ...any) sweep.Stream {
	return sweep.New(cfg.Seed, append([]any{paper, claim}, labels...)...)
}

// paperConfigs are the four (T, K, N, n) settings of §VI-A2 (MNIST: T = 400
// rounds, K = 3; CIFAR: T = 600, K = 5; N = 100 clients, p ∈ {0.15, 0.3}),
// plus the toy reproduction's N = 20 settings (T = 100, K = 2).
var paperConfigs = []struct{ T, K, N, n int }{
	{400, 3, 100, 15}, {400, 3, 100, 30}, {600, 5, 100, 15}, {600, 5, 100, 30},
	{100, 2, 20, 3}, {100, 2, 20, 6},
}

func configKey(T, K, N, n int) string { return fmt.Sprintf("T=%d,K=%d,N=%d,n=%d", T, K, N, n) }

func init() {
	// Algebra: a combinatorial identity checked by enumerating every subset
	// in the check itself; the project's sampler is not involved.
	registerAlgebra("eq26-sampling-identity", "Eq. (26), proof of Lemma 1",
		"For n clients Z_t sampled uniformly without replacement from N: E‖Σ_{i∈Z_t} x_i‖² = [n/N − n(n−1)/(N(N−1))]·Σ_i‖x_i‖² + n(n−1)/(N(N−1))·‖Σ_i x_i‖².",
		checkEq26)
	// Algebra: the inequality (1 + 1/(K−1))^K ≤ 4 evaluated at K = 2..10⁴.
	registerAlgebra("drift-power-bound", "(23), proof of Lemma 1",
		"(1 + 1/(K−1))^K ≤ 4 for every integer K > 1 (used to bound the local drift).",
		checkDriftPower)
	// Algebra: Lemma 1's conditions (theory.go) evaluated at the theorem's
	// step size in the paper's settings.
	registerAlgebra("lemma1-constant", "Lemma 1 conditions with Theorem 1's ζ_t",
		"With ζ_t = 1/(2LK√T), the conditions ½ − 9K²ζ²L² − ζL(N−n)/(2n(N−1))(54K³ζ²L² + 3K) > C ≥ 0 and ζKL ≤ n(N−1)/(N(n−1)) (and step (e), 1/(2K−1) + 6Kζ²L² ≤ 1/(K−1)) are satisfiable with C > 0 in the paper's settings.",
		checkLemma1Constant)
	// Algebra: the condition with η = 1/(LE√T) substituted, and the root of
	// the resulting function of T.
	registerAlgebra("lemma2-condition", "Proof of Lemma 2",
		"η/2 − L²η³E²/4 − Lη²E/2 ≥ 0 follows from η = 1/(LE√T) and holds due to T ≥ (2+√3)/2.",
		checkLemma2Condition)
	// Algebra: (19) summed term by term and (15), both transcribed in
	// theory.go, compared at random constants.
	registerAlgebra("theorem1-algebra", "Theorem 1, (19) ⇒ (15)",
		"Substituting η_t = 1/(LE√T) and ζ_t = 1/(2LK√T) into the telescoped inequality (19) and dividing by T·Kζ_tC yields the bound (15).",
		checkTheorem1Algebra)
	// Algebra: (15) evaluated at C = 0 and at C_max in the paper's settings.
	registerAlgebra("finding-c-positive", "Lemma 1 statement vs Theorem 1",
		"Lemma 1 requires '… > C ≥ 0'; Theorem 1 divides by C, so C = 0 must be excluded (the proof itself says 'a constant C > 0').",
		checkCPositive)
	// Algebra: compares the bound (15) with the one Lemma 1 alone gives
	// FedAvg (both transcribed in theory.go); no run of either algorithm.
	registerAlgebra("finding-bound-not-better-than-fedavg", "Theorem 1, Remark 2, §VI-E (Fig. 8)",
		"The convergence analysis supports an advantage of FedDDPM's server-side correction over FedAvg ('faster initial loss reduction, consistent with our theoretical analysis').",
		checkBoundVsFedAvg)
}

func checkEq26(cfg proofs.Config) proofs.Result {
	r := stream(cfg, "eq26")
	const dim = 3
	worst, cases := 0.0, 0
	for N := 2; N <= 7; N++ {
		x := make([][]float64, N)
		for i := range x {
			x[i] = make([]float64, dim)
			rng.FillNormal(r, x[i], 1+float64(i))
		}
		var sumSq float64
		tot := make([]float64, dim)
		for _, xi := range x {
			sumSq += norm2(xi)
			for j := range tot {
				tot[j] += xi[j]
			}
		}
		for n := 1; n <= N; n++ {
			var lhs float64
			subsets := 0
			s := make([]float64, dim)
			for mask := 0; mask < 1<<N; mask++ {
				if popcount(mask) != n {
					continue
				}
				clear(s)
				for i := 0; i < N; i++ {
					if mask>>i&1 == 1 {
						for j := range s {
							s[j] += x[i][j]
						}
					}
				}
				lhs += norm2(s)
				subsets++
			}
			lhs /= float64(subsets)
			pn := float64(n) / float64(N)
			pnn := float64(n*(n-1)) / float64(N*(N-1))
			rhs := (pn-pnn)*sumSq + pnn*norm2(tot)
			worst = math.Max(worst, math.Abs(lhs-rhs)/math.Max(1, math.Abs(rhs)))
			cases++
		}
	}
	v := proofs.Refuted
	if worst < 1e-12 {
		v = proofs.Holds
	}
	return proofs.Result{Verdict: v,
		Evidence: fmt.Sprintf("exact enumeration of all subsets for N = 2..7, n = 1..N (%d cases, x_i ∈ R³ random): max relative error %.2g", cases, worst),
		Values:   map[string]any{"cases": cases, "max_rel_err": worst}}
}

func popcount(m int) int {
	c := 0
	for ; m > 0; m &= m - 1 {
		c++
	}
	return c
}

func checkDriftPower(cfg proofs.Config) proofs.Result {
	kmax := 10000
	if cfg.Quick {
		kmax = 2000
	}
	worst, worstK := 0.0, 0
	prev := math.Inf(1)
	monotone := true
	for K := 2; K <= kmax; K++ {
		v := math.Pow(1+1/float64(K-1), float64(K))
		if v > worst {
			worst, worstK = v, K
		}
		if v > prev*(1+1e-15) {
			monotone = false
		}
		prev = v
	}
	km1 := 0.0 // K − 1 at K = 1
	atOne := math.Pow(1+1/km1, 1)
	verdict := proofs.Refuted
	if worst <= 4*(1+1e-15) {
		verdict = proofs.Holds
	}
	return proofs.Result{Verdict: verdict,
		Evidence: fmt.Sprintf("K = 2..%d: max %.15g at K = %d (equality at K = 2), decreasing: %v, value at K = %d: %.6f (→ e); at K = 1 the expression is %v, so the bound needs K > 1", kmax, worst, worstK, monotone, kmax, prev, atOne),
		Values:   map[string]any{"max": worst, "argmax_K": worstK, "decreasing": monotone, "last": prev}}
}

func checkLemma1Constant(cfg proofs.Config) proofs.Result {
	const L = 1.0 // ζL = 1/(2K√T): every condition depends on L only through ζL
	cmax := map[string]any{}
	var lines []string
	allOK := true
	for _, c := range paperConfigs {
		z := zetaThm(L, c.K, c.T)
		cm := lemma1Cmax(z, L, c.K, c.N, c.n)
		c2 := lemma1Cond2(z, L, c.K, c.N, c.n)
		e, _ := stepE(z, L, c.K)
		k := configKey(c.T, c.K, c.N, c.n)
		cmax[k] = cm
		ok := cm > 0 && c2 && e
		allOK = allOK && ok
		lines = append(lines, fmt.Sprintf("%s: C < %.5f, ζKL = %.4f ≤ %.4f: %v, step (e): %v", k, cm, z*float64(c.K)*L, float64(c.n)*float64(c.N-1)/(float64(c.N)*float64(c.n-1)), c2, e))
	}
	// The bound on C with the theorem's ζ: ½ − 9/(4T) − ρ/2·(27/(4T^{3/2}) + 3/(2√T)); K cancels.
	v := proofs.Refuted
	if allOK {
		v = proofs.Holds
	}
	return proofs.Result{Verdict: v,
		Evidence: "with ζ = 1/(2LK√T), C_max = ½ − 9/(4T) − (N−n)/(2n(N−1))·(27/(4T^{3/2}) + 3/(2√T)) (independent of K and L); " + strings.Join(lines, "; "),
		Values:   map[string]any{"cmax": cmax}}
}

func checkLemma2Condition(cfg proofs.Config) proofs.Result {
	h := func(T float64) float64 { return 0.5 - 1/(4*T) - 1/(2*math.Sqrt(T)) }
	// (a) The substitution reduces the condition to h(T) ≥ 0 for any L, E.
	r := stream(cfg, "lemma2cond")
	worst := 0.0
	for i := 0; i < 1000; i++ {
		L := math.Exp(4 * (r.Float64() - 0.5))
		E := 1 + r.IntN(50)
		T := 1 + r.IntN(5000)
		eta := etaThm(L, E, T)
		e := float64(E)
		lhs := eta/2 - L*L*eta*eta*eta*e*e/4 - L*eta*eta*e/2
		worst = math.Max(worst, math.Abs(lhs/eta-h(float64(T))))
	}
	// (b) The root of h is (2+√3)/2.
	lo, hi := 1.0, 4.0
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if h(mid) >= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	want := (2 + math.Sqrt(3)) / 2
	ok := worst < 1e-12 && math.Abs(hi-want) < 1e-12 && h(1) < 0 && h(2) >= 0
	v := proofs.Refuted
	if ok {
		v = proofs.Holds
	}
	return proofs.Result{Verdict: v,
		Evidence: fmt.Sprintf("with η = 1/(LE√T) the condition divided by η is h(T) = ½ − 1/(4T) − 1/(2√T) (max deviation %.2g over 1000 random L, E, T); root of h = %.15f vs (2+√3)/2 = %.15f; h(1) = %.4f < 0, h(2) = %.4f ≥ 0, so the condition holds for every integer T ≥ 2", worst, hi, want, h(1), h(2)),
		Values:   map[string]any{"root": hi, "h1": h(1), "h2": h(2), "max_dev": worst}}
}

// randomParams draws positive Theorem 1 constants.
func randomParams(r *rand.Rand) params {
	N := 2 + r.IntN(200)
	return params{
		T: 1 + r.IntN(3000), K: 1 + r.IntN(10), E: 1 + r.IntN(10), N: N, n: 1 + r.IntN(N),
		L: math.Exp(3 * (r.Float64() - 0.5)), SL2: 5 * r.Float64(), SG2: 5 * r.Float64(), Gap: 10 * r.Float64(),
	}
}

// theorem1Case draws (T, K, E, N, n, L, σ_l², σ_g², f(w_0)−f*, C) from the
// stream seeded by seed and returns the relative error between (19), summed
// term by term over t and divided by T·Kζ_tC, and (15).
func theorem1Case(seed uint64) float64 {
	r := rng.New(seed, "thm1").Rand()
	pp := randomParams(r)
	C := 0.01 + 0.49*r.Float64()
	zeta := make([]float64, pp.T)
	eta := make([]float64, pp.T)
	for t := range zeta {
		zeta[t] = zetaThm(pp.L, pp.K, pp.T)
		eta[t] = etaThm(pp.L, pp.E, pp.T)
	}
	rhs, fac := rhs19(pp, C, zeta, eta)
	got, want := rhs/fac, bound15(pp, C)
	return math.Abs(got-want) / want
}

func checkTheorem1Algebra(cfg proofs.Config) proofs.Result {
	tests := 500
	if cfg.Quick {
		tests = 200
	}
	worst := 0.0
	out := sweep.Run(sweepOf(cfg, "theorem1-algebra"), tests, func(cs *sweep.Case) bool {
		e := theorem1Case(cs.Uint64())
		worst = math.Max(worst, e)
		return e < 1e-12
	})
	ok, report := out.OK(), out.String()
	v := proofs.Refuted
	if ok {
		v = proofs.Holds
	}
	return proofs.Result{Verdict: v,
		Evidence: fmt.Sprintf("%d random (T, K, E, N, n, L, σ_l², σ_g², f(w_0)−f*, C): (19) summed term by term over t and divided by T·Kζ_tC matches (15) with max relative error %.2g (the nonnegative server term on the left of (19) is dropped); %s", tests, worst, report),
		Values:   map[string]any{"tests": tests, "max_rel_err": worst}}
}

func checkCPositive(cfg proofs.Config) proofs.Result {
	const L = 1.0
	var lines []string
	zeroInf, posFinite := true, true
	for _, c := range paperConfigs[:4] {
		p := params{T: c.T, K: c.K, E: 1, N: c.N, n: c.n, L: L, SL2: 1, SG2: 1, Gap: 1}
		cm := lemma1Cmax(zetaThm(L, c.K, c.T), L, c.K, c.N, c.n)
		b0, bc := bound15(p, 0), bound15(p, cm)
		zeroInf = zeroInf && math.IsInf(b0, 1)
		posFinite = posFinite && !math.IsInf(bc, 0) && !math.IsNaN(bc)
		lines = append(lines, fmt.Sprintf("%s: bound at C=0 %v, at C→C_max=%.4f %.4g", configKey(c.T, c.K, c.N, c.n), b0, cm, bc))
	}
	v := proofs.Inconclusive
	switch {
	case zeroInf && posFinite:
		v = proofs.HoldsWithErratum
	case posFinite:
		v = proofs.Holds
	}
	return proofs.Result{Verdict: v,
		Evidence: "with σ_l² = σ_g² = f(w_0)−f* = 1, L = 1, E = 1: " + strings.Join(lines, "; ") + "; the statement's C ≥ 0 admits C = 0, for which (15) is vacuous (+Inf) — the erratum C > 0 (as the proof says) is needed",
		Values:   map[string]any{"bound_at_zero_infinite": zeroInf, "bound_at_cmax_finite": posFinite}}
}

func checkBoundVsFedAvg(cfg proofs.Config) proofs.Result {
	const L = 1.0
	worse, total := 0, 0
	minGap := math.Inf(1)
	var lines []string
	for _, c := range paperConfigs[:4] {
		for _, E := range []int{1, 5, 20, 30} {
			p := params{T: c.T, K: c.K, E: E, N: c.N, n: c.n, L: L, SL2: 1, SG2: 1, Gap: 1}
			cm := lemma1Cmax(zetaThm(L, c.K, c.T), L, c.K, c.N, c.n)
			dd, fa := bound15(p, cm), fedavgBound(p, cm)
			total++
			if dd > fa {
				worse++
			}
			minGap = math.Min(minGap, (dd-fa)/fa)
			if E == 1 || E == 5 {
				lines = append(lines, fmt.Sprintf("%s,E=%d: FedDDPM %.4f vs FedAvg %.4f (+%.0f%%)", configKey(c.T, c.K, c.N, c.n), E, dd, fa, 100*(dd-fa)/fa))
			}
		}
	}
	// Random parameters: the difference is (σ_l²/√T + (E−1)(2E−1)σ_l²/(6E²T))/C ≥ 0.
	r := stream(cfg, "bound-vs-fedavg")
	n := 2000
	if cfg.Quick {
		n = 500
	}
	randWorse := 0
	for i := 0; i < n; i++ {
		p := randomParams(r)
		p.SL2 += 1e-3
		C := 0.01 + 0.49*r.Float64()
		if bound15(p, C) > fedavgBound(p, C) {
			randWorse++
		}
	}
	v := proofs.Inconclusive
	if worse == total && randWorse == n {
		v = proofs.Refuted
	} else if worse == 0 {
		v = proofs.Holds
	}
	return proofs.Result{Verdict: v,
		Evidence: fmt.Sprintf("Lemma 1 alone (FedAvg, same ζ) gives (15) without σ_l²/√T and (E−1)(2E−1)σ_l²/(6E²T); FedDDPM's bound is larger in %d/%d paper settings (σ_l² = σ_g² = gap = 1; min excess %.1f%%) and in %d/%d random parameter draws with σ_l² > 0. The server's descent term −η_tE/2·E‖∇f(ŵ_{t+1})‖² is dropped from (19) to (15), so the theorem shows convergence, not an advantage over FedAvg. %s", worse, total, 100*minGap, randWorse, n, strings.Join(lines, "; ")),
		Values:   map[string]any{"paper_settings_worse": worse, "paper_settings": total, "random_worse": randWorse, "random": n, "min_rel_excess": minGap}}
}
