package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// `fedrepro account` prints the privacy of DP-SGD-style training — T steps
// of a subsampled Gaussian mechanism — under each accountant and
// conversion, or (--target-eps) solves for the noise multiplier.
//
// Decisions: σ = 0 is accepted and reported as "∞ (σ = 0: no noise)"
// (exit 0: an infinite ε is an answer, not an error); negative σ is a usage
// error. Under --sampling wor the batch is round(q·population), which must
// be a whole number ≥ 1, and the relation defaults to replace-one (the only
// one with a bound). With --accountant all, a combination without a bound
// is shown as "not available" and the rest still print; asking for that
// accountant alone is an error.

func init() {
	register(command{
		Name:    "account",
		Summary: "privacy ε of T subsampled-Gaussian steps (RDP and PLD), or the σ for a target ε",
		Run:     runAccount,
	})
}

// accountRow is one line of output and one object of the --json array.
type accountRow struct {
	Accountant string   `json:"accountant"`
	Conversion string   `json:"conversion"`
	Epsilon    *float64 `json:"epsilon"` // null when infinite or unavailable (see note)
	Delta      float64  `json:"delta"`
	Order      *float64 `json:"order,omitempty"` // RDP only
	Sigma      *float64 `json:"sigma,omitempty"` // --target-eps only
	Note       string   `json:"note,omitempty"`  // why epsilon is null
}

type accountArgs struct {
	q, sigma, delta, target, interval float64
	steps, population                 int
	sampling, which, nbFlag, orders   string
	json                              bool
	set                               map[string]bool
}

func runAccount(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("account", stderr)
	var a accountArgs
	fs.Float64Var(&a.q, "q", math.NaN(), "sampling probability per step, 0 < q ≤ 1 (required)")
	fs.Float64Var(&a.sigma, "sigma", math.NaN(), "noise multiplier σ = noise std / clip norm (≥ 0; 0 prints ∞); omit with --target-eps")
	fs.IntVar(&a.steps, "steps", 0, "number of steps T ≥ 1 (required)")
	fs.Float64Var(&a.delta, "delta", 1e-5, "δ, 0 < δ < 1")
	fs.StringVar(&a.sampling, "sampling", "poisson", "poisson | wor (fixed batch without replacement)")
	fs.IntVar(&a.population, "population", 0, "dataset size N (required for --sampling wor; batch = q·N)")
	fs.StringVar(&a.which, "accountant", "all", "rdp | pld | all")
	fs.StringVar(&a.nbFlag, "neighbouring", "", "add-remove | replace-one (default: add-remove for poisson, replace-one for wor)")
	fs.StringVar(&a.orders, "orders", "", "comma-separated RDP orders > 1 (default: Opacus' 1.1…10.9, 12…63)")
	fs.Float64Var(&a.interval, "pld-interval", 1e-4, "PLD loss discretization interval")
	fs.Float64Var(&a.target, "target-eps", math.NaN(), "solve for the smallest σ giving this ε (omit --sigma)")
	fs.BoolVar(&a.json, "json", false, "print a JSON array, one object per accountant and conversion")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	a.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { a.set[f.Name] = true })

	build, desc, nb, orders, err := a.validate()
	if err != nil {
		return err
	}
	var rows []accountRow
	type acc struct {
		cfg  accountant.Config
		name string
		conv string
	}
	var accs []acc
	if a.which == "rdp" || a.which == "all" {
		for _, c := range []accountant.Conversion{accountant.Improved, accountant.Classic} {
			accs = append(accs, acc{accountant.Config{Kind: accountant.KindRDP, Conversion: c, Orders: orders, Neighbouring: nb}, "rdp", c.String()})
		}
	}
	if a.which == "pld" || a.which == "all" {
		accs = append(accs, acc{accountant.Config{Kind: accountant.KindPLD, Neighbouring: nb, PLD: accountant.PLDOptions{Interval: a.interval}}, "pld", "none"})
	}
	solving := a.set["target-eps"]
	available := 0
	for _, x := range accs {
		row := accountRow{Accountant: x.name, Conversion: x.conv, Delta: a.delta}
		sigma := a.sigma
		if solving {
			s, err := accountant.Calibrate(build, a.target, a.delta, x.cfg)
			switch {
			case errors.Is(err, accountant.ErrUnsupported):
				if a.which != "all" {
					return err
				}
				row.Note = "not available: " + unwrapReason(err, accountant.ErrUnsupported)
				rows = append(rows, row)
				continue
			case err != nil:
				return fmt.Errorf("%s/%s: %w", x.name, x.conv, err)
			}
			sigma = s
			row.Sigma = &s
		}
		eps, order, err := x.cfg.Epsilon(build(sigma), a.delta)
		if x.cfg.Kind == accountant.KindPLD && err == nil {
			// Say when the grid had to be coarsened for very large losses.
			o := x.cfg.PLD
			o.Neighbouring = x.cfg.Neighbouring
			if _, used, e2 := accountant.PLDEpsilonAdaptive(build(sigma), a.delta, o); e2 == nil && used != a.interval {
				row.Note = fmt.Sprintf("PLD grid coarsened to interval %g for this large loss (still an upper bound)", used)
			}
		}
		switch {
		case errors.Is(err, accountant.ErrUnsupported):
			if a.which != "all" {
				return err
			}
			row.Note = "not available: " + unwrapReason(err, accountant.ErrUnsupported)
		case errors.Is(err, accountant.ErrInfinite):
			row.Note = "∞ (" + unwrapReason(err, accountant.ErrInfinite) + ")"
			available++
		case err != nil:
			return fmt.Errorf("%s/%s: %w", x.name, x.conv, err)
		default:
			row.Epsilon = &eps
			if x.cfg.Kind == accountant.KindRDP {
				row.Order = &order
			}
			available++
		}
		rows = append(rows, row)
	}
	if available == 0 {
		return fmt.Errorf("no accountant supports %s: %s", desc, rows[0].Note)
	}
	if a.json {
		return writeJSON(stdout, rows)
	}
	return printAccount(stdout, desc, rows, solving)
}

// unwrapReason strips the sentinel's text from an error message.
func unwrapReason(err, sentinel error) string {
	s := err.Error()
	if i := strings.Index(s, sentinel.Error()+": "); i >= 0 {
		return s[i+len(sentinel.Error())+2:]
	}
	return s
}

func (a *accountArgs) validate() (build func(float64) accountant.Event, desc string, nb accountant.Neighbouring, orders []float64, err error) {
	switch {
	case !a.set["q"]:
		return nil, "", 0, nil, usagef("--q is required (sampling probability, 0 < q ≤ 1)")
	case !(a.q > 0 && a.q <= 1):
		return nil, "", 0, nil, usagef("--q %v: want 0 < q ≤ 1", a.q)
	case !a.set["steps"]:
		return nil, "", 0, nil, usagef("--steps is required (number of steps ≥ 1)")
	case a.steps < 1:
		return nil, "", 0, nil, usagef("--steps %d: want ≥ 1", a.steps)
	case !(a.delta > 0 && a.delta < 1):
		return nil, "", 0, nil, usagef("--delta %v: want 0 < δ < 1", a.delta)
	case a.set["sigma"] && a.set["target-eps"]:
		return nil, "", 0, nil, usagef("give either --sigma or --target-eps, not both")
	case !a.set["sigma"] && !a.set["target-eps"]:
		return nil, "", 0, nil, usagef("--sigma is required (or --target-eps to solve for σ)")
	case a.set["sigma"] && (!(a.sigma >= 0) || math.IsInf(a.sigma, 0)):
		return nil, "", 0, nil, usagef("--sigma %v: want a finite σ ≥ 0 (0 = no noise, reported as ∞)", a.sigma)
	case a.set["target-eps"] && (!(a.target > 0) || math.IsInf(a.target, 0)):
		return nil, "", 0, nil, usagef("--target-eps %v: want a finite ε > 0", a.target)
	case !(a.interval > 0) || math.IsInf(a.interval, 0):
		return nil, "", 0, nil, usagef("--pld-interval %v: want > 0", a.interval)
	}
	switch a.which {
	case "rdp", "pld", "all":
	default:
		return nil, "", 0, nil, usagef("--accountant %q: want rdp, pld or all", a.which)
	}
	if a.orders != "" {
		for _, f := range strings.Split(a.orders, ",") {
			o, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return nil, "", 0, nil, usagef("--orders: %q is not a number", f)
			}
			if !(o > 1) {
				return nil, "", 0, nil, usagef("--orders: order %v must be > 1", o)
			}
			orders = append(orders, o)
		}
	}
	q, steps := a.q, a.steps
	switch a.sampling {
	case "poisson":
		nb = accountant.AddRemove
		if a.set["population"] {
			return nil, "", 0, nil, usagef("--population applies to --sampling wor only")
		}
		build = func(s float64) accountant.Event {
			return accountant.SelfComposed{Event: accountant.PoissonSampled{Q: q, Event: accountant.Gaussian{Sigma: s}}, Count: steps}
		}
		desc = fmt.Sprintf("%d steps of a Poisson-sampled Gaussian (q=%g", steps, q)
	case "wor":
		nb = accountant.ReplaceOne
		if a.population < 1 {
			return nil, "", 0, nil, usagef("--sampling wor needs --population N ≥ 1")
		}
		m := math.Round(q * float64(a.population))
		if m < 1 || math.Abs(m-q*float64(a.population)) > 1e-9*math.Max(1, m) {
			return nil, "", 0, nil, usagef("--sampling wor: q·population = %g must be a whole batch size ≥ 1", q*float64(a.population))
		}
		n, size := a.population, int(m)
		build = func(s float64) accountant.Event {
			return accountant.SelfComposed{Event: accountant.SampledWithoutReplacement{SampleSize: size, PopulationSize: n, Event: accountant.Gaussian{Sigma: s}}, Count: steps}
		}
		desc = fmt.Sprintf("%d steps of a Gaussian on %d of %d records sampled without replacement (", steps, size, n)
	default:
		return nil, "", 0, nil, usagef("--sampling %q: want poisson or wor", a.sampling)
	}
	if a.nbFlag != "" {
		if nb, err = accountant.ParseNeighbouring(a.nbFlag); err != nil {
			return nil, "", 0, nil, usagef("--neighbouring %q: want add-remove or replace-one", a.nbFlag)
		}
	}
	if a.set["sigma"] {
		if a.sampling == "poisson" {
			desc += ", "
		}
		desc += fmt.Sprintf("σ=%g)", a.sigma)
	} else {
		desc = strings.TrimSuffix(strings.TrimSuffix(desc, "("), " ")
		if a.sampling == "poisson" {
			desc += ")"
		}
		desc += fmt.Sprintf(", target ε=%g", a.target)
	}
	desc += fmt.Sprintf(", %v, δ=%g", nb, a.delta)
	return build, desc, nb, orders, nil
}

func printAccount(w io.Writer, desc string, rows []accountRow, solving bool) error {
	fmt.Fprintln(w, desc)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if solving {
		fmt.Fprintln(tw, "accountant\tconversion\tsigma\tepsilon\torder")
	} else {
		fmt.Fprintln(tw, "accountant\tconversion\tepsilon\torder")
	}
	var notes []string
	for _, r := range rows {
		eps, order := "-", "-"
		if r.Epsilon != nil {
			eps = strconv.FormatFloat(*r.Epsilon, 'g', 6, 64)
		} else if r.Note != "" {
			eps = "n/a*"
			if strings.HasPrefix(r.Note, "∞") {
				eps = "∞*"
			}
			notes = append(notes, fmt.Sprintf("* %s/%s: %s", r.Accountant, r.Conversion, r.Note))
		}
		if r.Order != nil {
			order = strconv.FormatFloat(*r.Order, 'g', 6, 64)
		}
		if solving {
			sigma := "-"
			if r.Sigma != nil {
				sigma = strconv.FormatFloat(*r.Sigma, 'g', 6, 64)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Accountant, r.Conversion, sigma, eps, order)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Accountant, r.Conversion, eps, order)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}
