package accountant

import (
	"fmt"
	"math"
)

// leafCount is a leaf event (neither SelfComposed nor Composed) and how
// many times it runs.
type leafCount struct {
	event Event
	count int
}

// maxCount bounds the total number of runs of one leaf.
const maxCount = 1 << 62

// flatten expands SelfComposed and Composed into leaves with their total
// counts, merging equal leaves (composition is commutative), in order of
// first appearance. Leaves run zero times are dropped.
func flatten(e Event) ([]leafCount, error) {
	var out []leafCount
	index := map[string]int{}
	var walk func(e Event, mult int) error
	walk = func(e Event, mult int) error {
		switch e := e.(type) {
		case SelfComposed:
			if float64(mult)*float64(e.Count) > maxCount {
				return fmt.Errorf("%w: %d × %d compositions overflow the count", ErrUnsupported, mult, e.Count)
			}
			if e.Count == 0 {
				return nil
			}
			return walk(e.Event, mult*e.Count)
		case Composed:
			for _, x := range e.Events {
				if err := walk(x, mult); err != nil {
					return err
				}
			}
			return nil
		}
		key := e.String()
		if i, ok := index[key]; ok {
			if float64(out[i].count)+float64(mult) > maxCount {
				return fmt.Errorf("%w: %d + %d compositions overflow the count", ErrUnsupported, out[i].count, mult)
			}
			out[i].count += mult
			return nil
		}
		index[key] = len(out)
		out = append(out, leafCount{e, mult})
		return nil
	}
	if err := walk(e, 1); err != nil {
		return nil, err
	}
	return out, nil
}

// leafLoss returns the privacy-loss distributions of a leaf event for the
// two directions of nb (add, remove), whether they coincide, and a reason
// when the event gives no privacy. acct names the accountant in errors.
// maxLoss is the largest loss the caller's grid can hold: a Gaussian-type
// event whose losses are centred far beyond it (σ so small that 1/(2σ²)
// > maxLoss) is replaced by its noiseless limit, which is less private
// (the noise is post-processing of the noiseless output) and therefore
// still an upper bound; its unbounded losses are then marked as truncated.
func leafLoss(e Event, nb Neighbouring, acct string, maxLoss float64) (d [2]lossDist, symmetric bool, reason string, err error) {
	both := func(l lossDist) ([2]lossDist, bool, string, error) { return [2]lossDist{l, l}, true, "", nil }
	noNoise := func(why string) ([2]lossDist, bool, string, error) {
		l := atomLoss(0, 1)
		return [2]lossDist{l, l}, true, why, nil
	}
	tooSmall := func(sigma float64) bool { return 1/(2*sigma*sigma) > maxLoss }
	truncated := func(l lossDist) lossDist { l.trunc = l.inf; return l }
	switch e := e.(type) {
	case Gaussian:
		s := effSigma(e.Sigma, nb)
		if s == 0 {
			return noNoise("σ = 0: no noise")
		}
		if tooSmall(s) {
			return both(truncated(atomLoss(0, 1)))
		}
		return both(gaussianLoss(s))
	case TreeAggregation:
		s := treeGaussianSigma(e)
		if math.IsInf(s, 1) {
			return both(atomLoss(0, 0))
		}
		return leafLoss(Gaussian{Sigma: s}, nb, acct, maxLoss)
	case Laplace:
		b := e.Scale
		if nb == ReplaceOne {
			b /= 2
		}
		if b == 0 {
			return noNoise("Laplace scale 0: no noise")
		}
		return both(laplaceLoss(b))
	case PoissonSampled:
		switch in := e.Event.(type) {
		case Gaussian:
			switch {
			case e.Q == 0:
				return both(atomLoss(0, 0))
			case e.Q == 1:
				return leafLoss(in, nb, acct, maxLoss)
			}
			if nb == ReplaceOne {
				if in.Sigma == 0 || tooSmall(in.Sigma) {
					// Outputs ±1 with probability q each side, 0 otherwise.
					l := atomLoss(0, e.Q)
					if in.Sigma == 0 {
						return [2]lossDist{l, l}, true, "σ = 0: no noise", nil
					}
					return both(truncated(l))
				}
				return both(substitutionGaussian(e.Q, in.Sigma))
			}
			if in.Sigma == 0 || tooSmall(in.Sigma) {
				// P = (1−q)δ₀ + qδ₁ against δ₀: atoms at log(1−q) and +∞.
				add, rem := atomLoss(math.Log1p(-e.Q), e.Q), atomLoss(-math.Log1p(-e.Q), 0)
				if in.Sigma == 0 {
					return [2]lossDist{add, rem}, false, "σ = 0: no noise", nil
				}
				return [2]lossDist{truncated(add), rem}, false, "", nil
			}
			return [2]lossDist{poissonGaussianAdd(e.Q, in.Sigma), poissonGaussianRemove(e.Q, in.Sigma)}, false, "", nil
		case Laplace:
			switch {
			case e.Q == 0:
				return both(atomLoss(0, 0))
			case e.Q == 1:
				return leafLoss(in, nb, acct, maxLoss)
			case nb == ReplaceOne:
				return d, false, "", unsupported("the %s accountant has no replace-one (substitution) pair for the Poisson-sampled Laplace mechanism; use add-remove", acct)
			case in.Scale == 0:
				add, rem := atomLoss(math.Log1p(-e.Q), e.Q), atomLoss(-math.Log1p(-e.Q), 0)
				return [2]lossDist{add, rem}, false, "Laplace scale 0: no noise", nil
			}
			return [2]lossDist{poissonLaplaceAdd(e.Q, in.Scale), poissonLaplaceRemove(e.Q, in.Scale)}, false, "", nil
		}
		return d, false, "", unsupported("the %s accountant handles Poisson sampling of a Gaussian or Laplace event, not %v", acct, e.Event)
	case SampledWithoutReplacement:
		return d, false, "", unsupported("the %s accountant has no bound for sampling without replacement (use the RDP accountant)", acct)
	case DiscreteGaussian:
		sens := e.Sensitivity
		if nb == ReplaceOne {
			sens *= 2
		}
		switch {
		case e.Sigma == 0:
			return noNoise("σ = 0: no noise")
		case e.Sigma > maxDiscreteSigma:
			return d, false, "", unsupported("discrete Gaussian σ = %g is beyond the tabulated range (≤ %g)", e.Sigma, maxDiscreteSigma)
		}
		return both(discreteGaussianLoss(e.Sigma, sens))
	case DistributedDiscreteGaussian:
		return d, false, "", unsupported("the %s accountant has no privacy-loss distribution for the distributed discrete Gaussian (only the RDP/zCDP bound of Kairouz–Liu–Steinke is known); use the RDP or zCDP accountant", acct)
	case ZCDP:
		return d, false, "", unsupported("a zCDP guarantee does not determine a privacy-loss distribution; use the RDP or zCDP accountant")
	}
	return d, false, "", fmt.Errorf("unknown event %T", e)
}
