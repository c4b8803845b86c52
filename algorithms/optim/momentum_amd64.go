//go:build amd64 && !purego

package optim

import "github.com/fedrepro/fedrepro/algorithms/linalg"

// useAVX2 selects momentumAVX2 for SGD's plain-momentum step where the CPU
// has AVX2; the tests switch it off to compare both paths.
var useAVX2 = linalg.HasAVX2

// momentumAVX2 is the plain-momentum update of the first n4 elements (see
// momentum_amd64.s).
//
//go:noescape
func momentumAVX2(p, buf, grad *float64, n4 int, rho, lr float64)

// setAVX2 switches the kernel on or off (tests).
func setAVX2(on bool) { useAVX2 = on && linalg.HasAVX2 }
