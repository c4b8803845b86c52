package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/internal/texttable"
)

// `fedrepro account` states the privacy of a training run under every
// accountant of algorithms/dp/accountant, answers δ at a given ε, or
// solves for the noise multiplier a target ε needs.
//
// Decisions: σ = 0 is accepted and reported as ∞ with its reason (exit 0:
// an unbounded ε is an answer, not an error); negative σ is a usage
// error. With --accountant all (the default), an accountant that has no
// bound for the mechanism, or hits a numerical limit, is shown as "n/a"
// with the reason and the others still print; asking for that accountant
// alone is an error (exit 1). Under --sampling wor the batch is
// round(q·population), which must be a whole number ≥ 1, and the relation
// defaults to replace-one (the only one with a bound).

const accountDescription = `Computes the (ε, δ) privacy of DP-SGD-style training — T steps of a
subsampled noise mechanism — under each accountant: RDP (improved and
classic conversions), PLD, PRV (an estimate with proven bounds), zCDP,
the exact curve where one exists, and pure DP (δ = 0). Give either
--q and --steps or --n, --batch-size and --epochs (q = B/N,
steps = ⌈E·N/B⌉, as TensorFlow Privacy's compute_dp_sgd_privacy). With
--epsilon it answers δ at that ε; with --target-eps it finds the smallest
noise multiplier meeting the target, with bounded work (PLD and PRV: at
most 12 evaluations on grids of at most 2^16 points): the σ shown always
meets the target under that accountant (its ε is shown), and a note says
when a cap may have made it larger than needed (σ = 0 when no noise is
needed, e.g. q = 0). An unbounded ε prints as ∞ (JSON:
"epsilon": null with "unbounded": true and the reason in "note").`

const accountExamples = `  fedrepro account --n 60000 --batch-size 256 --epochs 60 --sigma 1.1 --delta 1e-5
  fedrepro account --q 0.01 --steps 10000 --target-eps 3 --accountant rdp,pld,prv --json`

func init() {
	register(command{
		Name:        "account",
		Summary:     "privacy ε (or δ) of T subsampled noise steps under every accountant, or the σ for a target ε",
		Description: accountDescription,
		Examples:    strings.Split(strings.TrimSpace(strings.ReplaceAll(accountExamples, "\n  ", "\n")), "\n"),
		Run:         runAccount,
	})
}

// accountRow is one line of output and one object of the --json array.
// lower and estimate refer to the computed quantity (ε, or δ with
// --epsilon).
type accountRow struct {
	Accountant string   `json:"accountant"`
	Conversion string   `json:"conversion,omitempty"` // rdp and zcdp: improved | classic
	Sigma      *float64 `json:"sigma,omitempty"`      // --target-eps only
	Epsilon    *float64 `json:"epsilon"`              // the guarantee; null when unbounded or unavailable
	Delta      *float64 `json:"delta"`                // the guarantee with --epsilon
	Lower      *float64 `json:"lower,omitempty"`      // a proven lower bound (prv, exact)
	Estimate   *float64 `json:"estimate,omitempty"`   // prv's central estimate
	Order      *float64 `json:"order,omitempty"`      // rdp and zcdp: the optimal order
	Unbounded  bool     `json:"unbounded,omitempty"`  // ε = ∞
	Note       string   `json:"note,omitempty"`       // why a value is missing, or a caveat
}

type accountArgs struct {
	q, sigma, delta, eps, target, interval, epochs, epsErr, deltaErr float64
	steps, population, n, batch, sens, trees, parts, sep, maxPoints  int
	sampling, which, nbFlag, orders, mechanism                       string
	json                                                             bool
	set                                                              map[string]bool
}

func runAccount(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("account", stderr)
	var a accountArgs
	fs.Float64Var(&a.q, "q", math.NaN(), "sampling probability per step, 0 ≤ q ≤ 1 (0: the record is never used, ε = 0)")
	fs.IntVar(&a.steps, "steps", 0, "number of steps T ≥ 1 (tree: leaves per tree)")
	fs.IntVar(&a.n, "n", 0, "dataset size N (with --batch-size and --epochs, instead of --q and --steps)")
	fs.IntVar(&a.batch, "batch-size", 0, "expected batch size B (q = B/N)")
	fs.Float64Var(&a.epochs, "epochs", math.NaN(), "epochs E (steps = ⌈E·N/B⌉; tree: one tree per epoch)")
	fs.Float64Var(&a.sigma, "sigma", math.NaN(), "noise multiplier: Gaussian std / clip norm, Laplace scale / L1 clip, discrete Gaussian σ (integer units), tree node std / clip; 0 = no noise (∞); omit with --target-eps")
	fs.Float64Var(&a.delta, "delta", 1e-5, "δ, 0 < δ < 1")
	fs.Float64Var(&a.eps, "epsilon", math.NaN(), "answer δ at this ε ≥ 0 instead of ε at δ")
	fs.Float64Var(&a.target, "target-eps", math.NaN(), "solve for the smallest σ giving this ε (omit --sigma)")
	fs.StringVar(&a.mechanism, "mechanism", "gaussian", "gaussian | laplace | discrete-gaussian | tree (DP-FTRL tree aggregation)")
	fs.IntVar(&a.sens, "sensitivity", 1, "discrete-gaussian: integer sensitivity Δ ≥ 1")
	fs.IntVar(&a.trees, "trees", 1, "tree: number of trees (restarts), each of --steps leaves")
	fs.IntVar(&a.parts, "participations", 1, "tree: leaves per tree a record contributes to")
	fs.IntVar(&a.sep, "min-separation", 0, "tree: minimum leaves between two contributions")
	fs.StringVar(&a.sampling, "sampling", "poisson", "poisson | wor (fixed batch without replacement)")
	fs.IntVar(&a.population, "population", 0, "dataset size for --sampling wor (default --n); batch = q·population")
	fs.StringVar(&a.which, "accountant", "all", "all, or a comma-separated list of rdp, pld, prv, zcdp, exact, pure")
	fs.StringVar(&a.nbFlag, "neighbouring", "", "add-remove | replace-one (default: add-remove for poisson, replace-one for wor)")
	fs.StringVar(&a.orders, "orders", "", "comma-separated RDP orders > 1 (default: Opacus' 1.1…10.9, 12…63)")
	fs.Float64Var(&a.interval, "pld-interval", 1e-4, "PLD loss discretization interval")
	fs.Float64Var(&a.epsErr, "eps-error", 0.01, "PRV: allowed error in ε")
	fs.Float64Var(&a.deltaErr, "delta-error", 0, "PRV: allowed error in δ (default δ/1000)")
	fs.IntVar(&a.maxPoints, "max-points", accountant.DefaultWorkPoints, "work cap: largest PLD/PRV grid in points (beyond it the PLD grid is coarsened, the PRV ε error raised, or the RDP bound shown; each says so); 0 = the accountants' own caps (2^23, 2^24; slower)")
	fs.BoolVar(&a.json, "json", false, "print a JSON array, one object per accountant and conversion")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	a.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { a.set[f.Name] = true })

	p, err := a.plan()
	if err != nil {
		return err
	}
	var rows []accountRow
	answered := 0
	var firstErr error
	for _, x := range p.configs {
		row := accountRow{Accountant: x.cfg.Kind.String(), Conversion: x.conv}
		err := a.fill(&row, x.cfg, p)
		switch {
		case err == nil:
			answered++
		case errors.Is(err, accountant.ErrInfinite):
			row.Unbounded = true
			row.Note = "∞: " + unwrapReason(err, accountant.ErrInfinite)
			answered++
		default:
			// No bound, a numerical limit or an unreachable target: the
			// row says why and the other accountants still answer.
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", x.label(), err)
			}
			row.Note = "n/a: " + unwrapReason(err, accountant.ErrUnsupported)
		}
		rows = append(rows, row)
	}
	if answered == 0 {
		return fmt.Errorf("no accountant answers for %s; %w", p.desc, firstErr)
	}
	if a.json {
		return writeJSON(stdout, map[string]any{"rows": rows})
	}
	return printAccount(stdout, p, rows)
}

// unwrapReason strips the sentinel's text from an error message.
func unwrapReason(err, sentinel error) string {
	s := err.Error()
	if i := strings.Index(s, sentinel.Error()+": "); i >= 0 {
		return s[i+len(sentinel.Error())+2:]
	}
	return s
}

// accountPlan is what the flags ask for.
type accountPlan struct {
	build   func(sigma float64) accountant.Event
	desc    string
	configs []namedConfig
	mode    int // modeEpsilon, modeDelta, modeCalibrate
}

const (
	modeEpsilon = iota
	modeDelta
	modeCalibrate
)

type namedConfig struct {
	cfg  accountant.Config
	conv string
}

func (n namedConfig) label() string {
	if n.conv != "" {
		return n.cfg.Kind.String() + "/" + n.conv
	}
	return n.cfg.Kind.String()
}

// fill computes one row.
func (a *accountArgs) fill(row *accountRow, cfg accountant.Config, p accountPlan) error {
	sigma := a.sigma
	if p.mode == modeCalibrate {
		// The capped solve bounds the work (evaluations and grid points,
		// deterministically); its Estimate is the accountant's own answer
		// at the σ returned, shown as is rather than recomputed (a
		// recomputation with a larger grid would cost a second more).
		c, err := accountant.CalibrateCapped(p.build, a.target, a.delta, cfg)
		if err != nil {
			return err
		}
		s := c.Sigma
		row.Sigma = &s
		d := a.delta
		row.Delta = &d
		setRow(row, c.Estimate, &row.Epsilon, a.interval)
		if c.Note != "" {
			row.Note = c.Note
		}
		return nil
	}
	e := p.build(sigma)
	if p.mode == modeDelta {
		eps := a.eps
		row.Epsilon = &eps
		r, err := cfg.AccountDelta(e, eps)
		if errors.Is(err, accountant.ErrInfinite) {
			// δ is a probability: where this accountant's ε is unbounded
			// its δ at any finite ε is the trivial 1, not ∞.
			one := 1.0
			row.Delta = &one
			row.Note = "δ = 1 (trivial): this accountant gives ε = ∞: " + unwrapReason(err, accountant.ErrInfinite)
			return nil
		}
		if err != nil {
			return err
		}
		setRow(row, r, &row.Delta, a.interval)
		return nil
	}
	d := a.delta
	row.Delta = &d
	r, err := cfg.Account(e, d)
	if err != nil && r.Fallback {
		// The accountant hit its grid cap; Value is the RDP upper bound.
		row.Note = "fallback: " + r.Note
		if math.IsInf(r.Value, 1) {
			row.Unbounded = true
			return nil
		}
		v := r.Value
		row.Epsilon = &v
		return nil
	}
	if err != nil {
		return err
	}
	setRow(row, r, &row.Epsilon, a.interval)
	return nil
}

// setRow copies an Estimate into the row's computed field; interval is
// the requested PLD interval.
func setRow(row *accountRow, r accountant.Estimate, target **float64, interval float64) {
	v := r.Value
	*target = &v
	switch r.Kind {
	case accountant.KindPRV:
		est, lo := r.Estimate, r.Lower
		row.Estimate, row.Lower = &est, &lo
	case accountant.KindExact:
		lo := r.Lower
		row.Lower = &lo
	case accountant.KindRDP, accountant.KindZCDP:
		if r.Order > 0 && !math.IsInf(r.Order, 0) {
			o := r.Order
			row.Order = &o
		}
	case accountant.KindPLD:
		if r.Interval > 0 && r.Interval != interval {
			row.Note = fmt.Sprintf("PLD grid coarsened to interval %g for these large losses (still an upper bound)", r.Interval)
		}
	}
	if row.Note == "" && r.Note != "" {
		row.Note = r.Note
	}
}

// plan validates the flags and builds the event and the accountants.
func (a *accountArgs) plan() (accountPlan, error) {
	var p accountPlan
	switch {
	case a.set["epsilon"] && a.set["target-eps"]:
		return p, usagef("give either --epsilon (answer δ) or --target-eps (solve σ), not both")
	case a.set["epsilon"] && a.set["delta"]:
		return p, usagef("give either --delta (answer ε) or --epsilon (answer δ), not both")
	case a.set["sigma"] && a.set["target-eps"]:
		return p, usagef("give either --sigma or --target-eps, not both")
	case !a.set["sigma"] && !a.set["target-eps"]:
		return p, usagef("--sigma is required (or --target-eps to solve for σ)")
	case a.set["sigma"] && (!(a.sigma >= 0) || math.IsInf(a.sigma, 0)):
		return p, usagef("--sigma %v: want a finite σ ≥ 0 (0 = no noise, reported as ∞)", a.sigma)
	case a.set["target-eps"] && (!(a.target > 0) || math.IsInf(a.target, 0)):
		return p, usagef("--target-eps %v: want a finite ε > 0", a.target)
	case a.set["epsilon"] && (!(a.eps >= 0) || math.IsInf(a.eps, 0)):
		return p, usagef("--epsilon %v: want a finite ε ≥ 0", a.eps)
	case !(a.delta > 0 && a.delta < 1):
		return p, usagef("--delta %v: want 0 < δ < 1", a.delta)
	case !(a.interval > 0) || math.IsInf(a.interval, 0):
		return p, usagef("--pld-interval %v: want a finite value > 0", a.interval)
	case !(a.epsErr > 0) || math.IsInf(a.epsErr, 0):
		return p, usagef("--eps-error %v: want a finite value > 0", a.epsErr)
	case !(a.deltaErr >= 0 && a.deltaErr < a.delta) && !a.set["epsilon"]:
		return p, usagef("--delta-error %v: want 0 ≤ δ error < δ = %g", a.deltaErr, a.delta)
	case !(a.deltaErr >= 0 && a.deltaErr < 1):
		return p, usagef("--delta-error %v: want 0 ≤ δ error < 1", a.deltaErr)
	case a.maxPoints != 0 && (a.maxPoints < 1<<10 || a.maxPoints > 1<<26):
		return p, usagef("--max-points %d: want 0 (the accountants' own caps) or 1024 … 2^26", a.maxPoints)
	}
	p.mode = modeEpsilon
	if a.set["epsilon"] {
		p.mode = modeDelta
	} else if a.set["target-eps"] {
		p.mode = modeCalibrate
	}
	q, steps, err := a.sampling2()
	if err != nil {
		return p, err
	}
	build, desc, nb, err := a.event(q, steps)
	if err != nil {
		return p, err
	}
	if a.nbFlag != "" {
		if nb, err = accountant.ParseNeighbouring(a.nbFlag); err != nil {
			return p, usagef("--neighbouring %q: want add-remove or replace-one", a.nbFlag)
		}
	}
	var orders []float64
	if a.orders != "" {
		for _, f := range strings.Split(a.orders, ",") {
			o, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return p, usagef("--orders: %q is not a number", f)
			}
			if !(o > 1) {
				return p, usagef("--orders: order %v must be > 1", o)
			}
			orders = append(orders, o)
		}
	}
	kinds, err := parseAccountants(a.which)
	if err != nil {
		return p, err
	}
	for _, k := range kinds {
		base := accountant.Config{Kind: k, Neighbouring: nb, Orders: orders, WorkPoints: a.maxPoints,
			PLD: accountant.PLDOptions{Interval: a.interval},
			PRV: accountant.PRVOptions{EpsError: a.epsErr, DeltaError: a.deltaErr}}
		switch k {
		case accountant.KindRDP, accountant.KindZCDP:
			for _, c := range []accountant.Conversion{accountant.Improved, accountant.Classic} {
				cfg := base
				cfg.Conversion = c
				p.configs = append(p.configs, namedConfig{cfg, c.String()})
			}
		default:
			p.configs = append(p.configs, namedConfig{cfg: base})
		}
	}
	p.build = build
	switch p.mode {
	case modeEpsilon:
		desc += fmt.Sprintf(", %v, δ=%g", nb, a.delta)
	case modeDelta:
		desc += fmt.Sprintf(", %v, ε=%g", nb, a.eps)
	case modeCalibrate:
		desc += fmt.Sprintf(", %v, target ε=%g at δ=%g", nb, a.target, a.delta)
	}
	p.desc = desc
	return p, nil
}

// parseAccountants reads --accountant.
func parseAccountants(s string) (kinds []accountant.Kind, err error) {
	if s == "all" {
		return accountant.Kinds, nil
	}
	seen := map[accountant.Kind]bool{}
	for _, f := range strings.Split(s, ",") {
		k, err := accountant.ParseKind(strings.TrimSpace(f))
		if err != nil {
			return nil, usagef("--accountant %q: want all or a comma-separated list of rdp, pld, prv, zcdp, exact, pure", s)
		}
		if !seen[k] {
			kinds = append(kinds, k)
			seen[k] = true
		}
	}
	return kinds, nil
}

// maxSteps bounds step counts derived from --n, --batch-size, --epochs.
const maxSteps = 1 << 62

// sampling2 derives (q, steps) from --q/--steps or --n/--batch-size/--epochs.
func (a *accountArgs) sampling2() (float64, int, error) {
	byN := a.set["n"] || a.set["batch-size"] || a.set["epochs"]
	tree := a.mechanism == "tree"
	if byN {
		switch {
		case a.set["q"] || a.set["steps"]:
			return 0, 0, usagef("give either --q and --steps or --n, --batch-size and --epochs, not both")
		case !a.set["n"] || !a.set["batch-size"] || !a.set["epochs"]:
			return 0, 0, usagef("--n, --batch-size and --epochs go together (q = B/N, steps = ⌈E·N/B⌉)")
		case a.n < 1:
			return 0, 0, usagef("--n %d: want ≥ 1", a.n)
		case a.batch < 1 || a.batch > a.n:
			return 0, 0, usagef("--batch-size %d: want 1 ≤ B ≤ N = %d", a.batch, a.n)
		case !(a.epochs > 0) || math.IsInf(a.epochs, 0):
			return 0, 0, usagef("--epochs %v: want a finite value > 0", a.epochs)
		}
		perEpoch := float64(a.n) / float64(a.batch)
		s := math.Ceil(a.epochs * perEpoch)
		if !(s <= maxSteps) {
			return 0, 0, usagef("--epochs %v × %g steps per epoch = %g steps: beyond 2^62", a.epochs, perEpoch, s)
		}
		if tree {
			return 1, int(math.Ceil(perEpoch)), nil
		}
		return float64(a.batch) / float64(a.n), int(s), nil
	}
	if tree && !a.set["q"] {
		a.q = 1
	} else {
		switch {
		case !a.set["q"]:
			return 0, 0, usagef("--q is required (sampling probability, 0 ≤ q ≤ 1), or give --n, --batch-size and --epochs")
		case !(a.q >= 0 && a.q <= 1):
			return 0, 0, usagef("--q %v: want 0 ≤ q ≤ 1", a.q)
		}
	}
	switch {
	case !a.set["steps"]:
		return 0, 0, usagef("--steps is required (number of steps ≥ 1)")
	case a.steps < 1:
		return 0, 0, usagef("--steps %d: want ≥ 1", a.steps)
	}
	return a.q, a.steps, nil
}

// event builds the σ → event map, its description and the default
// neighbouring relation.
func (a *accountArgs) event(q float64, steps int) (func(float64) accountant.Event, string, accountant.Neighbouring, error) {
	nb := accountant.AddRemove
	var inner func(s float64) accountant.Event
	var name string
	switch a.mechanism {
	case "gaussian":
		inner, name = func(s float64) accountant.Event { return accountant.Gaussian{Sigma: s} }, "Gaussian"
	case "laplace":
		inner, name = func(s float64) accountant.Event { return accountant.Laplace{Scale: s} }, "Laplace"
	case "discrete-gaussian":
		if a.sens < 1 || a.sens > 1<<20 {
			return nil, "", nb, usagef("--sensitivity %d: want an integer in 1 … 2^20", a.sens)
		}
		d := a.sens
		inner, name = func(s float64) accountant.Event { return accountant.DiscreteGaussian{Sigma: s, Sensitivity: d} }, fmt.Sprintf("discrete Gaussian (Δ=%d)", d)
	case "tree":
		if q != 1 || a.sampling != "poisson" {
			return nil, "", nb, usagef("--mechanism tree takes no sampling (DP-FTRL): q must be 1")
		}
		trees := a.trees
		if a.set["epochs"] {
			trees = int(math.Ceil(a.epochs))
		}
		switch {
		case trees < 1 || trees > 1<<20:
			return nil, "", nb, usagef("--trees %d: want 1 … 2^20", trees)
		case a.parts < 1 || a.sep < 0:
			return nil, "", nb, usagef("--participations %d, --min-separation %d: want ≥ 1 and ≥ 0", a.parts, a.sep)
		}
		leaves := make([]int, trees)
		for i := range leaves {
			leaves[i] = steps
		}
		ev := func(s float64) accountant.Event {
			return accountant.TreeAggregation{Sigma: s, Trees: leaves, Participations: a.parts, MinSeparation: a.sep}
		}
		if err := accountant.Validate(ev(1)); err != nil {
			return nil, "", nb, usagef("%v", err)
		}
		return ev, fmt.Sprintf("tree aggregation (DP-FTRL): %s of %s, %s at least %d apart%s", plural(trees, "tree"), plural(steps, "leaf"), plural(a.parts, "participation"), a.sep, sigmaDesc(a)), nb, nil
	default:
		return nil, "", nb, usagef("--mechanism %q: want gaussian, laplace, discrete-gaussian or tree", a.mechanism)
	}
	switch a.sampling {
	case "poisson":
		if a.set["population"] {
			return nil, "", nb, usagef("--population applies to --sampling wor only")
		}
		if q == 1 {
			return func(s float64) accountant.Event { return accountant.SelfComposed{Event: inner(s), Count: steps} },
				fmt.Sprintf("%s of the %s mechanism on the full data%s", plural(steps, "step"), name, sigmaDesc(a)), nb, nil
		}
		return func(s float64) accountant.Event {
				return accountant.SelfComposed{Event: accountant.PoissonSampled{Q: q, Event: inner(s)}, Count: steps}
			},
			fmt.Sprintf("%s of a Poisson-sampled %s (q=%g%s)", plural(steps, "step"), name, q, sigmaDesc(a)), nb, nil
	case "wor":
		nb = accountant.ReplaceOne
		pop := a.population
		if !a.set["population"] && a.set["n"] {
			pop = a.n
		}
		if pop < 1 {
			return nil, "", nb, usagef("--sampling wor needs --population N ≥ 1 (or --n)")
		}
		m := math.Round(q * float64(pop))
		if m < 1 || math.Abs(m-q*float64(pop)) > 1e-9*math.Max(1, m) {
			return nil, "", nb, usagef("--sampling wor: q·population = %g must be a whole batch size ≥ 1", q*float64(pop))
		}
		size := int(m)
		return func(s float64) accountant.Event {
				return accountant.SelfComposed{Event: accountant.SampledWithoutReplacement{SampleSize: size, PopulationSize: pop, Event: inner(s)}, Count: steps}
			},
			fmt.Sprintf("%s of a %s on %d of %d records sampled without replacement%s", plural(steps, "step"), name, size, pop, sigmaDesc(a)), nb, nil
	}
	return nil, "", nb, usagef("--sampling %q: want poisson or wor", a.sampling)
}

// plural is "1 step", "2 steps" ("leaf" → "leaves").
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if word == "leaf" {
		return fmt.Sprintf("%d leaves", n)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// sigmaDesc is ", σ=…" when σ is given.
func sigmaDesc(a *accountArgs) string {
	if a.set["sigma"] {
		return fmt.Sprintf(", σ=%g", a.sigma)
	}
	return ""
}

// printAccount writes the description, the table (texttable, the style of
// every fedrepro table) and the notes.
func printAccount(w io.Writer, p accountPlan, rows []accountRow) error {
	fmt.Fprintln(w, p.desc)
	header := []string{"accountant", "conversion"}
	if p.mode == modeCalibrate {
		header = append(header, "sigma")
	}
	q := "epsilon"
	if p.mode == modeDelta {
		q = "delta"
	}
	header = append(header, q, "estimate", "lower", "order")
	tbl := texttable.Table{Header: header}
	var notes []string
	for _, r := range rows {
		val := r.Epsilon
		if p.mode == modeDelta {
			val = r.Delta
		}
		main := num(val)
		switch {
		case r.Unbounded:
			main = "∞*"
		case strings.HasPrefix(r.Note, "n/a"):
			main = "n/a*"
		case r.Note != "":
			main += "*"
		}
		if r.Note != "" {
			notes = append(notes, fmt.Sprintf("* %s: %s", labelOf(r), r.Note))
		}
		conv := r.Conversion
		if conv == "" {
			conv = "-"
		}
		line := []string{r.Accountant, conv}
		if p.mode == modeCalibrate {
			line = append(line, num(r.Sigma))
		}
		line = append(line, main, num(r.Estimate), num(r.Lower), num(r.Order))
		tbl.Add(line...)
	}
	if err := tbl.Render(w); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

func labelOf(r accountRow) string {
	if r.Conversion != "" {
		return r.Accountant + "/" + r.Conversion
	}
	return r.Accountant
}

// num formats a value to 6 significant digits; "-" when absent.
func num(v *float64) string {
	if v == nil {
		return "-"
	}
	if math.IsInf(*v, 1) {
		return "∞"
	}
	return strconv.FormatFloat(*v, 'g', 6, 64)
}
