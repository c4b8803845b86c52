package upcycled

import (
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Property tests with shrinking (gopter) of the predicates the run-time
// sweeps evaluate (eq5-eq6-closed-form, even-aggregation-identity): the
// same function, over the same domain, driven by gopter's generators; a
// failure here is reported shrunk to a small counterexample.

func props(t *testing.T, n int) *gopter.Properties {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(20240727)
	p.MinSuccessfulTests = n
	return gopter.NewProperties(p)
}

// TestEq6Property: (6) is the unique minimiser of (5) (eq6Case).
func TestEq6Property(t *testing.T) {
	p := props(t, 60)
	p.Property("argmin (5) == (6)", prop.ForAll(func(n int, logMu, lambda float64, s uint64) string {
		_, _, fail := eq6Case(n, logMu, lambda, s)
		return fail
	}, gen.IntRange(1, 40), gen.Float64Range(math.Log(1e-3), math.Log(1e3)), gen.Float64Range(0, 100), gen.UInt64()))
	p.TestingRun(t)
}

// TestAggregationProperty: Σp_i(ω_i + cΔ) = ω̄ + cΔ = EvenStep
// (aggregationCase).
func TestAggregationProperty(t *testing.T) {
	p := props(t, 60)
	p.Property("Σ p_i(ω_i + cΔ) == ω̄ + cΔ == EvenStep", prop.ForAll(func(k, n int, c float64, s uint64) string {
		_, _, fail := aggregationCase(k, n, c, s)
		return fail
	}, gen.IntRange(1, 30), gen.IntRange(1, 50), gen.Float64Range(0, 0.999), gen.UInt64()))
	p.TestingRun(t)
}
