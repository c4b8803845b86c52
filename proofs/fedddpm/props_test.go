package fedddpm

import (
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Property tests with shrinking (gopter) of the predicates the run-time
// sweeps evaluate (quicktest-properties, theorem1-algebra): the same
// functions over the same domains, driven by gopter's generators.

func props(t *testing.T, n int) *gopter.Properties {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(20240727)
	p.MinSuccessfulTests = n
	return gopter.NewProperties(p)
}

func TestQuickTestProperties(t *testing.T) {
	c := fedddpm.PaperQuickTest()
	p := props(t, 100)
	p.Property("(i) first call never fires, sets AvgScore = Score", prop.ForAll(func(s float64) bool {
		return quickFirstCall(c, s)
	}, gen.Float64Range(0, 400)))
	p.Property("(iii) constant score fires on the second call", prop.ForAll(func(s float64) bool {
		return quickConstantFires(c, s)
	}, gen.Float64Range(0, 400)))
	p.Property("(iv) firing leaves the state unchanged, else γ-EMA update", prop.ForAll(func(avg, s float64) bool {
		return quickEMA(c, avg, s)
	}, gen.Float64Range(0, 60), gen.Float64Range(0, 60)))
	p.Property("convergent scores stop training at a multiple of 10, never before round 10", prop.ForAll(func(seed uint64) bool {
		return quickConvergentStops(c, seed)
	}, gen.UInt64()))
	p.TestingRun(t)
}

// TestQuickTestPredicatesCanFail: with a threshold of −1 nothing ever
// fires, so (iii) must fail — the predicate is not vacuous.
func TestQuickTestPredicatesCanFail(t *testing.T) {
	c := fedddpm.PaperQuickTest()
	c.Threshold = -1
	if quickConstantFires(c, 3) {
		t.Error("quickConstantFires holds with threshold −1, where QuickTest never fires")
	}
}

func TestTheorem1AlgebraProperty(t *testing.T) {
	p := props(t, 100)
	p.Property("RHS(19)/(T·KζC) = RHS(15)", prop.ForAll(func(seed uint64) bool {
		return theorem1Case(seed) < 1e-12
	}, gen.UInt64()))
	p.TestingRun(t)
}
