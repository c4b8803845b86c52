package upcycled

import (
	"testing"

	"github.com/fedrepro/fedrepro/proofs/prooftest"
)

// TestClaims runs every Upcycled-FL claim and compares its verdict with
// golden/upcycled/claims.yaml (record with `go test ./proofs/upcycled -update`).
func TestClaims(t *testing.T) { prooftest.Run(t, "upcycled") }
