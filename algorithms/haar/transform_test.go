package haar

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// propSeed seeds every gopter property of this package; a failure prints
// it so the run can be replayed.
const propSeed = 20240727

func properties(t *testing.T, n int) *gopter.Properties {
	p := gopter.DefaultTestParametersWithSeed(propSeed)
	p.MinSuccessfulTests = n
	return gopter.NewProperties(p)
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestTableII(t *testing.T) {
	x := []float64{4, 8, 1, 9, 8, 4, 5, 3}
	want := []float64{5.25, -2, -4, 2, 1, 0.5, 1, 0.25}
	h := Forward(x)
	for i := range want {
		if h[i] != want[i] {
			t.Fatalf("HWT(%v) = %v, want %v", x, h, want)
		}
	}
	wantW := []float64{8, 2, 2, 2, 2, 4, 4, 8}
	w := Weights(8)
	for i := range wantW {
		if w[i] != wantW[i] || Weight(8, i) != wantW[i] {
			t.Fatalf("W = %v, want %v", w, wantW)
		}
	}
	back := Inverse(h, 8)
	for i := range x {
		if back[i] != x[i] {
			t.Fatalf("inverse %v, want %v", back, x)
		}
	}
}

func TestPaddingAndTruncation(t *testing.T) {
	cases := []struct{ n, m int }{{0, 0}, {1, 1}, {2, 2}, {3, 4}, {5, 8}, {8, 8}, {9, 16}, {1000, 1024}, {1025, 2048}}
	for _, c := range cases {
		if got := PaddedLen(c.n); got != c.m {
			t.Errorf("PaddedLen(%d) = %d, want %d", c.n, got, c.m)
		}
	}
	x := []float64{1, 2, 3, 4, 5}
	h := Forward(x)
	hp := Forward([]float64{1, 2, 3, 4, 5, 0, 0, 0})
	if len(h) != 8 {
		t.Fatalf("len %d", len(h))
	}
	for i := range h {
		if h[i] != hp[i] {
			t.Fatalf("padded transform %v, want %v", h, hp)
		}
	}
	back := Inverse(h, 5)
	for i := range x {
		if back[i] != x[i] {
			t.Fatalf("round trip %v", back)
		}
	}
}

func TestRoundTripProperty(t *testing.T) {
	props := properties(t, 200)
	props.Property("HWT-INV(HWT(x))[:n] == x for any length", prop.ForAll(
		func(n int, seed uint64) string {
			r := rng.Stream(seed, "roundtrip", n)
			x := make([]float64, n)
			scale := math.Exp(4 * r.NormFloat64())
			var inf float64
			for i := range x {
				x[i] = scale * r.NormFloat64()
				inf = math.Max(inf, math.Abs(x[i]))
			}
			back := Inverse(Forward(x), n)
			tol := 1e-12 * math.Max(1, inf)
			for i := range x {
				if !near(back[i], x[i], tol) {
					return fmt.Sprintf("n=%d i=%d: %g vs %g", n, i, back[i], x[i])
				}
			}
			return ""
		},
		gen.IntRange(0, 5000), gen.UInt64(),
	))
	props.TestingRun(t)
}

func TestAncestorsEq6(t *testing.T) {
	idx, sign := Ancestors(8, 2)
	if fmt.Sprint(idx, sign) != "[2 5 7] [1 -1 1]" {
		t.Fatalf("chain of element 2: %v %v", idx, sign)
	}
	r := rng.Stream(1, "eq6")
	for m := 1; m <= 256; m *= 2 {
		h := make([]float64, m)
		for i := range h {
			h[i] = r.NormFloat64()
		}
		x := Inverse(h, m)
		for e := 0; e < m; e++ {
			if got := ReconstructElement(h, e); !near(got, x[e], 1e-12) {
				t.Fatalf("m=%d e=%d: eq.(6) gives %g, inverse %g", m, e, got, x[e])
			}
		}
	}
}

func TestScratchMayAliasInput(t *testing.T) {
	r := rng.Stream(2, "alias")
	for _, n := range []int{1, 2, 3, 5, 7, 8, 13, 64, 100} {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		want := Forward(x)
		nrm := CoefficientNorm(x, make([]float64, PaddedLen(n)))
		var ss float64
		for _, v := range want {
			ss += v * v
		}
		if !near(nrm, math.Sqrt(ss), 1e-12*math.Max(1, nrm)) {
			t.Fatalf("n=%d: CoefficientNorm %g, want %g", n, nrm, math.Sqrt(ss))
		}
		got := make([]float64, PaddedLen(n))
		xc := append([]float64(nil), x...)
		ForwardInto(got, xc, xc)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("n=%d: aliased forward differs at %d", n, i)
			}
		}
		xc = append(xc[:0], x...)
		if got := CoefficientNorm(xc, xc); !near(got, nrm, 1e-12*math.Max(1, nrm)) {
			t.Fatalf("n=%d: aliased norm %g, want %g", n, got, nrm)
		}
	}
}

func TestNoAllocations(t *testing.T) {
	const n = 1000
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i % 17)
	}
	m := PaddedLen(n)
	h := make([]float64, m)
	out := make([]float64, n)
	scr := make([]float64, ScratchLen(n))
	r := rng.Stream(3, "allocs")
	grads := [][]float64{x, x}
	cases := map[string]func(){
		"ForwardInto":               func() { ForwardInto(h, x, scr) },
		"InverseInto":               func() { InverseInto(out, h, scr) },
		"CoefficientNorm":           func() { CoefficientNorm(x, scr) },
		"AddCoefficientNoise":       func() { AddCoefficientNoise(r, h, 1) },
		"WaveletNoiseInto":          func() { WaveletNoiseInto(out, r, grads, Alg1Params{C: 1, Sigma: 1}, scr) },
		"WaveletNoiseAggregateInto": func() { WaveletNoiseAggregateInto(out, r, x, 1, scr) },
	}
	for name, f := range cases {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s allocates %.1f times per call", name, a)
		}
	}
}

func TestLinearity(t *testing.T) {
	props := properties(t, 100)
	props.Property("HWT(ax+by) = a·HWT(x) + b·HWT(y)", prop.ForAll(
		func(n int, a, b float64, seed uint64) bool {
			r := rng.Stream(seed, "lin")
			x := make([]float64, n)
			y := make([]float64, n)
			z := make([]float64, n)
			for i := range x {
				x[i], y[i] = r.NormFloat64(), r.NormFloat64()
				z[i] = a*x[i] + b*y[i]
			}
			hx, hy, hz := Forward(x), Forward(y), Forward(z)
			for i := range hz {
				if !near(hz[i], a*hx[i]+b*hy[i], 1e-12*(1+math.Abs(a)+math.Abs(b))) {
					return false
				}
			}
			return true
		},
		gen.IntRange(1, 700), gen.Float64Range(-10, 10), gen.Float64Range(-10, 10), gen.UInt64(),
	))
	props.TestingRun(t)
}
