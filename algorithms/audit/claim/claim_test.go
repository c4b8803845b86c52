package claim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/normec"
)

// head is the metadata every test claim shares.
const head = `schema: fedrepro-claim/1
id: test
title: "a test claim"
paper: {title: "T", authors: "A. Author", venue: "V", year: 2024, link: "https://example.org"}
source: {where: "here", quote: "ε"}
accountant_used: {name: unknown}
`

func decode(t *testing.T, body string) *Claim {
	t.Helper()
	c, err := Decode("test.yaml", []byte(head+body))
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, body)
	}
	return c
}

func auditOf(t *testing.T, body string, o Options) *Report {
	t.Helper()
	r, err := Audit(decode(t, body), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFormulas(t *testing.T) {
	env := map[string]float64{"N": 60000, "B": 256, "E": 60, "delta": 1e-5}
	for _, c := range []struct {
		f    string
		want float64
	}{
		{"ceil(E*N/B)", 14063},
		{"floor(N/B)*E", 234 * 60},
		{"sqrt(16) + log(exp(2)) + log2(8) + log10(100)", 4 + 2 + 3 + 2},
		{"min(1, 2) + max(1, 2) + abs(-3) + round(2.5)", 1 + 2 + 3 + 3},
		{"2^10 + 2**3", 1024 + 8},
		{"sqrt(300*log(1/delta))", math.Sqrt(300 * math.Log(1e5))},
	} {
		got, err := evalFormula(c.f, env)
		if err != nil || !(math.Abs(got-c.want) <= 1e-12*math.Abs(c.want)) {
			t.Errorf("%s = %v, %v; want %v", c.f, got, err, c.want)
		}
	}
	for _, f := range []string{"N/0", "log(-1)", "ceil(", "N +", "\"x\""} {
		if _, err := evalFormula(f, env); err == nil {
			t.Errorf("%s: no error", f)
		}
	}
	ids, err := identifiers("sqrt(K*log(1/delta))*p + max(a, b)")
	if err != nil || strings.Join(ids, ",") != "K,a,b,delta,p" {
		t.Errorf("identifiers = %v, %v", ids, err)
	}
}

func TestVariables(t *testing.T) {
	vars := map[string]Value{
		"q": {Set: true, Formula: "B/N"}, "B": {Set: true, Num: 256}, "N": {Set: true, Num: 60000},
		"T": {Set: true, Formula: "ceil(E/q)"}, "E": {Set: true, Num: 2},
	}
	got, err := resolveVariables(vars, map[string]float64{"delta": 1e-5})
	if err != nil || got["q"] != 256.0/60000 || got["T"] != math.Ceil(2/(256.0/60000)) {
		t.Errorf("resolved %v, %v", got, err)
	}
	cyc := map[string]Value{"a": {Set: true, Formula: "b+1", Line: 3}, "b": {Set: true, Formula: "a+1", Line: 4}}
	if _, err := resolveVariables(cyc, nil); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
	unk := map[string]Value{"a": {Set: true, Formula: "zz*2", Line: 7}}
	if _, err := resolveVariables(unk, nil); err == nil || !strings.Contains(err.Error(), `unknown name "zz"`) || !strings.HasPrefix(err.Error(), "7: ") {
		t.Errorf("unknown: %v", err)
	}
}

func TestDecimals(t *testing.T) {
	for lit, want := range map[string]int{"1.19": 2, "3": 0, "8.0": 1, "1e-5": 5, "1.5e-3": 4, "2.5e2": 0, "0.39066894531249996": 17} {
		if got := (Value{Literal: lit}).Decimals(); got != want {
			t.Errorf("Decimals(%s) = %d, want %d", lit, got, want)
		}
	}
}

// TestDecodeErrors: each bad claim is one line naming the file and, where
// the problem sits on a line, the line.
func TestDecodeErrors(t *testing.T) {
	base := "unit: example\nneighbouring: add-remove\ndelta: 1e-5\nclaimed_epsilon: 1\nmechanism: gaussian\nnoise: {multiplier: 1}\nsteps: 10\n"
	for _, c := range []struct{ name, body, want string }{
		{"no schema", strings.Replace(head+base, "fedrepro-claim/1", "x", 1), "schema"},
		{"unknown key", base + "colour: red\n", `t.yaml:14: unknown key "colour"`},
		{"bad unit", strings.Replace(base, "unit: example", "unit: dataset", 1), `t.yaml:7: unit "dataset"`},
		{"bad relation", strings.Replace(base, "add-remove", "swap", 1), `t.yaml:8: neighbouring "swap"`},
		{"claimed formula", strings.Replace(base, "claimed_epsilon: 1", `claimed_epsilon: "2*x"`, 1), "must be the printed number"},
		{"missing steps", strings.Replace(base, "steps: 10\n", "", 1), "steps is missing"},
		{"fractional steps", strings.Replace(base, "steps: 10", "steps: \"10/3\"", 1), "test.yaml:13: steps = 3.3333333333333335: want a whole number"},
		{"noise on tree only", strings.Replace(base, "steps: 10", "steps: 10\ntree: {leaves: 4}", 1), "tree applies only"},
		{"multiplier and scale", strings.Replace(base, "{multiplier: 1}", "{multiplier: 1, scale: 2, sensitivity: 1}", 1), "not both"},
		{"laplace with rho", strings.Replace(base, "{multiplier: 1}", "{multiplier: 1, rho: 2}", 1), "noise.rho does not apply"},
		{"q out of range", base + "sampling: {kind: poisson, q: 1.5}\n", "sampling.q = 1.5"},
		{"wor add-remove", base + "sampling: {kind: fixed-batch, batch: 2, population: 10}\n", "only under replace-one"},
		{"batch > population", strings.Replace(base, "add-remove", "replace-one", 1) + "sampling: {kind: fixed-batch, batch: 20, population: 10}\n", "exceeds"},
		{"clients need user", base + "sampling: {kind: clients, q: 0.1}\n", "needs unit: user"},
		{"visible fixed", strings.Replace(base, "unit: example", "unit: user", 1) + "sampling: {kind: clients, rule: fixed, batch: 2, population: 10, visible: true}\n", "visible applies"},
		{"gaussian at δ = 0", strings.Replace(base, "delta: 1e-5", "delta: 0", 1), "delta = 0 (pure DP) holds only"},
		{"reserved variable", base + "variables: {delta: 3}\n", "reserved"},
		{"bad orders", base + "accounting: {rdp_orders: mine}\n", "rdp_orders"},
		{"duplicate reading", base + "readings: [{name: a}, {name: a}]\n", "unique"},
		{"steps in phases and top", base + "phases: [{name: a, steps: 3}]\n", "given both"},
		{"tree too hard", strings.Replace(strings.Replace(base, "mechanism: gaussian", "mechanism: tree-aggregation", 1), "steps: 10", "tree: {leaves: 2000, participations: 6, min_separation: 313}", 1), "beyond the sensitivity search"},
	} {
		_, err := Decode("test.yaml", []byte(head+c.body))
		if c.name == "no schema" {
			_, err = Decode("test.yaml", []byte(c.body))
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "test.yaml") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
	if _, err := Decode("test.yaml", []byte(head+base)); err != nil {
		t.Fatalf("the base claim is valid: %v", err)
	}
}

// TestMerge: readings override scalars, merge variables key by key and
// noise field by field; a reading that names a sampling kind replaces the
// sampling.
func TestMerge(t *testing.T) {
	c := decode(t, `unit: example
neighbouring: add-remove
delta: 1e-5
claimed_epsilon: 3
variables: {N: 1000, B: 10, E: 2}
mechanism: gaussian
noise: {multiplier: 1.0}
sampling: {kind: poisson, batch: B, population: N}
steps: "E*N/B"
readings:
  - name: base
  - name: more-noise
    noise: {multiplier: 2.0}
    variables: {E: 4}
  - name: full
    sampling: {kind: full}
    steps: E
`)
	r := map[string]resolved{}
	for _, rd := range c.readings() {
		var err error
		if r[rd.Name], err = resolve(merge(c.Procedure, rd.Procedure), 3, nil); err != nil {
			t.Fatalf("%s: %v", rd.Name, err)
		}
	}
	// A reading that sets q without naming a kind keeps the base's batch
	// and population: both given is an error.
	over := Procedure{Step: Step{Sampling: &Sampling{Q: Value{Set: true, Num: 0.5}}}}
	if _, err := resolve(merge(c.Procedure, over), 3, nil); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("q on top of batch/population: %v", err)
	}
	if p := r["base"].phases[0]; p.z != 1 || p.q != 0.01 || p.steps != 200 || p.sampling != "poisson" {
		t.Errorf("base %+v", p)
	}
	if p := r["more-noise"].phases[0]; p.z != 2 || p.steps != 400 || p.q != 0.01 {
		t.Errorf("more-noise %+v", p)
	}
	if p := r["full"].phases[0]; p.sampling != "full" || p.q != 1 || p.steps != 2 {
		t.Errorf("full %+v", p)
	}
	if got := r["base"].event(1, atPrinted).String(); got != "200×PoissonSampled(q=0.01, Gaussian(σ=1))" {
		t.Errorf("event %s", got)
	}
	if z := r["base"].phases[0]; z.zFav != 1.05 || z.zUnfav != 0.95 {
		t.Errorf("rounding ends of 1.0: %v, %v", z.zFav, z.zUnfav)
	}
}

// TestOptimalComposition checks the closed form of the k-fold composition
// of ε₀-DP (randomized response) against a direct convolution of its
// privacy-loss distribution.
func TestOptimalComposition(t *testing.T) {
	for _, c := range []struct {
		eps0 float64
		k    int
	}{{0.1, 1}, {0.5, 7}, {0.2, 50}, {1, 20}} {
		// loss +ε₀ w.p. e^{ε₀}/(1+e^{ε₀}), −ε₀ otherwise (under P).
		p := math.Exp(c.eps0) / (1 + math.Exp(c.eps0))
		dist := []float64{1} // dist[j]: j steps at +ε₀
		for range c.k {
			next := make([]float64, len(dist)+1)
			for j, w := range dist {
				next[j+1] += w * p
				next[j] += w * (1 - p)
			}
			dist = next
		}
		for _, eps := range []float64{0, 0.3, 1, 2.5} {
			var want float64
			for j, w := range dist {
				l := float64(2*j-c.k) * c.eps0
				want += w * math.Max(0, 1-math.Exp(eps-l))
			}
			if got := optimalCompositionDelta(c.eps0, c.k, eps); !(math.Abs(got-want) <= 1e-12+1e-9*want) {
				t.Errorf("ε₀=%v k=%d ε=%v: δ = %v, convolution %v", c.eps0, c.k, eps, got, want)
			}
		}
		if e := optimalCompositionEpsilon(c.eps0, c.k, 0); e != float64(c.k)*c.eps0 {
			t.Errorf("δ = 0: ε = %v, want kε₀", e)
		}
		e := optimalCompositionEpsilon(c.eps0, c.k, 1e-5)
		if d := optimalCompositionDelta(c.eps0, c.k, e); d > 1e-5 || e > float64(c.k)*c.eps0 {
			t.Errorf("ε₀=%v k=%d: ε(1e-5) = %v gives δ %v", c.eps0, c.k, e, d)
		}
	}
}

// TestVisibleParticipation: the Binomial mixture equals the exact Gaussian
// composition at q = 1 and Fed-α-NormEC's independent implementation for
// q < 1.
func TestVisibleParticipation(t *testing.T) {
	e, err := visibleEpsilon(3, 1, 50, 1e-5)
	want, _ := accountant.GaussianEpsilon(3/math.Sqrt(50), 1e-5)
	if err != nil || !(math.Abs(e-want) <= 1e-9*want) {
		t.Errorf("q = 1: %v (%v), exact composition %v", e, err, want)
	}
	for _, q := range []float64{0.1, 0.5} {
		e, err := visibleEpsilon(2, q, 300, 1e-5)
		ref, rerr := normec.EpsilonVisibleParticipation(2, q, 300, 1e-5, accountant.AddRemove)
		if err != nil || rerr != nil || !(math.Abs(e-ref) <= 1e-12*ref) {
			t.Errorf("q = %v: %v, normec %v (%v, %v)", q, e, ref, err, rerr)
		}
	}
}

// TestVerdictRules exercises each verdict on claims whose exact ε is
// known (T Gaussian releases: exact = the GDP curve).
func TestVerdictRules(t *testing.T) {
	exact, _ := accountant.GaussianEpsilon(4/math.Sqrt(16), 1e-5) // σ 4, 16 steps
	body := func(claimed, sigma, extra string) string {
		return "unit: example\nneighbouring: add-remove\ndelta: 1e-5\nclaimed_epsilon: " + claimed +
			"\nmechanism: gaussian\nnoise: {multiplier: " + sigma + "}\nsteps: 16\n" + extra
	}
	o := Options{Seed: 1, NoEmpirical: true}
	fav, _ := accountant.GaussianEpsilon(4.05/math.Sqrt(16), 1e-5) // σ printed as 4.0 may be 4.05
	below := fmtF(math.Floor(exact*1000)/1000, 3)                  // < exact by less than 0.001
	for _, c := range []struct {
		name, claimed, sigma, extra, verdict, proven string
	}{
		{"at the exact value", fmtF(exact, 3), "4", "", Consistent, ""},
		{"below the exact value", "2.00", "4", "", Optimistic, "lower-bound"},
		{"far above every bound", "30", "4", "", Conservative, ""},
		{"within the conservative margin", fmtF(1.03*loosestFor(t, 4), 3), "4", "", Consistent, ""},
		{"beyond the margin only at the printed σ", fmtF(1.055*loosestFor(t, 4), 3), "4.0", "", Consistent, ""},
		{"rounded σ rescues", fmtF(fav, 1), "4.0", "", Consistent, ""},
		{"integer σ is exact", fmtF(fav, 1), "4", "", Optimistic, "lower-bound"},
		{"printed: rounding tolerance", below, "4", "", Consistent, ""},
		{"exact target: no tolerance", below, "4", "rounding: exact\n", Optimistic, "lower-bound"},
	} {
		rep := auditOf(t, body(c.claimed, c.sigma, c.extra), o)
		r := rep.Cases[0].Readings[0]
		if r.Verdict != c.verdict || r.Proven != c.proven {
			t.Errorf("%s (claimed %s, σ %s; exact %.6g): %s (proven %q): %s", c.name, c.claimed, c.sigma, exact, r.Verdict, r.Proven, r.Reason)
		}
		// The reason says which rule kept the claim from conservative, and
		// says it truly: "within the 5% margin" only when it is.
		if within := strings.Contains(r.Reason, "within the 5% margin"); within != (c.name == "within the conservative margin") {
			t.Errorf("%s: reason %q", c.name, r.Reason)
		}
		if disfav := strings.Contains(r.Reason, "disfavours the claim"); disfav != (c.name == "beyond the margin only at the printed σ") {
			t.Errorf("%s: reason %q", c.name, r.Reason)
		}
		if r.Upper.Method != MExact || !(math.Abs(r.Upper.Epsilon-exact) <= 1e-9*exact) {
			t.Errorf("%s: upper %+v, exact %v", c.name, r.Upper, exact)
		}
		if r.Verdict == Optimistic && (r.EpsilonRatio == nil || !(math.Abs(*r.EpsilonRatio-r.Upper.Epsilon/rep.Cases[0].ClaimedEpsilon) <= 1e-12) ||
			r.Needed == nil || r.Needed.Scale <= 1) {
			t.Errorf("%s: ratio %v, needed %+v", c.name, r.EpsilonRatio, r.Needed)
		}
	}
	// Readings that disagree make the case underspecified; a bound-only
	// reading never proves the claim false.
	rep := auditOf(t, body(fmtF(exact, 2), "4", `readings:
  - name: sixteen
  - name: sixty-four
    bound_only: true
    steps: 64
`), o)
	k := rep.Cases[0]
	if k.Verdict != Underspecified || !strings.Contains(k.Summary, "consistent under sixteen") || !strings.Contains(k.Summary, "optimistic under sixty-four") {
		t.Errorf("summary %q", k.Summary)
	}
	if r := k.Readings[1]; r.Proven != "" || r.Lower != nil {
		t.Errorf("bound-only reading: proven %q, lower %+v", r.Proven, r.Lower)
	}
}

func fmtF(x float64, decimals int) string {
	b, _ := json.Marshal(math.Round(x*math.Pow(10, float64(decimals))) / math.Pow(10, float64(decimals)))
	return string(b)
}

func loosestFor(t *testing.T, sigma float64) float64 {
	t.Helper()
	e, _, err := accountant.Config{Kind: accountant.KindRDP, Conversion: accountant.Classic}.Epsilon(accountant.SelfComposed{Event: accountant.Gaussian{Sigma: sigma}, Count: 16}, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestMechanisms audits one small claim of each mechanism and sampling
// kind, and checks the numbers against the accountant called directly.
func TestMechanisms(t *testing.T) {
	o := Options{Seed: 1, Quick: true}
	common := "neighbouring: add-remove\nclaimed_epsilon: 5\n"
	for _, c := range []struct {
		name, body string
		event      accountant.Event
		nb         accountant.Neighbouring
		delta      float64
		kind       accountant.Kind
	}{
		{"poisson gaussian", "unit: example\ndelta: 1e-5\nmechanism: gaussian\nnoise: {multiplier: 1.1}\nsampling: {kind: poisson, q: 0.01}\nsteps: 1000\n",
			accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.01, Event: accountant.Gaussian{Sigma: 1.1}}, Count: 1000}, accountant.AddRemove, 1e-5, accountant.KindPLD},
		{"laplace pure", "unit: example\ndelta: 0\nmechanism: laplace\nnoise: {scale: 2, sensitivity: 1}\nsteps: 4\n",
			accountant.SelfComposed{Event: accountant.Laplace{Scale: 2}, Count: 4}, accountant.AddRemove, 0, accountant.KindPure},
		{"tree", "unit: user\ndelta: 1e-6\nmechanism: tree-aggregation\nnoise: {multiplier: 8.83}\ntree: {leaves: 1600}\n",
			accountant.TreeAggregation{Sigma: 8.83, Trees: []int{1600}}, accountant.AddRemove, 1e-6, accountant.KindExact},
		{"discrete gaussian", "unit: example\ndelta: 1e-5\nmechanism: discrete-gaussian\nnoise: {scale: 10, sensitivity: 3}\nsteps: 1\n",
			accountant.DiscreteGaussian{Sigma: 10, Sensitivity: 3}, accountant.AddRemove, 1e-5, accountant.KindExact},
		{"zcdp", "unit: user\ndelta: 1e-10\nmechanism: zcdp\nnoise: {rho: 0.81}\nsteps: 1\n",
			accountant.ZCDP{Rho: 0.81}, accountant.AddRemove, 1e-10, accountant.KindZCDP},
		{"fixed batch", "unit: example\nmechanism: gaussian\ndelta: 1e-5\nnoise: {multiplier: 2}\nsampling: {kind: fixed-batch, batch: 100, population: 10000}\nsteps: 500\nneighbouring: replace-one\n",
			accountant.SelfComposed{Event: accountant.SampledWithoutReplacement{SampleSize: 100, PopulationSize: 10000, Event: accountant.Gaussian{Sigma: 2}}, Count: 500}, accountant.ReplaceOne, 1e-5, accountant.KindRDP},
		{"phases", "unit: example\ndelta: 1e-5\nmechanism: gaussian\nnoise: {multiplier: 1}\nsampling: {kind: poisson, q: 0.01}\nphases: [{name: a, steps: 100}, {name: b, noise: {multiplier: 2}, steps: 50, sampling: {kind: full}}]\n",
			accountant.Composed{Events: []accountant.Event{
				accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.01, Event: accountant.Gaussian{Sigma: 1}}, Count: 100},
				accountant.SelfComposed{Event: accountant.Gaussian{Sigma: 2}, Count: 50}}}, accountant.AddRemove, 1e-5, accountant.KindPLD},
	} {
		b := common + c.body
		if strings.Contains(c.body, "neighbouring:") {
			b = strings.Replace(b, "neighbouring: add-remove\n", "", 1)
		}
		rep := auditOf(t, b, o)
		r := rep.Cases[0].Readings[0]
		// The engine runs the accountants under its default work cap.
		want, err := accountant.Config{Kind: c.kind, Neighbouring: c.nb, WorkPoints: DefaultWorkPoints}.Account(c.event, c.delta)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := map[accountant.Kind]string{accountant.KindPLD: MPLD, accountant.KindPure: MPure, accountant.KindExact: MExact, accountant.KindZCDP: MZCDP, accountant.KindRDP: MRDP}[c.kind]
		e := r.Method(m)
		if e == nil || e.Epsilon == nil || !(math.Abs(*e.Epsilon-want.Value) <= 1e-12*want.Value) {
			t.Errorf("%s: %s = %+v, accountant %v (%s)", c.name, m, e, want.Value, r.Procedure)
		}
		if r.Upper.Epsilon > want.Value*(1+1e-12) {
			t.Errorf("%s: upper %+v above the %s value %v", c.name, r.Upper, m, want.Value)
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Errorf("%s: JSON: %v", c.name, err)
		}
	}
}

// TestPureClaim: a stated per-step ε₀ sums (pure), composes optimally and
// through zCDP; average_over averages per value.
func TestPureClaim(t *testing.T) {
	rep := auditOf(t, `unit: example
neighbouring: replace-one
delta: 1e-5
claimed_epsilon: 5.0
mechanism: pure-dp
noise: {epsilon: "1/D"}
steps: 10
average_over: {variable: D, values: [10, 20]}
`, Options{})
	r := rep.Cases[0].Readings[0]
	pure := *r.Method(MPure).Epsilon
	if !(math.Abs(pure-(1+0.5)/2) <= 1e-12) {
		t.Errorf("pure = %v, want mean(10/10, 10/20) = 0.75", pure)
	}
	wantOpt := (optimalCompositionEpsilon(0.1, 10, 1e-5) + optimalCompositionEpsilon(0.05, 10, 1e-5)) / 2
	if got := *r.Method(MOptimal).Epsilon; !(math.Abs(got-wantOpt) <= 1e-12) {
		t.Errorf("optimal = %v, want %v", got, wantOpt)
	}
	if r.Verdict != Conservative || r.AveragedOver != 2 {
		t.Errorf("verdict %s (%s), averaged over %d", r.Verdict, r.Reason, r.AveragedOver)
	}
}

// TestEmpirical: the distinguishing game gives a lower bound that does not
// exceed the exact ε, is positive when the mechanism leaks a lot, and is
// reproducible from the seed.
func TestEmpirical(t *testing.T) {
	body := "unit: example\nneighbouring: add-remove\ndelta: 1e-5\nclaimed_epsilon: 1\nmechanism: gaussian\nnoise: {multiplier: 0.5}\nsteps: 4\n"
	a := auditOf(t, body, Options{Seed: 3, NoCalibration: true})
	b := auditOf(t, body, Options{Seed: 3, NoCalibration: true})
	ra, rb := a.Cases[0].Readings[0], b.Cases[0].Readings[0]
	if ra.Empirical == nil || ra.Empirical.EpsilonLB == nil {
		t.Fatalf("no empirical bound: %+v", ra.Empirical)
	}
	lb, exact := *ra.Empirical.EpsilonLB, ra.Upper.Epsilon
	if !(lb > 1 && lb <= exact) || *rb.Empirical.EpsilonLB != lb {
		t.Errorf("ε_LB %v (again %v), exact %v", lb, *rb.Empirical.EpsilonLB, exact)
	}
	if ra.Proven != "lower-bound" || !strings.Contains(ra.Reason, "proven false") {
		t.Errorf("reason %q", ra.Reason)
	}
	// A sampled mechanism too long for the budget is not attempted.
	long := auditOf(t, strings.Replace(body, "steps: 4", "steps: 100000\nsampling: {kind: poisson, q: 0.01}", 1), Options{Seed: 3, NoCalibration: true, Quick: true})
	if e := long.Cases[0].Readings[0].Empirical; e == nil || e.EpsilonLB != nil || !strings.Contains(e.Note, "too few") {
		t.Errorf("long composition: %+v", e)
	}
}

// TestPaperMethods: the paper's own accountant is recomputed — the GDP
// central-limit approximation of Bu et al. and a printed closed form.
func TestPaperMethods(t *testing.T) {
	c := decode(t, `unit: example
neighbouring: add-remove
delta: 1e-5
claimed_epsilon: 1.34
mechanism: gaussian
noise: {multiplier: 1.06}
sampling: {kind: poisson, q: "256/60000"}
steps: 4688
`)
	c.AccountantUsed.Name.S = "gdp-clt"
	r, err := Audit(c, Options{NoEmpirical: true, NoCalibration: true})
	if err != nil {
		t.Fatal(err)
	}
	mu, _ := accountant.PoissonGDPMu(256.0/60000, 1.06, 4688)
	want, _ := accountant.GDPEpsilon(mu, 1e-5)
	pm := r.Cases[0].Readings[0].PaperMethod
	if pm == nil || !(math.Abs(pm.Epsilon-want) <= 1e-12) || !pm.Matches || !(math.Abs(mu-0.35) <= 0.005) {
		t.Errorf("gdp-clt: %+v, want %v (μ %v)", pm, want, mu)
	}
}
