//go:build amd64 && !noasm && !gccgo && !safe

package linalg

// GonumAsmOrder reports whether gonum's vector kernels are its amd64
// assembly (not disabled by the noasm, gccgo or safe tags), whose rounding
// order Gemm reproduces (see the package documentation). Code that
// reproduces other gonum results bit for bit (model's exact clipped sum)
// checks it too.
const GonumAsmOrder = true

const amd64Order = GonumAsmOrder
