package upcycled

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	up "github.com/fedrepro/fedrepro/algorithms/upcycled"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
)

func init() {
	register("thm6.2-closed-form", "Thm 6.2; App. E Eqs. (14)–(15)",
		"Output perturbation over 2M iterations is (ε, δ)-DP for ε ≥ a with δ = exp(−a(ε/(2a) − ½)²), equivalently ε = 2√(a log(1/δ)) + a, a = Mτ²/(2σ²|D_i|²); these are the minima over λ of the moments-accountant bounds of App. E.",
		checkThm62)
	// Algebra: the leading-order ratio √(M_up σ_b²/(M_b σ_up²)) at the
	// paper's M and σ against the rounding intervals of its printed ε̄
	// pairs; the accountant values it reports do not enter the verdict.
	registerAlgebra("thm6.2-ratio-0.884", "Fig. 3 caption (ε̄ 1.40 vs 1.59); App. F.1 (0.683 vs 0.773); spec §3.5",
		"The published Upcycled/baseline ε̄ ratios for σ = 0.8 vs 1.0 equal √(M_up σ_b²/(M_b σ_up²)) = 0.884 with M_up = 40, M_b = 80 (equal total iterations T = 80).",
		checkRatio)
	register("lemma6.1-post-processing", "Lemma 6.1; §6",
		"Even iterations are post-processing: the privacy loss up to iteration 2m equals that up to 2m−1, so ε of 2M Upcycled iterations equals ε of M baseline rounds, and at equal T and σ Upcycled's ε is smaller.",
		checkLemma61)
	register("spec7-11-neighbouring-relation", "§3 DP definition vs App. E proof of Thm 6.2 (spec §7 item 11)",
		"Thm 6.2 holds for the paper's DP definition (neighbouring datasets differ in at most one data point) with per-round sensitivity τ/|D_i| of ξ(ω) = (1/|D|)Σ_d η(d), ‖η‖ ≤ τ.",
		checkNeighbouring)
	register("spec7-14-sum-index", "Thm 6.3 and Thm 5.6 sums Σ_{m=0}^{M} (spec §7 item 14)",
		"Thm 6.3's ε sums Σ_{m=0}^{M} over the leaking rounds of 2M iterations (and Thm 5.6 averages ‖∇f(ω̄^{2m−1})‖² over m = 0..M).",
		checkSumIndex)
	// Algebra: the iteration ratio implied by the printed ε̄ pairs and the
	// wall-time ratios of Table 5, all published numbers; the schedule's
	// leaking-round counts are reported, not decided on.
	registerAlgebra("spec7-15-private-budget", "§7.4, Figs 3–4, App. F.1, Table 5 (spec §7 item 15)",
		"The private experiments compare Upcycled and baselines at a budget the paper does not state; the published ε̄ ratios and Table 5 imply equal total iterations (T = 80 for both, so 40 vs 80 leaking rounds), not 2T for Upcycled as in the non-private runs.",
		checkPrivateBudget)
	register("spec7-16-noise-std", "Fig. 3 caption; App. F.1; upstream client/avg.py (spec §3.7, §7 item 16)",
		"With σ = 1.0 for baselines and σ = 0.8 for Upcycled (equal T), Upcycled 'ensures stronger privacy' (smaller ε̄) — for the mechanism the experiments ran.",
		checkNoiseStd)
	// Algebra: a Monte Carlo of the Gaussian privacy loss and of App. E's
	// printed per-step bound, both written in the check, against App. E's
	// log-moment; the accountant's Thm 6.3 values are reported only.
	registerAlgebra("spec7-21-appE-and-typos", "App. E (per-step loss bound, end of the Thm 6.3 proof); §4; Table 3 heading (spec §7 item 21)",
		"App. E bounds the per-step privacy loss by τ/(2|D|σ²)(2|n| + τ) and derives the log-moment Mτ²λ(λ+1)/(2|D|²σ²); the Thm 6.3 proof multiplies one Jacobian factor exp(2.8u₂/(|D|μ)) outside the product over m.",
		checkAppETypos)
	register("spec7-22-sampling-model", "Thm 6.2 proof ('WLOG the client is updated in every iteration'); upstream sampling (spec §7 item 22; dp-accounting §E4)",
		"The ε of Thm 6.2 relies on no sampling amplification: in the private runs (frac = 1) every client releases a model in every training round, and neither fixed-size client sampling nor shuffled batches would justify a Poisson-subsampled ε.",
		checkSamplingModel)
}

// denseOrders is a log grid of RDP orders 1+10^x, x ∈ [−4, 8].
func denseOrders() []float64 {
	const n = 6001
	out := make([]float64, n)
	for i := range out {
		out[i] = 1 + math.Pow(10, -4+12*float64(i)/float64(n-1))
	}
	return out
}

// exactGaussianEps is ε(δ) of `rounds` compositions of a Gaussian mechanism
// with noise std `std` and L2 sensitivity `sens` (the exact curve; what a
// PLD accountant converges to).
func exactGaussianEps(std, sens float64, rounds int, delta float64) (float64, error) {
	return accountant.GaussianEpsilon(std/sens/math.Sqrt(float64(rounds)), delta)
}

// rdpGaussianEps is the RDP accountant's ε (improved conversion, default
// orders) for the same composition.
func rdpGaussianEps(std, sens float64, rounds int, delta float64) (float64, error) {
	e, _, err := accountant.RDPEpsilon(accountant.SelfComposed{Event: accountant.Gaussian{Sigma: std / sens}, Count: rounds}, delta)
	return e, err
}

func checkThm62(cfg proofs.Config) proofs.Result {
	st, tests := sweepOf(cfg, "thm6.2-closed-form", 300, 80)
	orders := denseOrders()
	var worstRT, worstNum, worstDelta, worst15, worstRDP float64
	out := sweep.Run(st, tests, func(cs *sweep.Case) string {
		m, lt, ls := cs.IntRange(1, 500), cs.Float64Range(math.Log(0.1), math.Log(50)), cs.Float64Range(math.Log(0.1), math.Log(10))
		n, ldelta := cs.IntRange(10, 5000), cs.Float64Range(math.Log(1e-12), math.Log(0.5))
		tau, sigma, delta := math.Exp(lt), math.Exp(ls), math.Exp(ldelta)
		a := accountant.UpcycledOutputA(m, tau, sigma, n)
		eps := thm62Epsilon(m, tau, sigma, n, delta)
		at := fmt.Sprintf("M=%d τ=%.4g σ=%.4g |D|=%d δ=%.3g", m, tau, sigma, n, delta)
		if !(eps >= a) {
			return at + fmt.Sprintf(": ε=%g < a=%g", eps, a)
		}
		ld0 := math.Log(delta)
		rt := math.Abs(math.Log(thm62Delta(m, tau, sigma, n, eps))-ld0) / math.Max(1, -ld0)
		e15 := math.Abs(math.Log(thm62DeltaEq15(m, tau, sigma, n, eps))-ld0) / math.Max(1, -ld0)
		en := math.Abs(thm62EpsilonNumeric(m, tau, sigma, n, delta)-eps) / eps
		dn := math.Abs(thm62LogDeltaNumeric(m, tau, sigma, n, eps)-ld0) / math.Max(1, -ld0)
		// The accountant's λ-forms (App. E) agree with the numeric minima.
		el, _, err1 := accountant.UpcycledOutputEpsilonLambda(m, tau, sigma, n, delta)
		dl, _, err2 := accountant.UpcycledOutputDeltaLambda(m, tau, sigma, n, eps)
		if err1 != nil || err2 != nil {
			return at + fmt.Sprintf(": accountant λ-forms: %v %v", err1, err2)
		}
		lam := math.Max(math.Abs(el-eps)/eps, math.Abs(math.Log(dl)-ld0)/math.Max(1, -ld0))
		en = math.Max(en, lam)
		worstRT, worst15 = math.Max(worstRT, rt), math.Max(worst15, e15)
		worstNum, worstDelta = math.Max(worstNum, en), math.Max(worstDelta, dn)
		if rt > 1e-9 || e15 > 1e-9 || en > 1e-9 || dn > 1e-8 {
			return at + fmt.Sprintf(": round trip %.2g, (15) %.2g, numeric ε %.2g, numeric log δ %.2g", rt, e15, en, dn)
		}
		rdp, err := accountant.EventRDP(accountant.SelfComposed{Event: accountant.Gaussian{Sigma: sigma * float64(n) / tau}, Count: m}, orders, accountant.AddRemove)
		if err != nil {
			return at + ": accountant: " + err.Error()
		}
		er, _, err := accountant.EpsilonFromRDP(orders, rdp, delta, accountant.Classic)
		if err != nil {
			return at + ": accountant: " + err.Error()
		}
		gap := (er - eps) / eps
		worstRDP = math.Max(worstRDP, math.Abs(gap))
		if gap < -1e-9 || gap > 1e-4 {
			return at + fmt.Sprintf(": RDP accountant (classic conversion, dense grid) ε = %g vs Thm 6.2 %g", er, eps)
		}
		for _, c := range []struct {
			name string
			eps  float64
			up   bool
		}{
			{"M+1", thm62Epsilon(m+1, tau, sigma, n, delta), true},
			{"1.01τ", thm62Epsilon(m, 1.01*tau, sigma, n, delta), true},
			{"1.01σ", thm62Epsilon(m, tau, 1.01*sigma, n, delta), false},
			{"|D|+1", thm62Epsilon(m, tau, sigma, n+1, delta), false},
		} {
			if (c.up && !(c.eps > eps)) || (!c.up && !(c.eps < eps)) {
				return at + fmt.Sprintf(": not monotone in %s (%g vs %g)", c.name, c.eps, eps)
			}
		}
		return ""
	})
	// A reference point: M = 80, τ = 10, σ = 1, |D| = 201 (mean Syn(iid) client), δ = 1e-5.
	refThm := thm62Epsilon(80, 10, 1, 201, 1e-5)
	refRDP, err1 := rdpGaussianEps(1, 10.0/201, 80, 1e-5)
	refExact, err2 := exactGaussianEps(1, 10.0/201, 80, 1e-5)
	if err1 != nil || err2 != nil {
		return inconclusive("accountant: %v %v", err1, err2)
	}
	res := proofs.Result{Values: map[string]any{"tests": tests,
		"max_rel_round_trip_log_delta": num(worstRT), "max_rel_eq15_vs_statement": num(worst15),
		"max_rel_numeric_lambda_min_eps": num(worstNum), "max_rel_numeric_lambda_min_log_delta": num(worstDelta),
		"max_rel_rdp_classic_dense_grid": num(worstRDP),
		"reference": map[string]any{"M": 80, "tau": 10, "sigma": 1, "D": 201, "delta": 1e-5,
			"eps_thm62": num(refThm), "eps_rdp_improved": num(refRDP), "eps_exact_gaussian": num(refExact)}}}
	if !out.OK() {
		res.Verdict = proofs.Refuted
		res.Evidence = out.String()
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("Closed forms from accountant.UpcycledOutput*; %d random (M ≤ 500, τ ∈ [0.1,50], σ ∈ [0.1,10], |D| ∈ [10,5000], δ ∈ [1e-12,0.5]; sweep stream %s): ε(δ) ≥ a; δ(ε(δ)) = δ (max relative error in log δ %.2g); App. E (15), written out independently, equals the theorem's δ (%.2g); ε (and the accountant's λ-forms) equal the numeric min over λ of h₁(λ) (%.2g) and log δ the numeric min of log h(λ) (%.2g); the RDP accountant with the classic conversion on a dense order grid gives the same ε (within %.2g, never below): Thm 6.2 is the moments accountant with the classic RDP→DP conversion. ε strictly increases in M and τ and decreases in σ and |D|. For reference (M = 80, τ = 10, σ = 1, |D| = 201, δ = 1e-5): Thm 6.2 %.4f ≥ RDP improved conversion %.4f ≥ exact Gaussian composition %.4f — the theorem is valid but loose, under its own sensitivity assumption (see spec7-11/12).",
		tests, out.Stream, worstRT, worst15, worstNum, worstDelta, worstRDP, refThm, refRDP, refExact)
	return res
}

// roundingInterval is the ratio interval [lo, hi] of two numbers printed
// with `decimals` decimals.
func roundingInterval(upcycled, baseline float64, decimals int) (lo, hi float64) {
	h := 0.5 * math.Pow(10, -float64(decimals))
	return (upcycled - h) / (baseline + h), (upcycled + h) / (baseline - h)
}

// publishedPairs are the output-perturbation ε̄ the paper prints for Syn(iid).
var publishedPairs = []struct {
	name               string
	baseline, upcycled float64
	decimals           int
}{
	{"fig3", 1.59, 1.40, 2},
	{"appF1", 0.773, 0.683, 3},
}

func checkRatio(cfg proofs.Config) proofs.Result {
	const mUp, mBase, sUp, sBase = 40.0, 80.0, 0.8, 1.0
	pred := math.Sqrt(mUp * sBase * sBase / (mBase * sUp * sUp))
	vals := map[string]any{"predicted_ratio": num(pred), "m_up": mUp, "m_base": mBase, "sigma_up": sUp, "sigma_base": sBase}
	var bad []string
	for _, p := range publishedPairs {
		lo, hi := roundingInterval(p.upcycled, p.baseline, p.decimals)
		vals[p.name] = map[string]any{"ratio": num(p.upcycled / p.baseline), "rounding_lo": num(lo), "rounding_hi": num(hi)}
		if pred < lo || pred > hi {
			bad = append(bad, fmt.Sprintf("%s: %.4f outside [%.4f, %.4f]", p.name, pred, lo, hi))
		}
	}
	// The full Thm 6.2 formula (with its +a term): for one client the ratio
	// is below the leading-order 0.884 and falls toward 0.781 as a/log(1/δ) grows.
	full := map[string]any{}
	for _, delta := range []float64{1e-2, 1e-5, 1e-10} {
		r := thm62Epsilon(mUp, 10, sUp, 201, delta) / thm62Epsilon(mBase, 10, sBase, 201, delta)
		full[fmt.Sprint(delta)] = num(r)
	}
	vals["thm62_ratio_tau10_D201_by_delta"] = full
	vals["lower_limit_ratio"] = num(mUp * sBase * sBase / (mBase * sUp * sUp))
	// Two-fold iterations (M_up = M_b) or the code's σ² std change the ratio.
	vals["ratio_if_2T_iterations"] = num(math.Sqrt(sBase * sBase / (sUp * sUp)))
	vals["ratio_with_code_sigma_squared_std"] = num(math.Sqrt(mUp * math.Pow(sBase, 4) / (mBase * math.Pow(sUp, 4))))
	res := proofs.Result{Values: vals}
	if len(bad) > 0 {
		res.Verdict = proofs.Refuted
		res.Evidence = "predicted ratio inconsistent with the printed values: " + strings.Join(bad, "; ")
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("√(M_up σ_b²/(M_b σ_up²)) = √(40·1/(80·0.64)) = %.4f lies inside the rounding intervals of both published ratios: 1.40/1.59 = %.4f ∈ [%.4f, %.4f] and 0.683/0.773 = %.4f ∈ [%.4f, %.4f]. With Thm 6.2's +a term the per-client ratio is slightly lower (τ = 10, |D| = 201: %.4f, %.4f, %.4f at δ = 1e-2, 1e-5, 1e-10) and tends to 0.884 only as δ → 0, so 0.683/0.773 = 0.8836 needs a small a/log(1/δ) (see the audit). With 2T Upcycled iterations the ratio would be 1/0.8 = 1.25, and with the code's σ² std %.4f: both > 1.",
		pred, 1.40/1.59, vals["fig3"].(map[string]any)["rounding_lo"], vals["fig3"].(map[string]any)["rounding_hi"],
		0.683/0.773, vals["appF1"].(map[string]any)["rounding_lo"], vals["appF1"].(map[string]any)["rounding_hi"], full["0.01"], full["1e-05"], full["1e-10"], vals["ratio_with_code_sigma_squared_std"])
	return res
}

// releaseCounts runs a schedule with an output-perturbation hook that
// counts, per client, how many noisy models it released.
func releaseCounts(cfg proofs.Config, iterations int, upcycled bool, frac float64) ([]int, error) {
	clients, err := smallFederation(cfg.Seed, 6)
	if err != nil {
		return nil, err
	}
	counts := make([]int, len(clients))
	op := up.OutputPerturbation{Tau: 10, Sigma: 1}
	hooks := fl.Hooks{AfterLocal: func(c *fl.Client, p []float64) {
		counts[c.ID]++
		op.Apply(c.Noise, p)
	}}
	flc := fl.Config{Sampling: fl.Uniform, Frac: frac, Local: fl.LocalConfig{Epochs: 1, BatchSize: 32, LR: 0.05, Momentum: 0.5}}
	e, alg, err := newEngine(clients, "fedavg", flc, rng.New(cfg.Seed, "proofs", paper, "releases"), hooks)
	if err != nil {
		return nil, err
	}
	if err := up.Run(e, alg, up.Schedule{Iterations: iterations, Upcycled: upcycled, Coef: 0.3}, nil); err != nil {
		return nil, err
	}
	return counts, nil
}

func checkLemma61(cfg proofs.Config) proofs.Result {
	M := 40
	if cfg.Quick {
		M = 12
	}
	const delta = 1e-5
	// Per-round noise multiplier under the paper's assumptions: τ = 10,
	// σ = 1, |D| = 201 (mean Syn(iid) client): z = σ|D|/τ.
	z := 1 * 201 / 10.0
	upc, err := releaseCounts(cfg, 2*M, true, 1)
	if err != nil {
		return inconclusive("engine: %v", err)
	}
	baseM, err := releaseCounts(cfg, M, false, 1)
	if err != nil {
		return inconclusive("engine: %v", err)
	}
	base2M, err := releaseCounts(cfg, 2*M, false, 1)
	if err != nil {
		return inconclusive("engine: %v", err)
	}
	// RDP (improved conversion) and PLD accountants on the per-client
	// sequence of releases.
	eps := func(k int) (rdp, pld float64, err error) {
		ev := accountant.SelfComposed{Event: accountant.Gaussian{Sigma: z}, Count: k}
		if rdp, _, err = accountant.RDPEpsilon(ev, delta); err != nil {
			return
		}
		pld, err = accountant.PLDEpsilon(ev, delta)
		return
	}
	var problems []string
	var eUp, eBase, eBase2 [2]float64
	for i := range upc {
		if upc[i] != M || baseM[i] != M || base2M[i] != 2*M {
			problems = append(problems, fmt.Sprintf("client %d released %d (Upcycled 2M), %d (baseline M), %d (baseline 2M)", i, upc[i], baseM[i], base2M[i]))
		}
	}
	var e1, e2, e3 error
	eUp[0], eUp[1], e1 = eps(upc[0])
	eBase[0], eBase[1], e2 = eps(baseM[0])
	eBase2[0], eBase2[1], e3 = eps(base2M[0])
	if e1 != nil || e2 != nil || e3 != nil {
		return inconclusive("accountant: %v %v %v", e1, e2, e3)
	}
	if eUp != eBase {
		problems = append(problems, fmt.Sprintf("ε(Upcycled, 2M) = %v ≠ ε(baseline, M) = %v", eUp, eBase))
	}
	if !(eUp[0] < eBase2[0] && eUp[1] < eBase2[1]) {
		problems = append(problems, fmt.Sprintf("at equal T = 2M: ε(Upcycled) = %v not < ε(baseline) = %v", eUp, eBase2))
	}
	// Post-processing: the even step is a deterministic function of the
	// released aggregates (Global, Prev) only.
	s1 := &fl.Server{Global: []float64{1, -2, 3}, Prev: []float64{0.5, 0, 1}, Round: 3}
	s2 := &fl.Server{Global: []float64{1, -2, 3}, Prev: []float64{0.5, 0, 1}, Round: 99, NClients: 7}
	up.EvenStep(s1, nil, 0.3)
	up.EvenStep(s2, nil, 0.3)
	for i := range s1.Global {
		if s1.Global[i] != s2.Global[i] {
			problems = append(problems, "EvenStep depends on more than (Global, Prev)")
			break
		}
	}
	res := proofs.Result{Values: map[string]any{"M": M, "delta": delta, "noise_multiplier": z,
		"releases_per_client_upcycled_2M": upc[0], "releases_per_client_baseline_M": baseM[0], "releases_per_client_baseline_2M": base2M[0],
		"eps_rdp_upcycled_2M": num(eUp[0]), "eps_rdp_baseline_M": num(eBase[0]), "eps_rdp_baseline_2M": num(eBase2[0]),
		"eps_pld_upcycled_2M": num(eUp[1]), "eps_pld_baseline_M": num(eBase[1]), "eps_pld_baseline_2M": num(eBase2[1])}}
	if len(problems) > 0 {
		res.Verdict = proofs.Refuted
		res.Evidence = strings.Join(problems, "; ")
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("Engine runs with output perturbation on every upload (frac = 1, 6 clients): over 2M = %d Upcycled iterations each client releases %d noisy models, as many as in M baseline rounds (%d in 2M baseline rounds). Charging each release as a Gaussian (noise multiplier σ|D|/τ = %.1f) and nothing for even iterations (EvenStep is a deterministic function of the released Global and Prev), the RDP accountant gives ε(Upcycled, 2M) = ε(baseline, M) = %.4f and the PLD accountant %.4f (δ = 1e-5); at equal T = 2M with the same σ, ε(Upcycled) = %.4f < ε(baseline) = %.4f (RDP; PLD %.4f < %.4f). Lemma 6.1 says nothing about what the odd-round uploads contain: the engine's (and upstream's) output perturbation noises only the model, so Scaffold's control-variate deltas, which the even step also extrapolates, are uploaded without noise.",
		2*M, upc[0], base2M[0], z, eUp[0], eUp[1], eUp[0], eBase2[0], eUp[1], eBase2[1])
	return res
}

func checkNeighbouring(cfg proofs.Config) proofs.Result {
	const tau = 10.0
	// Explicit worst-case pairs for the averaging model ξ(D) = (1/|D|)Σ η(d).
	pairs := map[string]any{}
	for _, n := range []int{45, 201, 482} {
		nf := float64(n)
		// Add-one: D = n copies of η = −τu, D' = D ∪ {η = +τu}.
		addOne := math.Abs((-nf*tau+tau)/(nf+1) - (-tau))
		// Replace-one: one −τu replaced by +τu.
		replace := math.Abs((-(nf-1)*tau+tau)/nf - (-tau))
		pairs[fmt.Sprint(n)] = map[string]any{"paper_tau_over_D": num(tau / nf), "add_one": num(addOne), "replace_one": num(replace),
			"add_one_bound_2tau_over_D_plus_1": num(2 * tau / (nf + 1)), "replace_one_bound_2tau_over_D": num(2 * tau / nf)}
	}
	// Random search: no configuration exceeds 2τ/(n+1) (add) or 2τ/n (replace).
	st, tests := sweepOf(cfg, "spec7-11-neighbouring-relation", 300, 100)
	worstAdd, worstRep := 0.0, 0.0
	out := sweep.Run(st, tests, func(cs *sweep.Case) string {
		n, d, s := cs.IntRange(1, 60), cs.IntRange(1, 6), cs.Uint64()
		r := rng.Stream(s, "nb")
		eta := make([][]float64, n+1)
		for i := range eta {
			v := randVec(r, d, 1)
			nv := norm(v)
			rad := tau
			if r.IntN(3) == 0 {
				rad = tau * r.Float64()
			}
			for j := range v {
				v[j] *= rad / nv
			}
			eta[i] = v
		}
		mean := func(rows [][]float64) []float64 {
			out := make([]float64, d)
			for _, row := range rows {
				for j := range out {
					out[j] += row[j] / float64(len(rows))
				}
			}
			return out
		}
		base := mean(eta[:n])
		add := norm(sub(mean(eta), base)) / (2 * tau / float64(n+1))
		repl := append(append([][]float64{}, eta[1:n]...), eta[n])
		rep := norm(sub(mean(repl), base)) / (2 * tau / float64(n))
		worstAdd, worstRep = math.Max(worstAdd, add), math.Max(worstRep, rep)
		if add > 1+1e-12 || rep > 1+1e-12 {
			return fmt.Sprintf("n=%d d=%d: add-one %.6f, replace-one %.6f of the bounds", n, d, add, rep)
		}
		return ""
	})
	// Consequence at a reference point (M = 80, σ = 1, |D| = 201, δ = 1e-5):
	// the exact δ of the worst replace-one pair at Thm 6.2's ε.
	const M, sigma, D, delta = 80, 1.0, 201.0, 1e-5
	epsThm := thm62Epsilon(M, tau, sigma, D, delta)
	dTrue, err := accountant.GaussianDelta(sigma*D/(2*tau)/math.Sqrt(M), epsThm)
	if err != nil {
		return inconclusive("accountant: %v", err)
	}
	epsFixed := thm62Epsilon(M, 2*tau, sigma, D, delta)
	dFixed, err := accountant.GaussianDelta(sigma*D/(2*tau)/math.Sqrt(M), epsFixed)
	if err != nil {
		return inconclusive("accountant: %v", err)
	}
	epsExactRep, err := exactGaussianEps(sigma, 2*tau/D, M, delta)
	if err != nil {
		return inconclusive("accountant: %v", err)
	}
	res := proofs.Result{Values: map[string]any{"tests": tests,
		"explicit_pairs_by_D": pairs, "max_add_one_over_bound": num(worstAdd), "max_replace_one_over_bound": num(worstRep),
		"reference": map[string]any{"M": M, "tau": tau, "sigma": sigma, "D": D, "delta": delta,
			"eps_thm62": num(epsThm), "delta_true_replace_one_at_eps_thm62": num(dTrue),
			"eps_thm62_with_2tau": num(epsFixed), "delta_true_at_eps_with_2tau": num(dFixed), "eps_exact_replace_one": num(epsExactRep)}}}
	if !out.OK() {
		return inconclusive("random search found a pair beyond the analytic bound (the check itself is wrong): %s", out)
	}
	if dTrue > delta {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("For ξ(D) = (1/|D|)Σ η(d) with ‖η‖ ≤ τ the worst pairs are explicit: replace-one (the paper's definition: 'different in at most one data point') moves ξ by 2τ/|D|, and even the proof's add-one D' = D ∪ {d} moves it by 2τ/(|D|+1) (D = |D| copies of −τu, d = +τu; |D| = 201, τ = 10: %.5f vs the proof's τ/|D| = %.5f); a random search (%d cases, sweep stream %s) never exceeds these bounds (max %.4f, %.4f of them). Counterexample to Thm 6.2 as stated: M = 80, τ = 10, σ = 1, |D| = 201, δ = 1e-5 gives ε = %.4f, but the worst replace-one pair's exact privacy curve at that ε is δ = %.3g > 1e-5 (its exact ε is %.4f). With τ replaced by 2τ the theorem gives ε = %.4f, where the exact δ is %.3g ≤ 1e-5: the erratum is sensitivity 2τ/|D| (a four times larger).",
			2*tau/(D+1), tau/D, tests, out.Stream, worstAdd, worstRep, epsThm, dTrue, epsExactRep, epsFixed, dFixed)
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("the exact δ at Thm 6.2's ε (%.4f) under replace-one is %.3g ≤ %g", epsThm, dTrue, delta)
	return res
}

func checkSumIndex(cfg proofs.Config) proofs.Result {
	var bad []string
	for M := 1; M <= 200; M++ {
		got := up.Schedule{Iterations: 2 * M, Upcycled: true, Coef: 0.5}.TrainingRounds()
		if got != M {
			bad = append(bad, fmt.Sprintf("2M = %d iterations: %d training rounds", 2*M, got))
		}
	}
	// Fig. 4's 7.25 if computed with M+1 = 41 terms, rescaled to M = 40.
	overcount := 41.0 / 40
	res := proofs.Result{Values: map[string]any{"leaking_rounds_of_2M": "M (checked M = 1..200)", "printed_terms": "M+1",
		"overcount_factor_M40": num(overcount), "fig4_upcycled_7.25_rescaled_to_40_terms": num(7.25 / overcount),
		"fig4_baseline_7.36_rescaled_81_to_80_terms": num(7.36 * 80 / 81)}}
	if len(bad) > 0 {
		res.Verdict = proofs.Refuted
		res.Evidence = strings.Join(bad, "; ")
		return res
	}
	res.Verdict = proofs.HoldsWithErratum
	res.Evidence = fmt.Sprintf("2M Upcycled iterations have exactly M training (leaking) rounds (Schedule.TrainingRounds, M = 1..200): iterations 1, 3, …, 2M−1. Thm 6.3's Σ_{m=0}^{M} has M+1 terms, so it over-counts by one round (a factor (M+1)/M = %.4f at M = 40: conservative, so the bound still holds; if Fig. 4's 7.25 used 41 terms, 40 terms give %.3f, and the baseline's 7.36 with 81 terms gives %.3f for 80). Thm 5.6's sum over m = 0..M includes ‖∇f(ω̄^{−1})‖², which is undefined (the first odd iterate is ω̄^1, m = 1). Erratum: sum over m = 1..M.",
		overcount, 7.25/overcount, 7.36*80/81)
	return res
}

// table5 is the paper's Table 5 (training time of the output-perturbation
// runs on Syn(iid), seconds): baseline and Upcycled means per method.
var table5 = map[string][2]float64{
	"fedavg": {147.50, 86.44}, "fedavgm": {147.47, 84.95}, "fedprox": {139.91, 80.59}, "scaffold": {153.88, 95.09},
	"feddyn": {181.49, 99.82}, "pfedme": {467.42, 259.54}, "fedyogi": {153.53, 92.82},
}

func checkPrivateBudget(cfg proofs.Config) proofs.Result {
	const sUp, sBase = 0.8, 1.0
	vals := map[string]any{}
	ok := true
	for _, p := range publishedPairs {
		// ε ∝ √a ∝ √M/σ to leading order: M_up/M_b = (ε_up/ε_b)² (σ_up/σ_b)².
		impl := math.Pow(p.upcycled/p.baseline, 2) * math.Pow(sUp/sBase, 2)
		vals[p.name+"_implied_m_up_over_m_base"] = num(impl)
		if math.Abs(impl-0.5) > 0.05 {
			ok = false
		}
	}
	lo, hi := math.Inf(1), 0.0
	ratios := map[string]any{}
	for _, m := range fl.Baselines {
		t := table5[m]
		r := t[1] / t[0]
		ratios[m] = num(round(r, 4))
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	vals["table5_time_ratios"] = ratios
	vals["ratio_if_upcycled_ran_2T"] = num(sBase / sUp)
	vals["leaking_rounds_T80"] = map[string]any{"upcycled": up.Schedule{Iterations: 80, Upcycled: true, Coef: 0.3}.TrainingRounds(), "baseline": up.Schedule{Iterations: 80}.TrainingRounds()}
	res := proofs.Result{Values: vals}
	if !ok || hi > 0.75 {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("the published numbers do not imply equal T: implied M_up/M_b %v, Table 5 time ratios %.3f–%.3f", vals, lo, hi)
		return res
	}
	res.Verdict = proofs.HoldsWithErratum
	res.Evidence = fmt.Sprintf("The paper never states the private runs' iteration budget. To leading order ε ∝ √M/σ, so the published pairs imply M_up/M_b = (ε_up/ε_b)²(σ_up/σ_b)² = %.4f (1.40/1.59) and %.4f (0.683/0.773), i.e. ½: equal total iterations (T = 80 for both: %d leaking rounds for Upcycled, %d for the baseline). With 2T Upcycled iterations (as in the non-private tables) the ratio would be 1/0.8 = 1.25 and Upcycled would leak more. Table 5's Upcycled/baseline wall-time ratios %.3f–%.3f also fit equal T with half the iterations training. Missing condition: 'both run T = 80 iterations' (the upstream README's --epochs 80 for both).",
		vals["fig3_implied_m_up_over_m_base"], vals["appF1_implied_m_up_over_m_base"], up.Schedule{Iterations: 80, Upcycled: true, Coef: 0.3}.TrainingRounds(), up.Schedule{Iterations: 80}.TrainingRounds(), lo, hi)
	return res
}

func checkNoiseStd(cfg proofs.Config) proofs.Result {
	f, err := federationByName(cfg.Seed, "synthetic_iid")
	if err != nil {
		return inconclusive("data: %v", err)
	}
	const tau, delta = 10.0, 1e-5
	type side struct {
		name        string
		sigma       float64
		rounds      int
		paper, code float64
	}
	sides := []*side{{name: "baseline", sigma: 1.0, rounds: 80}, {name: "upcycled", sigma: 0.8, rounds: 40}}
	sizes := f.fed.TrainSizes()
	for _, s := range sides {
		for _, n := range sizes {
			ep, err1 := exactGaussianEps(s.sigma, tau/float64(n), s.rounds, delta)
			ec, err2 := exactGaussianEps(s.sigma*s.sigma, tau/float64(n), s.rounds, delta)
			if err1 != nil || err2 != nil {
				return inconclusive("accountant: %v %v", err1, err2)
			}
			s.paper += ep / float64(len(sizes))
			s.code += ec / float64(len(sizes))
		}
	}
	b, u := sides[0], sides[1]
	thmRatio := math.Sqrt(40 * 1 / (80 * math.Pow(0.8, 4)))
	res := proofs.Result{Values: map[string]any{"data": f.source, "tau": tau, "delta": delta, "sensitivity": "τ/|D_i| (the paper's)",
		"mean_eps_exact_sigma_std":         map[string]any{"baseline": num(b.paper), "upcycled": num(u.paper)},
		"mean_eps_exact_sigma_squared_std": map[string]any{"baseline": num(b.code), "upcycled": num(u.code)},
		"thm62_leading_ratio_code":         num(thmRatio), "code_std": map[string]any{"baseline": 1.0, "upcycled": 0.64}}}
	if u.code > b.code {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("Upstream adds torch.normal(0, sigma**2): std σ² = 0.64 for Upcycled vs 1.0 for the baselines. Under the paper's own assumptions (sensitivity τ/|D_i|, τ = 10, δ = 1e-5, the Syn(iid) client sizes of %s, exact Gaussian composition, mean over the 30 clients) that gives ε̄ = %.4f for Upcycled (40 rounds) vs %.4f for the baseline (80 rounds): Upcycled is LESS private (leading-order ratio √(40·1/(80·0.8⁴)) = %.3f > 1). With std σ as the paper states, ε̄ = %.4f vs %.4f and the claim would hold. The experiments ran the code, so 'σ = 0.8 ensures stronger privacy' is false for them; calibrating Upcycled to σ_up² = 0.8 (std 0.894) would restore the paper's intent.",
			f.source, u.code, b.code, thmRatio, u.paper, b.paper)
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("with std σ²: ε̄ Upcycled %.4f ≤ baseline %.4f", u.code, b.code)
	return res
}

func checkAppETypos(cfg proofs.Config) proofs.Result {
	// 1-D privacy loss of the Gaussian mechanism with shift s: for output
	// o = ξ + n, L = (2ns + s²)/(2σ²), n ~ N(0, σ²).
	const tau, d, sigma = 10.0, 45.0, 1.0
	s := tau / d
	samples := 400000
	if cfg.Quick {
		samples = 100000
	}
	r := rng.Stream(cfg.Seed, paper, "appE")
	lambdas := []float64{1, 2, 4}
	mgfTrue := make([]float64, len(lambdas))
	mgfPrinted := make([]float64, len(lambdas))
	for i := 0; i < samples; i++ {
		n := sigma * r.NormFloat64()
		loss := (2*n*s + s*s) / (2 * sigma * sigma)
		printed := tau / (2 * d * sigma * sigma) * (2*math.Abs(n) + tau)
		for k, l := range lambdas {
			mgfTrue[k] += math.Exp(l*loss) / float64(samples)
			mgfPrinted[k] += math.Exp(l*printed) / float64(samples)
		}
	}
	vals := map[string]any{"tau": tau, "D": d, "sigma": sigma, "samples": samples}
	tab := map[string]any{}
	ok := true
	for k, l := range lambdas {
		claimed := l * (l + 1) * tau * tau / (2 * d * d * sigma * sigma)
		got := math.Log(mgfTrue[k])
		pr := math.Log(mgfPrinted[k])
		tab[fmt.Sprint(l)] = map[string]any{"log_mgf_mc_shift_tau_over_D": num(round(got, 6)), "paper_log_moment": num(claimed), "log_mgf_printed_bound": num(round(pr, 6))}
		if math.Abs(got-claimed) > 0.02*claimed+0.002 || pr < 5*claimed {
			ok = false
		}
	}
	vals["log_moments_by_lambda"] = tab
	var parts []string
	for _, l := range lambdas {
		e := tab[fmt.Sprint(l)].(map[string]any)
		parts = append(parts, fmt.Sprintf("λ = %g: MC %.4f vs %.4f (printed bound %.3f)", l, e["log_mgf_mc_shift_tau_over_D"], e["paper_log_moment"], e["log_mgf_printed_bound"]))
	}
	// Thm 6.3 proof: one Jacobian factor outside the product vs one per round.
	const M, alpha, u1, u2, mu, D = 40, 20.0, 1.0, 0.25, 0.5, 201.0
	perRound := thm63Epsilon(M+1, alpha, u1, u2, mu, D)
	once := float64(M+1)*2*alpha*u1/D + 2.8*u2/(D*mu)
	vals["thm63_eps_jacobian_per_round"] = num(perRound)
	vals["thm63_eps_jacobian_once_as_in_proof"] = num(once)
	res := proofs.Result{Values: vals}
	if !ok {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("Monte-Carlo log-moments do not match the App. E log-moment: %v", tab)
		return res
	}
	res.Verdict = proofs.HoldsWithErratum
	res.Evidence = fmt.Sprintf("Monte-Carlo (%d draws, τ = 10, |D| = 45, σ = 1): the log-MGF of the privacy loss with shift τ/|D| matches App. E's log-moment λ(λ+1)τ²/(2|D|²σ²) (%s), whereas the printed per-step bound τ/(2|D|σ²)(2|n| + τ) has log-MGF ≥ 5× larger (it adds τ²/(2|D|σ²) instead of τ²/(2|D|²σ²)); the derivation holds with the bound τ/(2|D|σ²)(2|n| + τ/|D|). In the Thm 6.3 proof the Jacobian ratio exp(2.8u₂/(|D|μ)) bounds each round's change of variables, so it belongs inside the product over m as in the theorem (M = 40, α = 20, u₁ = 1, u₂ = ¼, μ = ½, |D| = 201: ε = %.4f per-round vs %.4f as the proof's display reads). The proof of Thm 6.3 ends with 'Theorem 6.2 is proved'; §4's 'only accesses client data at even iterations' means odd (see even-rounds-no-data); Table 3's heading 'F.3.3 30%% Straggler' duplicates F.3.2; Thm 5.6's 'B = 0' is checked in thm5.6-b-zero.",
		samples, strings.Join(parts, "; "), perRound, once)
	return res
}

func checkSamplingModel(cfg proofs.Config) proofs.Result {
	const M, delta = 40, 1e-5
	z := 201 / 10.0
	counts, err := releaseCounts(cfg, 2*M, true, 1)
	if err != nil {
		return inconclusive("engine: %v", err)
	}
	partial, err := releaseCounts(cfg, 2*M, true, 0.5)
	if err != nil {
		return inconclusive("engine: %v", err)
	}
	minC, maxP := counts[0], 0
	for i := range counts {
		minC = min(minC, counts[i])
		maxP = max(maxP, partial[i])
	}
	g := accountant.SelfComposed{Event: accountant.Gaussian{Sigma: z}, Count: M}
	q1 := accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 1, Event: accountant.Gaussian{Sigma: z}}, Count: M}
	q3 := accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.3, Event: accountant.Gaussian{Sigma: z}}, Count: M}
	eg, _, err1 := accountant.RDPEpsilon(g, delta)
	e1, _, err2 := accountant.RDPEpsilon(q1, delta)
	e3, _, err3 := accountant.RDPEpsilon(q3, delta)
	if err1 != nil || err2 != nil || err3 != nil {
		return inconclusive("accountant: %v %v %v", err1, err2, err3)
	}
	res := proofs.Result{Values: map[string]any{"M": M, "noise_multiplier": z, "delta": delta,
		"min_releases_per_client_frac1": minC, "max_releases_per_client_frac0.5": maxP,
		"eps_gaussian": num(eg), "eps_poisson_q1": num(e1), "eps_poisson_q0.3_invalid": num(e3)}}
	if minC != M || math.Abs(e1-eg) > 1e-12*eg {
		res.Verdict = proofs.Refuted
		res.Evidence = fmt.Sprintf("frac = 1 gives %d releases per client (want %d); Poisson q = 1 ε %g vs Gaussian %g", minC, M, e1, eg)
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("With frac = 1 (the private runs) every client releases a noisy model in each of the M = %d training rounds of 2M iterations (engine count), which is what Thm 6.2's proof assumes WLOG; Poisson sampling with q = 1 composes to the same ε as the plain Gaussian (%.4f = %.4f, RDP, σ|D|/τ = %.1f). No amplification is available: the DP definition's output is client i's own sequence of releases, so whether it was selected is visible (with frac = 0.5 a client released at most %d of %d times), and each released model is a function of all of D_i (E epochs of shuffle-and-iterate, not a subsample). A Poisson-subsampled accounting would be invalid and far smaller (q = 0.3: ε = %.4f).",
		M, e1, eg, z, maxP, M, e3)
	return res
}
