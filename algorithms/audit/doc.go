// Package audit estimates lower bounds on the privacy loss ε of a mechanism
// from its behaviour: Clopper–Pearson bounds on a distinguisher's TPR/FPR,
// the GDP-based estimate, the Steinke–Nasr–Jagielski one-run bound, and a
// distinguishing-game harness that runs a mechanism on neighbouring inputs
// from named random streams. Paper packages register audits of their own
// mechanisms and privacy figures here; `fedrepro audit --paper X` prints them.
//
// To audit a mechanism, wrap one run on D or D′ as a Mechanism (a scalar
// score) or a VectorMechanism plus a Score (GaussianLRScore is the optimal
// attack on Gaussian outputs) and play a Game:
//
//	g := audit.Game{ID: "upcycled/output-perturbation", Seed: opts.Seed, Trials: 2000, Delta: 1e-5}
//	res, err := g.RunVector(mech, dim, audit.GaussianLRScore(meanD, meanDPrime))
//
// res.EpsilonLB holds with probability res.Confidence; an ε_LB above a
// paper's claimed ε refutes the claim. A bound far below the claim proves
// nothing: lower bounds from a few thousand trials are weak. An error-free
// test gives res.MaxEpsilonLB ≈ ln(n/3.69) for n trials per side whatever
// the mechanism (res.BudgetLimited), and so does res.EpsilonGDP, which is
// fitted to the same counts; res.Fit (GaussianFit) reads μ from the scores
// themselves, with a confidence interval, and keeps moving with the noise.
// Selection Calibrated chooses the test on separate calibration trials so
// that every evaluation trial counts (reproduce/attack plays its games so).
package audit
