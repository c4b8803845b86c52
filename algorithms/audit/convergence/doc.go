// Package convergence audits published convergence bounds of federated and
// first-order optimisation methods by execution: a claim file
// (fedrepro-convergence/1, claims/convergence/README.md) names a method from
// the registry (gradient descent, local SGD, FedAvg, FedProx, SCAFFOLD,
// FedDyn, FedAvgM, Upcycled-FL, Fed-α-NormEC with local GD or cyclic IG
// steps, DP-SGD), the problem class of
// the theorem (L-smooth; μ-strongly convex, convex or non-convex;
// heterogeneity; gradient-noise variance σ²), the constraints on the
// parameters, the quantity bounded and the bound as an expr formula in the
// paper's symbols. Audit searches instances of the class for one where the
// measured quantity exceeds the bound.
//
// Every method is written once, in oracle form: a step maps the method's
// state (server model, client models, control variates, …) to the next,
// calling client gradient oracles g_i(x) = ∇f_i(x) + (σ_i/√d)·z with
// z ~ N(0, I_d) drawn from a noise tape. On quadratic clients with no
// clipping or normalisation the step is affine in (state, z) for each
// outcome of client sampling, so the engine recovers the affine map by
// evaluating the step at basis vectors (exact: the map is affine), checks
// affinity at a random point, and propagates the mean and second moment of
// the state exactly, averaging over every sampling outcome:
//
//	m' = Σ_S p_S (A_S m + c_S)
//	M' = Σ_S p_S (A_S M A_Sᵀ + A_S m c_Sᵀ + c_S mᵀ A_Sᵀ + c_S c_Sᵀ + B_S B_Sᵀ),
//
// from which E f(x) = f(E x) + ½ tr(A Cov x), E‖x − x*‖² and E‖∇f(x)‖² are
// exact. Non-quadratic families (Huber — the shape of gradient descent's
// tight worst case on smooth convex functions, Drori and Teboulle 2014 —,
// logistic regression, piecewise quadratics, a non-convex cosine family)
// run one trajectory when the method is deterministic, and Monte-Carlo
// replicates with a 99.9% confidence interval otherwise; a violation is
// declared only when the whole interval lies above the bound.
//
// Every generated instance is certified against the class before it is
// used (Instance.Certify: smoothness and strong convexity from eigenvalues
// or certified upper/lower bounds, σ², heterogeneity), so a counterexample
// is always a member of the theorem's class.
package convergence
