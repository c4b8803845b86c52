package claims

import (
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
)

// SharedReports gives the external tests the reports TestGolden audits
// (every claim once per test binary, with goldenOptions).
func SharedReports(t *testing.T) map[string]*claim.Report { return auditAll(t) }

// GoldenOptions are the options of those reports.
var GoldenOptions = goldenOptions
