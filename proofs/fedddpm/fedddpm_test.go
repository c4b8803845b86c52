package fedddpm

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	"github.com/fedrepro/fedrepro/proofs"
)

// The spec's derived C bounds (§4.5) for the paper's four settings.
func TestLemma1CmaxMatchesSpec(t *testing.T) {
	want := map[string]float64{
		"T=400,K=3,N=100,n=15": 0.49220, "T=400,K=3,N=100,n=30": 0.49348,
		"T=600,K=5,N=100,n=15": 0.49448, "T=600,K=5,N=100,n=30": 0.49552,
	}
	res := checkLemma1Constant(proofs.Config{Seed: proofs.DefaultSeed, Quick: true})
	cmax := res.Values["cmax"].(map[string]any)
	for k, w := range want {
		got, ok := cmax[k].(float64)
		if !ok || !(math.Abs(got-w) <= 5e-6) {
			t.Errorf("%s: C_max %v, spec %.5f", k, cmax[k], w)
		}
	}
}

// The closed form of C_max with the theorem's ζ does not depend on K or L.
func TestLemma1CmaxClosedForm(t *testing.T) {
	for _, c := range []struct{ T, K, N, n int }{{400, 3, 100, 15}, {50, 7, 10, 2}, {9, 2, 5, 5}} {
		T := float64(c.T)
		want := 0.5 - 9/(4*T) - rho(c.N, c.n)/2*(27/(4*math.Pow(T, 1.5))+3/(2*math.Sqrt(T)))
		for _, L := range []float64{0.3, 1, 17} {
			if got := lemma1Cmax(zetaThm(L, c.K, c.T), L, c.K, c.N, c.n); !(math.Abs(got-want) <= 1e-12) {
				t.Errorf("%+v L=%g: %.15g, closed form %.15g", c, L, got, want)
			}
		}
	}
}

// The FedDDPM bound exceeds the FedAvg one by exactly the two server
// noise terms.
func TestBoundDifference(t *testing.T) {
	p := params{T: 100, K: 3, E: 4, N: 20, n: 6, L: 2, SL2: 1.5, SG2: 3, Gap: 7}
	C := 0.4
	want := (p.SL2/10 + 3*7*p.SL2/(6*16*100)) / C
	if got := bound15(p, C) - fedavgBound(p, C); !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("difference %.15g, want %.15g", got, want)
	}
}

// The exact law of the sampler on Gaussian data reproduces the spec's
// Monte-Carlo figures (§4.6: μ = 2, s = 0.5, T = 100 → std 0.5085 with
// σ² = β and 0.4642 with β̃, from 20k samples) within their error (±0.005).
func TestGaussianLawMatchesSpecFigures(t *testing.T) {
	s, err := diffusion.ScaledLinear(100)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    diffusion.Variance
		want float64
	}{{diffusion.VarBeta, 0.5085}, {diffusion.VarPosterior, 0.4642}} {
		m, v := gaussianLaw(s, c.v, 2, 0.5)
		if !(math.Abs(m-2) <= 1e-3) || !(math.Abs(math.Sqrt(v)-c.want) <= 0.005) {
			t.Errorf("%v: law N(%.4f, %.4f²), spec MC std %.4f", c.v, m, math.Sqrt(v), c.want)
		}
	}
}

// Exact expectations of the quadratic tools agree with Monte Carlo.
func TestClientPhaseExpectationMatchesMonteCarlo(t *testing.T) {
	r := stream(proofs.Config{Seed: 1}, "test-client-phase")
	inst := newLemmaInstance(r)
	q := inst.q
	const K, zeta = 3, 0.05
	exact := q.clientPhaseExpectedF(inst.w, K, inst.n, zeta)
	reps := 40000
	if testing.Short() {
		reps = 10000
	}
	var sum, sq float64
	for rep := 0; rep < reps; rep++ {
		res := q.simulate(simCfg{T: 1, K: K, n: inst.n, zeta: zeta, w0: inst.w, trackLosses: true}, r)
		v := res.Gap[1] + q.fstar
		sum += v
		sq += v * v
	}
	mean := sum / float64(reps)
	se := math.Sqrt((sq/float64(reps) - mean*mean) / float64(reps))
	if !(math.Abs(mean-exact) <= 4.5*se) {
		t.Errorf("Monte Carlo %.6g ± %.2g, exact %.6g", mean, se, exact)
	}
}
