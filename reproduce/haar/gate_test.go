package haar

import (
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
)

// TestGate runs the smoke scale and compares it with
// golden/haar/smoke/results.json (make golden PAPER=haar rewrites it;
// -update -gate-scale=default records the default scale).
func TestGate(t *testing.T) { gatetest.Run(t, "haar") }

// TestClaims runs every haar claim and compares its verdict and named values
// with golden/haar/claims.yaml (verdicts only under -short; `make golden
// PAPER=haar` re-records it).
func TestClaims(t *testing.T) { gatetest.Claims(t, "haar") }

// TestCoverage fails when a method, level, optimizer, model or clipping
// domain the reproduction registers has no run in the smoke scale (the
// gate above could not see a change to it).
func TestCoverage(t *testing.T) { gatetest.Coverage(t, "haar") }
