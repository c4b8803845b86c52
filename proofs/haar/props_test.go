package haar

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Property tests with shrinking (gopter) of the predicates the run-time
// sweeps evaluate (hwt-round-trip, hwt-linearity, theorem3-coefficients):
// the same functions over the same domains, driven by gopter's generators,
// so a failure is reported shrunk to a small counterexample.

func props(t *testing.T, n int) *gopter.Properties {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(20240727)
	p.MinSuccessfulTests = n
	return gopter.NewProperties(p)
}

func TestTransformProperties(t *testing.T) {
	p := props(t, 40)
	p.Property("HWT-INV(HWT(x))[:n] == x", prop.ForAll(func(n int, s uint64) string {
		_, fail := roundTripCase(n, s)
		return fail
	}, gen.IntRange(1, 5000), gen.UInt64()))
	p.Property("HWT(a·x+b·y) = a·HWT(x)+b·HWT(y)", prop.ForAll(linearityCase,
		gen.IntRange(1, 2000), gen.Float64Range(-100, 100), gen.Float64Range(-100, 100), gen.UInt64()))
	p.Property("WaveletNoise(w) − w = WaveletNoise(Δ) − Δ for the same noise stream", prop.ForAll(noiseOnDeltaCase,
		gen.IntRange(1, 2000), gen.UInt64()))
	p.TestingRun(t)
}

func TestTheorem3CoefficientProperties(t *testing.T) {
	p := props(t, 200)
	p.Property("(14)–(16) signs, monotonicity and the t = t_c+1 case", prop.ForAll(theorem3Case,
		gen.Float64Range(0.01, 10), gen.Float64Range(1, 100), gen.Float64Range(0, 10), gen.Float64Range(0, 10),
		gen.Float64Range(1, 20), gen.Float64Range(1e-3, 1), gen.Float64Range(0, 5), gen.IntRange(1, 100), gen.IntRange(1, 100)))
	p.TestingRun(t)
}

// TestTheorem3CaseCanFail: the predicate rejects inputs outside the
// theorem's domain (μη > 1 makes Δ_t negative), so the property is not
// vacuous.
func TestTheorem3CaseCanFail(t *testing.T) {
	if fail := theorem3Case(1, 2, 1, 1, 1, 1.5, 0, 1, 1); fail == "" {
		t.Error("theorem3Case accepts μη = 1.5, where Δ_t = 1 − μη < 0")
	}
}
