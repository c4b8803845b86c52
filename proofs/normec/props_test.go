package normec

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestLemma1IdentityProperty: gopter (with shrinking) drives the predicate
// of the lemma1-identity sweep over the same domain: u − βNorm_α(u) =
// (1 − β/(α+‖u‖))u in norm, to 1e-12 relative.
func TestLemma1IdentityProperty(t *testing.T) {
	p := gopter.DefaultTestParametersWithSeed(20240727)
	p.MinSuccessfulTests = 300
	props := gopter.NewProperties(p)
	props.Property("‖u − βNorm_α(u)‖ = |1 − β/(α+‖u‖)|·‖u‖", prop.ForAll(func(seed uint64, alpha, beta, logScale float64) bool {
		return lemma1IdentityErr(seed, alpha, beta, logScale) < 1e-12
	}, gen.UInt64(), gen.Float64Range(0, 2), gen.Float64Range(1e-6, 5), gen.Float64Range(-12, 12)))
	props.TestingRun(t)
}
