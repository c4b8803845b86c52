package paper

import (
	"fmt"
	"math"
)

// EpsFormat is how a report prints a privacy loss ε: "∞" for +Inf (no
// noise, or a composition past every bound), "—" for NaN (not computed),
// Verb (a fmt verb such as "%.3g") for ordinary values and LargeVerb from
// Large on, where a value's digits carry no meaning beyond its size.
// Papers differ in the precision their tables print, so each states its
// own; the cases around them are the same everywhere.
type EpsFormat struct {
	Large           float64
	LargeVerb, Verb string
}

// Format prints e.
func (f EpsFormat) Format(e float64) string {
	switch {
	case math.IsInf(e, 1):
		return "∞"
	case math.IsNaN(e):
		return "—"
	case e >= f.Large:
		return fmt.Sprintf(f.LargeVerb, e)
	}
	return fmt.Sprintf(f.Verb, e)
}

// AppendNonEmpty appends to out the items that say something: a report's
// finding or note builders return "" when their section had nothing to
// say (no data, no audit), and such an item must leave no empty bullet.
func AppendNonEmpty(out []string, items ...string) []string {
	for _, s := range items {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
