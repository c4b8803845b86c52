package dp

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Property (issue 12, item 6): post-processing never increases privacy
// loss. A mechanism's privacy profile is its hockey-stick divergence
//
//	H_γ(P‖Q) = Σ_y max(0, P(y) − γ·Q(y)),  γ = e^ε,
//
// which is δ(ε) for the pair of neighbouring output distributions P, Q. For
// any deterministic map f, H_γ(f#P‖f#Q) ≤ H_γ(P‖Q): both are written out
// below without the package's code, on a discretised mechanism — a
// Gaussian or Laplace mechanism of sensitivity Δ whose output is rounded
// into K bins with random edges — and a random map from the K bins to L
// outputs. The second property ties this to the accountant: binning the
// continuous Gaussian mechanism is itself post-processing, so the binned
// mechanism's exact divergence never exceeds accountant.GaussianDelta.

// phi is the standard normal CDF.
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// laplaceCDF is the CDF of Laplace(0, b).
func laplaceCDF(x, b float64) float64 {
	if x < 0 {
		return 0.5 * math.Exp(x/b)
	}
	return 1 - 0.5*math.Exp(-x/b)
}

// binned returns the output distribution of θ + noise rounded into the
// bins (−∞, e_0], (e_0, e_1], …, (e_{K−2}, ∞): noise N(0, s²) or
// Laplace(0, s).
func binned(theta, s float64, laplace bool, edges []float64) []float64 {
	cdf := func(x float64) float64 {
		if laplace {
			return laplaceCDF(x-theta, s)
		}
		return phi((x - theta) / s)
	}
	p := make([]float64, len(edges)+1)
	prev := 0.0
	for i, e := range edges {
		c := cdf(e)
		p[i] = c - prev
		prev = c
	}
	p[len(edges)] = 1 - prev
	return p
}

// hockeyStick is H_γ(P‖Q) = Σ max(0, P_i − γQ_i).
func hockeyStick(p, q []float64, gamma float64) float64 {
	var h float64
	for i := range p {
		h += math.Max(0, p[i]-gamma*q[i])
	}
	return h
}

// push is the image distribution f#P of P under f (outputs 0..l−1).
func push(p []float64, f []int, l int) []float64 {
	out := make([]float64, l)
	for i, v := range p {
		out[f[i]] += v
	}
	return out
}

func TestPropPostProcessingNeverIncreasesHockeyStick(t *testing.T) {
	props := gopter.NewProperties(params(t, 1207, 500, 100))
	strict, total := 0, 0
	props.Property("H_γ(f#P‖f#Q) ≤ H_γ(P‖Q) for a random map f of a discretised mechanism's output", prop.ForAll(
		func(k, l int, s, sens, eps float64, laplace bool, rawEdges []float64, rawMap []int) string {
			edges := append([]float64(nil), rawEdges[:k-1]...)
			sort.Float64s(edges)
			f := make([]int, k)
			for i := range f {
				f[i] = rawMap[i] % l
			}
			p := binned(0, s, laplace, edges)
			q := binned(sens, s, laplace, edges)
			gamma := math.Exp(eps)
			for _, pair := range [][2][]float64{{p, q}, {q, p}} {
				before := hockeyStick(pair[0], pair[1], gamma)
				after := hockeyStick(push(pair[0], f, l), push(pair[1], f, l), gamma)
				if after > before+1e-13 {
					return fmt.Sprintf("post-processing raised H from %.17g to %.17g (f = %v)", before, after, f)
				}
				total++
				if after < before-1e-6 {
					strict++
				}
			}
			return ""
		},
		gen.IntRange(2, 40), gen.IntRange(1, 40), gen.Float64Range(0.2, 4), gen.Float64Range(0.1, 3),
		gen.Float64Range(0, 3), gen.Bool(),
		gen.SliceOfN(39, gen.Float64Range(-8, 8)), gen.SliceOfN(40, gen.IntRange(0, 39)),
	))
	props.TestingRun(t)
	// Not vacuous: many random maps lose information the divergence saw.
	if strict*4 < total {
		t.Errorf("only %d of %d cases lowered H strictly; the generator explores too little", strict, total)
	}
	t.Logf("%d of %d (map, direction) cases lowered H by more than 1e-6", strict, total)
}

// A map that merges bins where P and Q disagree in opposite directions
// strictly lowers the divergence: the property is not vacuous.
func TestPostProcessingCanStrictlyLowerHockeyStick(t *testing.T) {
	p, q := []float64{0.75, 0.25}, []float64{0.25, 0.75}
	if before, after := hockeyStick(p, q, 1), hockeyStick(push(p, []int{0, 0}, 1), push(q, []int{0, 0}, 1), 1); !(before == 0.5 && after == 0) {
		t.Fatalf("H before %g after %g, want 0.5 and 0", before, after)
	}
}

func TestPropBinnedGaussianWithinAccountantDelta(t *testing.T) {
	props := gopter.NewProperties(params(t, 1208, 300, 60))
	props.Property("binned Gaussian mechanism: H_{e^ε}(P‖Q) ≤ accountant.GaussianDelta(σ, ε)", prop.ForAll(
		func(k int, sigma, eps float64, rawEdges []float64) string {
			edges := append([]float64(nil), rawEdges[:k-1]...)
			sort.Float64s(edges)
			p := binned(0, sigma, false, edges)
			q := binned(1, sigma, false, edges)
			d, err := accountant.GaussianDelta(sigma, eps)
			if err != nil {
				return err.Error()
			}
			for _, h := range []float64{hockeyStick(p, q, math.Exp(eps)), hockeyStick(q, p, math.Exp(eps))} {
				if h > d+1e-12 {
					return fmt.Sprintf("binned divergence %.17g > GaussianDelta %.17g", h, d)
				}
			}
			return ""
		},
		gen.IntRange(2, 200), gen.Float64Range(0.3, 5), gen.Float64Range(0, 4),
		gen.SliceOfN(199, gen.Float64Range(-10, 11)),
	))
	props.TestingRun(t)
	// Fine bins lose almost nothing: the accountant's δ is also reached.
	for _, c := range [][2]float64{{1, 0.5}, {2, 1}, {0.7, 2}} {
		sigma, eps := c[0], c[1]
		var edges []float64
		for x := -15 * sigma; x <= 15*sigma+1; x += sigma / 2000 {
			edges = append(edges, x)
		}
		h := hockeyStick(binned(0, sigma, false, edges), binned(1, sigma, false, edges), math.Exp(eps))
		d, _ := accountant.GaussianDelta(sigma, eps)
		if !(h <= d+1e-12 && h >= d*(1-1e-4)) {
			t.Errorf("σ=%g ε=%g: fine-binned H %.10g vs GaussianDelta %.10g", sigma, eps, h, d)
		}
	}
}
