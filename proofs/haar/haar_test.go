package haar

import (
	"testing"

	"github.com/fedrepro/fedrepro/proofs/prooftest"
)

// TestClaims runs every haar claim and compares its verdict with
// golden/haar/claims.yaml (record with `go test ./proofs/haar -update`).
func TestClaims(t *testing.T) { prooftest.Run(t, "haar") }
