package normec

import (
	"testing"

	"github.com/fedrepro/fedrepro/proofs/prooftest"
)

// TestClaims runs every normec claim and compares its verdict with
// golden/normec/claims.yaml (quick mode under -short).
func TestClaims(t *testing.T) { prooftest.Run(t, "normec") }
