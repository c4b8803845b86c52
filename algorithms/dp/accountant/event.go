package accountant

import (
	"errors"
	"fmt"
	"math"
)

// Event describes what a private computation did, separately from how its
// privacy is accounted — the design of Google's dp_accounting. An accountant
// (RDP, PLD, PRV, zCDP, exact, pure) composes events; the same event can be
// given to any of them. The interface is sealed: only the types in this
// package implement it.
//
// Supported combinations (AR = add-remove, RO = replace-one; anything else
// returns an error wrapping ErrUnsupported that says why):
//
//	event                          RDP    PLD    PRV    zCDP   exact  pure (δ=0)
//	Gaussian, TreeAggregation      AR,RO  AR,RO  AR,RO  AR,RO  AR,RO  ∞
//	Laplace                        AR,RO  AR,RO  AR,RO  AR,RO  alone  AR,RO
//	PoissonSampled{Gaussian}       AR     AR,RO  AR,RO  —      —      ∞
//	PoissonSampled{Laplace}        AR     AR     AR     —      —      AR
//	SampledWithoutReplacement{G}   RO     —      —      —      —      ∞
//	SampledWithoutReplacement{L}   RO     —      —      —      —      RO
//	DiscreteGaussian               AR,RO  AR,RO  AR,RO  AR,RO  alone  ∞
//	DistributedDiscreteGaussian    AR,RO  —      —      AR,RO  —      ∞
//	ZCDP                           AR,RO  —      —      AR,RO  —      ∞ (ρ > 0)
//	SelfComposed, Composed         as their parts (exact: Gaussian family only)
//
// "alone" means a single event (the exact curve of a composition of
// Laplace or discrete Gaussian mechanisms has no closed form here; the PLD
// accountant composes them). Supported reports the same table as an error.
type Event interface {
	isEvent()
	String() string
}

// Gaussian is the Gaussian mechanism. Sigma is the noise multiplier: the
// noise standard deviation divided by C, the L2 bound on one record's
// contribution (the clip norm). C is the L2 sensitivity under AddRemove;
// under ReplaceOne a record's contribution can flip from +C to −C, the
// sensitivity is 2C, and the accountants therefore use Sigma/2. (Opacus and
// dp_accounting do not halve: they read Sigma as std / sensitivity under
// whichever relation is chosen. Pass 2σ to reproduce their replace-one
// numbers.) Sigma = 0 means no noise: ε = ∞.
type Gaussian struct{ Sigma float64 }

// Laplace is the Laplace mechanism: Scale is the noise scale b divided by
// the L1 bound on one record's contribution, so alone it is (1/Scale, 0)-DP
// under AddRemove. Under ReplaceOne the accountants use Scale/2, as for
// Gaussian.
type Laplace struct{ Scale float64 }

// PoissonSampled runs Event on a Poisson subsample: each record is included
// independently with probability Q. This is the sampling DP-SGD accounting
// assumes; fixed-size or shuffled batches are not Poisson (spec §E4).
type PoissonSampled struct {
	Q     float64
	Event Event
}

// SampledWithoutReplacement runs Event on a uniformly random subset of
// exactly SampleSize of PopulationSize records. Its RDP bound is Wang,
// Balle and Kasiviswanathan 2019 ("Subsampled Rényi differential privacy
// and analytical moments accountant"), which holds under ReplaceOne only:
// Theorem 27 for a Gaussian inner event (the default; see WORBound) and
// Theorem 9 for a Laplace one.
type SampledWithoutReplacement struct {
	SampleSize, PopulationSize int
	Event                      Event
}

// TreeAggregation is the tree-aggregated Gaussian mechanism of DP-FTRL
// (Kairouz, McMahan, Song, Thakkar, Thakurta and Xu 2021, "Practical and
// private (deep) learning without sampling or shuffling", App. D): every
// node of a binary tree over the steps (leaves) gets Gaussian noise of
// standard deviation Sigma·C, and a record that contributes to a leaf
// changes every node above it. Trees lists the number of leaves (steps) of
// each tree: one entry per tree, a restart starting a new tree (the
// "TreeRestart" variant restarts once per epoch, so Trees = [steps per
// epoch, ×epochs]). In each tree a record contributes to at most
// Participations leaves (0 means 1) at least MinSeparation leaves apart.
//
// The whole release is a Gaussian mechanism whose squared sensitivity is
// the sum over trees of the worst-case Σ_nodes (contributions under the
// node)²: ⌈log₂(T+1)⌉ for one participation in a tree of T leaves, and the
// dynamic program of App. D.2 for several. It is accounted exactly as
// Gaussian{Sigma/√S}. Under ReplaceOne the sensitivity doubles, as for
// Gaussian.
type TreeAggregation struct {
	Sigma          float64
	Trees          []int
	Participations int
	MinSeparation  int
}

// DiscreteGaussian is the discrete Gaussian mechanism (Canonne, Kamath and
// Steinke 2020, "The discrete Gaussian for differential privacy"): integer
// noise with P[X = x] ∝ e^{−x²/(2σ²)} added to a scalar integer query of
// sensitivity Sensitivity (≥ 1). Sigma is in the query's integer units
// (not relative to the sensitivity). Under ReplaceOne the sensitivity
// doubles. Its privacy loss is discrete, so its exact (ε, δ) is a finite
// sum (CKS Thm 7); it is (Δ²/(2σ²))-zCDP (CKS Thm 4).
type DiscreteGaussian struct {
	Sigma       float64
	Sensitivity int
}

// DistributedDiscreteGaussian is the sum of Clients independent discrete
// Gaussians N_ℤ(0, Sigma²) (one per client, combined by secure
// aggregation) added to a Dim-dimensional integer vector whose L2 and L1
// sensitivities are L2 and L1 (Kairouz, Liu and Steinke 2021, "The
// distributed discrete Gaussian mechanism for federated learning with
// secure aggregation"). L1 = 0 means the worst case √Dim·L2. The sum is
// not a discrete Gaussian; its RDP is bounded by KLS Prop. 14 (the bound
// behind their Thm 1), which is all any accountant here uses.
type DistributedDiscreteGaussian struct {
	Sigma   float64
	Clients int
	L2, L1  float64
	Dim     int
}

// ZCDP is a stated (ξ, ρ)-zero-concentrated-DP guarantee (Bun and Steinke
// 2016): D_α ≤ ξ + ρα for every α > 1. It lets a paper's zCDP claim be
// composed with other events; only the RDP and zCDP accountants can use it.
type ZCDP struct{ Rho, Xi float64 }

// SelfComposed is Count sequential runs of the same Event (e.g. the steps of
// DP-SGD). Count = 0 is a no-op.
type SelfComposed struct {
	Event Event
	Count int
}

// Composed is the sequential composition of several events.
type Composed struct{ Events []Event }

func (Gaussian) isEvent()                    {}
func (TreeAggregation) isEvent()             {}
func (DiscreteGaussian) isEvent()            {}
func (DistributedDiscreteGaussian) isEvent() {}
func (ZCDP) isEvent()                        {}
func (Laplace) isEvent()                     {}
func (PoissonSampled) isEvent()              {}
func (SampledWithoutReplacement) isEvent()   {}
func (SelfComposed) isEvent()                {}
func (Composed) isEvent()                    {}

// String describes the event for logs and error messages.
func (e Gaussian) String() string { return fmt.Sprintf("Gaussian(σ=%g)", e.Sigma) }

// String describes the event for logs and error messages.
func (e TreeAggregation) String() string {
	return fmt.Sprintf("TreeAggregation(σ=%g, trees=%v, participations=%d, separation=%d)", e.Sigma, e.Trees, max(e.Participations, 1), e.MinSeparation)
}

// String describes the event for logs and error messages.
func (e DiscreteGaussian) String() string {
	return fmt.Sprintf("DiscreteGaussian(σ=%g, Δ=%d)", e.Sigma, e.Sensitivity)
}

// String describes the event for logs and error messages.
func (e DistributedDiscreteGaussian) String() string {
	return fmt.Sprintf("DistributedDiscreteGaussian(σ=%g, n=%d, Δ₂=%g, Δ₁=%g, d=%d)", e.Sigma, e.Clients, e.L2, e.L1, e.Dim)
}

// String describes the event for logs and error messages.
func (e ZCDP) String() string { return fmt.Sprintf("zCDP(ρ=%g, ξ=%g)", e.Rho, e.Xi) }

// String describes the event for logs and error messages.
func (e Laplace) String() string { return fmt.Sprintf("Laplace(b=%g)", e.Scale) }

// String describes the event for logs and error messages.
func (e PoissonSampled) String() string {
	return fmt.Sprintf("PoissonSampled(q=%g, %v)", e.Q, e.Event)
}

// String describes the event for logs and error messages.
func (e SampledWithoutReplacement) String() string {
	return fmt.Sprintf("SampledWithoutReplacement(%d of %d, %v)", e.SampleSize, e.PopulationSize, e.Event)
}

// String describes the event for logs and error messages.
func (e SelfComposed) String() string { return fmt.Sprintf("%d×%v", e.Count, e.Event) }

// String describes the event for logs and error messages.
func (e Composed) String() string { return fmt.Sprintf("Composed%v", e.Events) }

// Neighbouring is the relation between datasets that differential privacy
// protects.
type Neighbouring int

const (
	// AddRemove: D′ is D with one record added or removed (the default; the
	// relation of Poisson-sampled DP-SGD accounting).
	AddRemove Neighbouring = iota
	// ReplaceOne: D′ is D with one record replaced by another (same size);
	// the relation sampling without replacement needs.
	ReplaceOne
)

// String returns the flag spelling: "add-remove" or "replace-one".
func (n Neighbouring) String() string {
	switch n {
	case AddRemove:
		return "add-remove"
	case ReplaceOne:
		return "replace-one"
	}
	return fmt.Sprintf("Neighbouring(%d)", int(n))
}

// ParseNeighbouring reads "add-remove" or "replace-one".
func ParseNeighbouring(s string) (Neighbouring, error) {
	switch s {
	case "add-remove":
		return AddRemove, nil
	case "replace-one":
		return ReplaceOne, nil
	}
	return 0, fmt.Errorf("unknown neighbouring relation %q (want add-remove or replace-one)", s)
}

// Conversion chooses how an RDP curve is turned into (ε, δ).
type Conversion int

const (
	// Improved is Balle et al. 2020 ("Hypothesis testing interpretations
	// and Rényi DP") Thm 21, as Opacus and dp_accounting use:
	// ε = min_α RDP(α) + log((α−1)/α) − (log δ + log α)/(α−1).
	Improved Conversion = iota
	// Classic is Mironov 2017 Prop 3: ε = min_α RDP(α) + log(1/δ)/(α−1).
	Classic
)

// String returns "improved" or "classic".
func (c Conversion) String() string {
	switch c {
	case Improved:
		return "improved"
	case Classic:
		return "classic"
	}
	return fmt.Sprintf("Conversion(%d)", int(c))
}

// ErrUnsupported is wrapped by errors for event/accountant/relation
// combinations that have no (implemented) bound.
var ErrUnsupported = errors.New("unsupported")

// ErrInfinite is wrapped by the error an accountant returns alongside
// ε = +Inf (or δ = 1): the composed events give no privacy, and the
// error's text says why (for example "σ = 0: no noise").
var ErrInfinite = errors.New("ε is infinite")

// ErrUnreachable is wrapped by Calibrate's error when no noise level meets
// the target.
var ErrUnreachable = errors.New("target unreachable")

var errNaNEps = errors.New("ε is NaN")

func errDelta(d float64) error { return fmt.Errorf("δ = %v: want 0 < δ < 1", d) }

// infinite returns an error wrapping ErrInfinite with the reason.
func infinite(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInfinite, fmt.Sprintf(format, a...))
}

func unsupported(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, a...))
}

// Validate checks the parameters of e (recursively) and returns a
// descriptive error for values no accountant can use; every accountant
// calls it first.
func Validate(e Event) error { return validate(e) }

// ErrPrecision is wrapped by errors reporting that a question lies beyond
// an accountant's numerical resolution (for example a δ so small that
// floating-point error in the PRV's sums would dominate it).
var ErrPrecision = errors.New("beyond numerical precision")

// validate checks the parameters of e (recursively) and returns a
// descriptive error for values no accountant can use.
func validate(e Event) error {
	switch e := e.(type) {
	case nil:
		return errors.New("nil event")
	case Gaussian:
		if !(e.Sigma >= 0) || math.IsInf(e.Sigma, 0) {
			return fmt.Errorf("gaussian noise multiplier σ = %v: want a finite value ≥ 0", e.Sigma)
		}
	case Laplace:
		if !(e.Scale >= 0) || math.IsInf(e.Scale, 0) {
			return fmt.Errorf("laplace scale b = %v: want a finite value ≥ 0", e.Scale)
		}
	case TreeAggregation:
		if !(e.Sigma >= 0) || math.IsInf(e.Sigma, 0) {
			return fmt.Errorf("tree aggregation noise multiplier σ = %v: want a finite value ≥ 0", e.Sigma)
		}
		if len(e.Trees) == 0 {
			return errors.New("tree aggregation needs at least one tree (Trees is empty)")
		}
		for _, t := range e.Trees {
			if t < 0 || t > maxTreeLeaves {
				return fmt.Errorf("tree aggregation: a tree of %d leaves: want 0 … %d", t, maxTreeLeaves)
			}
		}
		if e.Participations < 0 || e.Participations > maxTreeParticipations || e.MinSeparation < 0 || e.MinSeparation > maxTreeSeparation {
			return fmt.Errorf("tree aggregation: participations %d and separation %d: want 0 … %d and 0 … %d", e.Participations, e.MinSeparation, maxTreeParticipations, maxTreeSeparation)
		}
		// Each distinct tree size is searched once (treeSensitivitySq
		// memoises), so the limit is on their sum.
		work, seen := 0.0, map[int]bool{}
		for _, t := range e.Trees {
			if !seen[t] {
				seen[t] = true
				work += treeWork(t, e.Participations, e.MinSeparation)
			}
		}
		if work > maxTreeWork {
			where := fmt.Sprintf("trees of %v leaves", distinctTrees(e.Trees))
			if d := distinctTrees(e.Trees); len(d) == 1 {
				where = fmt.Sprintf("%d leaves", d[0])
			}
			return fmt.Errorf("tree aggregation: %d participations %d apart in %s is beyond the sensitivity search's limit (work %.2g > %.0g)", e.Participations, e.MinSeparation, where, work, maxTreeWork)
		}
	case DiscreteGaussian:
		if !(e.Sigma >= 0) || math.IsInf(e.Sigma, 0) {
			return fmt.Errorf("discrete Gaussian σ = %v: want a finite value ≥ 0", e.Sigma)
		}
		if e.Sensitivity < 1 || e.Sensitivity > 1<<20 {
			return fmt.Errorf("discrete Gaussian sensitivity %d: want an integer in 1 … 2^20", e.Sensitivity)
		}
	case DistributedDiscreteGaussian:
		switch {
		case !(e.Sigma >= 0) || math.IsInf(e.Sigma, 0):
			return fmt.Errorf("distributed discrete Gaussian σ = %v: want a finite value ≥ 0", e.Sigma)
		case e.Clients < 1:
			return fmt.Errorf("distributed discrete Gaussian with %d clients: want ≥ 1", e.Clients)
		case e.Dim < 1:
			return fmt.Errorf("distributed discrete Gaussian dimension %d: want ≥ 1", e.Dim)
		case !(e.L2 > 0) || math.IsInf(e.L2, 0):
			return fmt.Errorf("distributed discrete Gaussian L2 sensitivity %v: want a finite value > 0", e.L2)
		case !(e.L1 >= 0) || math.IsInf(e.L1, 0):
			return fmt.Errorf("distributed discrete Gaussian L1 sensitivity %v: want a finite value ≥ 0 (0: √d·L2)", e.L1)
		}
	case ZCDP:
		if !(e.Rho >= 0) || math.IsInf(e.Rho, 0) || !(e.Xi >= 0) || math.IsInf(e.Xi, 0) {
			return fmt.Errorf("zCDP ρ = %v, ξ = %v: want finite values ≥ 0", e.Rho, e.Xi)
		}
	case PoissonSampled:
		if !(e.Q >= 0 && e.Q <= 1) {
			return fmt.Errorf("sampling probability q = %v: want 0 ≤ q ≤ 1", e.Q)
		}
		return validate(e.Event)
	case SampledWithoutReplacement:
		if e.PopulationSize < 1 || e.SampleSize < 0 || e.SampleSize > e.PopulationSize {
			return fmt.Errorf("sample of %d out of %d: want 0 ≤ sample ≤ population, population ≥ 1", e.SampleSize, e.PopulationSize)
		}
		return validate(e.Event)
	case SelfComposed:
		if e.Count < 0 {
			return fmt.Errorf("composition count %d: want ≥ 0", e.Count)
		}
		return validate(e.Event)
	case Composed:
		for _, x := range e.Events {
			if err := validate(x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown event %T", e)
	}
	return nil
}
