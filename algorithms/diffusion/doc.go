// Package diffusion implements the denoising diffusion probabilistic model
// (DDPM, Ho et al. 2020) pieces that federated diffusion papers train and
// sample with: the β noise schedule, closed-form forward noising
// q(x_t | x_0), the ε-prediction loss, the ancestral sampler, a small MLP
// denoiser with a sinusoidal time embedding and analytic gradients, and the
// exact (Bayes-optimal) ε-predictors of Gaussian and Gaussian-mixture data
// that serve as oracles for checking the sampler independently of training.
//
// # Conventions
//
// Diffusion steps are 1-indexed as in DDPM: t ∈ {1, …, T}; ᾱ_0 = 1 stands
// for clean data. (The FedDDPM paper writes ᾱ_t = ∏_{s=0}^t α_s, which is
// the same product written for 0-indexed arrays.) Data are row-major
// []float64 matrices of n rows and d columns.
//
// # The denoiser
//
// Net is a fully connected network ε_w(x_t, t): the input row is the
// concatenation [x_t, emb(t)] of the noisy sample and a fixed sinusoidal
// embedding of the integer step t (Transformer/DDPM style:
// emb(t) = [sin(t·ω_j)…, cos(t·ω_j)…], ω_j = 10000^{−j/(h−1)}, h = E/2), followed
// by hidden layers Linear → activation (SiLU by default, ReLU optional) and
// a linear output layer of width d. Concatenating the embedding is
// equivalent to adding a learned projection W_t·emb(t) to the first hidden
// pre-activation, the usual "additive" embedding. Every layer is a matrix
// product done with gonum's blas64.Gemm on row-major buffers that the Net
// keeps between calls, tiled so that gonum stays on its serial path (no
// goroutines: parallelism belongs to the FL engine, one client per
// goroutine), so training and sampling allocate nothing per step once the
// largest batch has been seen.
//
// Denoiser wraps a Net and a Schedule and satisfies model.Differentiable:
// LossGrad on a batch of clean samples x_0 draws t ~ U{1..T} and
// ε ~ N(0, I) per row from the given stream and returns the ε-prediction
// loss mean_rows mean_cols (ε − ε_w(x_t, t))² and its gradient, so the
// federated engine and the optimizers train it like any other model.
//
// # Decisions
//
//   - Schedule: linear β from β_1 to β_T; ScaledLinear rescales DDPM's
//     10⁻⁴ → 0.02 (for T = 1000) by 1000/T so that ᾱ_T stays near zero at
//     small T (FedDDPM spec §6.1). AlphaBarT reports what a schedule reaches.
//   - Loss normalisation: the loss is averaged over the d coordinates as well
//     as over rows (DDPM's reference code and PyTorch's MSELoss), i.e. the
//     paper's ‖ε − ε_w‖² of Eq. (6) divided by d. This only rescales the
//     learning rate of plain SGD.
//   - Sampler variance: σ_t² = β_t (VarBeta, the default) or
//     σ_t² = β̃_t = β_t(1 − ᾱ_{t−1})/(1 − ᾱ_t) (VarPosterior); no noise is
//     added at t = 1 and no clipping is applied (DDPM Algorithm 2).
//   - LossGrad with r == nil uses a fixed evaluation stream, so evaluation
//     losses of different parameter vectors are computed on the same draws.
package diffusion
