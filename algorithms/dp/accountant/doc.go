// Package accountant turns descriptions of private computations into
// (ε, δ) guarantees.
//
// Mechanisms are Event values, separate from the accountants that compose
// them, as in Google's dp_accounting: Gaussian, Laplace, TreeAggregation
// (DP-FTRL), DiscreteGaussian, DistributedDiscreteGaussian, ZCDP (a
// stated guarantee), PoissonSampled and SampledWithoutReplacement
// wrappers, and SelfComposed / Composed for schedules with phases:
//
//	e := accountant.Composed{Events: []accountant.Event{
//		accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.01,
//			Event: accountant.Gaussian{Sigma: 1.1}}, Count: 10000},
//		accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.02,
//			Event: accountant.Gaussian{Sigma: 1.5}}, Count: 2000},
//	}}
//	r, err := accountant.Config{Kind: accountant.KindPRV}.Account(e, 1e-5)
//	// r.Value is the guarantee, r.Lower ≤ true ε ≤ r.Value, r.Estimate
//
// Six accountants answer "ε at δ" (Config.Account) and "δ at ε"
// (Config.AccountDelta) for any event they support; Config.Supported
// says whether they do, and every unsupported combination is an error
// wrapping ErrUnsupported with the reason:
//
//   - RDP (Mironov 2017; Mironov, Talwar and Zhang 2019): the subsampled
//     Gaussian's exact signed series, the subsampled Laplace by quadrature
//     (Zhu and Wang 2019 Thm 8 at integer orders), sampling without
//     replacement by Wang, Balle and Kasiviswanathan 2019 Thm 27 (Gaussian)
//     or Thm 9, the discrete Gaussian's zCDP bound, Kairouz–Liu–Steinke
//     Prop. 14 for the distributed discrete Gaussian; improved (Balle et
//     al. 2020) or classic conversion on a fixed order grid.
//   - PLD: privacy-loss distributions with "connect the dots"
//     discretization and FFT composition, both directions of add/remove;
//     a pessimistic upper bound. Losses too wide for the grid go to the
//     infinity bucket; when that decides ε the error wraps ErrGridCap and
//     PLDEpsilonAdaptive (used by Config) coarsens the grid.
//   - PRV (Gopi, Lee and Wutschitz 2021, Opacus' default): an estimate with
//     proven bounds [ε̃(δ+δ_err) − ε_err, ε̃(δ−δ_err) + ε_err].
//   - zCDP (Bun and Steinke 2016): ρ and ξ add up; the tight conversion
//     (Canonne, Kamath and Steinke 2020) or ρ + 2√(ρ log(1/δ)).
//   - exact: compositions of Gaussian mechanisms (GDP), one Laplace, one
//     discrete Gaussian (a finite sum).
//   - pure: δ = 0; Laplace compositions and their amplification by
//     sampling; ∞ (ErrInfinite, with the reason) for unbounded losses.
//
// Neighbouring is AddRemove (default) or ReplaceOne; under ReplaceOne a
// record's contribution can flip sign, so every sensitivity doubles.
// Calibrate finds the smallest noise multiplier meeting a target ε under
// any accountant. The closed forms the reproduced papers state (Abadi et
// al. 2016 Thm 1, Upcycled-FL Thms 6.2/6.3) are named functions so audits
// can recompute a paper's figures.
//
// Every value is total: unbounded ε is +Inf with an error wrapping
// ErrInfinite that says why, numerical limits are errors wrapping
// ErrGridCap or ErrPrecision, round-off never produces NaN or a negative
// divergence. No function here reads clocks, files or random state;
// results depend only on the arguments.
//
// The documented domain, checked by property tests (props_test.go) and a
// seeded sweep (sweep_test.go): q ∈ [0, 1], σ (or the Laplace scale, the
// tree's σ) ∈ [0, 1e6], T ∈ [1, 1e12] compositions, δ ∈ (0, 1), every
// event and both relations. Each accountant answers with a number, +Inf
// (ErrInfinite) or an error saying why there is none, and never panics.
// σ = 0 gives ε = +Inf whenever δ is below the probability that the
// record is used at all (1 − (1 − q)^T); q = 0 gives ε = 0. With
// Config.WorkPoints (DefaultWorkPoints, as `fedrepro account` uses) each
// call is bounded to about a second of CPU: a PLD grid that would be
// larger is coarsened and a PRV ε error raised (both still upper bounds,
// said in Estimate.Note); when even that fails the error wraps ErrGridCap
// and Estimate.Value carries the RDP upper bound (Estimate.Fallback). No
// path returns a value below the true ε. CalibrateTightest returns the
// smallest σ over the accountants that support an event.
//
// Each accountant implements the Accountant interface (Supports /
// Compose / Epsilon / Delta, as dp_accounting's PrivacyAccountant), one
// file each (acct_*.go); Config.New builds one and Config.Account,
// AccountDelta and Supported are written once on top of it.
package accountant
