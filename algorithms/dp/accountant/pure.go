package accountant

import (
	"fmt"
	"math"
)

// PureEpsilon returns the ε for which e is (ε, 0)-DP under nb: the sum
// over compositions (pure DP composes additively) of each event's ε.
// The Laplace mechanism of scale b is (1/b)-DP (2/b under replace-one);
// Poisson sampling with probability q of an ε-DP mechanism is
// log(1 + q(e^ε − 1))-DP under add-remove, and sampling m of n without
// replacement is log(1 + (m/n)(e^ε − 1))-DP under replace-one (Balle,
// Barthe and Gaboardi 2018, "Privacy amplification by subsampling").
// Mechanisms with unbounded privacy loss — Gaussian, tree aggregation,
// discrete Gaussian, any positive zCDP guarantee — have no pure-DP
// guarantee: ε = +Inf with an error wrapping ErrInfinite that says so.
func PureEpsilon(e Event, nb Neighbouring) (float64, error) {
	if err := validate(e); err != nil {
		return 0, err
	}
	leaves, err := flatten(e)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, lf := range leaves {
		v, err := leafPure(lf.event, nb)
		if err != nil {
			return v, err
		}
		total += float64(lf.count) * v
	}
	return total, nil
}

func leafPure(e Event, nb Neighbouring) (float64, error) {
	unbounded := func(what string) (float64, error) {
		return math.Inf(1), infinite("%s has no pure-DP guarantee (δ = 0 needs a bounded privacy loss; its loss is unbounded)", what)
	}
	switch e := e.(type) {
	case Gaussian:
		return unbounded("the Gaussian mechanism")
	case TreeAggregation:
		if math.IsInf(treeGaussianSigma(e), 1) {
			return 0, nil
		}
		return unbounded("tree aggregation (a Gaussian mechanism)")
	case DiscreteGaussian:
		return unbounded("the discrete Gaussian mechanism")
	case DistributedDiscreteGaussian:
		return unbounded("the distributed discrete Gaussian mechanism")
	case ZCDP:
		if e.Rho == 0 && e.Xi == 0 {
			return 0, nil
		}
		return unbounded("a zCDP guarantee with ρ > 0 or ξ > 0")
	case Laplace:
		b := e.Scale
		if nb == ReplaceOne {
			b /= 2
		}
		if b == 0 {
			return math.Inf(1), infinite("Laplace scale 0: no noise")
		}
		return 1 / b, nil
	case PoissonSampled:
		if e.Q == 0 {
			return 0, nil
		}
		if e.Q == 1 {
			return leafPure(e.Event, nb)
		}
		inner, err := leafPure(e.Event, nb)
		if err != nil {
			return inner, err // an unbounded loss stays unbounded when sampled
		}
		if nb != AddRemove {
			return 0, unsupported("pure-DP amplification by Poisson sampling is stated for add-remove neighbouring")
		}
		return poissonLaplacePure(e.Q, inner), nil
	case SampledWithoutReplacement:
		if e.SampleSize == 0 {
			return 0, nil
		}
		inner, err := leafPure(e.Event, nb)
		if err != nil {
			return inner, err
		}
		if nb != ReplaceOne {
			return 0, unsupported("amplification by sampling without replacement holds under replace-one neighbouring")
		}
		gamma := float64(e.SampleSize) / float64(e.PopulationSize)
		return logMix(gamma, inner), nil
	}
	return 0, fmt.Errorf("unknown event %T", e)
}
