package normec

import (
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
)

// TestGate runs the smoke scale and compares it with
// golden/normec/smoke/results.json (make golden PAPER=normec rewrites it;
// -gate-scale=default gates the default scale).
func TestGate(t *testing.T) { gatetest.Run(t, "normec") }
