package haar

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// methodLabel names a method for readers; level picks DP-SGD or DP-FedAvg.
func methodLabel(m, level string) string {
	base, wav := "DP-SGD", "DP-SGD-WAV"
	if level == "user" {
		base, wav = "DP-FedAvg", "DP-FedAvg-WAV"
	}
	switch m {
	case "nonprivate":
		return "non-private FedAvg"
	case "vanilla":
		return base
	case "dyn":
		return "Dyn-" + base + " †"
	case "wav":
		return wav + " (σ_c = σ_Haar, Lemma 2)"
	case "wav_literal":
		return wav + " (σ_c = σ, literal)"
	case "wav_corrected":
		return wav + " privacy-corrected"
	case "gauss_matched":
		return base + " at WAV's noise std"
	}
	return m
}

// wavName names WAV at Lemma 2's calibration per privacy level.
var wavName = map[string]string{"sample": "DP-SGD-WAV (Lemma 2)", "user": "DP-FedAvg-WAV (Lemma 2)"}

var optimizerLabel = map[string]string{"sgd": "DP-SGD", "adam": "DP-Adam", "adagrad": "DP-AdaGrad"}

// group is the results of one configuration over its seeds, in seed
// order (paper.Group), with the few readings this report adds.
type group struct{ *paper.Group[RunConfig] }

func newGroup(g *paper.Group[RunConfig]) *group { return &group{g} }

type gkey struct {
	exp, ds, opt, method string
	sigma                float64
}

// configOf decodes a result's configuration.
func configOf(r *runner.Result) (RunConfig, error) { return paper.ConfigOf[RunConfig](r) }

func groupResults(results []*runner.Result) (map[gkey]*group, error) {
	return paper.GroupAs(results, func(r *runner.Result, c RunConfig) gkey {
		return gkey{r.Experiment, c.Dataset, c.Optimizer, c.Method, c.Sigma}
	}, newGroup)
}

// acc is the final test accuracy in percent.
func (g *group) acc() report.Stats { return g.Final("acc").Scaled(100) }

// final is the mean of a final metric (privacy facts are equal across
// seeds up to the bisection of the Dyn calibration).
func (g *group) final(metric string) float64 {
	if len(g.Results) == 0 {
		return math.NaN()
	}
	return g.Final(metric).Mean
}

// paired returns the per-seed differences a − b of the final accuracy, in
// percentage points, over the seeds both have (paired: same split, initial
// model, client draws and lots).
func paired(a, b *group) report.Stats {
	return report.Summarize(paper.Paired(a.Group, b.Group, func(ra, rb *runner.Result) float64 { return 100 * (ra.Final["acc"] - rb.Final["acc"]) }))
}

// curve returns the round, mean and std of the test accuracy (percent)
// over seeds.
func (g *group) curve() (xs, mean, std []float64) {
	return g.Curve(func(m runner.Metrics) float64 { return 100 * m["acc"] }, paper.Metric("round"))
}

func (g *group) wall() float64 {
	var s float64
	for _, r := range g.Results {
		s += r.WallSeconds
	}
	return s
}

type reportWriter struct {
	paper.ReportWriter[Spec, map[gkey]*group]
	sets *imageSets
	pld  map[string]string // PLD ε by event

	// What the sections computed, for the findings and the headline.
	wav         wavStats
	read        []readStats
	t3          table3Stats
	claimCounts map[string]int
	auditTables []audit.Table
}

// table3Stats counts the optimizer rows of Table III whose gain grows with
// σ, ours and the paper's.
type table3Stats struct{ rows, grows, paperRows, paperGrows int }

func (w *reportWriter) get(exp, ds, opt, method string, sigma float64) *group {
	if method == "nonprivate" {
		sigma = 0
	}
	return w.Groups[gkey{exp, ds, opt, method, sigma}]
}

func writeReport(o paper.Options, s *Spec, sets *imageSets, results []*runner.Result) error {
	base, err := paper.OpenReport(o, "haar", s, results, groupResults,
		report.SeedStatsNote,
		"accuracy_pct: final test accuracy in percent; gain_*_pts: mean of the per-seed paired differences in percentage points (same split, initial model, client draws and lots)",
		"epsilon: the ε the run really has (RDP accountant on the effective noise multiplier of the mechanism, δ as in the spec, worst-case participant); epsilon_claimed: on the nominal σ, i.e. what the paper's Lemma 2 claims",
		"paper_value: the paper's text-reported gain (Figs 7–12, §6.3–6.4) or Table III entry; the paper does not say whether its gains are absolute points or relative percent",
		"method dyn is an assumption (dpfl.Decay), not the paper's: the paper only cites Du et al. for it",
	)
	if err != nil {
		return err
	}
	w := &reportWriter{ReportWriter: base, sets: sets, pld: map[string]string{}}
	// The audits do not read the sections before them: they run on the
	// other core while the tables and figures are written.
	ao, _ := w.auditOptions()
	report.PrefetchAudits("haar", ao)
	doc := &report.Doc{}
	w.header(doc)
	w.wavComparison(doc)
	for i := range s.Experiments {
		e := &s.Experiments[i]
		if e.Figure == "" {
			continue
		}
		if err := w.figureExperiment(doc, e); err != nil {
			return err
		}
	}
	w.readings(doc)
	w.table3(doc)
	w.privacy(doc)
	w.claims(doc)
	w.audits(doc)
	w.costs(doc)
	w.notRun(doc)
	return w.Finish(doc, w.findings(), w.headline(results), "table", "experiment", "dataset", "level", "optimizer", "method", "sigma", "metric")
}

func (w *reportWriter) header(doc *report.Doc) {
	doc.H(1, "Haar-wavelet DP-FL — reproduction report (%s scale)", w.Opts.Scale)
	doc.P("Paper: Ranaweera, Nguyen, Pathirana, Smith, Ding, Rakotoarivelo, Seneviratne, *%s* (%s). Generated by `fedrepro reproduce --paper haar --scale %s`; every number below is computed from the run results in `results/haar/%s/` and stored in `summary.json`. The paper's printed numbers are transcribed with their sources in `golden/haar/paper.yaml`.", paperTitle, paperLink, w.Opts.Scale, w.Opts.Scale)
	doc.P("Scale: %s", w.Spec.Description)
	var runs int
	for _, g := range w.Groups {
		runs += len(g.Results)
	}
	tb := &report.Table{Header: []string{"experiment", "level", "datasets run", "model (params, m)", "clients × examples", "rounds × local epochs", "privacy unit sampling", "lr", "seeds"}}
	for _, e := range w.Spec.Experiments {
		var ran []string
		for _, ds := range e.Datasets {
			if w.sets.Available(ds) {
				ran = append(ran, datasetLabel[ds])
			}
		}
		size := "rest"
		if e.Data.ClientSize > 0 {
			size = fmt.Sprint(e.Data.ClientSize)
		}
		mdl := "LogReg"
		if e.Model == "mlp" {
			mdl = fmt.Sprintf("MLP (hidden %d)", e.Hidden)
		}
		if np := w.numParams(e); np > 0 {
			mdl += fmt.Sprintf(" (%d, %d)", np, haar.PaddedLen(np))
		}
		samp := fmt.Sprintf("Poisson lots, L = %g (q = L/n), %g of clients per round", e.Lot, e.Frac)
		if e.Level == "user" {
			samp = fmt.Sprintf("Bernoulli clients, q_c = %g; local batch %d", e.Q, e.Batch)
		}
		var lrs []string
		for _, o := range e.Optimizers {
			lrs = append(lrs, fmt.Sprintf("%s %g", o, e.LR[o]))
		}
		seeds := len(w.Spec.SeedsOf(&e.ExperimentHeader))
		tb.Add(e.Name, e.Level, strings.Join(ran, ", "), mdl, fmt.Sprintf("%d × %s (public %d)", e.Data.Clients, size, e.Data.Public),
			fmt.Sprintf("%d × %d", e.Rounds, e.Epochs), samp, strings.Join(lrs, ", "), seeds)
	}
	doc.Table(tb)
	doc.P("%d runs in %d configurations. Paper setting for comparison: 100 clients, 300 rounds × 50 local epochs, CNNs on 28×28 (32×32) images, K, lot size, η and C not reported (§6.1).", runs, len(w.Groups))
	doc.H(2, "Methods and the choices made where the paper is silent")
	doc.List(
		"**DP-SGD** (sample level): every client runs DP-SGD on its own data — Poisson lots with q = L/n from the training stream, per-example clipping at C, ONE Gaussian draw N(0, σ²C²) per lot on the sum, division by the expected lot size L, then the optimizer step (`algorithms/dpfl.DPSGD`). The server averages the client models (eq. (4); equal split, every client every round). Adam/AdaGrad (Table III) restart their moments at every local update.",
		"**DP-FedAvg** (user level): clients train without privacy from w_t, clip their update Δ_k to ‖Δ_k‖ ≤ C; the server adds noise to the fixed-denominator mean Σ_k Δ_k/(q_c·N) whose sensitivity is C/(q_c·N), i.e. noise std z·C/(q_c·N) — Algorithm 2's σ = zC/(q_c d) with d read as the number of equally weighted clients (with d in examples the printed formula would under-noise by the client size). Clients participate by independent Bernoulli(q_c) coins, as the accountant's Poisson subsampling assumes (`dpfl.DPFedAvg`).",
		"**WAV**: the paper's Haar-wavelet noise (`algorithms/haar`): sample level = Algorithm 1 with clipping in the coefficient domain as printed (‖HWT(g)‖ ≤ C, noise std σ_c·C/W_j per coefficient, one draw per lot); user level = Algorithm 2 (noise σ_c·(C/(q_c N))/W_j on the coefficients of the aggregate, update clipped in the parameter domain). σ_c = σ_Haar = σ·sqrt(2/(2+log2 m)) (Lemma 2, the spec's default reading of the experiments); **WAV literal** uses σ_c = σ.",
		"**WAV privacy-corrected**: the same transform and noise shape with σ_c chosen so that the mechanism's effective noise multiplier (`haar.EffectiveMultiplier`, the multiplier of the scalar Gaussian mechanism with the same privacy profile) equals σ — clipping in the gradient domain, σ_c = σ·‖diag(W)A‖ ≈ σ·√m. Only this variant really has the vanilla ε.",
		"**Vanilla at WAV's noise std** (`gauss_matched`, a control): isotropic Gaussian noise whose per-coordinate std equals that of WAV's reconstructed noise (σ' = std_WAV·C_WAV/C). If WAV ≈ this control, WAV's utility comes from adding less noise, and its ε is this control's ε or worse.",
		"**Dyn-DP-SGD / Dyn-DP-FedAvg †** — ASSUMPTION, not the paper's algorithm: the paper cites Du et al. (arXiv:2111.00173) and defines neither. We implement that reference's idea as we read it: noise multiplier and clip bound both decay geometrically over the rounds (σ_t = σ_0·ρ_σ^(−t/T), C_t = C·ρ_C^(−t/T), ρ_σ = ρ_C = 2 here), with σ_0 raised so that the whole run has the same RDP ε as vanilla at σ (`dpfl.Decay`, `dpfl.MatchDecay`). Numbers for Dyn measure this schedule, not necessarily the paper's baseline.",
		"**Clip bound C**: the paper's median rule — the median, over a public proxy split that no client holds, of the per-example gradient norm (sample level) or of the one-round update norm (user level) at the initial model, measured in the norm each mechanism clips (so Algorithm 1's coefficient-domain C is the median coefficient norm).",
		"**Non-private** (sample level): the same local loop on the same Poisson lots without clipping or noise; (user level) FedAvg with the same client participation.",
		"**Algorithm 1's noise: per lot or per example** — a READING: Algorithm 1 as printed calls WaveletNoise inside the loop over the lot's examples (one draw per example); the rest of this report draws once per lot, as Abadi et al.'s DP-SGD does and as the paper's §4.1 (\"the exact same methodology as the standard DP-SGD\") suggests. Both readings are implemented (`noise_per: lot | example` in the spec); the per-example one has √L times the noise std and a different ε (section *Algorithm 1's two readings* below).",
		"**Pairing**: a run's streams are named by (seed, dataset, level) only, so every method on a seed shares the split, the initial model, the client draws and (sample level) the lots; gains are reported as the mean ± std of per-seed paired differences.",
		"**ε**: `algorithms/dp/accountant` (RDP, add/remove neighbouring, improved conversion) on each run's ledger of releases — the worst-case participant (a client's lots for DP-SGD, the rounds for DP-FedAvg) — once with the nominal σ (what Lemma 2 claims: `ε claimed`) and once with the mechanism's effective multiplier (`ε actual`).",
	)
}

// numParams is the model size of an experiment on its first available dataset.
func (w *reportWriter) numParams(e Experiment) int {
	for k, g := range w.Groups {
		if k.exp == e.Name {
			return paramsOf(g.Config, w.featureDim(g.Config))
		}
	}
	return 0
}

// featureDim is the input dimension of a run's dataset after pooling.
func (w *reportWriter) featureDim(c RunConfig) int {
	side := map[string]int{"fashion_mnist": 28, "mnist": 28, "cifar10": 32}[c.Dataset]
	ch := map[string]int{"fashion_mnist": 1, "mnist": 1, "cifar10": 3}[c.Dataset]
	for i := 0; i < c.Data.Pool; i++ {
		side /= 2
	}
	return ch * side * side
}

func paramsOf(c RunConfig, d int) int {
	if c.Model == "mlp" {
		return c.Hidden*(d+1) + 10*(c.Hidden+1)
	}
	return 10 * (d + 1)
}

func sigmaCol(ds string, s float64) string { return ds + "_sigma" + sigmaLabel(s) }

// paperGain looks up the paper's text-reported gain of WAV over baseline.
func (w *reportWriter) paperGain(level, baseline, ds string, sigma float64) (float64, bool) {
	id := "fig7-9"
	if level == "user" {
		id = "fig10-12"
	}
	t, ok := w.Nums.Table(id)
	if !ok {
		return 0, false
	}
	c, ok := t.Lookup(map[string]string{"level": level, "baseline": baseline}, sigmaCol(ds, sigma))
	return c.Mean, ok
}

func (w *reportWriter) paperEps(ds string, sigma float64) (float64, bool) {
	t, ok := w.Nums.Table("III-eps")
	if !ok {
		return 0, false
	}
	c, ok := t.Lookup(map[string]string{"quantity": "epsilon"}, sigmaCol(ds, sigma))
	return c.Mean, ok
}

func (w *reportWriter) claims(doc *report.Doc) {
	w.claimCounts = report.ClaimsSection(doc, "haar", w.Dir, proofs.DefaultSeed, "")
}

// auditOptions are the options of the report's audits and the sentence
// that says when they are the quick ones.
func (w *reportWriter) auditOptions() (audit.Options, string) {
	ao := paper.AuditOptions("haar", w.Opts)
	if w.Spec.AuditSize != "quick" {
		return ao, ""
	}
	ao.Quick = true
	return ao, "Audit size: **quick** (spec `audit_size: quick`): coarser searches and a tenth of the empirical budget, for testing the pipeline; `fedrepro audit --paper haar` gives the full-size figures."
}

func (w *reportWriter) audits(doc *report.Doc) {
	ao, intro := w.auditOptions()
	w.auditTables = report.AuditSections(doc, "Privacy-figure audit", "haar", w.Opts.Scale, ao, nil, intro)
}

// costs reports the measured work per configuration family.
func (w *reportWriter) costs(doc *report.Doc) {
	doc.H(2, "Cost")
	doc.P("Run time summed over seeds (runs share the cores with other runs, so only ratios are meaningful) and exact work counters per run (mean over seeds). WAV's extra cost over vanilla is the O(m) transform per example (coefficient norm) and per lot.")
	tb := &report.Table{Header: []string{"experiment", "method", "runs", "wall s (sum)", "SGD steps / run", "sample gradients / run"}, Align: "llrrrr"}
	type agg struct {
		runs         int
		wall         float64
		steps, grads float64
	}
	m := map[[2]string]*agg{}
	var keys [][2]string
	for k, g := range w.Groups {
		key := [2]string{k.exp, k.method}
		a := m[key]
		if a == nil {
			a = &agg{}
			m[key] = a
			keys = append(keys, key)
		}
		for _, r := range g.Results {
			a.runs++
			a.wall += r.WallSeconds
			a.steps += float64(r.Counters["sgd_steps"])
			a.grads += float64(r.Counters["sample_grads"])
		}
	}
	order := map[string]int{}
	for i, m := range methodOrder {
		order[m] = i
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return order[keys[i][1]] < order[keys[j][1]]
	})
	var total float64
	for _, k := range keys {
		a := m[k]
		total += a.wall
		tb.Add(k[0], k[1], a.runs, fmt.Sprintf("%.1f", a.wall), fmt.Sprintf("%.0f", a.steps/float64(a.runs)), fmt.Sprintf("%.0f", a.grads/float64(a.runs)))
	}
	doc.Table(tb)
	doc.P("Total run time (sum over runs): %s.", (time.Duration(total * float64(time.Second))).Round(time.Second))
}

func (w *reportWriter) notRun(doc *report.Doc) {
	doc.H(2, "Scaled down, assumed, or not run")
	items := []string{
		"**Models**: the paper's CNNs (Figs. 5–6 are images without layer sizes) are not available to this pure-Go CPU harness; we use multinomial logistic regression and an MLP with per-example gradients. Absolute accuracies are therefore not comparable with the paper's (which prints none anyway); the comparison is of gains and of their pattern.",
		"**Setting**: the paper's 100 clients × 300 rounds × 50 local epochs on full-resolution images is days of CPU in pure Go; see the scale table above for what each experiment runs instead (scale `paper` writes the paper's setting out, with MLPs, for a cluster: `--scale paper --shard i/n`).",
		"**Dyn-DP-SGD / Dyn-DP-FedAvg** are our assumption (decaying σ and C at matched RDP ε, after the paper's reference [36]); the paper does not define them.",
		"**Gains** are compared as percentage points and as relative percent; the paper does not say which it reports and prints no absolute accuracy, seeds or spread.",
		"**ε**: the paper's ε values (Table III header) come from an unstated composition (which q, how many steps); ours are computed for our setting. Which (q, T) could produce the paper's ε is in the audit `table3-fit` above.",
	}
	items = append(items, notRun(w.Spec, w.sets)...)
	doc.List(items...)
}
