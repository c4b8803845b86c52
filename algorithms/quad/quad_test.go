package quad

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

func TestRandomFederationConstants(t *testing.T) {
	cases := []struct {
		name           string
		minEig, maxEig float64
		convex         bool
	}{
		{"convex", 0.5, 4, true},
		{"indefinite", -1, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fed, err := Random(rng.Stream(1, "quad", c.name), Spec{Clients: 5, Dim: 6, MinEig: c.minEig, MaxEig: c.maxEig, Spread: 1})
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range fed.Clients {
				if got := q.MinEig(); !(math.Abs(got-c.minEig) <= 1e-9) {
					t.Errorf("client %d: λ_min %.12g, want %g", i, got, c.minEig)
				}
				want := math.Max(math.Abs(c.minEig), c.maxEig)
				if got := q.Smoothness(); !(math.Abs(got-want) <= 1e-9) {
					t.Errorf("client %d: L %.12g, want %g", i, got, want)
				}
			}
			g := fed.Global()
			if c.convex {
				x, err := g.Minimizer()
				if err != nil {
					t.Fatal(err)
				}
				grad := make([]float64, len(x))
				g.Grad(x, grad)
				for _, v := range grad {
					if !(math.Abs(v) <= 1e-9) {
						t.Fatalf("gradient at minimiser %v", grad)
					}
				}
			}
		})
	}
}

func TestProxSatisfiesFirstOrderCondition(t *testing.T) {
	r := rng.Stream(2, "prox")
	fed, _ := Random(r, Spec{Clients: 1, Dim: 5, MinEig: -0.5, MaxEig: 2, Spread: 1})
	q := fed.Clients[0]
	anchor := []float64{1, -2, 0.5, 3, 0}
	const mu = 1.5 // A + μI is positive definite since λ_min = −0.5
	x, err := q.Prox(anchor, mu)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, 5)
	q.Grad(x, g)
	for i := range g {
		if v := g[i] + mu*(x[i]-anchor[i]); !(math.Abs(v) <= 1e-10) {
			t.Fatalf("∇f(x)+μ(x−a) = %g at %d", v, i)
		}
	}
	if _, err := q.Prox(anchor, 0.2); err != ErrNotConvex {
		t.Fatalf("μ below −λ_min should fail with ErrNotConvex, got %v", err)
	}
}

func TestGradientMatchesFiniteDifference(t *testing.T) {
	fed, _ := Random(rng.Stream(3, "fd"), Spec{Clients: 1, Dim: 4, MinEig: -1, MaxEig: 1, Spread: 1})
	q := fed.Clients[0]
	x := []float64{0.3, -0.7, 1.1, 0.2}
	g := make([]float64, 4)
	q.Grad(x, g)
	const h = 1e-6
	for i := range x {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		fd := (q.Value(xp) - q.Value(xm)) / (2 * h)
		if !(math.Abs(fd-g[i]) <= 1e-6) {
			t.Errorf("coordinate %d: analytic %g, finite difference %g", i, g[i], fd)
		}
	}
}

func TestDissimilarityIsOneForIdenticalClients(t *testing.T) {
	fed, _ := Random(rng.Stream(4, "b"), Spec{Clients: 1, Dim: 3, MinEig: 1, MaxEig: 2})
	same := Uniform([]*Quadratic{fed.Clients[0], fed.Clients[0], fed.Clients[0]})
	b2, z2 := same.Dissimilarity([]float64{1, 2, 3})
	if !(math.Abs(b2-1) <= 1e-12) || z2 > 1e-20 {
		t.Fatalf("identical clients: B²=%g ζ²=%g, want 1 and 0", b2, z2)
	}
}
