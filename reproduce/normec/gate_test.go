package normec

import (
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
)

// TestGate runs the smoke scale and compares it with
// golden/normec/smoke/results.json (make golden PAPER=normec rewrites it;
// -gate-scale=default gates the default scale).
func TestGate(t *testing.T) { gatetest.Run(t, "normec") }

// TestClaims runs every normec claim and compares its verdict and named values
// with golden/normec/claims.yaml (verdicts only under -short; `make golden
// PAPER=normec` re-records it).
func TestClaims(t *testing.T) { gatetest.Claims(t, "normec") }

// TestCoverage fails when a method, model, split, noise setting, local
// operator, participation regime or memory mode the reproduction
// registers has no run in the smoke scale (the gate above could not see a
// change to it).
func TestCoverage(t *testing.T) { gatetest.Coverage(t, "normec") }
