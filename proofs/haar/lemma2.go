package haar

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	hwt "github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/proofs"
	"gonum.org/v1/gonum/mat"
)

func init() {
	register("lemma2-same-privacy", "Lemma 2, §5.2; §4.2; Conclusion",
		"With σ_Haar = σ·sqrt(2/(2+log2 m)) on the coefficients, DP-SGD-WAV / DP-FedAvg-WAV are (ε, δ)-DP for the same (ε, δ) as vanilla DP-SGD / DP-FedAvg with noise σ ('This modification ensures the same (ε,δ) differential privacy'); the accountant applies 'in a black-box manner' because the modification happens before it.",
		checkLemma2SamePrivacy)
	register("lemma2-variance-saving", "Lemma 2, §5.2 ('saving a factor of sqrt((2+log2 m)/2)'); Fig. 4",
		"At the same (ε, δ) the wavelet methods reduce the noise variance of the released gradients by the factor (2+log2 m)/2 relative to vanilla, so their noise density is narrower (Fig. 4: 'for a fixed (ε,δ) … the standard noise injection scheme's plot is stretched').",
		checkLemma2VarianceSaving)
	// Computation: σ_Haar is derived with the project's (11)
	// (accountant.AbadiSigma) and Lemma 2 calibration (hwt.SigmaHaar); (12)
	// must match it once K is read as q_c, or the claim is refuted.
	register("lemma2-eq12-algebra", "Lemma 2 proof, eqs. (11)–(12)",
		"From σ = c_2·q_c·sqrt(T log(1/q_c))/ε (11) and σ = σ_Haar·sqrt((2+log2 m)/2) (Lemma 1) follows σ_Haar = c_2·(K/ε)·sqrt(2T log(1/q_c)/(2+log2 m)) (12).",
		checkEq12)
}

// The paper's noise settings and δ (§6.1).
var (
	paperSigmas = []float64{1, 1.5, 3}
	paperDelta  = 1e-5
)

// Reference settings of the Lemma 2 tables.
const (
	refM       = 64 // reference vector length of the Lemma 2 tables and audit
	dpsgdQ     = 256.0 / 60000
	dpsgdSteps = 14063 // 60 epochs of q = 256/60000: the TF-Privacy MNIST tutorial setting
)

var (
	vVanilla  = hwt.Vanilla
	vCoefClip = hwt.CoefficientClip
	vGradClip = hwt.GradientClip
)

// multiplierOverSigma is the effective noise multiplier of a variant for
// vectors of length n divided by its coefficient noise scale (σ_c for
// Algorithm 1 and gradient clipping, z for Algorithm 2): the Gaussian
// mechanism with covariance Σ on an L2 ball of radius Δ behaves exactly as
// a scalar Gaussian with multiplier 1/sup_{‖u‖≤Δ}‖Σ^{-1/2}u‖.
func multiplierOverSigma(v hwt.Variant, n int) float64 { return hwt.EffectiveMultiplier(v, n, 1) }

// epsRow holds a mechanism's ε under the accountants.
type epsRow struct {
	Multiplier float64
	Exact      float64 // one release, exact Gaussian curve
	RDP        float64 // one release, RDP (improved conversion)
	PLD        float64 // one release, PLD accountant
	RDPDPSGD   float64 // Poisson q = 256/60000, 14 063 steps, RDP
}

// pldInterval keeps the PLD grid within its point cap for large privacy
// losses (the loss of one release spans about (1/σ)² ± 10/σ).
// Quick mode uses a coarser grid (it changes ε by < 1e-3 relative and no
// verdict depends on it).
func pldInterval(mult float64, quick bool) float64 {
	lo := 1e-4
	if quick {
		lo = 1e-3
	}
	return math.Max(lo, 1e-6/(mult*mult))
}

// pldAgrees reports whether the PLD accountant reproduces the exact curve
// of one Gaussian release (to 0.1% or 1e-3).
func pldAgrees(r epsRow) bool { return math.Abs(r.PLD-r.Exact) <= 1e-3*math.Max(1, r.Exact) }

func accountFor(mult float64, quick bool) (epsRow, error) {
	r := epsRow{Multiplier: mult}
	var err error
	if r.Exact, err = accountant.GaussianEpsilon(mult, paperDelta); err != nil {
		return r, fmt.Errorf("exact Gaussian ε at multiplier %g: %w", mult, err)
	}
	if r.RDP, _, err = accountant.RDPEpsilon(accountant.Gaussian{Sigma: mult}, paperDelta); err != nil {
		return r, fmt.Errorf("RDP ε at multiplier %g: %w", mult, err)
	}
	if r.PLD, _, err = (accountant.Config{Kind: accountant.KindPLD, PLD: accountant.PLDOptions{Interval: pldInterval(mult, quick)}}).Epsilon(accountant.Gaussian{Sigma: mult}, paperDelta); err != nil {
		return r, fmt.Errorf("PLD ε at multiplier %g: %w", mult, err)
	}
	ev := accountant.SelfComposed{Event: accountant.PoissonSampled{Q: dpsgdQ, Event: accountant.Gaussian{Sigma: mult}}, Count: dpsgdSteps}
	if r.RDPDPSGD, _, err = accountant.RDPEpsilon(ev, paperDelta); err != nil {
		return r, fmt.Errorf("RDP DP-SGD ε at multiplier %g: %w", mult, err)
	}
	return r, nil
}

func checkLemma2SamePrivacy(cfg proofs.Config) proofs.Result {
	// Effective multipliers per unit coefficient noise, for several m.
	byM := map[string]any{}
	for _, v := range hwt.Variants {
		row := map[string]any{}
		for _, m := range []int{2, 8, 64, 1024, 4096, 1 << 16, 1 << 20} {
			row[mkey(m)] = round(multiplierOverSigma(v, m), 10)
		}
		byM[v.String()] = row
	}
	ref := map[string]any{}
	for _, v := range hwt.Variants {
		ref[v.String()] = round(multiplierOverSigma(v, refM), 10)
	}
	// ε at the paper's σ with Lemma 2's calibration σ_c = σ_Haar(σ, m).
	epsTable := map[string]any{}
	var pldBad []string
	weaker := 0
	var lines []string
	for _, s := range paperSigmas {
		sh := hwt.SigmaHaar(s, refM)
		row := map[string]any{}
		var van epsRow
		got := map[hwt.Variant]epsRow{}
		for _, v := range hwt.Variants {
			scale := sh
			if v == vVanilla {
				scale = s
			}
			e, err := accountFor(scale*multiplierOverSigma(v, refM), cfg.Quick)
			if err != nil {
				return proofs.Result{Verdict: proofs.Inconclusive, Evidence: err.Error()}
			}
			got[v] = e
			if v == vVanilla {
				van = e
			}
			row[v.String()] = map[string]any{"multiplier": round(e.Multiplier, 8), "eps_exact_one_release": finite(e.Exact),
				"eps_rdp_one_release": finite(e.RDP), "eps_pld_one_release": finite(e.PLD), "pld_matches_exact": pldAgrees(e),
				"eps_rdp_dpsgd": finite(e.RDPDPSGD)}
			if !pldAgrees(e) {
				pldBad = append(pldBad, fmt.Sprintf("multiplier %.4g: PLD %.4g vs exact %.4g", e.Multiplier, e.PLD, e.Exact))
			}
			if v != vVanilla && e.Exact > van.Exact*(1+1e-9) {
				weaker++
			}
		}
		epsTable[fmt.Sprint(s)] = row
		lines = append(lines, fmt.Sprintf("σ=%g: vanilla ε %.3g (one release) / %.3g (DP-SGD); gradient clip multiplier %.3g → ε %.3g / %.3g; Alg. 1 multiplier %.3g → ε %.3g / %.3g",
			s, van.Exact, van.RDPDPSGD,
			got[vGradClip].Multiplier, got[vGradClip].Exact, got[vGradClip].RDPDPSGD,
			got[vCoefClip].Multiplier, got[vCoefClip].Exact, got[vCoefClip].RDPDPSGD))
	}
	vals := map[string]any{
		"effective_multiplier_over_sigma":      ref,
		"reference_m":                          refM,
		"effective_multiplier_over_sigma_by_m": byM,
		"epsilon_delta_1e-5":                   epsTable,
		"calibration":                          "σ_c = σ_Haar = σ·sqrt(2/(2+log2 m)) (Lemma 2); vanilla uses σ",
		"dpsgd_setting":                        map[string]any{"q": round(dpsgdQ, 8), "steps": dpsgdSteps},
		"wav_mechanisms_weaker":                weaker,
	}
	audit := lemma2Audit(cfg)
	vals["empirical_audit"] = audit.values
	vals["pld_disagreements"] = pldBad
	pldNote := "the PLD accountant reproduces the exact Gaussian curve for every multiplier"
	if len(pldBad) > 0 {
		pldNote = "the PLD accountant DISAGREES with the exact Gaussian curve at " + strings.Join(pldBad, ", ") + " (an accountant defect for large privacy losses; the verdict uses the exact curve and RDP)"
	}
	ev := fmt.Sprintf("effective noise multiplier / coefficient noise scale at m = %d: %v (general m: Alg. 1 → 1/m, gradient clip and Alg. 2 → 1/‖diag(W)A‖ = 1/√m). %s. %s; %s", refM, kvs(ref), strings.Join(lines, "; "), audit.evidence, pldNote)
	switch {
	case weaker > 0 && audit.contradicts:
		return proofs.Result{Verdict: proofs.Inconclusive, Values: vals, Evidence: "the empirical audit contradicts the analysis: " + ev}
	case weaker > 0:
		return proofs.Result{Verdict: proofs.Refuted, Values: vals,
			Evidence: fmt.Sprintf("%d of %d (variant, σ) pairs give ε far above vanilla's. ", weaker, 3*len(paperSigmas)) + ev + ". Lemma 2 only equates a variance BOUND with vanilla's variance; privacy is set by the noise in the worst direction, where the wavelet noise std is σ_c·C/m (base and coarsest coefficient) — the accountant cannot be applied 'black-box' with σ"}
	default:
		return proofs.Result{Verdict: proofs.Holds, Values: vals, Evidence: ev}
	}
}

// kvs formats a map as "k=v, …" in key order.
func kvs(m map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// auditOutcome is the empirical part of the Lemma 2 check.
type auditOutcome struct {
	values      map[string]any
	evidence    string
	contradicts bool // an empirical lower bound above the analytical upper bound
}

func checkLemma2VarianceSaving(cfg proofs.Config) proofs.Result {
	sizes := powers(4096)
	if cfg.Quick {
		sizes = powers(1024)
	}
	nominal := map[string]any{}
	matched := map[string]any{vCoefClip.String(): map[string]any{}, vGradClip.String(): map[string]any{}}
	minMatched := math.Inf(1)
	maxNominal := 0.0
	for _, m := range sizes {
		// Nominal: σ_c = σ_Haar(σ = 1); per-coordinate variance / σ².
		vn := hwt.CoordinateVarianceClosedForm(m, hwt.SigmaHaar(1, m))
		nominal[mkey(m)] = round(vn, 8)
		maxNominal = math.Max(maxNominal, vn)
		// Privacy-matched: σ_c chosen so the effective multiplier is σ = 1.
		for _, v := range []hwt.Variant{vCoefClip, vGradClip} {
			sc := 1 / multiplierOverSigma(v, m)
			vm := hwt.CoordinateVariance(m, sc)[0]
			matched[v.String()].(map[string]any)[mkey(m)] = round(vm, 8)
			minMatched = math.Min(minMatched, vm)
		}
	}
	// λ_min of the matched covariance (gradient clip) equals σ² exactly:
	// every direction, not just every coordinate, gets at least vanilla's
	// noise once privacy is equal.
	lmin := map[string]any{}
	lminOK := true
	for _, m := range []int{2, 8, 32, 128} {
		cov := hwt.NoiseCovariance(m, 1/multiplierOverSigma(vGradClip, m))
		var es mat.EigenSym
		es.Factorize(cov, false)
		l := es.Values(nil)[0]
		lmin[mkey(m)] = round(l, 10)
		if l < 1-1e-9 {
			lminOK = false
		}
	}
	// Utility consequence on a quadratic: stationary excess loss of SGD
	// with noisy gradients, vanilla σ²I vs WAV nominal vs WAV matched.
	floors := sgdFloors(cfg)
	// Empirical density widths (Fig. 4): interquartile range of one
	// coordinate's reconstructed noise at m = refM.
	widths := fig4Widths(cfg)
	vals := map[string]any{"var_over_sigma2_nominal_sigma_haar": nominal, "var_over_sigma2_privacy_matched": matched,
		"lambda_min_over_sigma2_matched_gradient_clip": lmin, "sgd_loss_floor": floors.values, "fig4_iqr": widths.values}
	ev := fmt.Sprintf("at the paper's calibration σ_Haar the per-coordinate variance is (2/(2+log2 m))·(1+2/m²)/3·σ² ≤ %.3g·σ² — a real reduction, but bought with privacy (haar/lemma2-same-privacy). Calibrated to the SAME privacy (effective multiplier = σ), the per-coordinate variance is ≥ %.4g·σ² for every m (equality only at m = 2; gradient clip ≈ m/3·σ², Alg. 1 ≈ m²/3·σ², e.g. m=1024: %v and %v); λ_min of the matched covariance is exactly σ² (%v), so no linear transform with Gaussian coefficient noise can beat vanilla in any direction. %s. %s",
		maxNominal, minMatched, matched[vGradClip.String()].(map[string]any)["1024"], matched[vCoefClip.String()].(map[string]any)["1024"], kvs(lmin), floors.evidence, widths.evidence)
	if !lminOK {
		return proofs.Result{Verdict: proofs.Inconclusive, Values: vals, Evidence: "λ_min check failed; " + ev}
	}
	if minMatched >= 1-1e-9 && floors.matchedWorse && widths.matchedWider {
		return proofs.Result{Verdict: proofs.Refuted, Values: vals, Evidence: ev}
	}
	return proofs.Result{Verdict: proofs.Holds, Values: vals, Evidence: ev}
}

type floorResult struct {
	values       map[string]any
	evidence     string
	matchedWorse bool
}

// sgdFloors computes the stationary E[L − L*] = ½tr(QP) of θ ← θ −
// η(∇L(θ) + ξ) on L = ½(θ−θ*)ᵀQ(θ−θ*), where P solves the Lyapunov
// equation P = (I−ηQ)P(I−ηQ) + η²Σ (iterated to convergence), for the
// noise covariances Σ of vanilla (σ²I), WAV at σ_Haar, and WAV calibrated to
// vanilla's privacy (gradient clipping).
func sgdFloors(cfg proofs.Config) floorResult {
	const d = 32
	r := rng.Stream(cfg.Seed, "haar/lemma2-variance-saving", "quadratic")
	eigs := make([]float64, d)
	for i := range eigs {
		eigs[i] = 0.5 + 3.5*r.Float64()
	}
	eigs[0], eigs[d-1] = 0.5, 4
	q := quad.RandomSymmetric(r, eigs)
	eta := 0.25 / 4
	covs := map[string]*mat.SymDense{
		"vanilla":                   scaledIdentity(d, 1),
		"wav_sigma_haar":            hwt.NoiseCovariance(d, hwt.SigmaHaar(1, d)),
		"wav_matched_gradient_clip": hwt.NoiseCovariance(d, 1/multiplierOverSigma(vGradClip, d)),
	}
	vals := map[string]any{"dim": d, "eta": eta, "eig_range": []float64{0.5, 4}}
	fl := map[string]float64{}
	for name, s := range covs {
		fl[name] = lyapunovFloor(q, s, eta)
		vals[name] = round(fl[name], 8)
	}
	vn := hwt.CoordinateVarianceClosedForm(d, hwt.SigmaHaar(1, d))
	vals["ratio_nominal"] = round(fl["wav_sigma_haar"]/fl["vanilla"], 6)
	vals["ratio_matched"] = round(fl["wav_matched_gradient_clip"]/fl["vanilla"], 6)
	vals["per_coordinate_variance_ratio_nominal"] = round(vn, 6)
	return floorResult{values: vals, matchedWorse: fl["wav_matched_gradient_clip"] > fl["vanilla"],
		evidence: fmt.Sprintf("SGD loss floor on a %d-dim quadratic (eigenvalues 0.5..4, η = %.3g): WAV/vanilla = %.3g at σ_Haar (per-coordinate variance ratio %.3g) but %.3g at equal privacy",
			d, eta, fl["wav_sigma_haar"]/fl["vanilla"], vn, fl["wav_matched_gradient_clip"]/fl["vanilla"])}
}

func scaledIdentity(d int, v float64) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		s.SetSym(i, i, v)
	}
	return s
}

func lyapunovFloor(q *mat.SymDense, sigma *mat.SymDense, eta float64) float64 {
	d := q.SymmetricDim()
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := -eta * q.At(i, j)
			if i == j {
				v++
			}
			a.Set(i, j, v)
		}
	}
	p := mat.NewDense(d, d, nil)
	var t1, t2 mat.Dense
	for it := 0; it < 20000; it++ {
		t1.Mul(a, p)
		t2.Mul(&t1, a)
		var diff float64
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				v := t2.At(i, j) + eta*eta*sigma.At(i, j)
				diff = math.Max(diff, math.Abs(v-p.At(i, j)))
				p.Set(i, j, v)
			}
		}
		if diff < 1e-15 {
			break
		}
	}
	var tr float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			tr += q.At(i, j) * p.At(j, i)
		}
	}
	return tr / 2
}

type widthResult struct {
	values       map[string]any
	evidence     string
	matchedWider bool
}

// fig4Widths samples one coordinate's noise under vanilla, WAV at σ_Haar
// and WAV at equal privacy, and compares interquartile ranges (the width
// of Fig. 4's densities) with sqrt of the exact variance ratios.
func fig4Widths(cfg proofs.Config) widthResult {
	draws := 20000
	if cfg.Quick {
		draws = 4000
	}
	m := refM
	r := rng.Stream(cfg.Seed, "haar/lemma2-variance-saving", "fig4")
	iqr := func(scale float64, wav bool) float64 {
		xs := make([]float64, draws)
		buf := make([]float64, m)
		scr := make([]float64, hwt.ScratchLen(m))
		for i := range xs {
			if wav {
				hwt.ReconstructedNoiseInto(buf, r, scale, scr)
				xs[i] = buf[m/3]
			} else {
				xs[i] = scale * r.NormFloat64()
			}
		}
		return quantile(xs, 0.75) - quantile(xs, 0.25)
	}
	van := iqr(1, false)
	nom := iqr(hwt.SigmaHaar(1, m), true)
	mtc := iqr(1/multiplierOverSigma(vGradClip, m), true)
	exNom := math.Sqrt(hwt.CoordinateVarianceClosedForm(m, hwt.SigmaHaar(1, m)))
	exMat := math.Sqrt(hwt.CoordinateVarianceClosedForm(m, 1/multiplierOverSigma(vGradClip, m)))
	vals := map[string]any{"m": m, "draws": draws, "iqr_vanilla": round(van, 5), "iqr_wav_sigma_haar": round(nom, 5), "iqr_wav_matched": round(mtc, 5),
		"width_ratio_nominal": round(nom/van, 5), "width_ratio_matched": round(mtc/van, 5),
		"sqrt_variance_ratio_nominal": round(exNom, 5), "sqrt_variance_ratio_matched": round(exMat, 5)}
	return widthResult{values: vals, matchedWider: mtc > van,
		evidence: fmt.Sprintf("Fig. 4 widths (IQR of one coordinate, m = %d, %d draws): WAV/vanilla = %.3g at σ_Haar (exact std ratio %.3g) — narrower, as drawn — but %.3g at the same (ε, δ) (exact %.3g): the 'stretched' density is the wavelet one", m, draws, nom/van, exNom, mtc/van, exMat)}
}

func quantile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := p * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	f := pos - float64(i)
	return s[i]*(1-f) + s[i+1]*f
}

func checkEq12(cfg proofs.Config) proofs.Result {
	// Derive σ_Haar with the project's implementations of the two premises:
	// accountant.AbadiSigma for (11) as printed (log(1/q_c), i.e. δ = q_c)
	// and hwt.SigmaHaar for Lemma 1's relation solved for σ_Haar (Lemma 2's
	// calibration), then compare (12) as printed and with q_c in place of K.
	r := rng.Stream(cfg.Seed, "haar/lemma2-eq12-algebra")
	worst, worstFixed := 0.0, 0.0
	var ex, exFixed string
	for i := 0; i < 1000; i++ {
		c2 := 0.1 + 5*r.Float64()
		eps := 0.1 + 10*r.Float64()
		qc := 0.001 + 0.998*r.Float64()
		t := 1 + r.IntN(100000)
		m := 1 << (1 + r.IntN(20))
		k := float64(1 + r.IntN(100))
		sigma, err := accountant.AbadiSigma(qc, t, eps, qc, c2) // (11)
		if err != nil {
			return proofs.Result{Verdict: proofs.Inconclusive, Evidence: "eq. (11): " + err.Error()}
		}
		derived := hwt.SigmaHaar(sigma, m)
		tail := math.Sqrt(2 * float64(t) * math.Log(1/qc) / (2 + math.Log2(float64(m))))
		printed := c2 * k / eps * tail
		fixed := c2 * qc / eps * tail
		if g := math.Abs(printed/derived - 1); g > worst {
			worst = g
			ex = fmt.Sprintf("q_c=%.3g, K=%g: printed/derived = %.4g = K/q_c = %.4g", qc, k, printed/derived, k/qc)
		}
		if g := math.Abs(fixed/derived - 1); g > worstFixed {
			worstFixed = g
			exFixed = fmt.Sprintf("c_2=%.3g, ε=%.3g, q_c=%.3g, T=%d, m=%d: (12) with q_c %.6g vs derived %.6g", c2, eps, qc, t, m, fixed, derived)
		}
	}
	vals := map[string]any{"max_relative_gap_printed_vs_derived": round(worst, 6), "max_relative_gap_q_c_form_vs_derived": worstFixed, "trials": 1000,
		"derivation": "σ = accountant.AbadiSigma(q_c, T, ε, δ = q_c, c_2) (eq. 11 as printed), σ_Haar = hwt.SigmaHaar(σ, m) (Lemma 1/2)"}
	dep := deltaDependence(cfg)
	vals["delta_dependence"] = dep.values
	vals["sigma_depends_on_delta"] = dep.depends
	switch {
	case worstFixed > 1e-9:
		return proofs.Result{Verdict: proofs.Refuted, Values: vals,
			Evidence: fmt.Sprintf("(12) does not follow from (11) and Lemma 1 even with q_c in place of K: σ_Haar derived with the project's (11) (accountant.AbadiSigma) and Lemma 2 calibration (hwt.SigmaHaar) differs from c_2(q_c/ε)sqrt(2T log(1/q_c)/(2+log2 m)) by up to %.3g relative (%s); printed form off by up to %.3g", worstFixed, exFixed, worst)}
	case worst > 1e-9 || dep.depends:
		return proofs.Result{Verdict: proofs.HoldsWithErratum, Values: vals,
			Evidence: fmt.Sprintf("(12) does not follow from (11): over 1000 random inputs, σ_Haar derived from (11) (accountant.AbadiSigma with log(1/q_c), as printed) and Lemma 1 (hwt.SigmaHaar) differs from the printed σ_Haar by the factor K/q_c (worst %s); with q_c in place of K, (12) is σ_Haar = c_2(q_c/ε)sqrt(2T log(1/q_c)/(2+log2 m)), which matches the derivation to %.2g. %s. With both errata (K → q_c, log(1/q_c) → log(1/δ)) the algebra of (12) holds — but it only rescales a variance bound (see haar/lemma2-same-privacy)", ex, worstFixed, dep.evidence)}
	}
	return proofs.Result{Verdict: proofs.Holds, Values: vals, Evidence: "(12) follows from (11)"}
}

type depResult struct {
	values   map[string]any
	evidence string
	depends  bool // the calibrated σ changes with δ, which (11) as printed cannot express
}

// deltaDependence calibrates, with the RDP accountant, the σ that makes T
// Poisson-sampled Gaussian steps (ε, δ)-DP for several δ, and compares it
// with Abadi et al.'s form σ = c_2·q·sqrt(T log(1/δ))/ε and with the
// printed (11), σ = c_2·q·sqrt(T log(1/q))/ε, which does not depend on δ.
func deltaDependence(proofs.Config) depResult {
	const q, steps, eps = 0.01, 1000, 2.0
	deltas := []float64{1e-3, 1e-5, 1e-7, 1e-9}
	sig := map[string]any{}
	fitDelta := map[string]any{}
	fitQ := map[string]any{}
	lo, hi := math.Inf(1), 0.0
	cdLo, cdHi, cqLo, cqHi := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, d := range deltas {
		s, err := accountant.Calibrate(func(s float64) accountant.Event {
			return accountant.SelfComposed{Event: accountant.PoissonSampled{Q: q, Event: accountant.Gaussian{Sigma: s}}, Count: steps}
		}, eps, d, accountant.Config{})
		if err != nil {
			return depResult{values: map[string]any{"error": err.Error()}, evidence: "calibration failed: " + err.Error()}
		}
		k := fmt.Sprint(d)
		sig[k] = round(s, 6)
		// c_2 implied by each form: σ·ε/(q·sqrt(T·log(1/x))).
		cd := s * eps / (q * math.Sqrt(steps*math.Log(1/d)))
		cq := s * eps / (q * math.Sqrt(steps*math.Log(1/q)))
		fitDelta[k], fitQ[k] = round(cd, 5), round(cq, 5)
		lo, hi = math.Min(lo, s), math.Max(hi, s)
		cdLo, cdHi = math.Min(cdLo, cd), math.Max(cdHi, cd)
		cqLo, cqHi = math.Min(cqLo, cq), math.Max(cqHi, cq)
	}
	printed, _ := accountant.AbadiSigma(q, steps, eps, q, accountant.AbadiC2)
	vals := map[string]any{"q": q, "steps": steps, "eps": eps, "rdp_calibrated_sigma_by_delta": sig,
		"implied_c2_log_1_over_delta": fitDelta, "implied_c2_log_1_over_q": fitQ,
		"printed_eq11_sigma_c2_2": round(printed, 6), "sigma_spread": round(hi/lo, 5)}
	return depResult{values: vals, depends: hi/lo > 1.05,
		evidence: fmt.Sprintf("Eq. (11) writes log(1/q_c) where Abadi et al.'s Theorem 1 has log(1/δ): calibrating with the RDP accountant (q = %g, T = %d, ε = %g) needs σ = %s for δ = 1e-3…1e-9 (a %.0f%% spread that (11) as printed, independent of δ, cannot express); the c_2 implied by the log(1/δ) form varies only %.2g× (%s) against %.2g× for the printed form",
			q, steps, eps, kvs(sig), 100*(hi/lo-1), cdHi/cdLo, kvs(fitDelta), cqHi/cqLo)}
}
