// Package goldenflag defines the single `-update` test flag shared by every
// golden-file helper (claim verdicts, gated results), so that a test binary
// importing several of them does not register the flag twice.
package goldenflag

import "flag"

// Update asks golden-file tests to rewrite their goldens instead of
// comparing (`go test ./... -update`, `make golden`).
var Update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")
