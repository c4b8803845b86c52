// Package normec registers the executable checks of every theoretical
// claim of the Fed-α-NormEC paper (shared/specs/normec.md §4) and of every
// erratum found while reading it (§6): properties on quadratics with exact
// constants and on logistic regression with known smoothness, Monte-Carlo
// experiments on Algorithm 1 (algorithms/normec), searches for
// counterexamples, and privacy accounting. Verdicts are computed; quick
// mode reaches the same verdicts with smaller samples.
package normec
