package claim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SchemaID is the value of a claim file's `schema` key.
const SchemaID = "fedrepro-claim/1"

// Claim is one decoded claim file: a published privacy figure, where it
// is printed, and the private training procedure that is said to achieve
// it. The procedure fields (unit … phases) are the base; Cases are the
// paper's separate experiments that share the base (each with its own
// claimed ε and verdict) and Readings the interpretations the paper leaves
// open (each audited; the case's verdict combines them).
type Claim struct {
	Schema string `yaml:"schema"`
	ID     string `yaml:"id"`
	Title  string `yaml:"title"`
	Paper  Paper  `yaml:"paper"`
	Source Source `yaml:"source"`
	// ClaimedEpsilon is the printed ε (a number, never a formula).
	ClaimedEpsilon Value `yaml:"claimed_epsilon"`
	// Rounding says how the printed ε relates to the true figure:
	// "printed" (default: rounded to the digits shown, so the tolerance is
	// half a unit of its last digit) or "exact" (a target or a bound the
	// paper states exactly: no tolerance).
	Rounding       Text   `yaml:"rounding"`
	AccountantUsed Method `yaml:"accountant_used"`

	Procedure `yaml:",inline"`

	Accounting  Accounting   `yaml:"accounting"`
	AverageOver *AverageOver `yaml:"average_over"`
	Cases       []Case       `yaml:"cases"`
	Readings    []Reading    `yaml:"readings"`
	Notes       []string     `yaml:"notes"`

	file string // the name errors are reported under
}

// File is the name the claim was decoded from (used in error messages).
func (c *Claim) File() string { return c.file }

// Paper identifies the publication (or the library/tutorial page) that
// prints the claim.
type Paper struct {
	Title   string `yaml:"title" json:"title"`
	Authors string `yaml:"authors" json:"authors"`
	Venue   string `yaml:"venue" json:"venue"`
	Year    int    `yaml:"year" json:"year"`
	Link    string `yaml:"link" json:"link"`
}

// Source locates the claim inside the publication and quotes it verbatim.
type Source struct {
	Where string `yaml:"where" json:"where"`
	Quote string `yaml:"quote" json:"quote"`
	// Link is a permanent address of the quoted text (a commit-pinned file,
	// an arXiv version), when it differs from Paper.Link.
	Link string `yaml:"link" json:"link,omitempty"`
}

// Method is the accountant the paper says it used. It never decides the
// verdict; the audit recomputes it where it can so the report can say
// whether the printed number is the method's output.
type Method struct {
	// Name is one of MethodNames.
	Name Text `yaml:"name"`
	// Formula, for closed forms the paper prints, is ε in the claim's
	// variables (and delta).
	Formula Value  `yaml:"formula"`
	Note    string `yaml:"note"`
}

// MethodNames are the accepted accountant_used names.
var MethodNames = []string{"rdp-classic", "rdp-improved", "moments", "pld", "prv", "gdp-clt", "zcdp", "closed-form", "unknown"}

// Procedure is the private training procedure, or (in a case, a reading
// or a phase) the parts of it that are overridden.
type Procedure struct {
	Unit         Text             `yaml:"unit"`
	Neighbouring Text             `yaml:"neighbouring"`
	Delta        Value            `yaml:"delta"`
	Variables    map[string]Value `yaml:"variables"`
	Clip         Value            `yaml:"clip"`
	Step         `yaml:",inline"`
	Phases       []Phase `yaml:"phases"`
	// Unset lists the inherited fields a case or reading clears by
	// writing null ("clip", "noise.sensitivity", "sampling.visible",
	// "variables.beta"), relative to the procedure.
	Unset []string `yaml:"-"`
}

// Step is what one phase of training does: a mechanism with its noise,
// the sampling of each step, and how many steps.
type Step struct {
	Mechanism Text      `yaml:"mechanism"`
	Noise     *Noise    `yaml:"noise"`
	Sampling  *Sampling `yaml:"sampling"`
	Steps     Value     `yaml:"steps"`
	Tree      *Tree     `yaml:"tree"`
}

// Phase is one stage of a heterogeneous schedule (composed in order).
type Phase struct {
	Name string `yaml:"name"`
	Note string `yaml:"note"`
	Step `yaml:",inline"`
}

// Noise gives the noise of one step. For gaussian, laplace and
// tree-aggregation the accountants need the noise multiplier z (noise
// std, Laplace scale or tree-node std divided by the sensitivity): give
// it as multiplier (relative to the clip norm, optionally divided by a
// sensitivity in clip units — e.g. 2 for microbatches under add/remove)
// or as scale (absolute) with sensitivity (absolute).
type Noise struct {
	Multiplier  Value `yaml:"multiplier"`
	Scale       Value `yaml:"scale"`
	Sensitivity Value `yaml:"sensitivity"`
	// Discrete Gaussian (integer units): scale is σ, sensitivity the
	// integer L2 sensitivity; clients > 1 makes it the distributed
	// discrete Gaussian of Kairouz, Liu and Steinke 2021 (dim, l1).
	Clients Value `yaml:"clients"`
	Dim     Value `yaml:"dim"`
	L1      Value `yaml:"l1"`
	// zcdp: a stated (ξ, ρ)-zCDP guarantee of the whole step.
	Rho Value `yaml:"rho"`
	Xi  Value `yaml:"xi"`
	// pure-dp: a stated ε₀-DP guarantee of one step.
	Epsilon Value `yaml:"epsilon"`
}

// Sampling says which records one step touches.
type Sampling struct {
	// Kind is poisson, fixed-batch, full or clients.
	Kind Text `yaml:"kind"`
	// Q is the inclusion probability (poisson, clients); or give
	// Batch and Population (q = batch/population).
	Q          Value `yaml:"q"`
	Batch      Value `yaml:"batch"`
	Population Value `yaml:"population"`
	// Rule is how clients are drawn: poisson (default) or fixed (a
	// cohort of exactly batch of population, without replacement).
	Rule Text `yaml:"rule"`
	// Visible: the adversary learns which steps included the record (a
	// server that receives each participant's message). Participation is
	// then public: no amplification.
	Visible *bool `yaml:"visible"`
}

// Tree describes DP-FTRL tree aggregation: trees × leaves leaves, each
// record contributing to at most participations leaves of a tree at least
// min_separation leaves apart.
type Tree struct {
	Leaves         Value `yaml:"leaves"`
	Trees          Value `yaml:"trees"`
	Participations Value `yaml:"participations"`
	MinSeparation  Value `yaml:"min_separation"`
}

// Accounting holds the numerical options of the accountants.
type Accounting struct {
	// RDPOrders names the RDP order grid: opacus (default),
	// dp-accounting, tf-privacy or integer (2…64).
	RDPOrders   Text  `yaml:"rdp_orders"`
	PLDInterval Value `yaml:"pld_interval"`
	PRVEpsError Value `yaml:"prv_eps_error"`
	// EmpiricalTrials overrides the distinguishing game's trial count per
	// side (0: from the work budget).
	EmpiricalTrials Value `yaml:"empirical_trials"`
}

// AverageOver makes the claimed ε a mean over values of one variable
// (e.g. ε̄ as the mean over clients of the per-client ε): every quantity
// is computed per value and averaged.
type AverageOver struct {
	Variable string    `yaml:"variable"`
	Values   []float64 `yaml:"values"`
	Note     string    `yaml:"note"`
}

// Case is one of the paper's experiments sharing the claim's procedure.
type Case struct {
	Name string `yaml:"name"`
	Note string `yaml:"note"`
	// Quote is the verbatim text of this case (a table row), when the
	// source's quote covers the claim as a whole.
	Quote          string `yaml:"quote"`
	ClaimedEpsilon Value  `yaml:"claimed_epsilon"`
	Procedure      `yaml:",inline"`
}

// Reading is one interpretation of what the paper leaves open.
type Reading struct {
	Name string `yaml:"name"`
	Note string `yaml:"note"`
	// BoundOnly marks a reading that models what ran by a mechanism that
	// is at least as leaky (shuffled batches as unamplified epochs): its
	// values bound the true ε from above only, so it yields no lower
	// bound, no distinguishing game and no "proven" refutation.
	BoundOnly bool `yaml:"bound_only"`
	// Accounting overrides the claim's numerical options for this reading
	// (e.g. a coarser PLD grid for a very long composition).
	Accounting *Accounting `yaml:"accounting"`
	Procedure  `yaml:",inline"`
}

// Value is a number or, written as a YAML string, a formula in the
// claim's variables. It remembers its line for error messages and, for
// numbers, the literal text (the printed precision).
type Value struct {
	Set     bool
	Num     float64
	Literal string // the number as written ("" for formulas)
	Formula string
	Line    int
}

// UnmarshalYAML reads a number or a formula string.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	*v = Value{Set: true, Line: n.Line}
	if n.Kind != yaml.ScalarNode {
		return typeErr(n.Line, "want a number or a formula string")
	}
	switch n.Tag {
	case "!!int", "!!float":
		if lit := strings.ToLower(strings.TrimPrefix(n.Value, "+")); lit == ".inf" {
			// YAML's infinity: `clip: .inf` (no clipping), `noise:
			// {sensitivity: .inf}` (unbounded sensitivity).
			v.Num, v.Literal = math.Inf(1), n.Value
			return nil
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil {
			return typeErr(n.Line, fmt.Sprintf("cannot read %q as a number", n.Value))
		}
		v.Num, v.Literal = f, n.Value
	case "!!str":
		if strings.TrimSpace(n.Value) == "" {
			return typeErr(n.Line, "empty formula")
		}
		v.Formula = n.Value
	default:
		return typeErr(n.Line, fmt.Sprintf("want a number or a formula string, not %s", strings.TrimPrefix(n.Tag, "!!")))
	}
	return nil
}

// IsFormula reports whether the value is a formula.
func (v Value) IsFormula() bool { return v.Formula != "" }

// String is the value as written.
func (v Value) String() string {
	if v.Formula != "" {
		return v.Formula
	}
	return v.Literal
}

// Decimals is the number of digits after the decimal point of a number
// literal (negative exponents counted: "1.5e-3" has 4), or 0.
func (v Value) Decimals() int {
	s := strings.ToLower(v.Literal)
	exp := 0
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		exp, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	d := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		d = len(s) - i - 1
	}
	return max(0, d-exp)
}

// Text is a string with the line it was written on (for enumerations,
// whose invalid values are reported as file:line).
type Text struct {
	S    string
	Line int
}

// UnmarshalYAML reads a scalar.
func (t *Text) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeErr(n.Line, "want a string")
	}
	*t = Text{S: n.Value, Line: n.Line}
	return nil
}

func typeErr(line int, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", line, msg)}}
}
