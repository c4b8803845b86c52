package convergence

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fedrepro/fedrepro/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// Format is the value of a convergence claim file's `format` key.
const Format = "fedrepro-convergence/1"

// Claim is one decoded convergence-claim file.
type Claim struct {
	Format string `yaml:"format"`
	ID     string `yaml:"id"`
	Title  string `yaml:"title"`
	Paper  Paper  `yaml:"paper"`
	Source Source `yaml:"source"`
	// Algorithm is the method and its parameters (numbers or formulas in
	// the class constants, other parameters and variables; the step-size
	// parameters may read t, the step index, and r, the round index).
	Algorithm Algorithm `yaml:"algorithm"`
	Class     Class     `yaml:"class"`
	// Variables are the paper's derived symbols (κ = L/μ, a, S_T, …).
	Variables map[string]Value `yaml:"variables"`
	// Constraints are conditions of the theorem (expr booleans, e.g.
	// "lr <= 1/(4*L)"); a grid point that violates one is skipped and
	// reported.
	Constraints []Value  `yaml:"constraints"`
	Quantity    Quantity `yaml:"quantity"`
	// Bound is the right-hand side, a formula in every symbol above and
	// the instance's quantities (R2, F0, G0, zeta2_star, Gamma, G2).
	Bound Value `yaml:"bound"`
	// Horizon names the variable that counts the steps the method runs
	// (default T).
	Horizon string `yaml:"horizon"`
	// Grid gives lists of values for variables or constants; every
	// combination is audited.
	Grid     map[string][]float64 `yaml:"grid"`
	Readings []Reading            `yaml:"readings"`
	Search   Search               `yaml:"search"`
	Notes    []string             `yaml:"notes"`

	file string
}

// Paper identifies the publication.
type Paper struct {
	Title   string `yaml:"title"`
	Authors string `yaml:"authors"`
	Venue   string `yaml:"venue"`
	Year    int    `yaml:"year"`
	Link    string `yaml:"link"`
}

// Source locates and quotes the statement.
type Source struct {
	Where string `yaml:"where"`
	Quote string `yaml:"quote"`
}

// Algorithm is a registered method with its parameters.
type Algorithm struct {
	Name   Text             `yaml:"name"`
	Params map[string]Value `yaml:"params"`
}

// Class is the theorem's problem class.
type Class struct {
	// Convexity: strongly-convex (μ > 0), convex, nonconvex.
	Convexity Text `yaml:"convexity"`
	// Heterogeneity: none (identical clients), uniform
	// (sup_x (1/N)Σ‖∇f_i(x) − ∇f(x)‖² ≤ zeta2), shared-minimizer (every
	// ∇f_i(x*) = 0, so FedProx's B-local dissimilarity
	// B² = sup_x (1/N)Σ‖∇f_i‖²/‖∇f‖² is finite: the instance's B2), any (no bound; the
	// instance's zeta2_star and Gamma may appear in the bound).
	Heterogeneity Text `yaml:"heterogeneity"`
	// Noise: none or bounded-variance (E‖g_i − ∇f_i‖² ≤ sigma2, additive
	// Gaussian in the instances).
	Noise Text `yaml:"noise"`
	// Constants are L, mu, sigma2, zeta2 (numbers; lists go in grid).
	Constants map[string]float64 `yaml:"constants"`
}

// Quantity is what the theorem bounds.
type Quantity struct {
	// Measure: gap (E f(x) − f*), dist (E‖x − x*‖²), grad (E‖∇f(x)‖²),
	// gradnorm (E‖∇f(x)‖, unsquared), or path: E of the formula Path at
	// each step.
	Measure Text `yaml:"measure"`
	// Path (measure path only) is a formula evaluated on each replicate at
	// step t in the step symbols g2 = ‖∇f(x_t)‖², dx2 = ‖x_t − x_{t−1}‖²
	// (0 at t = 0), gap = f(x_t) − f*, dist = ‖x_t − x*‖², t and every
	// variable and constant: a theorem whose right-hand side sums terms
	// of the trajectory (Upcycled-FL Thm 5.6's h¹_m, h²_m) is audited by
	// moving those terms to the left. E of a product of norms is not a
	// function of the first two moments, so path measures always run
	// Monte Carlo.
	Path Value `yaml:"path"`
	// Over: last (x_T), average (E of the measure at the weighted average
	// iterate Σ w_t x_t / Σ w_t), min (min_t of E of the measure), mean
	// (Σ w_t E[measure at x_t] / Σ w_t). t runs from From to To.
	Over   Text  `yaml:"over"`
	From   Value `yaml:"from"`
	To     Value `yaml:"to"`
	Weight Value `yaml:"weight"`
}

// Reading is one interpretation of an ambiguous statement: it overrides
// variables, parameters or the bound.
type Reading struct {
	Name      string           `yaml:"name"`
	Note      string           `yaml:"note"`
	Variables map[string]Value `yaml:"variables"`
	Params    map[string]Value `yaml:"params"`
	Bound     Value            `yaml:"bound"`
}

// Search is the default budget of the audit.
type Search struct {
	// Families of instances searched (quadratic, huber, logistic,
	// piecewise, cosine); default: every family the class admits.
	Families []string `yaml:"families"`
	Dim      int      `yaml:"dim"`
	Draws    int      `yaml:"draws"`
	// Adversarial is the number of Nelder–Mead evaluations after the draws
	// (default 24; 0 for none).
	Adversarial *int `yaml:"adversarial"`
	// MC is the number of Monte-Carlo replicates when expectations are not exact.
	MC int `yaml:"mc"`
}

// Value is a number or a formula string, with its line.
type Value struct {
	Num     float64
	Formula string
	Set     bool
	Line    int
}

// UnmarshalYAML reads a number or a formula.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number or a formula string", n.Line)
	}
	v.Line, v.Set = n.Line, true
	switch n.Tag {
	case "!!int", "!!float":
		x, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil {
			return fmt.Errorf("line %d: cannot read %q as a number", n.Line, n.Value)
		}
		v.Num = x
	case "!!str":
		if strings.TrimSpace(n.Value) == "" {
			return fmt.Errorf("line %d: empty formula", n.Line)
		}
		v.Formula = n.Value
	default:
		return fmt.Errorf("line %d: want a number or a formula string, not %s", n.Line, strings.TrimPrefix(n.Tag, "!!"))
	}
	return nil
}

// String is the value as written.
func (v Value) String() string {
	if v.Formula != "" {
		return v.Formula
	}
	return strconv.FormatFloat(v.Num, 'g', -1, 64)
}

// num makes a literal Value.
func num(x float64) Value { return Value{Num: x, Set: true} }

// Text is a string with its line.
type Text struct {
	S    string
	Line int
}

// UnmarshalYAML reads a string.
func (t *Text) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return fmt.Errorf("line %d: want a string", n.Line)
	}
	t.S, t.Line = n.Value, n.Line
	return nil
}

// File is the name the claim was decoded from.
func (c *Claim) File() string { return c.file }

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// Enumerations of the format.
var (
	Convexities    = []string{"strongly-convex", "convex", "nonconvex"}
	Heterogeneity  = []string{"none", "uniform", "shared-minimizer", "any"}
	Noises         = []string{"none", "bounded-variance"}
	Measures       = []string{"gap", "dist", "grad", "gradnorm", "path"}
	Overs          = []string{"last", "average", "min", "mean"}
	FamilyNames    = []string{"quadratic", "huber", "logistic", "piecewise", "cosine"}
	ConstantNames  = []string{"L", "mu", "sigma2", "zeta2"}
	InstanceNames  = []string{"R2", "F0", "G0", "zeta2_star", "Gamma", "G2", "d", "B2", "mu_clients", "zeta2_max", "zeta2_sup"}
	reservedInStep = []string{"t", "r"}
)

// IsConvergence reports whether a YAML document declares this format
// (`format: fedrepro-convergence/1`), so a CLI can dispatch on it.
func IsConvergence(data []byte) bool {
	var probe struct {
		Format string `yaml:"format"`
	}
	if yaml.Unmarshal(data, &probe) != nil {
		return false
	}
	return strings.HasPrefix(probe.Format, "fedrepro-convergence/")
}

// Decode reads a claim file strictly and validates it; every problem is
// one line "name:line: problem".
func Decode(name string, data []byte) (*Claim, error) {
	var c Claim
	if err := strictyaml.Decode(name, data, &c); err != nil {
		return nil, err
	}
	c.file = name
	if err := c.validate(); err != nil {
		return nil, at(name, err)
	}
	return &c, nil
}

func (c *Claim) validate() error {
	if c.Format != Format {
		return lineErr(0, "format %q: want %q", c.Format, Format)
	}
	if !idPattern.MatchString(c.ID) {
		return lineErr(0, "id %q: want lower-case letters, digits, '.' and '-'", c.ID)
	}
	for _, f := range []struct{ what, v string }{
		{"title", c.Title}, {"paper.title", c.Paper.Title}, {"paper.authors", c.Paper.Authors},
		{"paper.link", c.Paper.Link}, {"source.where", c.Source.Where}, {"source.quote", c.Source.Quote},
	} {
		if strings.TrimSpace(f.v) == "" {
			return lineErr(0, "%s is missing", f.what)
		}
	}
	if c.Paper.Year < 1950 || c.Paper.Year > 2100 {
		return lineErr(0, "paper.year %d: want the year of publication", c.Paper.Year)
	}
	m, ok := Methods[c.Algorithm.Name.S]
	if !ok {
		return lineErr(c.Algorithm.Name.Line, "algorithm.name %q: want one of %s", c.Algorithm.Name.S, strings.Join(MethodNames(), ", "))
	}
	for k, v := range c.Algorithm.Params {
		if !slices.Contains(m.Params, k) {
			return lineErr(v.Line, "algorithm.params: %s has no parameter %q (it has %s)", c.Algorithm.Name.S, k, strings.Join(m.Params, ", "))
		}
	}
	for _, p := range m.Required {
		if _, ok := c.Algorithm.Params[p]; !ok {
			return lineErr(c.Algorithm.Name.Line, "algorithm.params: %s needs %s", c.Algorithm.Name.S, p)
		}
	}
	for _, e := range []struct {
		what string
		t    Text
		set  []string
	}{
		{"class.convexity", c.Class.Convexity, Convexities}, {"class.heterogeneity", c.Class.Heterogeneity, Heterogeneity},
		{"class.noise", c.Class.Noise, Noises}, {"quantity.measure", c.Quantity.Measure, Measures}, {"quantity.over", c.Quantity.Over, Overs},
	} {
		if !slices.Contains(e.set, e.t.S) {
			return lineErr(e.t.Line, "%s %q: want one of %s", e.what, e.t.S, strings.Join(e.set, ", "))
		}
	}
	for k := range c.Class.Constants {
		if !slices.Contains(ConstantNames, k) {
			return lineErr(0, "class.constants: unknown constant %q (want %s)", k, strings.Join(ConstantNames, ", "))
		}
	}
	for _, k := range []string{"L"} {
		if _, ok := c.Class.Constants[k]; !ok {
			if _, g := c.Grid[k]; !g {
				return lineErr(0, "class.constants.%s is missing", k)
			}
		}
	}
	if c.Class.Convexity.S == "strongly-convex" {
		if _, ok := c.Class.Constants["mu"]; !ok {
			if _, g := c.Grid["mu"]; !g {
				return lineErr(c.Class.Convexity.Line, "class: strongly-convex needs constants.mu")
			}
		}
	}
	if c.Class.Noise.S == "bounded-variance" && !c.hasName("sigma2") {
		return lineErr(c.Class.Noise.Line, "class: bounded-variance needs constants.sigma2")
	}
	if c.Class.Heterogeneity.S == "uniform" && !c.hasName("zeta2") {
		return lineErr(c.Class.Heterogeneity.Line, "class: uniform heterogeneity needs constants.zeta2")
	}
	if (c.Quantity.Over.S != "last") && (!c.Quantity.From.Set || !c.Quantity.To.Set) {
		return lineErr(c.Quantity.Over.Line, "quantity over %s needs from and to", c.Quantity.Over.S)
	}
	if (c.Quantity.Measure.S == "path") != c.Quantity.Path.Set {
		return lineErr(c.Quantity.Measure.Line, "quantity: measure path needs quantity.path (a formula), and quantity.path needs measure path")
	}
	if c.Quantity.Measure.S == "path" && (c.Quantity.Path.Formula == "" || c.Quantity.Over.S == "average") {
		return lineErr(c.Quantity.Path.Line, "quantity.path: want a formula in g2, dx2, gap, dist, t and the variables, over last, mean or min (not average)")
	}
	if !c.Bound.Set {
		return lineErr(0, "bound is missing")
	}
	if c.Horizon == "" {
		c.Horizon = "T"
	}
	if !c.hasName(c.Horizon) {
		return lineErr(0, "horizon %s is not defined (give it under variables or grid)", c.Horizon)
	}
	for _, f := range c.Search.Families {
		if !slices.Contains(FamilyNames, f) {
			return lineErr(0, "search.families: unknown family %q (want %s)", f, strings.Join(FamilyNames, ", "))
		}
	}
	if s := c.Search; s.Dim < 0 || s.Dim > 8 || s.Draws < 0 || s.MC < 0 || s.MC == 1 || (s.Adversarial != nil && *s.Adversarial < 0) {
		return lineErr(0, "search: dim in [1, 8], draws ≥ 1, adversarial ≥ 0 and mc ≥ 2 (got dim %d, draws %d, mc %d)", s.Dim, s.Draws, s.MC)
	}
	names := map[string]bool{}
	for _, r := range c.Readings {
		if r.Name == "" {
			return lineErr(0, "a reading has no name")
		}
		if names[r.Name] {
			return lineErr(0, "reading %q appears twice", r.Name)
		}
		names[r.Name] = true
		for k, v := range r.Params {
			if !slices.Contains(m.Params, k) {
				return lineErr(v.Line, "reading %s: %s has no parameter %q", r.Name, c.Algorithm.Name.S, k)
			}
		}
	}
	// Resolve every reading at every grid point once with a dummy
	// instance, so unknown names and cycles surface at decode time.
	for _, rd := range c.readings() {
		for _, g := range c.gridPoints() {
			if _, err := c.resolve(rd, g, dummyInstanceSymbols()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Claim) hasName(n string) bool {
	if _, ok := c.Class.Constants[n]; ok {
		return true
	}
	if _, ok := c.Variables[n]; ok {
		return true
	}
	_, ok := c.Grid[n]
	return ok
}

// readings are the claim's readings, or one unnamed reading.
func (c *Claim) readings() []Reading {
	if len(c.Readings) == 0 {
		return []Reading{{Name: "as stated"}}
	}
	return c.Readings
}

// gridPoints are every combination of the grid's lists, in a fixed order
// (names sorted, last name fastest).
func (c *Claim) gridPoints() []map[string]float64 {
	names := make([]string, 0, len(c.Grid))
	for k := range c.Grid {
		names = append(names, k)
	}
	sort.Strings(names)
	out := []map[string]float64{{}}
	for _, n := range names {
		var next []map[string]float64
		for _, p := range out {
			for _, v := range c.Grid[n] {
				q := map[string]float64{}
				for k, x := range p {
					q[k] = x
				}
				q[n] = v
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

func dummyInstanceSymbols() map[string]float64 {
	m := map[string]float64{}
	for _, n := range InstanceNames {
		m[n] = 1
	}
	for _, n := range GroupNames {
		m[n] = 1
	}
	return m
}
