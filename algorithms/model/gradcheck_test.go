package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// gradCase is a random model, parameters and batch drawn from a seed.
type gradCase struct {
	m       Model
	p       []float64
	b       Batch
	dropout bool // r streams drive dropout
	seed    uint64
}

func (c gradCase) String() string {
	return fmt.Sprintf("%T classes=%d in=%d n=%d dropout=%v seed=%d", c.m, c.m.Classes(), c.m.InputDim(), c.b.N, c.dropout, c.seed)
}

// r returns a fresh stream for the model's stochastic parts: equal for
// every call, so the dropout mask is fixed across evaluations.
func (c gradCase) r() *rand.Rand {
	if !c.dropout {
		return nil
	}
	return stream(c.seed, "dropout")
}

type caseMaker func(seed uint64, loss Loss) gradCase

func logRegCase(seed uint64, loss Loss) gradCase {
	r := stream(seed, "case")
	d, k, n := 1+r.IntN(6), 2+r.IntN(4), 1+r.IntN(5)
	m := NewLogReg(d, k, loss)
	return gradCase{m: m, p: randomParams(r, m.NumParams(), 0.7), b: randomBatch(r, n, d, k), seed: seed}
}

func mlpCase(dropout bool) caseMaker {
	return func(seed uint64, loss Loss) gradCase {
		r := stream(seed, "case")
		sizes := []int{1 + r.IntN(5)}
		for range 1 + r.IntN(2) {
			sizes = append(sizes, 1+r.IntN(6))
		}
		sizes = append(sizes, 2+r.IntN(4))
		p := 0.0
		if dropout {
			p = 0.2 + 0.5*r.Float64()
		}
		m := NewMLP(sizes, p, loss)
		n := 1 + r.IntN(5)
		return gradCase{m: m, p: randomParams(r, m.NumParams(), 0.8), b: randomBatch(r, n, sizes[0], sizes[len(sizes)-1]), dropout: dropout, seed: seed}
	}
}

var gradModels = []struct {
	name string
	make caseMaker
}{
	{"logreg", logRegCase},
	{"mlp", mlpCase(false)},
	{"mlp-dropout", mlpCase(true)},
}

var losses = []Loss{CrossEntropy, DoubleSoftmax}

// Finite differences of a ReLU network are off near a kink; at the drawn
// scales and step 1e-5 this is rare, and a failure prints the case.
const fdAtol, fdRtol = 1e-6, 1e-4

func TestLossGradMatchesFiniteDifferences(t *testing.T) {
	for _, gm := range gradModels {
		for _, loss := range losses {
			t.Run(gm.name+"/"+loss.String(), func(t *testing.T) {
				props := properties(t)
				props.Property("analytic = central differences", prop.ForAll(func(seed uint64) (bool, error) {
					c := gm.make(seed, loss)
					grad := make([]float64, c.m.NumParams())
					lo := c.m.LossGrad(c.p, c.b, grad, c.r())
					num := fdGrad(func(q []float64) float64 { return c.m.LossGrad(q, c.b, nil, c.r()) }, c.p)
					if ok, msg := closeVec(grad, num, fdAtol, fdRtol); !ok {
						return false, fmt.Errorf("%v: %s", c, msg)
					}
					if again := c.m.LossGrad(c.p, c.b, nil, c.r()); !closeTo(again, lo, 1e-13) {
						return false, fmt.Errorf("%v: loss %g with gradient, %g without", c, lo, again)
					}
					return true, nil
				}, gen.UInt64()))
				props.TestingRun(t)
			})
		}
	}
}

func TestPerExampleGrads(t *testing.T) {
	for _, gm := range gradModels {
		for _, loss := range losses {
			t.Run(gm.name+"/"+loss.String(), func(t *testing.T) {
				props := properties(t)
				props.Property("per-example gradients and losses", prop.ForAll(func(seed uint64) (bool, error) {
					c := gm.make(seed, loss)
					np, n := c.m.NumParams(), c.b.N
					g := make([]float64, n*np)
					for i := range g {
						g[i] = 123 // must be overwritten
					}
					ls := make([]float64, n)
					c.m.PerExampleGrads(c.p, c.b, g, ls, c.r())

					// Their mean is the batch gradient, their losses average to the batch loss.
					grad := make([]float64, np)
					lo := c.m.LossGrad(c.p, c.b, grad, c.r())
					mean := make([]float64, np)
					var lsum float64
					for i := range n {
						for j := range np {
							mean[j] += g[i*np+j] / float64(n)
						}
						lsum += ls[i]
					}
					if ok, msg := closeVec(mean, grad, 1e-12, 1e-10); !ok {
						return false, fmt.Errorf("%v: mean of per-example gradients vs LossGrad: %s", c, msg)
					}
					if !closeTo(lsum/float64(n), lo, 1e-12) {
						return false, fmt.Errorf("%v: mean per-example loss %g, batch loss %g", c, lsum/float64(n), lo)
					}

					if !c.dropout {
						// Each one is the finite-difference gradient of its own example.
						for i := range n {
							bi := single(c.b, i)
							num := fdGrad(func(q []float64) float64 { return c.m.LossGrad(q, bi, nil, nil) }, c.p)
							if ok, msg := closeVec(g[i*np:(i+1)*np], num, fdAtol, fdRtol); !ok {
								return false, fmt.Errorf("%v: example %d: %s", c, i, msg)
							}
						}
						return true, nil
					}
					// With dropout the mask depends on the batch position, so check
					// a random projection: ∇ Σ_i w_i loss_i = Σ_i w_i g_i, with the
					// losses from PerExampleGrads under the same stream.
					w := randomParams(stream(seed, "weights"), n, 1)
					proj := make([]float64, np)
					for i := range n {
						for j := range np {
							proj[j] += w[i] * g[i*np+j]
						}
					}
					scratch, sl := make([]float64, n*np), make([]float64, n)
					num := fdGrad(func(q []float64) float64 {
						c.m.PerExampleGrads(q, c.b, scratch, sl, c.r())
						var s float64
						for i := range n {
							s += w[i] * sl[i]
						}
						return s
					}, c.p)
					if ok, msg := closeVec(proj, num, fdAtol, fdRtol); !ok {
						return false, fmt.Errorf("%v: weighted per-example gradients: %s", c, msg)
					}
					return true, nil
				}, gen.UInt64()))
				props.TestingRun(t)
			})
		}
	}
}

func TestPredictRowsAreDistributions(t *testing.T) {
	for _, gm := range gradModels {
		for _, loss := range losses {
			t.Run(gm.name+"/"+loss.String(), func(t *testing.T) {
				props := properties(t)
				props.Property("rows sum to 1, losses match LossGrad in evaluation mode", prop.ForAll(func(seed uint64) (bool, error) {
					c := gm.make(seed, loss)
					k := c.m.Classes()
					out := make([]float64, c.b.N*k)
					c.m.Predict(c.p, c.b, out)
					for i := range c.b.N {
						var s float64
						for _, v := range out[i*k : (i+1)*k] {
							if !(v >= 0 && v <= 1) {
								return false, fmt.Errorf("%v: probability %g", c, v)
							}
							s += v
						}
						if !closeTo(s, 1, 1e-12) {
							return false, fmt.Errorf("%v: row %d sums to %.15g", c, i, s)
						}
					}
					lp := c.m.(LossPredictor)
					ls := make([]float64, c.b.N)
					out2 := make([]float64, len(out))
					lp.PredictLoss(c.p, c.b, out2, ls)
					var sum float64
					for _, l := range ls {
						sum += l
					}
					if want := c.m.LossGrad(c.p, c.b, nil, nil); !closeTo(sum/float64(c.b.N), want, 1e-12) {
						return false, fmt.Errorf("%v: PredictLoss mean %g, LossGrad %g", c, sum/float64(c.b.N), want)
					}
					if ok, msg := closeVec(out, out2, 0, 0); !ok {
						return false, fmt.Errorf("%v: Predict vs PredictLoss: %s", c, msg)
					}
					return true, nil
				}, gen.UInt64()))
				props.TestingRun(t)
			})
		}
	}
}

// Properties hold for every drawn case; this pins that the generator
// exercises what it claims to (both hidden depths, dropout on).
func TestGradCasesCoverShapes(t *testing.T) {
	depths := map[int]bool{}
	for seed := range uint64(50) {
		c := mlpCase(true)(seed, CrossEntropy)
		depths[c.m.(*MLP).Layers()] = true
		if c.m.(*MLP).Dropout < 0.2 || !c.dropout {
			t.Fatalf("seed %d: dropout case without dropout", seed)
		}
	}
	if !depths[2] || !depths[3] {
		t.Errorf("depths drawn: %v", depths)
	}
	_ = gopter.DefaultGenParameters
}
