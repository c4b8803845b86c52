package normec

import (
	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/claims"
)

// The paper's audited privacy figures as claim files (claims/normec-*.yaml),
// audited by the general claim engine: `fedrepro audit --paper normec` and
// the report print them as the "claims" table. claims_test.go checks that
// the engine reproduces the numbers of this package's own audits.
func init() {
	audit.Register(claims.AuditEntry("normec", "The experiments' noise formula through the claim engine (claims/normec-noise-formula.yaml): ε = 8 at δ = 1e-5?"))
}
