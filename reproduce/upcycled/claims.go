package upcycled

import (
	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/claims"
)

// The paper's audited privacy figures as claim files (claims/upcycled-*.yaml),
// audited by the general claim engine: `fedrepro audit --paper upcycled` and
// the report print them as the "claims" table. claims_test.go checks that
// the engine reproduces the numbers of this package's own audits.
func init() {
	audit.Register(claims.AuditEntry("upcycled", "Upcycled-FL's printed ε̄ through the claim engine (claims/upcycled-*.yaml): output perturbation (Fig. 3, App. F.1) and objective perturbation (Fig. 4)"))
}
