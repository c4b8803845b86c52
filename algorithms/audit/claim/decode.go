package claim

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/internal/strictyaml"
)

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// Decode reads a claim file strictly — unknown keys, wrong types, invalid
// values, unknown variables in formulas, procedures no accountant can
// bound — and reports the first problem as one line "name:line: problem".
// Every case × reading is resolved here, so a decoded claim audits.
func Decode(name string, data []byte) (*Claim, error) {
	unsets, err := precheck(data)
	if err != nil {
		return nil, at(name, err)
	}
	var c Claim
	if err := strictyaml.Decode(name, data, &c); err != nil {
		return nil, err
	}
	c.file = name
	for i := range c.Cases {
		c.Cases[i].Unset = unsets[fmt.Sprintf("cases[%d]", i)]
	}
	for i := range c.Readings {
		c.Readings[i].Unset = unsets[fmt.Sprintf("readings[%d]", i)]
	}
	if err := c.validate(); err != nil {
		return nil, at(name, err)
	}
	return &c, nil
}

func required(what, v string) error {
	if strings.TrimSpace(v) == "" {
		return lineErr(0, "%s is missing", what)
	}
	return nil
}

func (c *Claim) validate() error {
	if c.Schema != SchemaID {
		return lineErr(0, "schema %q: want %q", c.Schema, SchemaID)
	}
	if strings.TrimSpace(c.ID) == "" {
		return lineErr(0, "id is missing (want the file name without .yaml)")
	}
	if !idPattern.MatchString(c.ID) {
		return lineErr(0, "id %q: want lower-case letters, digits, '.' and '-'", c.ID)
	}
	// The id names the claim in reports and goldens: a file whose id is
	// another name would be audited and recorded under the wrong one.
	base := path.Base(c.file)
	for _, ext := range []string{".yaml", ".yml"} {
		if stem, ok := strings.CutSuffix(base, ext); ok && stem != c.ID {
			return lineErr(0, "id %q differs from the file name %s (want id: %s, or rename the file %s%s)", c.ID, base, stem, c.ID, ext)
		}
	}
	for _, f := range []struct{ what, v string }{
		{"title", c.Title}, {"paper.title", c.Paper.Title}, {"paper.authors", c.Paper.Authors}, {"paper.link", c.Paper.Link},
		{"source.where", c.Source.Where}, {"source.quote", c.Source.Quote},
	} {
		if err := required(f.what, f.v); err != nil {
			return err
		}
	}
	if c.Paper.Year < 1990 || c.Paper.Year > 2100 {
		return lineErr(0, "paper.year %d: want the year of publication", c.Paper.Year)
	}
	if !slices.Contains([]string{"", "printed", "exact"}, c.Rounding.S) {
		return lineErr(c.Rounding.Line, "rounding %q: want printed or exact", c.Rounding.S)
	}
	if c.AccountantUsed.Name.S == "" {
		return lineErr(c.AccountantUsed.Name.Line, "accountant_used.name is missing (want one of %s; unknown when the paper does not say)", strings.Join(MethodNames, ", "))
	}
	if !slices.Contains(MethodNames, c.AccountantUsed.Name.S) {
		return lineErr(c.AccountantUsed.Name.Line, "accountant_used.name %q: want one of %s", c.AccountantUsed.Name.S, strings.Join(MethodNames, ", "))
	}
	if f := c.AccountantUsed.Formula; f.Set && c.AccountantUsed.Name.S != "closed-form" {
		return lineErr(f.Line, "accountant_used.formula needs name closed-form")
	}
	if _, err := c.numerics(Options{}, nil); err != nil {
		return err
	}
	claimedOK := func(v Value, where string) error {
		if !v.Set {
			return lineErr(0, "%s is missing", where)
		}
		if v.IsFormula() {
			return lineErr(v.Line, "%s must be the printed number, not a formula", where)
		}
		if !(v.Num >= 0) {
			return lineErr(v.Line, "%s = %v: want ≥ 0", where, v.Num)
		}
		return nil
	}
	if len(c.Cases) == 0 || c.ClaimedEpsilon.Set {
		if err := claimedOK(c.ClaimedEpsilon, "claimed_epsilon"); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for i, k := range c.Cases {
		if strings.TrimSpace(k.Name) == "" || seen[k.Name] {
			return lineErr(0, "case %d: want a unique, non-empty name (got %q)", i+1, k.Name)
		}
		seen[k.Name] = true
		if !c.ClaimedEpsilon.Set {
			if err := claimedOK(k.ClaimedEpsilon, "case "+k.Name+": claimed_epsilon"); err != nil {
				return err
			}
		} else if k.ClaimedEpsilon.Set {
			if err := claimedOK(k.ClaimedEpsilon, "case "+k.Name+": claimed_epsilon"); err != nil {
				return err
			}
		}
	}
	seen = map[string]bool{}
	for i, r := range c.Readings {
		if strings.TrimSpace(r.Name) == "" || seen[r.Name] {
			return lineErr(0, "reading %d: want a unique, non-empty name (got %q)", i+1, r.Name)
		}
		seen[r.Name] = true
	}
	var values []float64
	if a := c.AverageOver; a != nil {
		if a.Variable == "" || len(a.Values) == 0 {
			return lineErr(0, "average_over needs variable and values")
		}
		if _, ok := c.Variables[a.Variable]; ok {
			return lineErr(c.Variables[a.Variable].Line, "variable %s is set by average_over; do not define it under variables", a.Variable)
		}
		values = a.Values
	}
	for _, k := range c.cases() {
		for _, rd := range c.readings() {
			n, err := c.numerics(Options{}, rd.Accounting)
			if err != nil {
				return prefixErr(label(k.name, rd.Name), err)
			}
			p := merge(k.proc, rd.Procedure)
			binds := []map[string]float64{nil}
			if values != nil {
				binds = binds[:0]
				for _, v := range values {
					binds = append(binds, map[string]float64{c.AverageOver.Variable: v})
				}
			}
			for _, b := range binds {
				r, err := resolve(p, k.claimed.Num, b)
				if err != nil {
					return prefixErr(label(k.name, rd.Name), err)
				}
				if err := n.supported(r); err != nil {
					return prefixErr(label(k.name, rd.Name), err)
				}
			}
		}
	}
	return nil
}

// supported checks that the event is valid and that some accountant
// bounds it.
func (n numerics) supported(r resolved) error {
	if r.pureOnly() {
		return nil
	}
	e := r.event(1, atPrinted)
	if e == nil {
		return lineErr(0, "pure-dp phases cannot be composed with noise mechanisms here")
	}
	if err := accountant.Validate(e); err != nil {
		return lineErr(0, "%v", err)
	}
	var why []string
	for _, m := range []string{MRDP, MPLD, MPRV, MZCDP, MExact, MPure} {
		err := n.config(m, r.nb).Supported(e)
		if err == nil {
			return nil
		}
		why = append(why, fmt.Sprintf("%s: %s", m, reason(err)))
	}
	if _, ok := r.visibleGaussian(); ok {
		return nil
	}
	return lineErr(0, "no accountant bounds %s (%s)", r.describe(), strings.Join(why, "; "))
}
