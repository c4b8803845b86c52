// Package claim audits a published differential-privacy claim: a claim
// file (YAML, schema fedrepro-claim/1, documented in claims/README.md and
// claims/schema.json) states the printed (ε, δ), where it is printed, and
// the training procedure in the paper's own symbols — mechanism, noise as
// a number or a printed formula, sampling, steps, phases, neighbouring
// relation — with the paper's separate experiments as cases and what it
// leaves open as readings. Decode reads one strictly (file:line errors,
// every formula and every case × reading resolved); Audit computes, per
// case × reading:
//
//   - ε at δ under every accountant of algorithms/dp/accountant that
//     applies: RDP (improved and classic conversions), PLD, PRV (with its
//     proven bounds), zCDP (tight and classic), the exact curve, pure DP;
//     for stated per-step ε₀-DP the optimal composition (Kairouz, Oh and
//     Viswanath 2015: δ(ε) = Σ_l C(k,l)[e^{(k−l)ε₀} − e^{ε+lε₀}]₊ /
//     (1+e^{ε₀})^k); for Poisson participation the adversary sees, the
//     exact Binomial mixture δ(ε) = Σ_n P(n)·δ_G(z/√n, ε);
//   - upper (the tightest sound bound), loosest (the largest finite one)
//     and lower (the best proven lower bound);
//   - the noise at which the claimed ε holds (calibration under the
//     tightest accountant that supports the reading);
//   - an empirical lower bound: the distinguishing game of
//     algorithms/audit against the mechanism with its worst-case pair and
//     the Neyman–Pearson test (the summed exact per-step log-likelihood
//     ratios), at 95% confidence;
//   - ε by the accountant the paper names, to show whether the printed
//     number is that method's output;
//
// and a verdict. With c the claimed ε and t half a unit of its last
// printed digit (0 for `rounding: exact`): optimistic when c + t < upper
// even with the noise at the favourable end of its printed precision
// (proven false when lower exceeds c + t); conservative when
// c − t > 1.05 × loosest at the unfavourable end; consistent otherwise;
// a case whose readings disagree is underspecified. Accountant answers
// are memoised per process (they are pure functions of their inputs);
// nothing here reads files, clocks or global randomness.
package claim
