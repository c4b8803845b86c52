// This file registers the privacy-figure audits of Upcycled-FL for
// `fedrepro audit --paper upcycled` (spec shared/specs/upcycled.md §3.7–3.9,
// §7 items 10–16, 22; dp-accounting-and-audit.md §B, §E):
//
//   - op-recompute: every output-perturbation ε̄ the paper prints for
//     Syn(iid) (Fig. 3: 1.59/1.40; App. F.1: 0.773/0.683) recomputed under the
//     paper's assumptions with Thm 6.2, the RDP accountant and the PLD
//     accountant, for the README's τ = 10 and a grid of δ;
//   - op-constants: which omitted constants (δ, τ, the meaning of ε̄, the
//     round count) make the printed values consistent, and whether both
//     pairs can be at once;
//   - op-ratio: the ratio claim 0.884 = √(M_up σ_b²/(M_b σ_up²));
//   - objective: Fig. 4's 7.36/7.25 with Thm 6.3, the constants (u₁, u₂) that
//     reproduce them, and whether the theorem applies at all;
//   - op-mechanism: ε under what the released mechanism satisfies
//     (the clipped model has sensitivity 2τ under replace-one, upstream's
//     noise std is σ², no sampling amplification);
//   - op-empirical: an empirical lower bound ε_LB from a distinguishing game
//     on one client's output-perturbation mechanism with an explicit
//     worst-case neighbouring pair.
//
// Row fields (the --json schema; all snake_case, stable):
//
//	op-recompute:  variant, sigma, rounds, tau, delta, eps_thm62, eps_rdp,
//	               eps_pld, published_fig3, published_appf1
//	op-constants:  pair, eps_bar, rounds, search, tau, delta, eps_base_published,
//	               eps_base_fit, eps_up_published, eps_up_predicted, consistent
//	               (+ delta_min on delta_range_consistent rows)
//	op-ratio:      quantity, ratio, lo, hi, consistent
//	objective:     constants, terms, u1, u2, mu, eps_base, eps_up,
//	               eps_base_published, eps_up_published, eps_base_zcdp,
//	               eps_up_zcdp, eps_base_rr, eps_up_rr, assumptions_met
//	op-mechanism:  std_mode, variant, noise_std, rounds, sensitivity, tau, delta,
//	               noise_multiplier, eps_rdp, eps_exact, eps_published
//	op-empirical:  mode, relation, variant, noise_std, client_size, trials,
//	               distance, tpr, fpr, eps_lb, eps_gdp, eps_gdp_composed,
//	               eps_claimed_round, eps_claimed_total (+ mean_distance, pair)
//
// ε̄ is the mean over the 30 clients of the per-client ε (the paper never
// defines the bar); every ε column is that mean unless a row says otherwise.

package upcycled

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	_ "github.com/fedrepro/fedrepro/proofs/upcycled" // registers the claims `fedrepro verify` and the report run
)

// auditPaper is the paper ID the audits register under.
const auditPaper = "upcycled"

func init() {
	audit.Register(audit.Entry{Paper: auditPaper, ID: "op-recompute",
		Title: "Output perturbation on Syn(iid): the printed ε̄ recomputed under the paper's assumptions (Thm 6.2, RDP, PLD; τ = 10)",
		Run:   auditRunRecompute})
	audit.Register(audit.Entry{Paper: auditPaper, ID: "op-constants",
		Title: "Output perturbation: which omitted constants (δ, τ, ε̄, round count) reproduce 1.59/1.40 and 0.773/0.683",
		Run:   auditRunConstants})
	audit.Register(audit.Entry{Paper: auditPaper, ID: "op-ratio",
		Title: "Output perturbation: the ratio claim ε̄_up/ε̄_base = √(M_up σ_b²/(M_b σ_up²)) = 0.884",
		Run:   auditRunRatio})
	audit.Register(audit.Entry{Paper: auditPaper, ID: "objective",
		Title: "Objective perturbation (Fig. 4, FedProx μ = 0.5): 7.36/7.25 with Thm 6.3, the constants that reproduce them, and whether the theorem applies",
		Run:   auditRunObjective})
	audit.Register(audit.Entry{Paper: auditPaper, ID: "op-mechanism",
		Title: "Output perturbation: ε under what the released mechanism satisfies (clipped model → sensitivity 2τ, upstream std σ², no amplification)",
		Run:   auditRunMechanism})
	audit.Register(audit.Entry{Paper: auditPaper, ID: "op-empirical",
		Title: "Output perturbation: empirical ε lower bound from a distinguishing game on one client with a worst-case neighbouring pair",
		Run:   auditRunEmpirical})
}

// The paper's output-perturbation settings for the synthetic data (Fig. 3,
// App. F.1) and the README's clip; the private runs use T = 80 iterations
// for both (claim upcycled/spec7-15-private-budget), so the baseline leaks in
// 80 rounds and Upcycled in 40.
const (
	auditTauREADME   = 10.0
	auditSigmaBase   = 1.0
	auditSigmaUp     = 0.8
	auditRoundsBase  = 80
	auditRoundsUp    = 40
	auditMuFedProx   = 0.5 // Fig. 4
	auditAlphaBase   = 10.0
	auditAlphaUp     = 20.0
	auditDeltaCommon = 1e-5
)

// AuditPair is one printed (baseline, Upcycled) ε̄ pair.
type AuditPair struct {
	// Name labels the pair in rows ("fig3", "appF1", "fig4").
	Name string
	// Base and Up are the printed baseline and Upcycled ε̄.
	Base, Up float64
	// Decimals is how many decimals the paper prints (rounding tolerance).
	Decimals int
	// Source says where the pair is printed.
	Source string
}

// AuditPairs are the printed output-perturbation ε̄ for Syn(iid).
var AuditPairs = []AuditPair{
	{Name: "fig3", Base: 1.59, Up: 1.40, Decimals: 2, Source: "Fig. 3 caption"},
	{Name: "appF1", Base: 0.773, Up: 0.683, Decimals: 3, Source: "App. F.1"},
}

// AuditObjectivePair is Fig. 4's printed ε̄ (FedProx vs Upcycled-FedProx).
var AuditObjectivePair = AuditPair{Name: "fig4", Base: 7.36, Up: 7.25, Decimals: 2, Source: "Fig. 4 caption"}

// auditRoundsTo reports whether x prints as published with `decimals` decimals.
func auditRoundsTo(x, published float64, decimals int) bool {
	return math.Abs(x-published) <= 0.5*math.Pow(10, -float64(decimals))+1e-12
}

// Data ------------------------------------------------------------------------

// auditSynIID is the Syn(iid) federation the audits use.
type auditSynIID struct {
	fed     *data.Federated
	sizes   []float64 // |D_i| (train)
	maxNorm []float64 // per client max ‖(x, 1)‖
	source  string
	note    string
}

// AuditDataRoots lists where the released data is looked for, in order:
// o.DataDir (a directory holding synthetic_iid/…), $FEDREPRO_SHARED/
// datasets/upcycled-synthetic, ../shared/datasets/upcycled-synthetic.
func AuditDataRoots(o audit.Options) []string {
	var roots []string
	if o.DataDir != "" {
		roots = append(roots, o.DataDir)
	}
	if s := os.Getenv("FEDREPRO_SHARED"); s != "" {
		roots = append(roots, filepath.Join(s, "datasets", "upcycled-synthetic"))
	}
	return append(roots, filepath.Join("..", "shared", "datasets", "upcycled-synthetic"))
}

// auditLoad loads Syn(iid) from the first root that has it, else draws it
// from the seeded FedProx generator and says so.
func auditLoad(o audit.Options) (*auditSynIID, error) {
	var tried []string
	var fed *data.Federated
	source := ""
	for _, root := range AuditDataRoots(o) {
		f, err := data.LoadUpcycled(root, "synthetic_iid")
		if err == nil {
			// The directory is named by its last element only: the note is
			// part of the audits golden, which must not depend on where a
			// machine keeps its data.
			fed, source = f, "released Syn(iid) from "+filepath.Base(root)
			break
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", root, err))
	}
	note := ""
	if fed == nil {
		cfg, err := data.SyntheticPreset("syn_iid")
		if err != nil {
			return nil, err
		}
		f, err := data.GenerateSynthetic(cfg, rng.New(o.Seed, "upcycled", "audit", "generated", "syn_iid"))
		if err != nil {
			return nil, err
		}
		fed = f
		source = fmt.Sprintf("generated Syn(iid) (FedProx generator, seed %d)", o.Seed)
		note = "Released data not found (tried " + strings.Join(tried, "; ") + "): client sizes come from the seeded generator, so the recovered constants differ from the released data's."
	}
	d := &auditSynIID{fed: fed, source: source, note: note}
	for _, c := range fed.Clients {
		d.sizes = append(d.sizes, float64(c.Train.N))
		var mx float64
		for r := 0; r < c.Train.N; r++ {
			var s float64
			for _, v := range c.Train.Row(r) {
				s += v * v
			}
			mx = math.Max(mx, math.Sqrt(s+1))
		}
		d.maxNorm = append(d.maxNorm, mx)
	}
	return d, nil
}

// notes returns the data-source notes every table carries.
func (d *auditSynIID) notes() []string {
	n := []string{fmt.Sprintf("Data: %s; %d clients, |D_i| from %.0f to %.0f (mean %.1f).", d.source, len(d.sizes), auditMin(d.sizes), auditMax(d.sizes), auditMean(d.sizes))}
	if d.note != "" {
		n = append(n, d.note)
	}
	return n
}

func auditMean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func auditMin(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

func auditMax(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// Closed forms (Thm 6.2/6.3 come from the accountant package) ----------------

// auditThm62Eps is Thm 6.2's ε(δ) = 2√(a log(1/δ)) + a, a = Mτ²/(2σ²|D|²),
// from accountant.UpcycledOutputEpsilon (|D| rounded to an integer; NaN
// when the accountant rejects the inputs).
func auditThm62Eps(rounds, tau, sigma, size, delta float64) float64 {
	e, err := accountant.UpcycledOutputEpsilon(int(math.Round(rounds)), tau, sigma, int(math.Round(size)), delta)
	if err != nil {
		return math.NaN()
	}
	return e
}

// auditEpsBar returns ε̄ under a definition: "mean_over_clients" (mean of the
// per-client ε) or "at_mean_size" (ε of a client with the mean |D|).
func auditEpsBar(def string, sizes []float64, eps func(size float64) float64) float64 {
	if def == "at_mean_size" {
		return eps(auditMean(sizes))
	}
	var s float64
	for _, n := range sizes {
		s += eps(n)
	}
	return s / float64(len(sizes))
}

// auditBisect finds x in [lo, hi] with f(x) = target for monotone f (up:
// increasing); ok is false when the target is outside [f(lo), f(hi)].
func auditBisect(f func(float64) float64, target, lo, hi float64, up bool) (x float64, ok bool) {
	flo, fhi := f(lo), f(hi)
	if !up {
		flo, fhi = fhi, flo
	}
	if target < flo || target > fhi {
		return math.NaN(), false
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if (f(mid) < target) == up {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, true
}

// auditMeanAccountant returns the mean over clients of an accountant's ε
// for `rounds` Gaussian releases with noise std `std` and per-client
// sensitivity sens(|D_i|), at each δ.
func auditMeanAccountant(sizes []float64, std float64, sens func(size float64) float64, rounds int, deltas []float64, usePLD bool, quick bool) ([]float64, error) {
	out := make([]float64, len(deltas))
	for _, n := range sizes {
		z := std / sens(n)
		ev := accountant.SelfComposed{Event: accountant.Gaussian{Sigma: z}, Count: rounds}
		if usePLD {
			opts := accountant.PLDOptions{}
			if quick {
				opts.Interval = 1e-3
			}
			p := accountant.NewPLD(opts)
			if err := p.Compose(ev); err != nil {
				return nil, err
			}
			for k, d := range deltas {
				e, err := p.Epsilon(d)
				if err != nil {
					return nil, err
				}
				out[k] += e / float64(len(sizes))
			}
			continue
		}
		for k, d := range deltas {
			e, _, err := accountant.RDPEpsilon(ev, d)
			if err != nil {
				return nil, err
			}
			out[k] += e / float64(len(sizes))
		}
	}
	return out, nil
}

// op-recompute ------------------------------------------------------------------

// AuditDeltas is the δ grid of the recomputation (the paper states no δ).
var AuditDeltas = []float64{1e-2, 1e-3, 1e-4, 1e-5, 1e-6}

func auditRunRecompute(o audit.Options) (audit.Table, error) {
	d, err := auditLoad(o)
	if err != nil {
		return audit.Table{}, err
	}
	t := audit.Table{ID: "op-recompute", Title: "Output perturbation on Syn(iid): printed ε̄ vs Thm 6.2 / RDP / PLD under the paper's assumptions (τ = 10)",
		Columns: []string{"variant", "sigma", "rounds", "tau", "delta", "eps_thm62", "eps_rdp", "eps_pld", "published_fig3", "published_appf1"}}
	sides := []struct {
		name   string
		sigma  float64
		rounds int
		pub    [2]float64
	}{
		{"baseline", auditSigmaBase, auditRoundsBase, [2]float64{AuditPairs[0].Base, AuditPairs[1].Base}},
		{"upcycled", auditSigmaUp, auditRoundsUp, [2]float64{AuditPairs[0].Up, AuditPairs[1].Up}},
	}
	sens := func(n float64) float64 { return auditTauREADME / n }
	minThm, maxThm := math.Inf(1), 0.0
	for _, s := range sides {
		rdp, err := auditMeanAccountant(d.sizes, s.sigma, sens, s.rounds, AuditDeltas, false, o.Quick)
		if err != nil {
			return t, err
		}
		pld, err := auditMeanAccountant(d.sizes, s.sigma, sens, s.rounds, AuditDeltas, true, o.Quick)
		if err != nil {
			return t, err
		}
		for k, delta := range AuditDeltas {
			thm := auditEpsBar("mean_over_clients", d.sizes, func(n float64) float64 {
				return auditThm62Eps(float64(s.rounds), auditTauREADME, s.sigma, n, delta)
			})
			if s.name == "baseline" {
				minThm, maxThm = math.Min(minThm, thm), math.Max(maxThm, thm)
			}
			t.Rows = append(t.Rows, audit.Row{"variant": s.name, "sigma": s.sigma, "rounds": s.rounds, "tau": auditTauREADME, "delta": delta,
				"eps_thm62": thm, "eps_rdp": rdp[k], "eps_pld": pld[k], "published_fig3": s.pub[0], "published_appf1": s.pub[1]})
		}
	}
	t.Notes = append(d.notes(),
		"Paper's assumptions (Thm 6.2, App. E): per-round L2 sensitivity τ/|D_i| (add-one neighbours), noise N(0, σ²I) with σ the std, every client releases in every training round (frac = 1), the baseline leaks in 80 rounds and Upcycled in 40 (equal T = 80; upcycled/spec7-15-private-budget). τ = 10 is the upstream README's --clip; the paper gives neither τ nor δ.",
		"eps_thm62 is Thm 6.2's closed form (the moments accountant with the classic RDP conversion); eps_rdp the RDP accountant (improved conversion, Opacus orders); eps_pld the PLD accountant (exact up to discretisation"+map[bool]string{true: ", interval 1e-3 in quick mode", false: ", interval 1e-4"}[o.Quick]+"). Each is the mean of the per-client ε over the 30 clients.",
		"The omitted constants matter: at τ = 10 no δ ≤ 1e-2 brings ε̄ down to 1.59 or 0.773 (see op-constants).")
	if minThm > AuditPairs[0].Base {
		t.Verdict = fmt.Sprintf("inconsistent at τ = 10: Thm 6.2's ε̄ for the baseline is %.3f–%.3f for δ ∈ [1e-6, 1e-2], above both printed values (1.59, 0.773)", minThm, maxThm)
	} else {
		t.Verdict = fmt.Sprintf("Thm 6.2's ε̄ for the baseline spans %.3f–%.3f over the δ grid", minThm, maxThm)
	}
	return t, nil
}

// op-constants -------------------------------------------------------------------

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

// auditZCDPEps converts k-fold composition of pure ε₀-DP into (ε, δ) via
// zCDP (Bun–Steinke 2016: ε₀-DP ⇒ ε₀²/2-zCDP; ρ-zCDP ⇒ (ρ + 2√(ρ log 1/δ), δ)).
func auditZCDPEps(eps0 float64, k int, delta float64) float64 {
	rho := float64(k) * eps0 * eps0 / 2
	return rho + 2*math.Sqrt(rho*math.Log(1/delta))
}

// auditRRDelta is δ(ε) of the optimal composition of k pure ε₀-DP
// mechanisms (Kairouz, Oh and Viswanath 2015, Thm 3.3; the k-fold randomized
// response is the worst case): δ = Σ_l C(k,l)[e^{(k−l)ε₀} − e^{ε+lε₀}]₊/(1+e^{ε₀})^k,
// computed in log space. (The accountant package has no pure-DP event.)
func auditRRDelta(eps0 float64, k int, eps float64) float64 {
	logNorm := float64(k) * (eps0 + math.Log1p(math.Exp(-eps0))) // log (1+e^{ε₀})^k
	var terms []float64
	for l := 0; l <= k; l++ {
		a := float64(k-l) * eps0
		b := eps + float64(l)*eps0
		if b >= a {
			continue
		}
		lc, _ := math.Lgamma(float64(k + 1))
		l1, _ := math.Lgamma(float64(l + 1))
		l2, _ := math.Lgamma(float64(k - l + 1))
		terms = append(terms, lc-l1-l2+a+math.Log1p(-math.Exp(b-a))-logNorm)
	}
	if len(terms) == 0 {
		return 0
	}
	mx := math.Inf(-1)
	for _, v := range terms {
		mx = math.Max(mx, v)
	}
	var s float64
	for _, v := range terms {
		s += math.Exp(v - mx)
	}
	return math.Exp(mx + math.Log(s))
}

// auditRREps is the smallest ε with auditRRDelta ≤ δ.
func auditRREps(eps0 float64, k int, delta float64) float64 {
	hi := float64(k) * eps0
	if auditRRDelta(eps0, k, 0) <= delta {
		return 0
	}
	x, ok := auditBisect(func(e float64) float64 { return -math.Log(auditRRDelta(eps0, k, e) + 1e-300) }, -math.Log(delta), 0, hi, true)
	if !ok {
		return hi
	}
	return x
}

func auditRunObjective(o audit.Options) (audit.Table, error) {
	d, err := auditLoad(o)
	if err != nil {
		return audit.Table{}, err
	}
	t := audit.Table{ID: "objective", Title: "Objective perturbation on Syn(iid), FedProx μ = 0.5, α 10 vs 20: Thm 6.3 vs the printed 7.36/7.25",
		Columns: []string{"constants", "terms", "u1", "u2", "mu", "eps_base", "eps_up", "eps_base_published", "eps_up_published",
			"eps_base_zcdp", "eps_up_zcdp", "eps_base_rr", "eps_up_rr", "assumptions_met"}}
	p := AuditObjectivePair
	var h float64 // mean_i 1/|D_i|
	for _, n := range d.sizes {
		h += 1 / n / float64(len(d.sizes))
	}
	maxX := auditMax(d.maxNorm)
	type termConv struct {
		name   string
		tb, tu int
	}
	convs := []termConv{{"M+1 (printed Σ_{m=0}^{M})", auditRoundsBase + 1, auditRoundsUp + 1}, {"M (leaking rounds)", auditRoundsBase, auditRoundsUp}}
	normalised := maxX <= math.Sqrt2 // ‖x‖ ≤ 1 ⇔ ‖(x,1)‖ ≤ √2
	addRow := func(label string, c termConv, u1 func(i int) float64, u1Report, u2 float64) error {
		var eb, eu, zb, zu, rb, ru float64
		met := true
		for i, n := range d.sizes {
			bound := func(alpha float64, terms int) (float64, error) {
				alphas := make([]float64, terms)
				for k := range alphas {
					alphas[k] = alpha
				}
				e, err := accountant.UpcycledObjectiveEpsilon(accountant.ObjectivePerturbationBound{Alphas: alphas, U1: u1(i), U2: u2,
					Mu: auditMuFedProx, N: int(n), FeaturesNormalised: normalised})
				if errors.Is(err, accountant.ErrAssumption) {
					met = false
					err = nil
				}
				return e, err
			}
			b, err := bound(auditAlphaBase, c.tb)
			if err != nil {
				return err
			}
			u, err := bound(auditAlphaUp, c.tu)
			if err != nil {
				return err
			}
			b0, u0 := b/float64(c.tb), u/float64(c.tu) // per-round pure ε₀
			eb += b
			eu += u
			zb += auditZCDPEps(b0, c.tb, auditDeltaCommon)
			zu += auditZCDPEps(u0, c.tu, auditDeltaCommon)
			rb += auditRREps(b0, c.tb, auditDeltaCommon)
			ru += auditRREps(u0, c.tu, auditDeltaCommon)
		}
		k := float64(len(d.sizes))
		t.Rows = append(t.Rows, audit.Row{"constants": label, "terms": c.name, "u1": u1Report, "u2": u2, "mu": auditMuFedProx,
			"eps_base": eb / k, "eps_up": eu / k, "eps_base_published": p.Base, "eps_up_published": p.Up,
			"eps_base_zcdp": zb / k, "eps_up_zcdp": zu / k, "eps_base_rr": rb / k, "eps_up_rr": ru / k, "assumptions_met": met})
		return nil
	}
	fits := map[string][2]float64{}
	for _, c := range convs {
		// Valid constants if features were normalised (‖x‖ ≤ 1): binary
		// logistic |σ − y|·‖x‖ < 1, F'' ≤ ¼.
		if err := addRow("normalised_features_u1_1_u2_0.25", c, func(int) float64 { return 1 }, 1, 0.25); err != nil {
			return t, err
		}
		// The released features: u1 must bound ‖(x,1)‖ per client.
		if err := addRow("released_features_u1_max_norm_per_client", c, func(i int) float64 { return d.maxNorm[i] }, maxX, 0.25); err != nil {
			return t, err
		}
		// Fit (u1, u2) to both printed numbers: T_b·h·(2α_b u1 + 2.8u2/μ) = 7.36, T_u·h·(2α_u u1 + 2.8u2/μ) = 7.25.
		ab, au := p.Base/(float64(c.tb)*h), p.Up/(float64(c.tu)*h)
		u1 := (au - ab) / (2 * (auditAlphaUp - auditAlphaBase))
		u2 := (ab - 2*auditAlphaBase*u1) * auditMuFedProx / 2.8
		fits[c.name] = [2]float64{u1, u2}
		if err := addRow("fit_u1_u2_to_printed", c, func(int) float64 { return u1 }, u1, u2); err != nil {
			return t, err
		}
		// Fit u1 with u2 = ¼ to the baseline only.
		u1b := (ab - 2.8*0.25/auditMuFedProx) / (2 * auditAlphaBase)
		if err := addRow("fit_u1_to_baseline_u2_0.25", c, func(int) float64 { return u1b }, u1b, 0.25); err != nil {
			return t, err
		}
	}
	f := fits[convs[0].name]
	t.Notes = append(d.notes(),
		fmt.Sprintf("Thm 6.3: ε_i = Σ_{m=0}^{M} (2α u₁ μ + 2.8 u₂)/(|D_i| μ), pure ε-DP, with μ = 0.5 (FedProx, Fig. 4), α = 10 (80 iterations, all training) vs 20 (Upcycled, 40 of 80 training), ε̄ = mean over clients (mean 1/|D_i| = %.6f). u₁ and u₂ are not given in the paper; u₂ = ¼ is the binary-logistic curvature bound and u₁ must bound ‖∇F̂(ω; d)‖ = |σ − y|·‖(x,1)‖.", h),
		fmt.Sprintf("The theorem does not apply to the experiments: features are not normalised (max ‖(x,1)‖ = %.3f on this data; the theorem assumes ‖x‖ ≤ 1), FedAvg and the other non-proximal baselines have μ = 0 (ε = ∞), the local solver is SGD rather than an exact minimiser, the 10-class/MLP cases break the rank-2 step, and the upstream noise is not ∝ exp(−α‖n‖) (Gamma shape = input dimension 20 instead of the 42 parameters, cube directions). assumptions_met is what accountant.UpcycledObjectiveEpsilon reports for this data (feature normalisation, u₂ ≤ ½|D|μ); it cannot see the other failures, and every row is the formula evaluated, not a guarantee.", maxX),
		"eps_*_zcdp and eps_*_rr convert the same per-round pure ε₀ into (ε, 1e-5)-DP: via zCDP (ε₀²/2 per round), and via the optimal composition of pure-DP mechanisms (Kairouz–Oh–Viswanath; k-fold randomized response is the worst case). Both are computed in this package (the accountant has no pure-DP event); they are tighter than linear summation only when ε₀ is small.",
		fmt.Sprintf("fit_u1_u2_to_printed solves the two printed values for (u₁, u₂): with M+1 terms u₁ = %.4f, u₂ = %.4f — below the valid bounds u₁ ≥ 1 (even for normalised features) and u₂ ≥ ¼, so 7.36/7.25 cannot come from valid constants on the released sizes.", f[0], f[1]))
	t.Verdict = fmt.Sprintf("not a guarantee: Thm 6.3's assumptions fail (‖x‖ up to %.2f > 1, μ = 0 for six baselines, SGD); the printed pair is reproduced only with u₁ = %.3f, u₂ = %.3f (M+1 terms), not valid bounds; with valid constants for normalised features ε̄ would be %.2f/%.2f", maxX, f[0], f[1],
		t.Rows[0]["eps_base"].(float64), t.Rows[0]["eps_up"].(float64))
	return t, nil
}

// op-mechanism -------------------------------------------------------------------------

func auditRunMechanism(o audit.Options) (audit.Table, error) {
	d, err := auditLoad(o)
	if err != nil {
		return audit.Table{}, err
	}
	t := audit.Table{ID: "op-mechanism", Title: "Output perturbation: ε of the mechanism as released (τ = 10, δ = 1e-5, no amplification)",
		Columns: []string{"std_mode", "variant", "noise_std", "rounds", "sensitivity", "tau", "delta", "noise_multiplier", "eps_rdp", "eps_exact", "eps_published"}}
	type sensDef struct {
		name string
		f    func(n float64) float64
	}
	senses := []sensDef{
		{"tau_over_D_paper_add_one", func(n float64) float64 { return auditTauREADME / n }},
		{"2tau_over_D_replace_one_averaging", func(n float64) float64 { return 2 * auditTauREADME / n }},
		{"2tau_clipped_model_replace_one", func(float64) float64 { return 2 * auditTauREADME }},
	}
	var trueBase, trueUpCode float64
	for _, mode := range []string{"paper_sigma", "upstream_sigma_squared"} {
		for _, v := range []struct {
			name   string
			sigma  float64
			rounds int
			pub    float64
		}{{"baseline", auditSigmaBase, auditRoundsBase, AuditPairs[0].Base}, {"upcycled", auditSigmaUp, auditRoundsUp, AuditPairs[0].Up}} {
			std := v.sigma
			if mode == "upstream_sigma_squared" {
				std = v.sigma * v.sigma
			}
			for _, s := range senses {
				var eRDP, eExact, zMean float64
				for _, n := range d.sizes {
					z := std / s.f(n)
					zMean += z / float64(len(d.sizes))
					r, _, err := accountant.RDPEpsilon(accountant.SelfComposed{Event: accountant.Gaussian{Sigma: z}, Count: v.rounds}, auditDeltaCommon)
					if err != nil {
						return t, err
					}
					x, err := accountant.GaussianEpsilon(z/math.Sqrt(float64(v.rounds)), auditDeltaCommon)
					if err != nil {
						return t, err
					}
					eRDP += r / float64(len(d.sizes))
					eExact += x / float64(len(d.sizes))
				}
				if s.name == "2tau_clipped_model_replace_one" {
					if mode == "paper_sigma" && v.name == "baseline" {
						trueBase = eExact
					}
					if mode == "upstream_sigma_squared" && v.name == "upcycled" {
						trueUpCode = eExact
					}
				}
				t.Rows = append(t.Rows, audit.Row{"std_mode": mode, "variant": v.name, "noise_std": std, "rounds": v.rounds, "sensitivity": s.name,
					"tau": auditTauREADME, "delta": auditDeltaCommon, "noise_multiplier": zMean, "eps_rdp": eRDP, "eps_exact": eExact, "eps_published": v.pub})
			}
		}
	}
	t.Notes = append(d.notes(),
		"What the mechanism satisfies: the client clips its whole trained model to norm τ and adds N(0, std²I) (spec §3.7). Two clipped models can differ by up to 2τ (shown explicitly in op-empirical and in claim upcycled/spec7-12-output-sensitivity), so the per-round sensitivity is 2τ — independent of |D_i| — under replace-one (the paper's definition) and also under add-one. The rows with τ/|D| and 2τ/|D| assume the paper's averaging model ξ = (1/|D|)Σ η(d) for comparison (2τ/|D| is its replace-one sensitivity; claim upcycled/spec7-11-neighbouring-relation).",
		"std_mode paper_sigma: std = σ (the paper); upstream_sigma_squared: std = σ² (torch.normal(0, sigma**2)): 1.0 for baselines, 0.64 for Upcycled.",
		"No amplification applies: frac = 1 in the private runs, a client's releases reveal whether it was selected (fixed-size sampling), and each release is a function of all of D_i (shuffle-and-iterate epochs, not Poisson subsampling); so each client is charged every training round (80 baseline, 40 Upcycled).",
		"noise_multiplier = std / sensitivity (mean over clients); eps_rdp: RDP accountant, improved conversion; eps_exact: the exact Gaussian composition (GDP μ = √rounds / noise_multiplier), which the PLD accountant converges to — used here because the clipped-model rows are beyond the PLD grid's range. Printed values are Fig. 3's.")
	t.Verdict = fmt.Sprintf("gap: as released (sensitivity 2τ) the mechanism is (ε, 1e-5)-DP only for ε ≈ %.0f (baseline, σ = 1) and %.0f (Upcycled with the code's std 0.64), versus the printed 1.59/1.40; with std σ² Upcycled is less private than the baseline under every sensitivity model", trueBase, trueUpCode)
	return t, nil
}

// op-empirical -------------------------------------------------------------------------

// auditClipped trains one client's model as the private runs do (FedAvg
// local update from the zero model: E = 10 epochs of momentum-0.5 SGD,
// batch 32, lr 0.1 — the tuned output-perturbation lr for Syn(iid)) and
// clips it to norm τ; key fixes the shuffles.
func auditClipped(ds *data.Dataset, key rng.Key, tau float64) ([]float64, error) {
	m := model.NewLogReg(ds.D, 2, model.CrossEntropy)
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 10, BatchSize: 32, LR: 0.1, Momentum: 0.5}}
	hooks := fl.Hooks{AfterLocal: func(_ *fl.Client, p []float64) { dp.ClipL2(p, tau) }}
	e, err := fl.New(m, []*data.Dataset{ds}, &fl.FedAvg{}, cfg, key, make([]float64, m.NumParams()), hooks)
	if err != nil {
		return nil, err
	}
	e.TrainRound()
	return append([]float64(nil), e.Server().Global...), nil
}

// auditWithRow returns a copy of ds with row i replaced by (x, y), or with
// (x, y) appended when i < 0.
func auditWithRow(ds *data.Dataset, i int, x []float64, y int) *data.Dataset {
	out := &data.Dataset{X: append([]float64(nil), ds.X...), Y: append([]int(nil), ds.Y...), N: ds.N, D: ds.D, Classes: max(ds.Classes, 2)}
	if i < 0 {
		out.X = append(out.X, x...)
		out.Y = append(out.Y, y)
		out.N++
		return out
	}
	copy(out.X[i*ds.D:(i+1)*ds.D], x)
	out.Y[i] = y
	return out
}

func auditDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// auditNeighbours is an explicit neighbouring pair and how far apart the
// mechanism's clipped models are for it.
type auditNeighbours struct {
	relation string
	d, dp    *data.Dataset
	distance float64 // ‖ξ(D) − ξ(D′)‖ with the search's fixed shuffles
	what     string
}

// auditOutlierNorm is the feature norm of the constructed outlier.
const auditOutlierNorm = 1e4

// auditWorstPairs constructs the worst neighbouring pairs for one client
// (and, for contrast, a typical one when other holds examples):
// replace-one — the outlier R·e₁ with label 1 vs label 0 at the row that
// maximises the distance (where the zero model meets it in the first
// mini-batch, its two labels push the model in opposite directions far past
// τ, so the clipped models end ≈ 2τ apart); add-one — D vs D ∪ {±R·e_j}
// with the label and direction that move the clipped model most.
func auditWorstPairs(ds, other *data.Dataset, key rng.Key, quick bool) ([]auditNeighbours, error) {
	u := make([]float64, ds.D)
	u[0] = auditOutlierNorm
	best := auditNeighbours{relation: "replace_one"}
	rows := ds.N
	if quick {
		rows = min(rows, 12)
	}
	for i := 0; i < rows; i++ {
		a, b := auditWithRow(ds, i, u, 1), auditWithRow(ds, i, u, 0)
		ma, err := auditClipped(a, key, auditTauREADME)
		if err != nil {
			return nil, err
		}
		mb, err := auditClipped(b, key, auditTauREADME)
		if err != nil {
			return nil, err
		}
		if dd := auditDist(ma, mb); dd > best.distance {
			best.d, best.dp, best.distance = a, b, dd
			best.what = fmt.Sprintf("row %d replaced by x* = %.0e·e₁ with label 1 (D) vs label 0 (D′)", i, auditOutlierNorm)
		}
	}
	base, err := auditClipped(ds, key, auditTauREADME)
	if err != nil {
		return nil, err
	}
	add := auditNeighbours{relation: "add_one", d: ds}
	dirs := ds.D
	if quick {
		dirs = 4
	}
	for j := 0; j < dirs; j++ {
		for _, sgn := range []float64{-1, 1} {
			x := make([]float64, ds.D)
			x[j] = sgn * auditOutlierNorm
			for y := 0; y < 2; y++ {
				dp := auditWithRow(ds, -1, x, y)
				m, err := auditClipped(dp, key, auditTauREADME)
				if err != nil {
					return nil, err
				}
				if dd := auditDist(m, base); dd > add.distance {
					add.dp, add.distance = dp, dd
					add.what = fmt.Sprintf("D′ = D ∪ {x* = %+.0e·e_%d, label %d}", sgn*auditOutlierNorm, j+1, y)
				}
			}
		}
	}
	// A typical replace-one pair for contrast: row 0 replaced by a test
	// example (same distribution, no outlier).
	typ := auditNeighbours{relation: "replace_one_typical", d: ds}
	if other != nil && other.N > 0 {
		typ.dp = auditWithRow(ds, 0, other.Row(0), other.Y[0])
		typ.what = "row 0 replaced by an ordinary example (the first row of the pooled test set)"
		m, err := auditClipped(typ.dp, key, auditTauREADME)
		if err != nil {
			return nil, err
		}
		typ.distance = auditDist(m, base)
		return []auditNeighbours{best, add, typ}, nil
	}
	return []auditNeighbours{best, add}, nil
}

func auditRunEmpirical(o audit.Options) (audit.Table, error) {
	d, err := auditLoad(o)
	if err != nil {
		return audit.Table{}, err
	}
	t := audit.Table{ID: "op-empirical", Title: "Output perturbation: distinguishing game on one client's clipped-and-noised model (smallest Syn(iid) client, τ = 10, δ = 1e-5)",
		Columns: []string{"mode", "relation", "variant", "noise_std", "client_size", "trials", "distance", "tpr", "fpr", "eps_lb", "eps_gdp", "eps_gdp_composed", "eps_claimed_round", "eps_claimed_total"}}
	var ds *data.Dataset
	for _, c := range d.fed.Clients {
		if ds == nil || c.Train.N < ds.N {
			ds = c.Train
		}
	}
	pairs, err := auditWorstPairs(ds, d.fed.Test, rng.New(o.Seed, "upcycled", "audit", "empirical", "search"), o.Quick)
	if err != nil {
		return t, err
	}
	trials, calib := 5000, 32
	if o.Quick {
		trials, calib = 500, 8
	}
	const conf = 0.95
	dim := model.NewLogReg(ds.D, 2, model.CrossEntropy).NumParams()
	type setting struct {
		mode, variant string
		sigma, std    float64
		rounds        int
		printed       float64
	}
	settings := []setting{
		{"paper_and_upstream", "baseline", auditSigmaBase, auditSigmaBase, auditRoundsBase, AuditPairs[0].Base},
		{"paper_sigma", "upcycled", auditSigmaUp, auditSigmaUp, auditRoundsUp, AuditPairs[0].Up},
		{"upstream_sigma_squared", "upcycled", auditSigmaUp, auditSigmaUp * auditSigmaUp, auditRoundsUp, AuditPairs[0].Up},
	}
	var worst audit.Row
	for _, pr := range pairs {
		// The LR attack's means: noiseless clipped models averaged over
		// fresh shuffles (a calibration stream separate from the game's).
		meanD, meanDp := make([]float64, dim), make([]float64, dim)
		for k := 0; k < calib; k++ {
			key := rng.New(o.Seed, "upcycled", "audit", "empirical", "calibration", pr.relation, k)
			a, err := auditClipped(pr.d, key, auditTauREADME)
			if err != nil {
				return t, err
			}
			b, err := auditClipped(pr.dp, key, auditTauREADME)
			if err != nil {
				return t, err
			}
			for i := range a {
				meanD[i] += a[i] / float64(calib)
				meanDp[i] += b[i] / float64(calib)
			}
		}
		for _, s := range settings {
			if pr.relation != "replace_one" && s.variant != "baseline" {
				continue // one add-one and one typical row suffice
			}
			g := audit.Game{ID: fmt.Sprintf("upcycled/op-empirical/%s/%s/%s", pr.relation, s.variant, s.mode), Seed: o.Seed,
				Trials: trials, Delta: auditDeltaCommon, Confidence: conf}
			std, src, srcP := s.std, pr.d, pr.dp
			mech := func(r *rand.Rand, neighbour bool, dst []float64) []float64 {
				in := src
				if neighbour {
					in = srcP
				}
				m, err := auditClipped(in, rng.New(r.Uint64(), "shuffle"), auditTauREADME)
				if err != nil {
					panic(err) // the datasets were trained above; cannot fail here
				}
				copy(dst, m)
				dp.AddGaussian(r, dst, std)
				return dst
			}
			res, err := g.RunVector(mech, dim, audit.GaussianLRScore(meanD, meanDp))
			if err != nil {
				return t, err
			}
			_, mu, err := audit.EpsilonGDP(res.Counts, auditDeltaCommon, conf)
			if err != nil {
				return t, err
			}
			composed := 0.0
			if mu > 0 {
				composed, err = accountant.GDPEpsilon(mu*math.Sqrt(float64(s.rounds)), auditDeltaCommon)
				if err != nil {
					return t, err
				}
			}
			c := res.Counts
			row := audit.Row{"mode": s.mode, "relation": pr.relation, "variant": s.variant, "noise_std": s.std, "client_size": ds.N,
				"trials": trials, "distance": pr.distance, "mean_distance": auditDist(meanD, meanDp),
				"tpr": float64(c.TP) / float64(c.TP+c.FN), "fpr": float64(c.FP) / float64(c.FP+c.TN),
				"eps_lb": res.EpsilonLB, "eps_gdp": res.EpsilonGDP, "eps_gdp_composed": composed,
				"eps_claimed_round": auditThm62Eps(1, auditTauREADME, s.sigma, float64(ds.N), auditDeltaCommon),
				"eps_claimed_total": s.printed, "pair": pr.what}
			t.Rows = append(t.Rows, row)
			if worst == nil || res.EpsilonLB > worst["eps_lb"].(float64) {
				worst = row
			}
		}
	}
	t.Notes = append(d.notes(),
		fmt.Sprintf("Mechanism audited: one client's upload in one training round — FedAvg local update from the zero model (E = 10, batch 32, lr 0.1, momentum 0.5, fresh shuffles every trial), the whole model clipped to τ = 10, plus N(0, std²I) — on the smallest Syn(iid) client (|D| = %d).", ds.N),
		fmt.Sprintf("Neighbouring pairs (constructed, then fixed): replace_one — %s; the clipped models were %.4f apart with the search's shuffles (2τ = 20). add_one — %s (%.4f apart; at most τ + ‖ξ(D)‖). replace_one_typical, for contrast — an ordinary replacement (%.4f apart, i.e. μ ≈ distance/std per round), which this game cannot tell apart: DP is a worst-case guarantee, and the violation needs the constructed pair. The features are unbounded (the paper normalises nothing for output perturbation), so one example can dominate local training and clipping the model only bounds the sensitivity by 2τ, not τ/|D|.", pairs[0].what, pairs[0].distance, pairs[1].what, pairs[1].distance, pairs[len(pairs)-1].distance),
		fmt.Sprintf("Attack: the Gaussian likelihood-ratio score ⟨x − (m₀+m₁)/2, m₁ − m₀⟩ with m₀, m₁ the noiseless clipped models averaged over %d separate shuffles; threshold and direction chosen on half of the %d trials per side, evaluated on the other half (algorithms/audit Game, split-half). eps_lb is the Clopper–Pearson lower bound at %.0f%% confidence and δ = 1e-5 — limited by the trial count, not by the mechanism; eps_gdp the GDP estimate on the same counts (Nasr et al. 2023; an estimate, not a bound) and eps_gdp_composed that μ composed over the run's leaking rounds (80 baseline, 40 Upcycled).", calib, trials, 100*conf),
		"eps_claimed_round is Thm 6.2 for this client and ONE round (M = 1, τ = 10, the paper's σ, δ = 1e-5); eps_claimed_total is the printed 80-iteration ε̄ (Fig. 3). distance is the constructed pair's distance; mean_distance that of the calibration means.")
	t.Verdict = fmt.Sprintf("violation: one round of one client is already at least %.2f-DP at δ = 1e-5 (%.0f%% confidence; TPR %.3f, FPR %.3f over %d evaluation trials per side), above Thm 6.2's one-round ε %.3f for this client and the printed whole-run ε̄ %.2f; the GDP estimate composed over the run gives ε ≈ %.0f",
		worst["eps_lb"], 100*conf, worst["tpr"], worst["fpr"], trials/2, worst["eps_claimed_round"], worst["eps_claimed_total"], worst["eps_gdp_composed"])
	return t, nil
}
