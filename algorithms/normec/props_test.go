package normec

// Property tests (issue 12, item 6) with gopter: random inputs drawn from
// ranges (not fixed lists) and shrinking to a minimal counterexample on
// failure. The generators produce exponents and unit-range raw values; the
// property maps them to α = 10^a, vectors scaled by 10^s and so on, so that
// gopter shrinks the exponents themselves.

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/quad"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

func propParams(t *testing.T, n int) *gopter.Properties {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(testSeed)
	p.MinSuccessfulTests = n
	return gopter.NewProperties(p)
}

// plainNorm is ‖v‖₂ by the textbook formula with scaling against overflow.
func plainNorm(v []float64) float64 {
	var mx float64
	for _, x := range v {
		mx = math.Max(mx, math.Abs(x))
	}
	if mx == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += (x / mx) * (x / mx)
	}
	return mx * math.Sqrt(s)
}

// TestPropNormBoundedByOne: for any α ≥ 0 (α = 0 or 10^a, a ∈ [−12, 6])
// and any vector (1–40 coordinates in [−1, 1] scaled by 10^s,
// s ∈ [−300, 300]), ‖Norm_α(v)‖ ≤ 1 — the message bound that is the DP
// sensitivity of Fed-α-NormEC. The closed form n/(α+n) is ≤ 1 exactly in
// floating point (a quotient of n by a number ≥ n); the vector itself may
// exceed it by the rounding of the norm computation, which we bound by
// 8 ulp-sized relative errors (≤ 2e-15). The property also checks that
// Norm_α keeps the direction and that NormTo agrees with Norm.
func TestPropNormBoundedByOne(t *testing.T) {
	props := propParams(t, 500)
	props.Property("‖Norm_α(v)‖ ≤ 1", prop.ForAll(
		func(zeroAlpha bool, a, s float64, raw []float64) string {
			alpha := 0.0
			if !zeroAlpha {
				alpha = math.Pow(10, a)
			}
			scale := math.Pow(10, s)
			v := make([]float64, len(raw))
			for j, r := range raw {
				v[j] = scale * r
			}
			n := plainNorm(v)
			if bound := NormOfNorm(alpha, n); !(bound <= 1) {
				return "closed form n/(α+n) above 1"
			}
			out := append([]float64(nil), v...)
			if got := Norm(alpha, out); !(math.Abs(got-n) <= 1e-14*n) {
				return "Norm returned a wrong ‖v‖"
			}
			on := plainNorm(out)
			if on > 1+2e-15 {
				return "‖Norm_α(v)‖ above 1"
			}
			if want := n / (alpha + n); n > 0 && !(math.Abs(on-want) <= 1e-14) {
				return "‖Norm_α(v)‖ differs from ‖v‖/(α+‖v‖)"
			}
			if n == 0 && on != 0 {
				return "Norm_α(0) ≠ 0"
			}
			for j := range v {
				// Same direction: out_j = v_j/(α+n), so v_j·out_j ≥ 0.
				if v[j]*out[j] < 0 {
					return "direction changed"
				}
			}
			dst := make([]float64, len(v))
			NormTo(dst, alpha, v)
			for j := range dst {
				if dst[j] != out[j] {
					return "NormTo differs from Norm"
				}
			}
			return ""
		},
		gen.Bool(), gen.Float64Range(-12, 6), gen.Float64Range(-300, 300),
		gen.IntRange(1, 40).FlatMap(func(n any) gopter.Gen {
			return gen.SliceOfN(n.(int), gen.Float64Range(-1, 1))
		}, nil)))
	props.TestingRun(t)
}

// TestPropEFStepBound is the scalar core of Lemma 1: after an
// error-feedback step the residual is g(t) = ‖u − βNorm_α(u)‖ =
// |1 − β/(α+t)|·t for ‖u‖ = t (EFResidual). The lemma needs
// g(t) ≤ (1 − β/(α+C))·C for every t ∈ [0, C] when β/(α+C) < 1, which
// holds when β ≤ α (g is then non-decreasing on [0, C]) — the condition the
// harness found missing. For β > α the exact supremum over [0, C] is
// max(g(C), (√β − √α)²) when the overshoot maximiser t* = √(αβ) − α lies in
// [0, C] (our derivation: on t < β − α, g(t) = βt/(α+t) − t, whose
// derivative αβ/(α+t)² − 1 vanishes at t*). Both statements are checked over
// random α, β, C, t; the second is also checked to be attained at t*.
func TestPropEFStepBound(t *testing.T) {
	props := propParams(t, 1000)
	props.Property("β ≤ α: g(t) ≤ (1 − β/(α+C))C on [0, C]", prop.ForAll(
		func(la, frac, lc, ut float64) string {
			alpha := math.Pow(10, la)
			beta := frac * alpha
			c := math.Pow(10, lc)
			if !(beta/(alpha+c) < 1) {
				return "" // outside the lemma's hypothesis (cannot happen: β ≤ α)
			}
			tt := ut * c
			g := EFResidual(alpha, beta, tt)
			if want := math.Abs(1-beta/(alpha+tt)) * tt; !(math.Abs(g-want) <= 1e-14*math.Max(1, want)) {
				return "EFResidual differs from |1 − β/(α+t)|·t"
			}
			if bound := (1 - beta/(alpha+c)) * c; g > bound*(1+1e-12)+1e-300 {
				return "residual above the lemma's bound"
			}
			return ""
		},
		gen.Float64Range(-4, 2), gen.Float64Range(1e-6, 1), gen.Float64Range(-4, 2), gen.Float64Range(0, 1)))
	props.Property("β > α: sup over [0, C] is max(g(C), (√β−√α)²)", prop.ForAll(
		func(la, lr, lc, ut float64) string {
			alpha := math.Pow(10, la)
			beta := alpha * math.Pow(10, lr) // β > α
			c := math.Pow(10, lc)
			if !(beta/(alpha+c) < 1) {
				return ""
			}
			gc := math.Abs(1-beta/(alpha+c)) * c
			sup := gc
			ts := math.Sqrt(alpha*beta) - alpha
			if ts >= 0 && ts <= c {
				over := (math.Sqrt(beta) - math.Sqrt(alpha)) * (math.Sqrt(beta) - math.Sqrt(alpha))
				sup = math.Max(sup, over)
				if g := EFResidual(alpha, beta, ts); !(math.Abs(g-over) <= 1e-12*math.Max(over, 1e-300)) {
					return "overshoot maximum not attained at t* = √(αβ) − α"
				}
			}
			if g := EFResidual(alpha, beta, ut*c); g > sup*(1+1e-12) {
				return "residual above the exact supremum"
			}
			return ""
		},
		gen.Float64Range(-4, 1), gen.Float64Range(1e-3, 3), gen.Float64Range(-4, 2), gen.Float64Range(0, 1)))
	props.TestingRun(t)

	// The bound (1 − β/(α+C))C really fails for β > α: the experiments'
	// α = 0.01, β = 0.1 with C = 0.1 (β/(α+C) = 10/11 < 1) give
	// g(t*) = (√0.1 − 0.1)² ≈ 0.046754 > (1 − 10/11)·0.1 ≈ 0.0090909.
	alpha, beta, c := 0.01, 0.1, 0.1
	ts := math.Sqrt(alpha*beta) - alpha
	if g, bound := EFResidual(alpha, beta, ts), (1-beta/(alpha+c))*c; !(g > bound) {
		t.Errorf("β > α counterexample vanished: g(t*) = %v ≤ %v", g, bound)
	}
}

// TestPropEFTrajectoryBound is Theorem 1's first step (Lemma 1 with C = R,
// ρ = 2, by induction) checked on random trajectories of the real
// Algorithm: for random quadratic clients with |eigenvalues| ≤ L (convex
// or not), T ∈ {1, 2, 3} local GD steps of total size γ ≤ 1/(2L),
// α > 0, β ≤ α (the condition the harness found), R > 0, v_i^0 at
// distance exactly R from P_i(x^0) in a random direction, a normalized
// server step with η ≤ γβR/((1+ρ)(α+R)), and any participation p and
// noise σ (the memories carry no noise, so the bound is pathwise), every
// round k and client i satisfy
//
//	‖P_i(x^k) − v_i^k‖ ≤ R   and   ‖P_i(x^k) − v_i^{k+1}‖ ≤ R,
//
// and every server step has length η. (The Lipschitz constant of the
// operator is (1+γL/T)^T ≤ e^{1/2} < ρ = 2 here, and
// ‖P_i(x) − P_i(y)‖ ≤ (1+ρ)/γ·‖x − y‖.)
func TestPropEFTrajectoryBound(t *testing.T) {
	props := propParams(t, 60)
	props.Property("‖v_i − P_i‖ ≤ R along the trajectory", prop.ForAll(
		func(seed uint64, m, d, steps int, la, frac, lr, p, sigma, ug, ue, minEig float64) string {
			const L = 2.0
			fed, err := quad.Random(rng.Stream(seed, "prop-quad"), quad.Spec{Clients: m, Dim: d, MinEig: minEig, MaxEig: L, Spread: 1})
			if err != nil {
				return err.Error()
			}
			objs := make([]Objective, m)
			for i, q := range fed.Clients {
				objs[i] = &ModelObjective{Model: q}
			}
			alpha := math.Pow(10, la)
			beta := frac * alpha
			r := math.Pow(10, lr)
			gamma := ug / (2 * L)
			const rho = 2.0
			eta := ue * gamma * beta * r / ((1 + rho) * (alpha + r))
			cfg := Config{Alpha: alpha, Beta: beta, Gamma: gamma, Eta: eta, P: p, Sigma: sigma,
				Local: Local{Kind: GDSteps, Steps: steps},
				Init:  Init{Kind: InitOffset, R: r, Direction: RandomDirection}}
			x0 := make([]float64, d)
			rng.FillNormal(rng.Stream(seed, "prop-x0"), x0, 2)
			a, err := New(cfg, objs, x0, rng.New(seed, "prop-alg"))
			if err != nil {
				return err.Error()
			}
			if !(math.Abs(a.InitialR()-r) <= 1e-12*r) {
				return "initial offsets not at distance R"
			}
			tol := r * (1 + 1e-9)
			diff := make([]float64, d)
			for range 40 {
				st := a.Step()
				if !st.Skipped && !(math.Abs(st.StepNorm-eta) <= 1e-9*eta) {
					return "server step length differs from η"
				}
				for i := range m {
					if a.Residual(i) > tol {
						return "‖P_i(x^k) − v_i^k‖ > R"
					}
					for j := range diff {
						diff[j] = a.Pseudo(i)[j] - a.V(i)[j]
					}
					if plainNorm(diff) > tol {
						return "‖P_i(x^k) − v_i^{k+1}‖ > R"
					}
					if plainNorm(a.Delta(i)) > 1 {
						return "‖Δ_i‖ > 1"
					}
				}
			}
			return ""
		},
		gen.UInt64(), gen.IntRange(1, 5), gen.IntRange(1, 4), gen.IntRange(1, 3),
		gen.Float64Range(-3, 0.5), gen.Float64Range(1e-3, 1), gen.Float64Range(-2, 0.5),
		gen.Float64Range(0.05, 1), gen.Float64Range(0, 2), gen.Float64Range(0.1, 1), gen.Float64Range(0.05, 1),
		gen.Float64Range(-2, 1.5)))
	props.TestingRun(t)
}
