package linalg

// amd64Order: gonum's amd64 assembly fixes the rounding order that Gemm
// reproduces (see the package documentation).
const amd64Order = true
