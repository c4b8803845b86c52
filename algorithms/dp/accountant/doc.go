// Package accountant turns descriptions of private computations into
// (ε, δ) guarantees.
//
// Mechanisms are Event values (Gaussian, Laplace, PoissonSampled,
// SampledWithoutReplacement, SelfComposed, Composed), separate from the
// accountants that compose them, as in Google's dp_accounting:
//
//	e := accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.01,
//		Event: accountant.Gaussian{Sigma: 1.1}}, Count: 10000}
//	eps, order, err := accountant.RDPEpsilon(e, 1e-5)
//
// RDP is the Rényi-DP accountant (Mironov 2017; Mironov, Talwar and Zhang
// 2019) with the improved (Balle et al. 2020) or classic conversion; its
// fractional-order series uses signed generalized binomials and so equals
// the exact A_α (spec §B4). PLD is the privacy-loss-distribution accountant
// with pessimistic "connect the dots" discretization and FFT composition.
// GaussianDelta/GDPDelta are the exact curves used as oracles, Calibrate
// solves for the noise multiplier, and the closed forms the reproduced
// papers state (Abadi et al. 2016 Thm 1, Upcycled-FL Thms 6.2/6.3) are
// named functions so audits can recompute a paper's figures.
//
// No function here reads clocks, files or random state; results depend
// only on the arguments.
package accountant
