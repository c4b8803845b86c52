// Package linalg holds the dense kernels of fedrepro's models: a serial
// row-major matrix product (Gemm) that is bitwise equal to the product the
// models used before it existed — gonum's blas64.Gemm run serially on amd64
// — but several times faster, because it keeps blocks of C in registers and
// uses AVX2 when the CPU has it.
//
// # Bit-exactness
//
// The goldens of the reproductions compare results bit for bit, so a faster
// kernel may change the speed of a product and nothing else. Every entry
// c_ij sees exactly the floating-point operations gonum's serial Dgemm
// (gonum v0.17, internal/asm/f64 on amd64) applies to it, in the same
// order; only independent entries are computed side by side:
//
//   - A·Bᵀ (NoTrans, Trans): c_ij ← c_ij + α·dot(a_i, b_j), where dot is
//     gonum's amd64 DotUnitary: four partial sums s_r over the indices
//     k ≡ r (mod 4) of the leading multiple of 4, the remaining k%4 terms
//     added to s_0 in order, then (s_0+s_2) + (s_1+s_3). One YMM register
//     holds (s_0, s_1, s_2, s_3) of one entry, so a 4-wide multiply and add
//     is the same pair of roundings per lane as gonum's two SSE2 pairs.
//     Blocks of four entries where a row of A is ±0 add ±0 to each partial
//     sum, which leaves sums that start at +0 unchanged when B is finite:
//     rows of A that are mostly such blocks (image borders) skip them.
//   - A·B and Aᵀ·B (NoTrans/Trans, NoTrans): c_ij ← c_ij + (α·a_il)·b_lj for
//     l = 0, 1, …, k−1 in order, skipping every l with α·a_il = 0 (gonum's
//     axpy loops skip them, which matters for signed zeros, infinities and
//     NaNs, and saves the work of ReLU-zeroed rows).
//
// AddScaledProduct is the element-wise kernel of DP-SGD's exact clipped sum
// (gonum's ScaleTo followed by AddScaled, without the intermediate vector).
//
// Multiplications and additions are separate instructions (never fused:
// the pure-Go code converts every product with float64(·), which forbids
// fusion by the language specification). The AVX2 path and the pure-Go
// path therefore agree bit for bit on every input, and both agree with
// gonum; the tests check both claims on random shapes, including empty,
// odd and non-multiple-of-4 sizes, signed zeros and non-finite values.
//
// Unlike gonum's Dgemm, Gemm never splits the k sum into blocks of 64 or
// spawns goroutines, whatever the size: gonum does both once C has four or
// more 64×64 blocks, which changes the rounding. Gemm equals gonum's result
// whenever gonum runs serially, and the tiled serial calls the models made.
//
// On other architectures the order of gonum's generic Go code differs
// (sequential dot products), so there Gemm delegates to gonum's serial
// kernels through tiles, and results are those of the code before.
//
// # Selection
//
// The AVX2 kernels are used on amd64 when the CPU and the operating system
// support AVX2 (CPUID and XGETBV, checked once). The build tag purego
// forces the pure-Go kernels everywhere; no C compiler is ever needed.
package linalg
