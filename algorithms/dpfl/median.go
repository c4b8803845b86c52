package dpfl

import (
	"errors"
	"slices"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// The paper fixes C as "the median clipping norm … calculated only during
// the initial rounds of training using a public proxy dataset" (§6.1). The
// helpers below compute that median at the initial model on a public split
// that no client holds, in the clipping domain of the mechanism that will
// use it (the norm it clips).

// median returns the median of xs (the mean of the middle two for an even
// count); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// MedianExampleNorm returns the median over the examples of public of the
// per-example gradient norm at p, measured by mech.Norm: the DP-SGD clip
// bound C of the paper's median rule.
func MedianExampleNorm(m PerExample, p []float64, public *data.Dataset, mech Mechanism) (float64, error) {
	if public == nil || public.N == 0 {
		return 0, errors.New("dpfl: median clip needs a non-empty public set")
	}
	np := len(p)
	const chunk = 256
	g := make([]float64, chunk*np)
	norms := make([]float64, 0, public.N)
	for s := 0; s < public.N; s += chunk {
		k := min(chunk, public.N-s)
		b := model.Batch{X: public.X[s*public.D : (s+k)*public.D], Y: public.Y[s : s+k], N: k, D: public.D}
		m.PerExampleGrads(p, b, g[:k*np], nil, nil)
		for j := 0; j < k; j++ {
			norms = append(norms, mech.Norm(g[j*np:(j+1)*np]))
		}
	}
	return median(norms), nil
}

// MedianUpdateNorm returns the median, over pseudo-clients holding the
// public parts, of the norm (mech.Norm) of the update one round of the
// local training local makes from init: the DP-FedAvg clip bound C of the
// paper's median rule. key names the local training's streams.
func MedianUpdateNorm(m model.Differentiable, parts []*data.Dataset, local fl.LocalConfig, key rng.Key, init []float64, mech Mechanism) (float64, error) {
	if len(parts) == 0 {
		return 0, errors.New("dpfl: median update clip needs public parts")
	}
	var norms []float64
	delta := make([]float64, len(init))
	hooks := fl.Hooks{AfterLocal: func(c *fl.Client, params []float64) {
		for i, v := range params {
			delta[i] = v - c.Global[i]
		}
		norms = append(norms, mech.Norm(delta))
	}}
	e, err := fl.New(m, parts, &fl.FedAvg{}, fl.Config{Sampling: fl.Uniform, Frac: 1, Local: local}, key, init, hooks)
	if err != nil {
		return 0, err
	}
	e.TrainRound()
	return median(norms), nil
}
