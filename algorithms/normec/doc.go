// Package normec implements Fed-α-NormEC (Shulgin, Malinovsky, Khirirat,
// Richtárik, "First Provable Guarantees for Practical Private FL: Beyond
// Restrictive Assumptions"; spec: shared/specs/normec.md) and the baselines
// the paper compares it with.
//
// The pieces:
//
//   - Norm, NormTo: smoothed normalization Norm_α(v) = v/(α+‖v‖), the
//     operator that bounds every client message by 1 (its DP sensitivity).
//   - Local and Objective: the local update operators T_i of spec §3.2 (one
//     GD step, T GD steps of size γ/T, one cyclic incremental-gradient pass
//     of N steps of size γ/N), generic over model.Differentiable, exact
//     quadratics (quad.Quadratic) and any other client objective.
//   - Algorithm: a stepper for Algorithm 1 (state + Step + accessors), so
//     the claim checks (proofs/normec) and the experiment runner drive the
//     same code. Theory-faithful by default (all clients update their
//     memory, normalized server step); the unnormalized server step of the
//     paper's experiments (Appendix A) is an option and is labelled in
//     results.
//   - FedAvg: DP-FedAvg of eq. (2) with clipping or smoothed normalization,
//     and the Appendix A.1 FedAvg baseline.
//   - ExperimentSigma, TheorySigma, CalibratedSigma: the paper's two noise
//     formulas and a σ calibrated by an accountant to a true (ε, δ);
//     Epsilon (RDP or PLD, Poisson sampling q = p: the paper's amplified
//     model) and EpsilonVisibleParticipation (exact, against a server that
//     sees who transmitted) say what a σ really buys.
//
// Randomness: an Algorithm draws client participation from one stream
// named (key, "participation") — exactly M uniforms per round, so round k's
// selection depends only on the key, k and M, and a baseline built on the
// same key selects the same clients — and each client's DP noise from its
// own stream (key, "client", i, "noise"), read only in the rounds the client
// transmits. Streams are created once, so a round allocates nothing. The
// package does no I/O and has no global state.
package normec
