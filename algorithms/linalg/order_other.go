//go:build !amd64 || noasm || gccgo || safe

package linalg

// GonumAsmOrder is false: gonum's generic Go kernels round in another order
// (and may be fused on some architectures), so Gemm delegates to them.
const GonumAsmOrder = false

const amd64Order = GonumAsmOrder
