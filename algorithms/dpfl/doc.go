// Package dpfl holds the differentially private federated algorithms the
// Haar-wavelet paper (Ranaweera et al.) compares, as fl.Algorithm values for
// the round engine of algorithms/fl:
//
//   - DPSGD: sample-level DP. Every selected client runs DP-SGD (Abadi et
//     al.) on its own data: Poisson lots of expected size L, per-example
//     clipping at C, one noise draw per lot, division by L, then an
//     optimizer step (SGD, or Adam / AdaGrad from algorithms/optim for
//     DP-Adam and DP-AdaGrad). The server averages the client models.
//   - DPFedAvg: user-level DP (McMahan et al.). Every selected client trains
//     non-privately, clips its update Δ_k to C, and the server adds noise to
//     the fixed-denominator average of the clipped updates.
//
// Both are generic over the noise Mechanism: Gaussian is the vanilla
// isotropic N(0, σ²C²I); Wavelet is the paper's Haar-wavelet scheme
// (Algorithm 1 for lots, Algorithm 2 for the server release) with the
// coefficient noise scale chosen by a Calibration — the input σ as printed,
// Lemma 2's σ_Haar, or Corrected, the scale whose effective noise multiplier
// equals σ (so the accountant's ε is really vanilla's). A Schedule gives the
// (σ, C) of each round: Constant, or Decay for the dynamic baselines
// (Dyn-DP-SGD / Dyn-DP-FedAvg, an assumption documented on Decay).
//
// Every algorithm records what it released in a Ledger (per client for
// DP-SGD, on the server for DP-FedAvg) so that the ε a run really had can be
// computed by algorithms/dp/accountant from the nominal or the effective
// noise multipliers. Each ledger block also records how its records were
// sampled (LotSampling for DP-SGD's Poisson lots, the engine's
// fl.Server.Cohort for DP-FedAvg's clients), and Ledger.Epsilon accounts
// only after accountant.CheckRun has confirmed that the Poisson reading
// with the recorded q is valid for that sampling: a mismatch (a fixed K of
// N cohort, a q that is not the engine's p) is an error, not an ε.
//
// Random draws: lot sampling uses Client.Rand (the training stream), so
// every mechanism on the same run key sees the same lots; noise uses
// Client.Noise (sample level) or Server.Rand("dp-noise") (user level).
package dpfl
