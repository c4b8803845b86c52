package fedddpm

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	"github.com/fedrepro/fedrepro/algorithms/metrics"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

const propSeed = 20240727

func properties(t *testing.T) *gopter.Properties {
	params := gopter.DefaultTestParametersWithSeed(propSeed)
	params.MinSuccessfulTests = 100
	if testing.Short() {
		params.MinSuccessfulTests = 30
	}
	return gopter.NewProperties(params)
}

func TestDecisionsCoverSpecSection6(t *testing.T) {
	if len(Decisions) != 19 {
		t.Fatalf("%d decisions, spec §6 has 19 items", len(Decisions))
	}
	for i, d := range Decisions {
		if d.Item != i+1 || d.Topic == "" || d.Choice == "" || d.Where == "" {
			t.Errorf("decision %d incomplete or out of order: %+v", i+1, d)
		}
	}
}

func TestMixtureLayouts(t *testing.T) {
	cases := []struct {
		name string
		spec MixtureSpec
		want [][]float64 // expected means (nil: only checked for shape)
	}{
		{"ring4", MixtureSpec{Components: 4, Dim: 2, Layout: Ring, Radius: 2, Std: 0.1}, [][]float64{{2, 0}, {0, 2}, {-2, 0}, {0, -2}}},
		{"grid4", MixtureSpec{Components: 4, Dim: 3, Layout: Grid, Radius: 1, Std: 0.1}, [][]float64{{-0.5, -0.5, 0}, {0.5, -0.5, 0}, {-0.5, 0.5, 0}, {0.5, 0.5, 0}}},
		{"random", MixtureSpec{Components: 3, Dim: 5, Layout: Random, Radius: 1, Std: 0.1}, nil},
		{"default", DefaultMixture(), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := c.spec.Mixture(rng.Stream(1, "mixture", c.name))
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Means) != c.spec.Components || g.Dim() != c.spec.Dim {
				t.Fatalf("got %d means of dim %d", len(g.Means), g.Dim())
			}
			for k, w := range c.want {
				for j := range w {
					if !(math.Abs(g.Means[k][j]-w[j]) <= 1e-12) {
						t.Fatalf("mean %d = %v, want %v", k, g.Means[k], w)
					}
				}
			}
		})
	}
	bad := []MixtureSpec{
		{Components: 0, Dim: 2, Radius: 1, Std: 1},
		{Components: 3, Dim: 1, Layout: Ring, Radius: 1, Std: 1},
		{Components: 3, Dim: 2, Radius: 1, Std: 0},
		{Components: 3, Dim: 2, Radius: 1, Std: 1, Weights: []float64{1, 2}},
		{Components: 2, Dim: 2, Radius: 1, Std: 1, Weights: []float64{1, -1}},
	}
	for i, s := range bad {
		if _, err := s.Mixture(rng.Stream(1, "bad")); err == nil {
			t.Errorf("spec %d (%+v): expected an error", i, s)
		}
	}
}

// DefaultMixture's neighbouring modes are ≥ 6σ apart (mode assignment at a
// 3σ radius is unambiguous).
func TestDefaultMixtureSeparation(t *testing.T) {
	s := DefaultMixture()
	g, _ := s.Mixture(nil)
	minD := math.Inf(1)
	for a := range g.Means {
		for b := a + 1; b < len(g.Means); b++ {
			var d float64
			for j := range g.Means[a] {
				d += (g.Means[a][j] - g.Means[b][j]) * (g.Means[a][j] - g.Means[b][j])
			}
			minD = math.Min(minD, math.Sqrt(d))
		}
	}
	if minD < 6*s.Std {
		t.Errorf("closest means %.3f apart, < 6σ = %.3f", minD, 6*s.Std)
	}
}

func TestGenerateStratifiedAndSeeded(t *testing.T) {
	spec := DefaultMixture()
	spec.Weights = []float64{3, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	g, err := spec.Mixture(nil)
	if err != nil {
		t.Fatal(err)
	}
	const m = 1203
	ds, err := Generate(g, m, rng.Stream(2, "gen"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Apportion(m, g.Weights)
	for k, c := range ds.LabelCounts() {
		if c != want[k] {
			t.Errorf("class %d has %d rows, want %d", k, c, want[k])
		}
	}
	// Every row lies near its component mean (within 6σ).
	for i := 0; i < ds.N; i++ {
		var d2 float64
		for j, v := range ds.Row(i) {
			d2 += (v - g.Means[ds.Y[i]][j]) * (v - g.Means[ds.Y[i]][j])
		}
		if math.Sqrt(d2) > 6*spec.Std {
			t.Fatalf("row %d is %.3f from its mean", i, math.Sqrt(d2))
		}
	}
	again, _ := Generate(g, m, rng.Stream(2, "gen"))
	for i := range ds.X {
		if ds.X[i] != again.X[i] {
			t.Fatal("same stream gave different data")
		}
	}
}

func TestApportionAndAuxSizes(t *testing.T) {
	cases := []struct {
		m    []int
		want []int
	}{
		{[]int{600, 600, 600}, []int{60, 60, 60}},
		{[]int{5, 5, 5}, []int{1, 1, 0}},         // 1.5 → 2 units, ties to the lower index
		{[]int{14, 26, 0, 3}, []int{1, 3, 0, 0}}, // 4.3 → 4: floors 1,2,0,0 + 1 to 2.6
		{[]int{}, []int{}},
	}
	for _, c := range cases {
		got, err := AuxSizes(c.m, AuxFraction)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("AuxSizes(%v) = %v, want %v", c.m, got, c.want)
				break
			}
		}
	}
	if _, err := AuxSizes([]int{-1}, 0.1); err == nil {
		t.Error("expected an error for a negative size")
	}
	props := properties(t)
	props.Property("AuxSizes: total round(f·m), parts floor or ceil of f·m_i", prop.ForAll(
		func(seed uint64) (bool, error) {
			r := rng.New(seed, "auxsizes").Rand()
			n := 1 + r.IntN(30)
			m := make([]int, n)
			var total int
			for i := range m {
				m[i] = r.IntN(2000)
				total += m[i]
			}
			f := []float64{0.1, 0.05, 0.3, 0.5 * r.Float64()}[r.IntN(4)]
			got, err := AuxSizes(m, f)
			if err != nil {
				return false, err
			}
			sum := 0
			var quota float64
			for i, a := range got {
				q := f * float64(m[i])
				quota += q
				if float64(a) < math.Floor(q+1e-9)-1e-9 || float64(a) > math.Ceil(q-1e-9)+1e-9 {
					return false, nil
				}
				sum += a
			}
			return sum == int(math.Round(quota)) && math.Abs(float64(sum)-f*float64(total)) <= 0.5+1e-6, nil
		}, gen.UInt64()))
	props.Property("Apportion sums to the total with parts within one of the quota", prop.ForAll(
		func(seed uint64) bool {
			r := rng.New(seed, "apportion").Rand()
			w := make([]float64, 1+r.IntN(12))
			var ws float64
			for i := range w {
				w[i] = r.Float64()
				ws += w[i]
			}
			total := r.IntN(5000)
			parts := Apportion(total, w)
			sum := 0
			for i, p := range parts {
				q := float64(total) * w[i] / ws
				if float64(p) < math.Floor(q)-1e-9 || float64(p) > math.Floor(q)+1+1e-9 {
					return false
				}
				sum += p
			}
			return sum == total
		}, gen.UInt64()))
	props.TestingRun(t)
}

// BuildAux with exact oracle "local models" (each client's own mixture):
// sizes are honoured, provenance is recorded, a client's samples do not
// depend on the other clients, and pooled samples land on the modes.
func TestBuildAuxWithOracleModels(t *testing.T) {
	g, _ := DefaultMixture().Mixture(nil)
	s, err := diffusion.ScaledLinear(100)
	if err != nil {
		t.Fatal(err)
	}
	// Client i holds components 2i and 2i+1 (a shard-like split).
	var models []diffusion.Predictor
	for i := 0; i < 5; i++ {
		ci := &diffusion.GaussianMixture{
			Means:   [][]float64{g.Means[2*i], g.Means[2*i+1]},
			Stds:    []float64{g.Stds[0], g.Stds[0]},
			Weights: []float64{0.5, 0.5},
		}
		models = append(models, ci.Optimal(s))
	}
	sizes, _ := AuxSizes([]int{400, 400, 400, 400, 400}, AuxFraction)
	key := rng.New(3, "aux")
	sm := diffusion.NewSampler(s, diffusion.VarBeta)
	aux, err := BuildAux(models, sizes, sm, key)
	if err != nil {
		t.Fatal(err)
	}
	if aux.N != 200 || aux.Classes != 5 {
		t.Fatalf("aux has %d rows and %d sources", aux.N, aux.Classes)
	}
	for i, c := range aux.LabelCounts() {
		if c != sizes[i] {
			t.Errorf("client %d contributed %d rows, want %d", i, c, sizes[i])
		}
	}
	// Client 2's rows are the same when client 0 contributes nothing.
	alt := append([]int(nil), sizes...)
	alt[0] = 0
	aux2, _ := BuildAux(models, alt, sm, key)
	var a, b []float64
	for i := 0; i < aux.N; i++ {
		if aux.Y[i] == 2 {
			a = append(a, aux.Row(i)...)
		}
	}
	for i := 0; i < aux2.N; i++ {
		if aux2.Y[i] == 2 {
			b = append(b, aux2.Row(i)...)
		}
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("client 2's aux samples depend on client 0's size")
		}
	}
	st, err := metrics.ModeCoverage(aux.X, aux.N, aux.D, g.Means, g.Weights, 3*g.Stds[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Covered != 10 || st.HighQuality < 0.9 {
		t.Errorf("oracle aux set covers %d modes with %.2f on-mode", st.Covered, st.HighQuality)
	}
}

func TestAuxSamplesFromDenoiser(t *testing.T) {
	s, _ := diffusion.ScaledLinear(50)
	den, err := diffusion.NewDenoiser(diffusion.NetConfig{Dim: 2, Hidden: []int{8}, TimeDim: 4}, s)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, den.NumParams())
	den.Init(p, rng.Stream(1, "w"))
	sm := diffusion.NewSampler(s, diffusion.VarBeta)
	x := AuxSamples(den, p, 17, sm, rng.Stream(1, "aux"))
	y := AuxSamples(den, p, 17, sm, rng.Stream(1, "aux"))
	if len(x) != 34 {
		t.Fatalf("got %d values, want 34", len(x))
	}
	for i := range x {
		if x[i] != y[i] || math.IsNaN(x[i]) {
			t.Fatal("aux samples not deterministic or NaN")
		}
	}
}

// The four properties of spec §3.7 plus γ-EMA arithmetic on random score
// sequences.
func TestQuickTestProperties(t *testing.T) {
	c := PaperQuickTest()
	// (ii) scores 10, 9, 8.9.
	fire, st := QuickTest(QuickTestState{}, 10, c)
	if fire || !st.Set || st.AvgScore != 10 {
		t.Fatalf("first call: fire=%v state=%+v", fire, st)
	}
	fire, st = QuickTest(st, 9, c)
	if fire || !(math.Abs(st.AvgScore-9.6) <= 1e-12) {
		t.Fatalf("second call: fire=%v state=%+v, want AvgScore 9.6", fire, st)
	}
	fire, st = QuickTest(st, 8.9, c)
	if fire || !(math.Abs(st.AvgScore-9.32) <= 1e-12) {
		t.Fatalf("third call: fire=%v state=%+v, want AvgScore 9.32", fire, st)
	}
	// NaN never fires and keeps the state.
	if f, s2 := QuickTest(st, math.NaN(), c); f || s2 != st {
		t.Fatalf("NaN score: fire=%v state=%+v", f, s2)
	}
	props := properties(t)
	props.Property("first call never fires and sets AvgScore = Score", prop.ForAll(func(s float64) bool {
		f, st := QuickTest(QuickTestState{}, s, c)
		return !f && st.Set && st.AvgScore == s
	}, gen.Float64Range(0, 500)))
	props.Property("a constant sequence fires on the second call", prop.ForAll(func(s float64) bool {
		_, st := QuickTest(QuickTestState{}, s, c)
		f, _ := QuickTest(st, s, c)
		return f
	}, gen.Float64Range(0, 500)))
	props.Property("firing leaves the state unchanged; otherwise the EMA update", prop.ForAll(func(avg, s float64) bool {
		st := QuickTestState{AvgScore: avg, Set: true}
		f, next := QuickTest(st, s, c)
		if math.Abs(avg-s) <= c.Threshold {
			return f && next == st
		}
		return !f && math.Abs(next.AvgScore-(c.Gamma*s+(1-c.Gamma)*avg)) <= 1e-12*(1+math.Abs(avg)+math.Abs(s))
	}, gen.Float64Range(0, 50), gen.Float64Range(0, 50)))
	props.TestingRun(t)
}

func TestStopRule(t *testing.T) {
	if _, err := NewStopRule(0, PaperQuickTest()); err == nil {
		t.Error("expected an error for period 0")
	}
	if _, err := NewStopRule(10, QuickTestConfig{Gamma: 0, Threshold: 0.2}); err == nil {
		t.Error("expected an error for γ = 0")
	}
	rule, err := NewStopRule(PaperCheckEvery, PaperQuickTest())
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	score := func() float64 { calls++; return 5 } // constant: fires at the second check
	for tt := 0; tt < 40; tt++ {
		fired := rule.Observe(tt, score)
		if fired != (tt >= 10) {
			t.Fatalf("round %d: fired=%v", tt, fired)
		}
	}
	if calls != 2 || rule.StopRound != 10 || !rule.Fired() || len(rule.Rounds) != 2 || rule.Rounds[1] != 10 {
		t.Errorf("calls %d, stop round %d, rounds %v", calls, rule.StopRound, rule.Rounds)
	}
	// A decreasing score never within the threshold never fires.
	rule, _ = NewStopRule(PaperCheckEvery, PaperQuickTest())
	for tt := 0; tt < 100; tt++ {
		if rule.Observe(tt, func() float64 { return 100 - float64(tt) }) {
			t.Fatalf("fired at round %d", tt)
		}
	}
	if rule.Fired() || rule.StopRound != -1 {
		t.Errorf("rule fired: %+v", rule)
	}
}
