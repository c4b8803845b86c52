// Package normec holds the reproduction code of Shulgin et al.'s
// Fed-α-NormEC paper. This file registers its privacy audits for
// `fedrepro audit --paper normec`:
//
//   - formula-epsilon: for K = 300 rounds, p ∈ {¼, ½, 1} and
//     β ∈ {0.001, 0.01, 0.1}, the σ the experiments' formula gives, the ε
//     it really buys (RDP and PLD accountants, Poisson sampling q = p,
//     add/remove and replace-one neighbours), the ε when the server sees
//     who transmitted (no amplification), the σ a calibration needs for
//     ε = 8 and the constant c that would make the theory formula meet it;
//   - one-round-distinguisher: an empirical lower bound on ε from a
//     distinguishing game on one round of the per-client mechanism
//     (normalized message + Gaussian noise, as Algorithm 1 runs it) on a
//     worst-case neighbouring pair.
package normec

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	alg "github.com/fedrepro/fedrepro/algorithms/normec"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

const paperID = "normec"

// The paper's privacy setting (Section 6 and Appendix A).
const (
	// TargetEpsilon and Delta are the (ε, δ) the paper states.
	TargetEpsilon = 8.0
	Delta         = 1e-5
	// Rounds is the number of communication rounds (K in the noise formula,
	// K+1 compositions in the theory: we take 300 for both).
	Rounds = 300
)

// Ps and Betas are the participation probabilities and β values of the
// paper's experiments.
var (
	Ps    = []float64{0.25, 0.5, 1}
	Betas = []float64{0.001, 0.01, 0.1}
)

// audits are the paper's privacy audits (Definition.Audits), in the order
// `fedrepro audit`, the report and golden/normec/audits.json list them.
var audits = []audit.Entry{
	{ID: "formula-epsilon", Title: "ε bought by the experiments' noise p·β·√(K·ln(1/δ))/ε (K = 300, target ε = 8, δ = 1e-5), and the σ and c that ε = 8 needs", Run: runFormulaEpsilon},
	{ID: "one-round-distinguisher", Title: "Empirical lower bound on ε from one round of the per-client mechanism (normalized message + noise) on a worst-case pair", Run: runDistinguisher},
}

// formulaColumns are the fields of a formula-epsilon row:
//
//	p, beta                     participation probability, EF step β
//	rounds, delta               300 compositions, δ = 1e-5
//	sigma                       the formula's σ = p·β·√(K·ln(1/δ))/ε, read as
//	                            the per-coordinate std of z added to Δ (‖Δ‖ ≤ 1)
//	epsilon                     ε that σ buys under Poisson sampling q = p
//	                            (amplified), this accountant and relation —
//	                            or an upper bound where epsilon_method says so
//	accountant, neighbouring    "rdp" | "pld"; "add-remove" | "replace-one"
//	epsilon_method              "poisson-amplified", "composition" (p = 1), or
//	                            why the exact no-amplification value (an upper
//	                            bound on the amplified ε) replaces it
//	pld_interval                PLD discretization interval used (0 for RDP)
//	epsilon_target              8
//	noise_multiplier            σ / (message bound 1); the accountant doubles
//	                            the sensitivity for replace-one
//	epsilon_visible_participation  exact ε when the server sees who
//	                            transmitted (Binomial mixture, no amplification)
//	epsilon_every_round         exact ε if the client transmitted in all 300
//	                            rounds (300-fold Gaussian)
//	sigma_calibrated            smallest σ giving ε = 8 (amplified, this
//	                            accountant and relation; see calibration_method)
//	calibration_method          "accountant" or the fallback used
//	c_needed                    c with TheorySigma(c, p, 300, 8, δ) = sigma_calibrated
//	c_paper                     the formula's implicit c (= β)
//	sigma_calibrated_visible_participation, c_needed_visible_participation
//	                            the same for the server-sees-who-transmitted model
//	epsilon_noise_on_beta_delta ε (amplified, RDP add/remove or this row's
//	                            accountant when it applies) if the noise were
//	                            added to βΔ (sensitivity β, multiplier σ/β)
//	sigma_over_calibrated       sigma / sigma_calibrated
//	epsilon_lower_bound         a rigorous lower bound on the amplified ε: the
//	                            exact composition for p = 1, else the best
//	                            threshold test on one round (lowerBoundOneRound)
//	lower_bound_method          which of the two
var formulaColumns = []string{"p", "beta", "rounds", "delta", "sigma", "epsilon", "accountant", "neighbouring",
	"epsilon_method", "pld_interval", "epsilon_target", "noise_multiplier", "epsilon_visible_participation", "epsilon_every_round",
	"sigma_calibrated", "calibration_method", "c_needed", "c_paper", "sigma_calibrated_visible_participation", "c_needed_visible_participation",
	"epsilon_noise_on_beta_delta", "sigma_over_calibrated", "epsilon_lower_bound", "lower_bound_method"}

var (
	accountants   = alg.Accountants
	neighbourings = []accountant.Neighbouring{accountant.AddRemove, accountant.ReplaceOne}
)

// pldMaxEpsilon: rows whose exact no-sampling ε exceeds it skip the PLD
// accountant (its grid would need millions of points, and at such losses
// it failed the exactness check: 720 vs exact 1312 at σ = 0.73 under
// replace-one). The check below still guards every PLD value.
const pldMaxEpsilon = 500.0

// pldInterval is the PLD discretization used by the audits: 1e-3 (ε
// within ~1e-4 relative of 1e-4's at these scales, 30× faster), 1e-2 in
// quick mode (pessimistic by ~0.1%).
func pldInterval(o audit.Options) float64 {
	if o.Quick {
		return 1e-2
	}
	return 1e-3
}

// epsilonFor returns the amplified ε of the formula's σ for one row, with
// the method. Where the accountant has no Poisson bound (RDP, replace-one)
// or PLD fails its exactness checks — at p = 1 it must match the exact
// Gaussian composition, and for any p it may not exceed the exact
// no-amplification ε, of which the amplified mechanism is a
// post-processing — the exact visible-participation ε, an upper bound on
// the amplified one, is reported instead.
func epsilonFor(o audit.Options, sigma, p, vis float64, kind accountant.Kind, nb accountant.Neighbouring) (eps float64, method string, interval float64, err error) {
	exact, err := alg.ExactCompositionEpsilon(sigma, Rounds, Delta, nb)
	if err != nil {
		return 0, "", 0, err
	}
	if kind == accountant.KindPLD && exact > pldMaxEpsilon {
		// Not attempted: the PLD grid cannot hold these losses, or holds
		// them wrongly (it failed the exactness check above ε ≈ 1000).
		return vis, fmt.Sprintf("upper bound: exact ε without amplification (losses beyond the PLD range: exact no-sampling ε %.4g > %g)", exact, pldMaxEpsilon), 0, nil
	}
	eps, interval, err = alg.EpsilonInterval(sigma, p, Rounds, Delta, nb, kind, pldInterval(o))
	if errors.Is(err, alg.ErrNoBound) {
		why := "the accountant has no Poisson bound for this relation"
		if kind == accountant.KindPLD {
			why = "the privacy losses do not fit the PLD grid"
		}
		return vis, "upper bound: exact ε without amplification (" + why + ")", interval, nil
	}
	if err != nil {
		return 0, "", interval, err
	}
	method = "poisson-amplified"
	if p == 1 {
		method = "composition"
	}
	if kind != accountant.KindPLD {
		return eps, method, interval, nil
	}
	ref := eps
	if p < 1 {
		if ref, _, err = alg.EpsilonInterval(sigma, 1, Rounds, Delta, nb, kind, interval); err != nil {
			return 0, "", interval, err
		}
	}
	tol := 1e-3*exact + 1e-6
	if ref < exact-tol || eps > vis*(1+1e-3)+1e-6 {
		return vis, fmt.Sprintf("upper bound: exact ε without amplification (PLD failed its check at this loss scale: %.6g at p = 1 vs exact %.6g)", ref, exact), interval, nil
	}
	return eps, method, interval, nil
}

func runFormulaEpsilon(o audit.Options) (audit.Table, error) {
	t := audit.Table{ID: "formula-epsilon", Columns: formulaColumns,
		Title: "ε bought by the experiments' noise formula, and the σ and c that ε = 8 needs"}
	type key struct {
		p    float64
		kind accountant.Kind
		nb   accountant.Neighbouring
	}
	type calibration struct {
		sigma, visSigma float64
		method          string
	}
	calib := map[key]calibration{}
	minEps, maxEps := math.Inf(1), 0.0
	minNoB, maxNoB := math.Inf(1), 0.0
	minLB, minVis := math.Inf(1), math.Inf(1)
	fallbacks := 0
	for _, p := range Ps {
		for _, beta := range Betas {
			sigma := alg.ExperimentSigma(p, beta, Rounds, TargetEpsilon, Delta)
			for _, kind := range accountants {
				for _, nb := range neighbourings {
					vis, err := alg.EpsilonVisibleParticipation(sigma, p, Rounds, Delta, nb)
					if err != nil {
						return t, err
					}
					every, err := alg.ExactCompositionEpsilon(sigma, Rounds, Delta, nb)
					if err != nil {
						return t, err
					}
					eps, method, interval, err := epsilonFor(o, sigma, p, vis, kind, nb)
					if err != nil {
						return t, fmt.Errorf("ε(p=%g, β=%g, %v, %v): %w", p, beta, kind, nb, err)
					}
					minVis = math.Min(minVis, vis)
					if method != "poisson-amplified" && method != "composition" {
						fallbacks++
					}
					k := key{p, kind, nb}
					c, ok := calib[k]
					if !ok {
						c.method = "accountant"
						cfg := alg.AccountantConfig(kind, nb, pldInterval(o))
						c.sigma, err = alg.CalibratedSigmaConfig(p, Rounds, TargetEpsilon, Delta, cfg)
						if errors.Is(err, alg.ErrNoBound) {
							c.method = "upper bound: σ for ε = 8 without amplification (the accountant has no Poisson bound for this relation)"
							c.sigma, err = alg.CalibratedSigmaVisibleParticipation(p, Rounds, TargetEpsilon, Delta, nb)
						}
						if err != nil {
							return t, fmt.Errorf("calibrating p=%g, %v, %v: %w", p, kind, nb, err)
						}
						if c.visSigma, err = alg.CalibratedSigmaVisibleParticipation(p, Rounds, TargetEpsilon, Delta, nb); err != nil {
							return t, err
						}
						calib[k] = c
					}
					onBeta, _, _, err := epsilonFor(o, sigma/beta, p, math.Inf(1), kind, nb)
					if err != nil {
						return t, err
					}
					if math.IsInf(onBeta, 1) { // no bound for this combination: use the exact no-amplification value
						if onBeta, err = alg.EpsilonVisibleParticipation(sigma/beta, p, Rounds, Delta, nb); err != nil {
							return t, err
						}
					}
					lb, lbMethod := every, "exact composition (p = 1)"
					if p < 1 {
						lb, lbMethod = lowerBoundOneRound(sigma, p, Delta, nb), "one-round threshold test (exact Gaussian tails)"
					}
					minLB = math.Min(minLB, lb)
					minEps, maxEps = math.Min(minEps, eps), math.Max(maxEps, eps)
					if kind == accountant.KindPLD {
						minNoB, maxNoB = math.Min(minNoB, onBeta), math.Max(maxNoB, onBeta)
					}
					t.Rows = append(t.Rows, audit.Row{
						"p": p, "beta": beta, "rounds": Rounds, "delta": Delta, "sigma": sigma, "epsilon": eps,
						"accountant": kind.String(), "neighbouring": nb.String(), "epsilon_method": method, "pld_interval": interval,
						"epsilon_target": TargetEpsilon, "noise_multiplier": sigma,
						"epsilon_visible_participation": vis, "epsilon_every_round": every,
						"sigma_calibrated": c.sigma, "calibration_method": c.method,
						"c_needed": alg.TheoryConstant(c.sigma, p, Rounds, TargetEpsilon, Delta), "c_paper": beta,
						"sigma_calibrated_visible_participation": c.visSigma,
						"c_needed_visible_participation":         alg.TheoryConstant(c.visSigma, p, Rounds, TargetEpsilon, Delta),
						"epsilon_noise_on_beta_delta":            onBeta, "sigma_over_calibrated": sigma / c.sigma,
						"epsilon_lower_bound": lb, "lower_bound_method": lbMethod,
					})
				}
			}
		}
	}
	var cs []float64
	for k, c := range calib {
		if k.nb == accountant.AddRemove && c.method == "accountant" {
			cs = append(cs, alg.TheoryConstant(c.sigma, k.p, Rounds, TargetEpsilon, Delta))
		}
	}
	sort.Float64s(cs)
	t.Notes = []string{
		"Mechanism: every round each client transmits with probability p the message (Δ_i + z_i)/p, Δ_i = Norm_α(P_i − v_i) with ‖Δ_i‖ ≤ 1 and z_i ~ N(0, σ²·I_d) (Algorithm 1 line 12). The 1/p factor scales signal and noise alike, so the noise multiplier is σ. Rounds compose adaptively (Δ_i depends on the public x^k and the client's data).",
		"The paper calls p·β·√(K·ln(1/δ))/ε the noise 'variance'; we read it as the standard deviation σ (as in its theory formula c·p·√((K+1)log(1/δ))/ε, which it is with c = β); log is natural and K = 300 rounds are 300 compositions.",
		"Client-level DP. add-remove: a removed client is read as one that sends Δ = 0 (zero-out), sensitivity 1; replace-one: Δ may flip to −Δ, sensitivity 2 (the accountant halves the multiplier). The paper does not say which relation it means.",
		"epsilon (amplified): Poisson subsampling with q = p, the paper's assumption; it holds only if the adversary does not learn who transmitted (a trusted aggregator, or secure aggregation with anonymous participation), and counts only the client's own noise. Where the accountant has no Poisson bound (RDP under replace-one) or PLD fails its exactness check (at p = 1 it must equal the exact Gaussian composition; it may not exceed the no-amplification value), the exact no-amplification ε — an upper bound, since the amplified release is a post-processing of it — is reported and epsilon_method says so.",
		"epsilon_visible_participation: the server of Algorithm 1 receives each participant's message and so sees who transmitted; participation is then public and data-independent, the client's privacy loss composes only over the rounds it transmitted, and the exact curve is the Binomial(300, p) mixture of composed Gaussian mechanisms (exact Gaussian δ(ε) of the accountant package). The paper's amplification argument does not hold against this server.",
		"The amplified model treats the client's noise as present whether or not it participates (central noise, as Poisson-sampled DP-SGD accounting assumes); with per-client noise the aggregate carries the noise of the actual participants only, so this is the paper's, optimistic, model. epsilon_lower_bound bounds it from below rigorously: the exact composition for p = 1, else the best threshold test on a single round with exact Gaussian tails.",
		"epsilon_noise_on_beta_delta: a charitable reading in which the noise is added to the β-scaled message βΔ (sensitivity β), so the multiplier is σ/β = p·√(K·ln(1/δ))/ε independent of β — then 'varying β to simulate privacy levels' would not change privacy.",
		fmt.Sprintf("δ = %g, target ε = %g, %d rounds; RDP: improved conversion, Opacus orders; PLD: pessimistic discretization interval %g (coarsened ×10 when the losses do not fit the grid); calibration: accountant.Calibrate (the returned σ meets the target).", Delta, TargetEpsilon, Rounds, pldInterval(o)),
	}
	if fallbacks > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d of %d rows report the exact no-amplification upper bound instead of an accountant's amplified ε (see epsilon_method).", fallbacks, len(t.Rows)))
	}
	switch {
	case minLB > TargetEpsilon && minVis > TargetEpsilon:
		t.Verdict = fmt.Sprintf("inconsistent: the formula's σ buys ε ∈ [%.4g, %.4g] (accountants' values and upper bounds, both relations) in the paper's amplified model — never 8: even the rigorous lower bounds are ≥ %.4g — and exactly ε ≥ %.4g against Algorithm 1's server, which sees who transmitted; ε = 8 needs c ≈ %.3g–%.3g in the theory formula under add/remove (≈ 2× under replace-one) where the experiments use c = β ≤ 0.1; even the charitable reading (noise on βΔ) gives ε ∈ [%.4g, %.4g] (PLD)",
			minEps, maxEps, minLB, minVis, cs[0], cs[len(cs)-1], minNoB, maxNoB)
	case maxEps <= TargetEpsilon*1.01:
		t.Verdict = "consistent: every cell meets ε = 8"
	default:
		t.Verdict = fmt.Sprintf("mixed: ε ∈ [%.4g, %.4g]", minEps, maxEps)
	}
	return t, nil
}

// lowerBoundOneRound is a rigorous lower bound on the ε at δ of one round of
// the Poisson-subsampled Gaussian mechanism (the paper's amplified model:
// output x = B·s + N(0, σ²) along the message direction, B ~ Bernoulli(p),
// shift s = 1 under add/remove zero-out, neighbour B·0 + N(0, σ²); under
// replace-one the shifts are +1 and −1). For the test S = {x > τ},
// (ε, δ)-DP implies P_D(S) ≤ e^ε·P_D′(S) + δ, so
// ε ≥ ln((P_D(S) − δ)/P_D′(S)); exact Gaussian tails, maximised over a grid
// of τ. More rounds cannot lower ε (an adversary may ignore them), so it
// bounds the 300-round ε from below too.
func lowerBoundOneRound(sigma, p, delta float64, nb accountant.Neighbouring) float64 {
	lo := 0.0 // neighbour's shift
	if nb == accountant.ReplaceOne {
		lo = -1
	}
	q := func(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }
	best := 0.0
	for i := 0; i <= 4000; i++ {
		tau := lo + (float64(i)/200)*sigma // τ from the neighbour's mean up to 20σ above it
		pd := (1-p)*q((tau-lo)/sigma) + p*q((tau-1)/sigma)
		pn := (1-p)*q((tau-lo)/sigma) + p*q((tau-lo)/sigma)
		if nb == accountant.AddRemove {
			pn = q(tau / sigma)
		}
		if pn <= 0 || pd <= delta {
			continue
		}
		best = math.Max(best, math.Log((pd-delta)/pn))
	}
	return best
}

// linear is f(x) = gᵀx: its pseudo-gradient is g everywhere, so with
// v⁰ = 0 the client's first message is Δ = Norm_α(g) — the distinguisher's
// canary.
type linear struct{ g []float64 }

// NumParams is d.
func (l linear) NumParams() int { return len(l.g) }

// Grad writes g and returns gᵀx.
func (l linear) Grad(x, g []float64) float64 {
	copy(g, l.g)
	var v float64
	for i := range x {
		v += l.g[i] * x[i]
	}
	return v
}

// distinguisherColumns are the fields of a one-round-distinguisher row:
//
//	p, beta, rounds, delta, sigma  the cell; rounds = 1; σ from the formula
//	epsilon                     Clopper–Pearson lower bound on ε at δ (95%)
//	accountant, neighbouring    "empirical"; "add-remove" (canary vs a client
//	                            that sends Δ = 0) | "replace-one" (vs −Δ)
//	trials                      trials per side of the main experiment
//	threshold                   τ of the test "transmitted and ⟨m, e₁⟩·p > τ",
//	                            chosen on independent pilot trials
//	tp, fn, fp, tn              outcome counts
//	confidence                  0.95
//	epsilon_gdp_estimate        the GDP-fit estimate (Nasr et al. 2023)
//	epsilon_upper_one_round     exact one-round ε when participation is
//	                            visible — the game's adversary model
//	epsilon_max_detectable      largest bound these trial counts can show
//	exceeds_target              epsilon > 8: one round already spends more than
//	                            the paper's whole 300-round budget
var distinguisherColumns = []string{"p", "beta", "rounds", "delta", "sigma", "epsilon", "accountant", "neighbouring",
	"trials", "threshold", "tp", "fn", "fp", "tn", "confidence", "epsilon_gdp_estimate", "epsilon_upper_one_round",
	"epsilon_max_detectable", "exceeds_target"}

// oneRound runs one round of Algorithm 1 with a single client whose
// objective is obj (v⁰ = 0, β = 1, so v̂¹ = q(Δ + z)) and returns whether
// it transmitted and the score p·⟨v̂¹, e₁⟩ = Δ₁ + z₁.
func oneRound(obj alg.Objective, p, sigma float64, k rng.Key) (bool, float64, error) {
	cfg := alg.Config{Alpha: 0.01, Beta: 1, Gamma: 1, Eta: 1, P: p, Sigma: sigma, Server: alg.PlainStep}
	a, err := alg.New(cfg, []alg.Objective{obj}, []float64{0, 0}, k)
	if err != nil {
		return false, 0, err
	}
	a.Step()
	if len(a.Participants()) == 0 {
		return false, 0, nil
	}
	return true, p * a.VHat()[0], nil
}

func runDistinguisher(o audit.Options) (audit.Table, error) {
	t := audit.Table{ID: "one-round-distinguisher", Columns: distinguisherColumns,
		Title: "Empirical lower bound on ε of one round of the per-client mechanism at the formula's σ"}
	pilot, trials := 10000, 60000
	if o.Quick {
		pilot, trials = 2000, 25000
	}
	const conf = 0.95
	const big = 1e6 // ‖P − v‖ of the canary: ‖Δ‖ = big/(α+big) ≈ 1
	canary := linear{g: []float64{big, 0}}
	maxEps := 0.0
	var worst audit.Row
	consistent := true
	for ci, p := range Ps {
		for bi, beta := range Betas {
			sigma := alg.ExperimentSigma(p, beta, Rounds, TargetEpsilon, Delta)
			for ni, nb := range neighbourings {
				other := linear{g: []float64{0, 0}}
				if nb == accountant.ReplaceOne {
					other = linear{g: []float64{-big, 0}}
				}
				sample := func(obj alg.Objective, phase string, side, n int) ([]float64, int, error) {
					var scores []float64
					missed := 0
					for i := range n {
						sent, sc, err := oneRound(obj, p, sigma, rng.New(o.Seed, "normec-audit", "distinguisher", ci, bi, ni, phase, side, i))
						if err != nil {
							return nil, 0, err
						}
						if sent {
							scores = append(scores, sc)
						} else {
							missed++
						}
					}
					return scores, missed, nil
				}
				// Pilot: pick τ maximising the Clopper–Pearson bound.
				pos, posMiss, err := sample(canary, "pilot", 1, pilot)
				if err != nil {
					return t, err
				}
				neg, negMiss, err := sample(other, "pilot", 0, pilot)
				if err != nil {
					return t, err
				}
				tau, _ := bestThreshold(pos, posMiss, neg, negMiss, conf)
				pos, posMiss, err = sample(canary, "main", 1, trials)
				if err != nil {
					return t, err
				}
				neg, negMiss, err = sample(other, "main", 0, trials)
				if err != nil {
					return t, err
				}
				c := countsAt(tau, pos, posMiss, neg, negMiss)
				b, err := audit.EpsilonLB(c, Delta, conf)
				if err != nil {
					return t, err
				}
				gdp, _, err := audit.EpsilonGDP(c, Delta, conf)
				if err != nil {
					return t, err
				}
				upper, err := alg.EpsilonVisibleParticipation(sigma, p, 1, Delta, nb)
				if err != nil {
					return t, err
				}
				ceil, err := audit.EpsilonLB(audit.Counts{TP: trials, FN: 0, FP: 0, TN: trials}, Delta, conf)
				if err != nil {
					return t, err
				}
				if b.Epsilon > upper*(1+1e-9) {
					consistent = false
				}
				row := audit.Row{"p": p, "beta": beta, "rounds": 1, "delta": Delta, "sigma": sigma, "epsilon": b.Epsilon,
					"accountant": "empirical", "neighbouring": nb.String(), "trials": trials, "threshold": tau,
					"tp": c.TP, "fn": c.FN, "fp": c.FP, "tn": c.TN, "confidence": conf, "epsilon_gdp_estimate": gdp,
					"epsilon_upper_one_round": upper, "epsilon_max_detectable": ceil.Epsilon, "exceeds_target": b.Epsilon > TargetEpsilon}
				t.Rows = append(t.Rows, row)
				if b.Epsilon > maxEps {
					maxEps, worst = b.Epsilon, row
				}
			}
		}
	}
	t.Notes = []string{
		"Game: one round of Algorithm 1 (the real stepper) with one client, v⁰ = 0, α = 0.01, β = 1, per-coordinate noise σ from the formula. Canary side: the client's pseudo-gradient is 10⁶·e₁, so Δ = Norm_α(·) ≈ e₁ (‖Δ‖ = 1 − 10⁻⁸); neighbour: Δ = 0 (add-remove, zero-out) or Δ = −e₁ (replace-one) — the worst case for a message bounded by 1.",
		"The adversary is the server: it sees whether the client transmitted (no transmission → guess 'neighbour') and the message m = (Δ + z)/p, and guesses 'canary' when p·m₁ > τ. τ is chosen on independent pilot trials; the bound is the Clopper–Pearson one of audit.EpsilonLB at 95% confidence and δ = 1e-5 (both test directions).",
		"epsilon_upper_one_round is the exact one-round ε for this adversary (participation visible: a p-mixture of the Gaussian mechanism); an empirical bound above it would indicate a bug. Compare with the paper's budget ε = 8 for all 300 rounds.",
		fmt.Sprintf("%d pilot and %d main trials per side and row; random streams (seed, \"normec-audit\", \"distinguisher\", cell, relation, phase, side, trial).", pilot, trials),
	}
	switch {
	case !consistent:
		t.Verdict = "gap: an empirical lower bound exceeds the exact one-round ε (a bug in the mechanism or the accounting)"
	case maxEps > TargetEpsilon:
		t.Verdict = fmt.Sprintf("inconsistent: a single round at the formula's σ already has empirical ε ≥ %.3g > 8 (p = %v, β = %v, %v; 95%% confidence) — the paper's ε = 8 is for all 300 rounds", maxEps, worst["p"], worst["beta"], worst["neighbouring"])
	default:
		t.Verdict = fmt.Sprintf("no single round exceeds ε = 8 empirically (max lower bound %.3g)", maxEps)
	}
	return t, nil
}

// bestThreshold returns the τ that maximises the Clopper–Pearson bound on
// the pilot counts. Candidates are midpoints between consecutive pooled
// scores (swept in O(n log n)); among equally good ones it takes the
// midpoint of the widest gap, the choice least sensitive to sampling.
func bestThreshold(pos []float64, posMiss int, neg []float64, negMiss int, conf float64) (float64, float64) {
	type pt struct {
		v   float64
		pos bool
	}
	pts := make([]pt, 0, len(pos)+len(neg))
	for _, v := range pos {
		pts = append(pts, pt{v, true})
	}
	for _, v := range neg {
		pts = append(pts, pt{v, false})
	}
	sort.Slice(pts, func(a, b int) bool { return pts[a].v < pts[b].v })
	nPos, nNeg := len(pos)+posMiss, len(neg)+negMiss
	// Above the smallest candidate everything is "canary".
	tp, fp := len(pos), len(neg)
	best, bestTau, bestGap := -1.0, 0.0, -1.0
	scan, err := audit.NewThresholdScan(nPos, nNeg, Delta, conf)
	if err != nil {
		return bestTau, best
	}
	for i := 0; i+1 < len(pts); i++ {
		if pts[i].pos {
			tp--
		} else {
			fp--
		}
		gap := pts[i+1].v - pts[i].v
		if gap <= 0 {
			continue
		}
		if e := scan.At(tp, fp); e > best+1e-12 || (math.Abs(e-best) <= 1e-12 && gap > bestGap) {
			best, bestTau, bestGap = e, (pts[i].v+pts[i+1].v)/2, gap
		}
	}
	return bestTau, best
}

// countsAt counts the test "transmitted and score > τ" on both sides
// (canary = positive).
func countsAt(tau float64, pos []float64, posMiss int, neg []float64, negMiss int) audit.Counts {
	var c audit.Counts
	for _, s := range pos {
		if s > tau {
			c.TP++
		} else {
			c.FN++
		}
	}
	c.FN += posMiss
	for _, s := range neg {
		if s > tau {
			c.FP++
		} else {
			c.TN++
		}
	}
	c.TN += negMiss
	return c
}
