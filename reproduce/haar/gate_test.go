package haar

import (
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
)

// TestGate runs the smoke scale and compares it with
// golden/haar/smoke/results.json (make golden PAPER=haar rewrites it;
// -update -gate-scale=default records the default scale).
func TestGate(t *testing.T) { gatetest.Run(t, "haar") }
