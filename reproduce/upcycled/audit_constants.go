package upcycled

import (
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// auditRoundConventions are the two readings of the leaking-round count:
// M training rounds (80/40) or Thm 6.3-style M+1 terms (81/41).
var auditRoundConventions = []struct {
	Name       string
	Base, Up   float64
	Annotation string
}{
	{"80/40", auditRoundsBase, auditRoundsUp, "M leaking rounds"},
	{"81/41", auditRoundsBase + 1, auditRoundsUp + 1, "M+1 terms as in Σ_{m=0}^{M}"},
}

// auditFit holds one constants-search result.
type auditFit struct {
	tau, delta, baseFit, upPred float64
	ok                          bool
}

// auditFitTau solves τ so that the baseline's ε̄ equals the printed value
// at δ, and predicts Upcycled's ε̄.
func auditFitTau(sizes []float64, def string, rb, ru, pubBase, delta float64) auditFit {
	eb := func(tau float64) float64 {
		return auditEpsBar(def, sizes, func(n float64) float64 { return auditThm62Eps(rb, tau, auditSigmaBase, n, delta) })
	}
	tau, ok := auditBisect(eb, pubBase, 1e-6, 1e6, true)
	if !ok {
		return auditFit{delta: delta}
	}
	up := auditEpsBar(def, sizes, func(n float64) float64 { return auditThm62Eps(ru, tau, auditSigmaUp, n, delta) })
	return auditFit{tau: tau, delta: delta, baseFit: eb(tau), upPred: up, ok: true}
}

// auditFitDelta solves δ at fixed τ.
func auditFitDelta(sizes []float64, def string, rb, ru, pubBase, tau float64) auditFit {
	eb := func(logDelta float64) float64 {
		return auditEpsBar(def, sizes, func(n float64) float64 { return auditThm62Eps(rb, tau, auditSigmaBase, n, math.Exp(logDelta)) })
	}
	ld, ok := auditBisect(eb, pubBase, -700, -1e-12, false)
	if !ok {
		return auditFit{tau: tau}
	}
	delta := math.Exp(ld)
	up := auditEpsBar(def, sizes, func(n float64) float64 { return auditThm62Eps(ru, tau, auditSigmaUp, n, delta) })
	return auditFit{tau: tau, delta: delta, baseFit: eb(ld), upPred: up, ok: true}
}

// auditConsistentDeltas scans log10 δ ∈ [−40, −1]: for each δ, τ is fitted
// to the baseline and the pair is consistent when the predicted Upcycled ε̄
// rounds to the printed one. It returns the smallest and largest such δ.
func auditConsistentDeltas(sizes []float64, def string, rb, ru float64, p AuditPair, step float64) (lo, hi float64, n int) {
	lo, hi = math.NaN(), math.NaN()
	for e := -40.0; e <= -1+1e-9; e += step {
		f := auditFitTau(sizes, def, rb, ru, p.Base, math.Pow(10, e))
		if f.ok && auditRoundsTo(f.upPred, p.Up, p.Decimals) {
			d := math.Pow(10, e)
			if n == 0 || d < lo {
				lo = d
			}
			if n == 0 || d > hi {
				hi = d
			}
			n++
		}
	}
	return lo, hi, n
}

func auditRunConstants(o audit.Options) (audit.Table, error) {
	d, err := auditLoad(o)
	if err != nil {
		return audit.Table{}, err
	}
	t := audit.Table{ID: "op-constants", Title: "Output perturbation: constants that reproduce the printed ε̄ with Thm 6.2 (Syn(iid), σ 1.0 vs 0.8, T = 80)",
		Columns: []string{"pair", "eps_bar", "rounds", "search", "tau", "delta", "eps_base_published", "eps_base_fit", "eps_up_published", "eps_up_predicted", "consistent"}}
	step := 0.02
	if o.Quick {
		step = 0.1
	}
	row := func(p AuditPair, def, rounds, search string, f auditFit) {
		r := audit.Row{"pair": p.Name, "eps_bar": def, "rounds": rounds, "search": search,
			"eps_base_published": p.Base, "eps_up_published": p.Up}
		if f.ok {
			r["tau"], r["delta"], r["eps_base_fit"], r["eps_up_predicted"] = f.tau, f.delta, f.baseFit, f.upPred
			r["consistent"] = auditRoundsTo(f.upPred, p.Up, p.Decimals)
		} else {
			r["tau"], r["delta"], r["eps_base_fit"], r["eps_up_predicted"] = f.tau, f.delta, 0.0, 0.0
			r["consistent"] = false
			r["search"] = search + " (no solution)"
		}
		t.Rows = append(t.Rows, r)
	}
	fits := map[string]auditFit{}
	ranges := map[string]string{}
	for _, p := range AuditPairs {
		for _, def := range []string{"mean_over_clients", "at_mean_size"} {
			for ci, rc := range auditRoundConventions {
				if def == "at_mean_size" && ci > 0 {
					continue
				}
				f10 := auditFitDelta(d.sizes, def, rc.Base, rc.Up, p.Base, auditTauREADME)
				row(p, def, rc.Name, "delta_for_tau_10", f10)
				if def == "mean_over_clients" && ci == 0 {
					fits[p.Name+"/tau10"] = f10
				}
				for _, delta := range []float64{1e-3, 1e-4, 1e-5, 1e-6} {
					if def == "at_mean_size" && delta != auditDeltaCommon {
						continue
					}
					f := auditFitTau(d.sizes, def, rc.Base, rc.Up, p.Base, delta)
					row(p, def, rc.Name, fmt.Sprintf("tau_for_delta_%g", delta), f)
					if def == "mean_over_clients" && ci == 0 && delta == auditDeltaCommon {
						fits[p.Name+"/delta1e-5"] = f
					}
				}
				if def == "mean_over_clients" {
					lo, hi, n := auditConsistentDeltas(d.sizes, def, rc.Base, rc.Up, p, step)
					r := audit.Row{"pair": p.Name, "eps_bar": def, "rounds": rc.Name, "search": "delta_range_consistent",
						"eps_base_published": p.Base, "eps_up_published": p.Up, "eps_base_fit": p.Base, "eps_up_predicted": 0.0,
						"consistent": n > 0, "tau": 0.0, "delta": 0.0}
					if n > 0 {
						r["delta"] = hi // the largest consistent δ
						r["delta_min"] = lo
						r["search"] = fmt.Sprintf("delta_range_consistent [%.2g, %.2g]", lo, hi)
						f := auditFitTau(d.sizes, def, rc.Base, rc.Up, p.Base, hi)
						r["tau"], r["eps_up_predicted"] = f.tau, f.upPred
					}
					t.Rows = append(t.Rows, r)
					if ci == 0 {
						if n > 0 {
							ranges[p.Name] = fmt.Sprintf("δ ≤ %.2g (down to the scan's %.0e)", hi, lo)
						} else {
							ranges[p.Name] = "no δ in [1e-40, 0.1]"
						}
					}
				}
			}
		}
	}
	f3, fA := fits["fig3/delta1e-5"], fits["appF1/delta1e-5"]
	t3, tA := fits["fig3/tau10"], fits["appF1/tau10"]
	// One τ for both pairs: App. F.1's baseline at Fig. 3's τ (δ = 1e-5 fit).
	cross := auditFitDelta(d.sizes, "mean_over_clients", auditRoundsBase, auditRoundsUp, AuditPairs[1].Base, f3.tau)
	row(AuditPairs[1], "mean_over_clients", "80/40", fmt.Sprintf("delta_for_tau_of_fig3_%.3f", f3.tau), cross)
	crossText := "no δ < 1 gives it"
	if cross.ok {
		crossText = fmt.Sprintf("needs δ = %.3g", cross.delta)
	}
	t.Notes = append(d.notes(),
		"Omitted by the paper: δ, τ, the definition of ε̄, whether |D_i| is the train size, and the private runs' iteration budget. Fixed here: σ = 1.0/0.8 (paper), T = 80 for both (so 80 vs 40 leaking rounds, or 81/41 if counted as Thm 6.3's Σ_{m=0}^{M}), |D_i| = the released train sizes, sensitivity τ/|D_i| as Thm 6.2 assumes.",
		"search = delta_for_tau_10: δ that makes the baseline's ε̄ equal the printed value at the README's τ = 10; tau_for_delta_X: τ that does so at δ = X; in both, eps_up_predicted is Upcycled's ε̄ at those constants and consistent says whether it rounds to the printed Upcycled value. delta_range_consistent: the δ (scanning log10 δ ∈ [−40, −1]) for which the pair is consistent with τ fitted per δ; delta is the largest such δ and delta_min the smallest.",
		"eps_bar = mean_over_clients: ε̄ = mean_i ε_i; at_mean_size: ε of a client with the mean |D_i|.")
	both := "the two pairs need different constants"
	if f3.ok && fA.ok {
		both = fmt.Sprintf("at δ = 1e-5 Fig. 3 needs τ = %.3f and App. F.1 τ = %.3f (ratio %.3f ≈ 2): both cannot hold for one experiment, which the paper describes with one setting (σ 1.0/0.8 on Syn(iid))", f3.tau, fA.tau, f3.tau/fA.tau)
	}
	t.Verdict = fmt.Sprintf("inconsistent with the README's τ = 10 (the baseline would need δ = %.3g for 1.59 and δ = %.3g for 0.773); consistent with δ = 1e-5 and τ ≈ %.2f (Fig. 3: baseline %.4f, Upcycled predicted %.4f vs 1.40) and τ ≈ %.2f (App. F.1: %.4f, Upcycled %.4f vs 0.683, consistent: %v); Fig. 3's pair is internally consistent for %s, App. F.1's for %s (M leaking rounds); %s; with Fig. 3's τ, App. F.1's 0.773 %s",
		t3.delta, tA.delta, f3.tau, f3.baseFit, f3.upPred, fA.tau, fA.baseFit, fA.upPred, auditRoundsTo(fA.upPred, 0.683, 3), ranges["fig3"], ranges["appF1"], both, crossText)
	return t, nil
}

// op-ratio -------------------------------------------------------------------------

func auditRunRatio(o audit.Options) (audit.Table, error) {
	d, err := auditLoad(o)
	if err != nil {
		return audit.Table{}, err
	}
	t := audit.Table{ID: "op-ratio", Title: "Output perturbation: ε̄_up/ε̄_base vs √(M_up σ_b²/(M_b σ_up²)) = 0.884",
		Columns: []string{"quantity", "ratio", "lo", "hi", "consistent"}}
	pred := math.Sqrt(auditRoundsUp * auditSigmaBase * auditSigmaBase / (auditRoundsBase * auditSigmaUp * auditSigmaUp))
	t.Rows = append(t.Rows, audit.Row{"quantity": "leading_order_sqrt(M_up σ_b² / (M_b σ_up²))", "ratio": pred, "lo": pred, "hi": pred, "consistent": true})
	allIn := true
	for _, p := range AuditPairs {
		h := 0.5 * math.Pow(10, -float64(p.Decimals))
		lo, hi := (p.Up-h)/(p.Base+h), (p.Up+h)/(p.Base-h)
		in := pred >= lo && pred <= hi
		allIn = allIn && in
		t.Rows = append(t.Rows, audit.Row{"quantity": "published_" + p.Name, "ratio": p.Up / p.Base, "lo": lo, "hi": hi, "consistent": in})
	}
	// Thm 6.2 with its +a term, mean over clients, at the constants that
	// reproduce each baseline (δ = 1e-5).
	for _, p := range AuditPairs {
		f := auditFitTau(d.sizes, "mean_over_clients", auditRoundsBase, auditRoundsUp, p.Base, auditDeltaCommon)
		r := f.upPred / f.baseFit
		t.Rows = append(t.Rows, audit.Row{"quantity": fmt.Sprintf("thm62_mean_at_fit_%s_delta_1e-5_tau_%.3f", p.Name, f.tau), "ratio": r, "lo": r, "hi": r,
			"consistent": auditRoundsTo(f.upPred, p.Up, p.Decimals)})
	}
	// Exact (PLD-equivalent) Gaussian composition at τ = 10, δ = 1e-5,
	// with std σ (paper) and σ² (upstream code).
	for _, mode := range []struct {
		name string
		std  func(s float64) float64
	}{{"paper_std_sigma", func(s float64) float64 { return s }}, {"code_std_sigma_squared", func(s float64) float64 { return s * s }}} {
		var eb, eu float64
		for _, n := range d.sizes {
			b, err := accountant.GaussianEpsilon(mode.std(auditSigmaBase)*n/auditTauREADME/math.Sqrt(auditRoundsBase), auditDeltaCommon)
			if err != nil {
				return t, err
			}
			u, err := accountant.GaussianEpsilon(mode.std(auditSigmaUp)*n/auditTauREADME/math.Sqrt(auditRoundsUp), auditDeltaCommon)
			if err != nil {
				return t, err
			}
			eb += b / float64(len(d.sizes))
			eu += u / float64(len(d.sizes))
		}
		r := eu / eb
		t.Rows = append(t.Rows, audit.Row{"quantity": "exact_gaussian_tau10_delta1e-5_" + mode.name, "ratio": r, "lo": r, "hi": r, "consistent": r < 1})
	}
	code := math.Sqrt(auditRoundsUp * math.Pow(auditSigmaBase, 4) / (auditRoundsBase * math.Pow(auditSigmaUp, 4)))
	t.Rows = append(t.Rows, audit.Row{"quantity": "leading_order_code_std_sigma_squared", "ratio": code, "lo": code, "hi": code, "consistent": code < 1})
	t.Notes = append(d.notes(),
		"lo/hi are the ratio's bounds given the printed rounding (two decimals for Fig. 3, three for App. F.1); for computed rows lo = hi = ratio. consistent: for published rows, 0.884 lies in [lo, hi]; for Thm 6.2 rows, the predicted Upcycled value rounds to the printed one; for the exact and code rows, Upcycled's ε̄ is below the baseline's (the paper's claim).",
		"Thm 6.2's +a term makes the per-client ratio slightly smaller than 0.884 (it tends to 0.884 as a/log(1/δ) → 0 and to 0.781 as it grows).",
		"The upstream code adds noise with std σ² (torch.normal(0, sigma**2)): 0.64 for Upcycled vs 1.0 for the baselines, which turns the ratio to √(40·1/(80·0.8⁴)) = 1.105 — Upcycled leaks more.")
	if allIn {
		t.Verdict = fmt.Sprintf("consistent: 0.884 lies within both printed ratios' rounding (1.40/1.59 = %.4f, 0.683/0.773 = %.4f), confirming equal T (40 vs 80 leaking rounds); but with the code's σ² std the ratio is %.3f > 1", 1.40/1.59, 0.683/0.773, code)
	} else {
		t.Verdict = "inconsistent: 0.884 is outside a printed ratio's rounding interval"
	}
	return t, nil
}

// objective -------------------------------------------------------------------------
