package upcycled

import (
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
)

// TestGate runs the smoke scale and compares it with
// golden/upcycled/smoke/results.json (make golden PAPER=upcycled rewrites it).
func TestGate(t *testing.T) { gatetest.Run(t, "upcycled") }

// TestClaims runs every upcycled claim and compares its verdict and named values
// with golden/upcycled/claims.yaml (verdicts only under -short; `make golden
// PAPER=upcycled` re-records it).
func TestClaims(t *testing.T) { gatetest.Claims(t, "upcycled") }

// TestCoverage fails when a baseline, variant, mechanism or mode has no
// smoke run.
func TestCoverage(t *testing.T) { gatetest.Coverage(t, "upcycled") }
