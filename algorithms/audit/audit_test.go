package audit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// TestClopperPearsonPins: spec §B5 examples (δ = 0, 95% confidence).
func TestClopperPearsonPins(t *testing.T) {
	cases := []struct {
		c    Counts
		want float64
	}{
		{Counts{TP: 500, FN: 500, FP: 10, TN: 990}, 3.242},
		{Counts{TP: 900, FN: 100, FP: 100, TN: 900}, 1.990},
	}
	for _, c := range cases {
		b, err := EpsilonLB(c.c, 0, 0.95)
		if err != nil || !(math.Abs(b.Epsilon-c.want) <= 5e-4) {
			t.Errorf("%+v: ε_LB = %.5g (%v), want %v", c.c, b.Epsilon, err, c.want)
		}
	}
	// Edge cases of the bounds.
	if u := ClopperPearsonUpper(10, 10, 0.05); u != 1 {
		t.Errorf("upper(n/n) = %v", u)
	}
	if l := ClopperPearsonLower(0, 10, 0.05); l != 0 {
		t.Errorf("lower(0/n) = %v", l)
	}
	// 0 of n: upper bound is 1 − a^{1/n}.
	if u := ClopperPearsonUpper(0, 100, 0.025); !(math.Abs(u-(1-math.Pow(0.025, 0.01))) <= 1e-12) {
		t.Errorf("upper(0/100) = %v", u)
	}
	if _, err := EpsilonLB(Counts{TP: 1}, 0, 0.95); err == nil {
		t.Error("no trials on D accepted")
	}
	if _, err := EpsilonLB(Counts{TP: 1, TN: 1}, 0, 1); err == nil {
		t.Error("confidence 1 accepted")
	}
	// A useless test gives 0.
	if b, _ := EpsilonLB(Counts{TP: 50, FN: 50, FP: 50, TN: 50}, 0, 0.95); b.Epsilon != 0 {
		t.Errorf("chance-level test: %v", b.Epsilon)
	}
	// GDP estimate: symmetric counts give a positive μ and ε ≥ the CP bound's
	// conversion for a Gaussian-like test.
	e, mu, err := EpsilonGDP(Counts{TP: 900, FN: 100, FP: 100, TN: 900}, 1e-5, 0.95)
	if err != nil || !(mu > 2 && mu < 2.6) || !(e > 0) {
		t.Errorf("GDP: ε=%v μ=%v (%v)", e, mu, err)
	}
	if _, _, err := EpsilonGDP(Counts{TP: 1, TN: 1}, 0, 0.95); err == nil {
		t.Error("GDP with δ=0 accepted")
	}
}

// TestOneRunPins: Steinke, Nasr and Jagielski 2023 published values.
func TestOneRunPins(t *testing.T) {
	cases := []struct {
		m, r, v     int
		delta, want float64
	}{
		{1000, 100, 75, 1e-4, 0.6729847},    // App. D p.46 (printed 0.673)
		{100000, 1510, 1439, 1e-5, 2.67585}, // §7 p.28, Fig 11 (printed 2.675, truncated)
		{1000, 100, 75, 0, 0.7022},          // δ = 0 variant (spec §B5)
	}
	for _, c := range cases {
		e, err := OneRunEpsilon(c.m, c.r, c.v, c.delta, 0.05)
		if err != nil || !(math.Abs(e-c.want) <= 1e-3) {
			t.Errorf("%+v: ε = %.7g (%v), want %v", c, e, err, c.want)
		}
		p, _ := OneRunPValue(c.m, c.r, c.v, e, c.delta)
		if p >= 0.05 {
			t.Errorf("%+v: p(ε_LB) = %v ≥ β", c, p)
		}
	}
	if _, err := OneRunPValue(10, 20, 5, 1, 0); err == nil {
		t.Error("r > m accepted")
	}
	if e, _ := OneRunEpsilon(1000, 100, 50, 1e-5, 0.05); e != 0 {
		t.Errorf("chance-level guesses: ε = %v", e)
	}
}

// gaussMech releases shift·neighbour + sigma·z.
func gaussMech(shift, sigma float64) Mechanism {
	return func(r *rand.Rand, neighbour bool) float64 {
		x := sigma * r.NormFloat64()
		if neighbour {
			x += shift
		}
		return x
	}
}

// TestAuditorSound: on a correct Gaussian mechanism the lower bound stays
// below the true ε in ≥ 95% of seeded games (here: all of them).
func TestAuditorSound(t *testing.T) {
	seeds, trials := 40, 1000
	if testing.Short() {
		seeds, trials = 20, 500
	}
	const sigma, delta = 1.0, 1e-5
	trueEps, _ := accountant.GaussianEpsilon(sigma, delta)
	below := 0
	for s := 0; s < seeds; s++ {
		g := Game{ID: "gauss-sound", Seed: uint64(s), Trials: trials, Delta: delta}
		r, err := g.Run(gaussMech(1, sigma))
		if err != nil {
			t.Fatal(err)
		}
		if r.EpsilonLB <= trueEps {
			below++
		}
	}
	if float64(below) < 0.95*float64(seeds) {
		t.Errorf("ε_LB ≤ true ε = %.3g in only %d of %d games", trueEps, below, seeds)
	}
}

// TestAuditorCatchesWeakNoise: a mechanism that claims σ = 5 but adds 10×
// less noise is caught: ε_LB exceeds the claimed ε.
func TestAuditorCatchesWeakNoise(t *testing.T) {
	claimed, _ := accountant.GaussianEpsilon(5, 1e-5)
	g := Game{ID: "gauss-weak", Seed: 1, Trials: 2000, Delta: 1e-5}
	r, err := g.Run(gaussMech(1, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	if r.EpsilonLB <= claimed {
		t.Errorf("ε_LB = %.3g does not exceed the claimed ε = %.3g", r.EpsilonLB, claimed)
	}
	// Determinism: same seed and ID, same result; another ID, other streams.
	r2, _ := g.Run(gaussMech(1, 0.5))
	if r2 != r {
		t.Error("the game is not determined by (seed, id)")
	}
}

// TestAuditorVectorLR: the likelihood-ratio attack on a d-dimensional
// Gaussian output; both selections, reversed scores.
func TestAuditorVectorLR(t *testing.T) {
	const d, sigma = 10, 0.3
	m0 := make([]float64, d)
	m1 := make([]float64, d)
	m1[3] = 1 // sensitivity 1 along one axis
	mech := func(r *rand.Rand, neighbour bool, dst []float64) []float64 {
		for i := range dst {
			dst[i] = sigma * r.NormFloat64()
			if neighbour {
				dst[i] += m1[i]
			}
		}
		return dst
	}
	trueEps, _ := accountant.GaussianEpsilon(sigma, 1e-5)
	g := Game{ID: "vec", Seed: 3, Trials: 2000, Delta: 1e-5}
	r, err := g.RunVector(mech, d, GaussianLRScore(m0, m1))
	if err != nil {
		t.Fatal(err)
	}
	if !(r.EpsilonLB > 1.5) || r.EpsilonLB > trueEps || r.Reverse {
		t.Errorf("LR attack: ε_LB=%.3g (true %.3g), reverse=%v", r.EpsilonLB, trueEps, r.Reverse)
	}
	// Negated score: the harness finds the reversed test.
	neg := func(x []float64) float64 { return -GaussianLRScore(m0, m1)(x) }
	rn, _ := g.RunVector(mech, d, neg)
	if !rn.Reverse || !(math.Abs(rn.EpsilonLB-r.EpsilonLB) <= 1e-9) {
		t.Errorf("reversed score: %+v vs %+v", rn, r)
	}
	// Bonferroni over fixed thresholds.
	gb := g
	gb.Selection, gb.Thresholds = Bonferroni, []float64{-0.2, 0, 0.2}
	rb, err := gb.RunVector(mech, d, GaussianLRScore(m0, m1))
	if err != nil || !(rb.EpsilonLB > 1.5) || rb.EpsilonLB > trueEps {
		t.Errorf("Bonferroni: %+v (%v)", rb, err)
	}
	row := rb.Row()
	for _, c := range ResultColumns {
		if _, ok := row[c]; !ok {
			t.Errorf("row lacks %q", c)
		}
	}
	for _, bad := range []Game{{Trials: 10}, {ID: "x", Trials: 1}, {ID: "x", Trials: 10, Selection: Bonferroni}, {ID: "x", Trials: 10, Delta: 1}} {
		if _, err := bad.Run(gaussMech(1, 1)); err == nil {
			t.Errorf("game %+v accepted", bad)
		}
	}
}

// TestCounterMatchesCount: the sorted counter the threshold searches use
// gives count's numbers for every threshold and direction, with ties,
// infinite scores, empty sides and NaN thresholds (the midpoint of −∞
// and +∞).
func TestCounterMatchesCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 41))
	for k := 0; k < 300; k++ {
		draw := func() []float64 {
			s := make([]float64, rng.IntN(60))
			for i := range s {
				switch rng.IntN(10) {
				case 0:
					s[i] = math.Inf(1)
				case 1:
					s[i] = math.Inf(-1)
				case 2, 3:
					s[i] = float64(rng.IntN(4)) // ties
				default:
					s[i] = rng.NormFloat64()
				}
			}
			return s
		}
		s0, s1 := draw(), draw()
		ct := newCounter(s0, s1)
		ts := append(candidates(s0, s1), math.NaN(), math.Inf(1), math.Inf(-1), 0, 1, 2, 3, rng.NormFloat64())
		for _, th := range ts {
			for _, rev := range []bool{false, true} {
				if got, want := ct.count(th, rev), count(s0, s1, th, rev); got != want {
					t.Fatalf("t=%v reverse=%v: counter %+v, count %+v (s0 %v, s1 %v)", th, rev, got, want, s0, s1)
				}
			}
		}
	}
}
