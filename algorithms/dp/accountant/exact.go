package accountant

import (
	"fmt"
	"math"
)

// Exact privacy curves where a closed form or finite sum exists: any
// composition of Gaussian mechanisms (including tree aggregation and
// q = 1 sampling) is a Gaussian mechanism with μ = √(Σ_i 1/σ_i²) (GDP,
// Dong, Roth and Su 2022, Cor 3.3), a single Laplace mechanism has
// δ(ε) = 1 − e^{(ε − 1/b)/2} for ε ≤ 1/b (0 above), and a single discrete
// Gaussian is the finite sum of DiscreteGaussianDelta. Anything else has
// no exact curve here (ErrUnsupported with the reason).

// exactCurve describes the exact curve of an event, if any.
type exactCurve struct {
	kind  int // 0 Gaussian (μ), 1 Laplace (b), 2 discrete Gaussian
	mu, b float64
	sigma float64
	sens  int
}

func exactOf(e Event, nb Neighbouring) (exactCurve, error) {
	if err := validate(e); err != nil {
		return exactCurve{}, err
	}
	leaves, err := flatten(e)
	if err != nil {
		return exactCurve{}, err
	}
	mu2 := 0.0
	var other []leafCount
	for _, lf := range leaves {
		s, ok := gaussianSigmaOf(lf.event)
		switch {
		case !ok:
			other = append(other, lf)
		case math.IsInf(s, 1): // no privacy loss at all
		case s == 0:
			mu2 = math.Inf(1)
		default:
			s = effSigma(s, nb)
			mu2 += float64(lf.count) / (s * s)
		}
	}
	if len(other) == 0 {
		return exactCurve{kind: 0, mu: math.Sqrt(mu2)}, nil
	}
	if len(other) == 1 && other[0].count == 1 && mu2 == 0 {
		switch x := other[0].event.(type) {
		case Laplace:
			b := x.Scale
			if nb == ReplaceOne {
				b /= 2
			}
			return exactCurve{kind: 1, b: b}, nil
		case DiscreteGaussian:
			d := x.Sensitivity
			if nb == ReplaceOne {
				d *= 2
			}
			return exactCurve{kind: 2, sigma: x.Sigma, sens: d}, nil
		}
	}
	return exactCurve{}, unsupported("no exact privacy curve for %v (exact curves exist for compositions of Gaussian mechanisms, one Laplace or one discrete Gaussian mechanism)", e)
}

// gaussianSigmaOf returns the noise multiplier of a leaf that is a
// Gaussian mechanism (relative to the add-remove sensitivity); +Inf for
// a leaf that releases nothing about the data.
func gaussianSigmaOf(e Event) (float64, bool) {
	switch e := e.(type) {
	case Gaussian:
		return e.Sigma, true
	case TreeAggregation:
		return treeGaussianSigma(e), true
	case PoissonSampled:
		if e.Q == 0 {
			return math.Inf(1), true
		}
		if e.Q == 1 {
			return gaussianSigmaOf(e.Event)
		}
	case SampledWithoutReplacement:
		if e.SampleSize == 0 {
			return math.Inf(1), true
		}
	}
	return 0, false
}

// ExactEpsilon returns the exact ε at δ of e under nb where one exists.
func ExactEpsilon(e Event, delta float64, nb Neighbouring) (float64, error) {
	if !(delta > 0 && delta < 1) {
		return 0, errDelta(delta)
	}
	c, err := exactOf(e, nb)
	if err != nil {
		return 0, err
	}
	switch c.kind {
	case 0:
		if math.IsInf(c.mu, 1) {
			return math.Inf(1), infinite("σ = 0: no noise")
		}
		return GDPEpsilon(c.mu, delta)
	case 1:
		if c.b == 0 {
			return math.Inf(1), infinite("Laplace scale 0: no noise")
		}
		return math.Max(0, 1/c.b+2*math.Log1p(-delta)), nil
	}
	return DiscreteGaussianEpsilon(c.sigma, c.sens, delta)
}

// ExactDelta returns the exact δ at ε of e under nb where one exists.
func ExactDelta(e Event, eps float64, nb Neighbouring) (float64, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("ε = %v: want a finite value ≥ 0", eps)
	}
	c, err := exactOf(e, nb)
	if err != nil {
		return 0, err
	}
	switch c.kind {
	case 0:
		return GDPDelta(c.mu, eps)
	case 1:
		if c.b == 0 {
			return 1, nil
		}
		return math.Max(0, -math.Expm1((eps-1/c.b)/2)), nil
	}
	return DiscreteGaussianDelta(c.sigma, c.sens, eps)
}
