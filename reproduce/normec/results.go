package normec

import (
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Combo is one (dataset, model, split, noise) setting: the unit over which
// the paper's readings are recomputed (its own is CIFAR-10, ResNet20,
// iid, formula noise; ours Fashion-MNIST, LogReg, iid, formula noise).
// Variant (see the function) sets apart runs of a departing protocol.
type Combo struct {
	Dataset, Model, Split, Noise string
	Variant                      string
}

// String is "fashion-mnist/logreg/iid/formula", then "/<variant>" if any.
func (c Combo) String() string {
	s := c.Dataset + "/" + c.Model + "/" + c.Split + "/" + c.Noise
	if c.Variant != "" {
		s += "/" + c.Variant
	}
	return s
}

// Slug is the combo as a file-name part.
func (c Combo) Slug() string {
	s := c.Dataset + "_" + c.Model + "_" + c.Split + "_" + c.Noise
	if c.Variant != "" {
		s += "_" + strings.NewReplacer("=", "-", ",", "_").Replace(c.Variant)
	}
	return s
}

// Config is one (method, p, β, γ) within a combo.
type Config struct {
	Method         string
	P, Beta, Gamma float64
}

// Group is the results of one configuration over its seeds, in seed
// order.
type Group = paper.Group[RunConfig]

// meanCurve returns, at every evaluated round, the mean over seeds of x
// and the mean and std of y (rounds are evaluated at the same points in
// every seed; a shorter record truncates). Unlike Group.Curve, x is
// averaged too: the transmissions by a round differ between seeds.
func meanCurve(g *Group, xMetric, yMetric string) (xs, mean, std []float64) {
	if len(g.Results) == 0 {
		return
	}
	n := len(g.Results[0].Rounds)
	for _, r := range g.Results {
		n = min(n, len(r.Rounds))
	}
	for i := range n {
		var xv, yv []float64
		for _, r := range g.Results {
			xv = append(xv, r.Rounds[i][xMetric])
			yv = append(yv, r.Rounds[i][yMetric])
		}
		sx, sy := report.Summarize(xv), report.Summarize(yv)
		xs, mean, std = append(xs, sx.Mean), append(mean, sy.Mean), append(std, sy.Std)
	}
	return
}

// Grid is the results of one combo, by configuration.
type Grid struct {
	Combo  Combo
	Groups map[Config]*Group
}

// Get returns a configuration's group (nil when it did not run).
func (g *Grid) Get(method string, p, beta, gamma float64) *Group {
	if g == nil {
		return nil
	}
	return g.Groups[Config{method, p, beta, gamma}]
}

// Values lists the distinct values of a configuration field among a
// method's groups, sorted.
func (g *Grid) Values(method string, field func(Config) float64) []float64 {
	seen := map[float64]bool{}
	var out []float64
	for c := range g.Groups {
		if c.Method != method {
			continue
		}
		v := field(c)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Float64s(out)
	return out
}

func pOf(c Config) float64     { return c.P }
func betaOf(c Config) float64  { return c.Beta }
func gammaOf(c Config) float64 { return c.Gamma }

// Tuned returns the γ the paper's protocol would pick for (method, p, β) —
// "the step size γ is tuned for every combination of parameters p and β"
// — as the γ of the highest mean final test accuracy over seeds (ties: the
// larger γ), and its group; nil when no γ ran.
func (g *Grid) Tuned(method string, p, beta float64) (float64, *Group) {
	bestG, best := math.NaN(), (*Group)(nil)
	bestAcc := math.Inf(-1)
	for _, gamma := range g.Values(method, gammaOf) {
		grp := g.Get(method, p, beta, gamma)
		if grp == nil {
			continue
		}
		acc := grp.Final("acc").Mean
		if math.IsNaN(acc) {
			acc = math.Inf(-1)
		}
		if best == nil || acc >= bestAcc {
			bestG, best, bestAcc = gamma, grp, acc
		}
	}
	return bestG, best
}

// ConfigOf decodes a result's configuration.
func ConfigOf(r *runner.Result) (RunConfig, error) { return paper.ConfigOf[RunConfig](r) }

// Grids groups results by combo and configuration, seeds in order.
func Grids(results []*runner.Result) (map[Combo]*Grid, error) {
	type key struct {
		combo Combo
		cfg   Config
	}
	gs, err := paper.GroupBy(results, func(_ *runner.Result, c RunConfig) key {
		return key{Combo{c.Dataset, c.Model, c.Split, c.Noise, Variant(c)}, Config{c.Method, c.P, c.Beta, c.Gamma}}
	})
	if err != nil {
		return nil, err
	}
	out := map[Combo]*Grid{}
	for k, grp := range gs {
		g := out[k.combo]
		if g == nil {
			g = &Grid{Combo: k.combo, Groups: map[Config]*Group{}}
			out[k.combo] = g
		}
		g.Groups[k.cfg] = grp
	}
	return out, nil
}
