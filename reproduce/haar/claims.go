package haar

import (
	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/claims"
)

// The paper's audited privacy figures as claim files (claims/haar-*.yaml),
// audited by the general claim engine: `fedrepro audit --paper haar` and
// the report print them as the "claims" table. claims_test.go checks that
// the engine reproduces the numbers of this package's own audits.
func init() {
	audit.Register(claims.AuditEntry("haar", "Table III's ε through the claim engine (claims/haar-table3.yaml): the configurations the paper's text implies"))
}
