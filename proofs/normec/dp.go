package normec

import (
	"math"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/normec"
	"github.com/fedrepro/fedrepro/proofs"
	"gonum.org/v1/gonum/floats"
)

// The paper's privacy setting (Section 6): ε = 8, δ = 1e-5, 300 rounds.
const (
	paperEps    = 8.0
	paperDelta  = 1e-5
	paperRounds = 300
)

var (
	paperPs    = []float64{0.25, 0.5, 1}
	paperBetas = []float64{0.001, 0.01, 0.1}
)

func init() {
	register("dp-noise-formula-scaling", "§5.1, §6, Cor. 1 (spec §4.19, §5.1)",
		"σ_DP = c·p·√((K+1)log(1/δ))/ε is linear in p, grows like √(K+1), falls like 1/ε; the experiments' noise p·β·√(K log(1/δ))/ε is this formula with c = β (7.346213·p·β at ε = 8, δ = 1e-5, K = 300); with σ_DP ∝ p the DP part of B, 2σ²_DP/p, is ∝ p.",
		checkNoiseScaling)
	register("dp-theory-constant", "§5.1 (spec §4.19, §6 item 11)",
		"With amplification by subsampling, σ_DP = c·p·√((K+1)log(1/δ))/ε for some constant c > 0 and 0 < p ≤ 1 makes Algorithm 1 (ε, δ)-DP at the client level: the noise needed is linear in p.",
		checkTheoryConstant)
	register("erratum10-experiment-noise-formula", "§6 experiments (spec §6 item 10)",
		"The experiments' noise level p·β·√(K log(1/δ))/ε with ε = 8, δ = 1e-5, K = 300 gives (8, 1e-5) client-level DP for every (p, β) of the grid.",
		checkExperimentFormula)
	register("erratum13-amplification-vs-server", "§5.1 and Algorithm 1 lines 9–14 (spec §6 items 12–13)",
		"The amplification by subsampling behind σ_DP ∝ p protects clients against the server that runs Algorithm 1 (it receives each participant's message q(Δ_i + z_i) and so learns who transmitted).",
		checkAmplificationVsServer)
	register("erratum27-privacy-analysis", "Contributions; §5.1–5.2 (spec §6 item 27)",
		"The paper provides a privacy analysis of Fed-α-NormEC for both a single and multiple local update steps.",
		checkPrivacyAnalysis)
}

func checkNoiseScaling(cfg proofs.Config) proofs.Result {
	worst := 0.0
	upd := func(a, b float64) { worst = math.Max(worst, relErr(a, b)) }
	for _, c := range []float64{0.5, 1, 2} {
		for _, p := range []float64{0.1, 0.25, 0.5} {
			base := normec.TheorySigma(c, p, paperRounds, paperEps, paperDelta)
			upd(normec.TheorySigma(c, 2*p, paperRounds, paperEps, paperDelta), 2*base)
			upd(normec.TheorySigma(c, p, 4*paperRounds, paperEps, paperDelta), 2*base)
			upd(normec.TheorySigma(c, p, paperRounds, 2*paperEps, paperDelta), base/2)
			// DP part of B: 2σ²/p = 2c²p(K+1)log(1/δ)/ε², proportional to p.
			upd(2*base*base/p, 2*c*c*p*paperRounds*math.Log(1/paperDelta)/(paperEps*paperEps))
		}
	}
	var table []float64
	for _, p := range paperPs {
		for _, b := range paperBetas {
			e := normec.ExperimentSigma(p, b, paperRounds, paperEps, paperDelta)
			upd(e, normec.TheorySigma(b, p, paperRounds, paperEps, paperDelta))
			upd(e, 7.3462132*p*b)
			table = append(table, e)
		}
	}
	vals := map[string]any{"max_rel_err": worst, "experiment_sigma_p_by_beta": table}
	if worst > 1e-6 {
		return result(proofs.Refuted, vals, "scaling fails: max relative error %.3g", worst)
	}
	return result(proofs.Holds, vals, "σ_DP doubles with p, with 4(K+1), halves with 2ε; 2σ²/p = 2c²p(K+1)log(1/δ)/ε² (max relative error %.2g). The experiments' σ for p ∈ {¼,½,1} × β ∈ {0.001,0.01,0.1} (natural log, K = 300) is %v = 7.346213·p·β, the theory formula with c = β.",
		worst, fmtList(table))
}

// cStar returns the c the theory formula needs to meet (ε, δ) after
// rounds rounds (amplified, add/remove, RDP).
func cStar(p float64) (sigma, c float64, err error) {
	sigma, err = normec.CalibratedSigma(p, paperRounds, paperEps, paperDelta, accountant.AddRemove, accountant.KindRDP)
	return sigma, normec.TheoryConstant(sigma, p, paperRounds, paperEps, paperDelta), err
}

func checkTheoryConstant(cfg proofs.Config) proofs.Result {
	ps := []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1}
	var cs, sigmas []float64
	for _, p := range ps {
		s, c, err := cStar(p)
		if err != nil {
			return result(proofs.Inconclusive, nil, "calibration failed at p = %g: %v", p, err)
		}
		cs, sigmas = append(cs, c), append(sigmas, s)
	}
	gridMin, gridMax := math.Inf(1), 0.0
	for i, p := range ps {
		if p >= 0.25 {
			gridMin, gridMax = math.Min(gridMin, cs[i]), math.Max(gridMax, cs[i])
		}
	}
	spread := floats.Max(cs) / floats.Min(cs)
	vals := map[string]any{"p": ps, "sigma_needed": sigmas, "c_needed": cs, "c_spread_all_p": spread, "c_spread_paper_grid": gridMax / gridMin,
		"rounds": paperRounds, "epsilon": paperEps, "delta": paperDelta, "accountant": "rdp", "neighbouring": "add-remove", "p2_times_rounds": []float64{0.01 * 0.01 * paperRounds, 0.25 * 0.25 * paperRounds}}
	switch {
	case gridMax/gridMin > 1.1:
		return result(proofs.Refuted, vals, "σ needed for (8, 1e-5) is not linear in p even on p ∈ {¼,½,1}: c* = %v", fmtList(cs))
	case spread > 2:
		return result(proofs.HoldsWithErratum, vals, "σ needed for (ε, δ) = (8, 1e-5) over K+1 = 300 rounds (RDP, add/remove, Poisson q = p): %v for p = %v, i.e. c* = %v. On the paper's grid p ≥ ¼ the formula holds with an unstated c ≈ %.2f–%.2f (c*(p) within %.0f%%), but no constant covers all 0 < p ≤ 1 as the paper says: c* grows to %.2f at p = 0.01 (×%.1f), Abadi et al.'s omitted condition ε < c₁p²(K+1) (p²(K+1) = 0.03 at p = 0.01). Neighbouring relation and log base are also unstated (replace-one needs ≈ 2× the σ).",
			fmtList(sigmas), fmtList(ps), fmtList(cs), gridMin, gridMax, 100*(gridMax/gridMin-1), cs[0], spread)
	}
	return result(proofs.Holds, vals, "c* = %v for p = %v", fmtList(cs), fmtList(ps))
}

func checkExperimentFormula(cfg proofs.Config) proofs.Result {
	var rows []any
	minEps, maxEps := math.Inf(1), 0.0
	for _, p := range paperPs {
		for _, b := range paperBetas {
			s := normec.ExperimentSigma(p, b, paperRounds, paperEps, paperDelta)
			e, err := normec.Epsilon(s, p, paperRounds, paperDelta, accountant.AddRemove, accountant.KindRDP)
			if err != nil {
				return result(proofs.Inconclusive, nil, "accountant failed at p = %g, β = %g: %v", p, b, err)
			}
			minEps, maxEps = math.Min(minEps, e), math.Max(maxEps, e)
			rows = append(rows, map[string]any{"p": p, "beta": b, "sigma": s, "epsilon": e})
		}
	}
	// Charitable reading: noise added to βΔ (sensitivity β), multiplier σ/β = p·7.35.
	var charitable []float64
	for _, p := range paperPs {
		e, err := normec.Epsilon(normec.ExperimentSigma(p, 1, paperRounds, paperEps, paperDelta), p, paperRounds, paperDelta, accountant.AddRemove, accountant.KindRDP)
		if err != nil {
			return result(proofs.Inconclusive, nil, "accountant failed: %v", err)
		}
		charitable = append(charitable, e)
	}
	vals := map[string]any{"cells": rows, "min_epsilon": minEps, "max_epsilon": maxEps, "epsilon_if_noise_on_beta_delta": charitable}
	if minEps > paperEps*1.01 {
		return result(proofs.Refuted, vals, "With z ~ N(0, σ²I) added to the normalized message Δ (‖Δ‖ ≤ 1) as Algorithm 1 prescribes, σ = p·β·7.346 buys ε between %.4g and %.4g (RDP, add/remove, Poisson q = p, δ = 1e-5, 300 rounds) — never 8; e.g. p = 1, β = 0.1: ε = %.4g. β scales the noise but not the sensitivity, so 'varying β to simulate privacy levels' changes ε by orders of magnitude. Even the charitable reading (noise added to βΔ, sensitivity β, multiplier p·7.346) gives ε = %v for p = ¼, ½, 1: the formula is the theory's with c = 1 < c* ≈ 1.5.",
			minEps, maxEps, rows[len(rows)-1].(map[string]any)["epsilon"], fmtList(charitable))
	}
	return result(proofs.Holds, vals, "ε between %.4g and %.4g", minEps, maxEps)
}

func checkAmplificationVsServer(cfg proofs.Config) proofs.Result {
	var rows []any
	worst := 0.0
	for _, p := range []float64{0.1, 0.25, 0.5} {
		s, c, err := cStar(p)
		if err != nil {
			return result(proofs.Inconclusive, nil, "calibration failed: %v", err)
		}
		ev, err := normec.EpsilonVisibleParticipation(s, p, paperRounds, paperDelta, accountant.AddRemove)
		if err != nil {
			return result(proofs.Inconclusive, nil, "visible-participation ε failed: %v", err)
		}
		worst = math.Max(worst, ev)
		rows = append(rows, map[string]any{"p": p, "sigma_amplified_for_eps8": s, "c": c, "epsilon_against_server": ev})
	}
	vals := map[string]any{"cells": rows, "max_epsilon_against_server": worst}
	if worst > paperEps*1.01 {
		r0, r1 := rows[0].(map[string]any), rows[1].(map[string]any)
		return result(proofs.Refuted, vals, "σ calibrated with amplification to (8, 1e-5) over 300 rounds (RDP, add/remove) is not (8, 1e-5)-DP against the server, which sees who transmitted: participation is then public, so the exact ε is that of the Binomial(300, p) mixture of composed Gaussians — %.4g at p = %g (σ = %.4g) and %.4g at p = %g (σ = %.4g). Amplification needs a trusted aggregator or hidden identities (secure aggregation plus anonymous channels); with per-client noise, the aggregate also carries √|S^k| times the noise a trusted aggregator would need.",
			r0["epsilon_against_server"], r0["p"], r0["sigma_amplified_for_eps8"], r1["epsilon_against_server"], r1["p"], r1["sigma_amplified_for_eps8"])
	}
	return result(proofs.Holds, vals, "ε against the server ≤ 8")
}

func checkPrivacyAnalysis(cfg proofs.Config) proofs.Result {
	// The mechanism released per round is Norm_α(·) + noise whatever T_i
	// is, so the sensitivity argument carries over to T > 1 and IG; check
	// the bound along runs with each operator.
	f := mainFed(cfg)
	maxDelta := 0.0
	for ci, l := range []normec.Local{{Kind: normec.OneStep}, {Kind: normec.GDSteps, Steps: 5}, {Kind: normec.IncrementalGradient}} {
		a, err := normec.New(normec.Config{Alpha: 0.01, Beta: 0.1, Gamma: 0.1, Eta: 0.05, P: 0.5, Sigma: 0.1, Local: l, Server: normec.PlainStep}, f.objs, f.x0, key(cfg, "erratum27", ci))
		if err != nil {
			panic(err)
		}
		for range pick(cfg, 200, 60) {
			a.Step()
			for i := range a.Clients() {
				maxDelta = math.Max(maxDelta, floats.Norm(a.Delta(i), 2))
			}
		}
	}
	_, c1, err1 := cStar(1)
	_, c25, err25 := cStar(0.25)
	vals := map[string]any{"max_message_norm": maxDelta, "c_needed_p1": c1, "c_needed_p025": c25}
	if maxDelta > 1+4e-16 || err1 != nil || err25 != nil {
		return result(proofs.Refuted, vals, "message norm %.17g or calibration failed (%v, %v)", maxDelta, err1, err25)
	}
	return result(proofs.HoldsWithErratum, vals, "No privacy theorem is stated or proved: §5.1 argues by analogy with Abadi et al.'s moments accountant and §5.2 reuses the same σ for T > 1. The analogy does extend to multiple local steps — every message is Norm_α(·) with norm ≤ 1 whatever T_i is (max ‖Δ‖ = %.6f along runs with T = 1, T = 5 and IG) — but only with a c the paper never gives (c ≥ %.3f at p = 1, %.3f at p = ¼ for (8, 1e-5) over 300 rounds, RDP, add/remove), only against a trusted aggregator (erratum13), and only for p not too small (dp-theory-constant).",
		maxDelta, c1, c25)
}
