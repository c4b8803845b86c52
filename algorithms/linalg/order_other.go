//go:build !amd64

package linalg

// amd64Order is false: gonum's generic Go kernels round in another order
// (and may be fused on some architectures), so Gemm delegates to them.
const amd64Order = false
