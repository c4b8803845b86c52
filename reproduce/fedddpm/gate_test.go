package fedddpm

import (
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
)

// TestGate runs the smoke scale and compares it with
// golden/fedddpm/smoke/results.json (make golden PAPER=fedddpm rewrites it).
func TestGate(t *testing.T) { gatetest.Run(t, "fedddpm") }
