package convergence

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/mat"
)

// classes are the (convexity, heterogeneity, constants) combinations the
// certification tests sweep.
var classes = []struct {
	conv, het string
	k         map[string]float64
}{
	{"convex", "none", map[string]float64{"L": 1}},
	{"strongly-convex", "none", map[string]float64{"L": 2, "mu": 0.3, "sigma2": 0.5}},
	{"strongly-convex", "uniform", map[string]float64{"L": 1, "mu": 0.1, "zeta2": 0.7}},
	{"convex", "uniform", map[string]float64{"L": 1, "zeta2": 4}},
	{"strongly-convex", "any", map[string]float64{"L": 1, "mu": 0.2}},
	{"nonconvex", "none", map[string]float64{"L": 1.5}},
}

func randTheta(r interface{ Float64() float64 }, n int) []float64 {
	th := make([]float64, n)
	for i := range th {
		th[i] = r.Float64()
	}
	return th
}

// TestInstancesBelongToClass generates instances of every family and class
// at random search points and checks the class's assumptions numerically,
// independently of the certificates: ‖∇f_i(x) − ∇f_i(y)‖ ≤ L‖x − y‖,
// ⟨∇f_i(x) − ∇f_i(y), x − y⟩ ≥ μ‖x − y‖² (≥ 0 for convex),
// (1/N)Σ‖∇f_i − ∇f‖² ≤ ζ² at random points, ∇f(x*) = 0 and f(x*) ≤ f(y).
func TestInstancesBelongToClass(t *testing.T) {
	const d, n = 3, 4
	for ci, cl := range classes {
		for _, fam := range FamilyNames {
			if !admits(fam, cl.conv, cl.het) {
				continue
			}
			for draw := 0; draw < 12; draw++ {
				r := rng.New(5, "class", ci, fam, draw).Rand()
				spec := InstanceSpec{Family: fam, Dim: d, Clients: n, Theta: randTheta(r, ThetaDims(fam, d, n, cl.het)), Seed: 5,
					Labels: []string{"t", fam}, Convexity: cl.conv, Heterogeneity: cl.het, Constants: cl.k}
				in, err := Generate(spec)
				if err != nil {
					if strings.Contains(err.Error(), ErrDegenerate.Error()) {
						continue
					}
					t.Fatalf("%s/%s/%s: %v", cl.conv, cl.het, fam, err)
				}
				checkMembership(t, in, cl.conv, cl.het, cl.k, r)
			}
		}
	}
}

func checkMembership(t *testing.T, in *Instance, convexity, het string, k map[string]float64, r interface {
	NormFloat64() float64
	Float64() float64
}) {
	t.Helper()
	d := in.Dim
	pt := func() []float64 {
		x := make([]float64, d)
		for i := range x {
			x[i] = in.XStar[i] + 3*r.NormFloat64()
		}
		return x
	}
	gx, gy := make([]float64, d), make([]float64, d)
	for trial := 0; trial < 60; trial++ {
		x, y := pt(), pt()
		if trial%3 == 0 { // close pairs probe local curvature
			for i := range y {
				y[i] = x[i] + 1e-3*r.NormFloat64()
			}
		}
		dxy := math.Sqrt(dist2(x, y))
		for i, c := range in.Clients {
			c.Grad(x, gx)
			c.Grad(y, gy)
			dg := sub(gx, gy)
			if ng := math.Sqrt(dot(dg, dg)); ng > k["L"]*dxy*(1+1e-9)+1e-12 {
				t.Fatalf("%s client %d: ‖∇f(x) − ∇f(y)‖ = %.6g > L‖x − y‖ = %.6g", in.Family, i, ng, k["L"]*dxy)
			}
			inner := dot(dg, sub(x, y))
			switch convexity {
			case "strongly-convex":
				if inner < k["mu"]*dxy*dxy*(1-1e-9)-1e-12 {
					t.Fatalf("%s client %d: not %g-strongly convex (%.6g < %.6g)", in.Family, i, k["mu"], inner, k["mu"]*dxy*dxy)
				}
			case "convex":
				if inner < -1e-12 {
					t.Fatalf("%s client %d: not convex", in.Family, i)
				}
			}
		}
		if het == "uniform" || het == "none" {
			g := make([]float64, d)
			in.GradF(x, g)
			z := 0.0
			for _, c := range in.Clients {
				c.Grad(x, gx)
				z += dist2(gx, g) / float64(in.N())
			}
			lim := k["zeta2"]
			if het == "none" {
				lim = 0
			}
			if z > lim*(1+1e-9)+1e-12 {
				t.Fatalf("%s: heterogeneity %.6g > ζ² = %g", in.Family, z, lim)
			}
		}
		if convexity != "nonconvex" && in.F(x) < in.FStar-1e-12*math.Max(1, math.Abs(in.FStar)) {
			t.Fatalf("%s: f(y) = %.17g below f* = %.17g", in.Family, in.F(x), in.FStar)
		}
	}
	for i, s := range in.Sigma2 {
		if s > k["sigma2"] {
			t.Fatalf("%s: client %d noise %g > σ² = %g", in.Family, i, s, k["sigma2"])
		}
	}
}

// TestCertifyRejects: instances outside the class are refused.
func TestCertifyRejects(t *testing.T) {
	spec := InstanceSpec{Family: "quadratic", Dim: 2, Clients: 3, Seed: 1, Labels: []string{"r"}, Convexity: "strongly-convex", Heterogeneity: "uniform",
		Constants: map[string]float64{"L": 1, "mu": 0.2, "zeta2": 0.5, "sigma2": 0.1}}
	spec.Theta = randTheta(rng.New(1, "rej").Rand(), ThetaDims("quadratic", 2, 3, "uniform"))
	in, err := Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		name string
		k    map[string]float64
		conv string
		het  string
	}{
		{"smaller L", map[string]float64{"L": 0.5, "mu": 0.2, "zeta2": 0.5, "sigma2": 0.1}, "strongly-convex", "uniform"},
		{"larger mu", map[string]float64{"L": 1, "mu": 0.9, "zeta2": 0.5, "sigma2": 0.1}, "strongly-convex", "uniform"},
		{"smaller zeta2", map[string]float64{"L": 1, "mu": 0.2, "zeta2": 1e-6, "sigma2": 0.1}, "strongly-convex", "uniform"},
		{"no heterogeneity", map[string]float64{"L": 1, "mu": 0.2, "zeta2": 0.5, "sigma2": 0.1}, "strongly-convex", "none"},
		{"smaller sigma2", map[string]float64{"L": 1, "mu": 0.2, "zeta2": 0.5, "sigma2": 0.01}, "strongly-convex", "uniform"},
	} {
		if err := in.Certify(m.conv, m.het, m.k); err == nil {
			t.Errorf("%s: certified", m.name)
		}
	}
	if err := in.Certify("strongly-convex", "uniform", spec.Constants); err != nil {
		t.Errorf("the instance's own class: %v", err)
	}
	cos := &Instance{Family: "cosine", Dim: 1, Clients: []Objective{&cosObj{u: []float64{1}, a: 1, P: mat.NewSymDense(1, nil)}}, Sigma2: []float64{0},
		X0: []float64{1}, XStar: []float64{0}, LCert: 1, MuCert: -1, Identical: true}
	if err := cos.Certify("convex", "none", map[string]float64{"L": 1}); err == nil {
		t.Error("a non-convex instance is certified convex")
	}
}

// claimFor builds a minimal claim around a method for engine tests.
func claimFor(t *testing.T, src string) *Claim {
	t.Helper()
	c, err := Decode("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const header = `format: fedrepro-convergence/1
id: test
title: t
paper: {title: t, authors: a, year: 2020, link: l}
source: {where: w, quote: q}
`

func runOn(t *testing.T, c *Claim, in *Instance, point map[string]float64, mc int, seed uint64) Measurement {
	return runMode(t, c, in, point, mc, seed, false)
}

// runMode measures; forceMC skips the exact path.
func runMode(t *testing.T, c *Claim, in *Instance, point map[string]float64, mc int, seed uint64, forceMC bool) Measurement {
	t.Helper()
	sym := in.Symbols()
	sym["G2"] = 0
	res, err := c.resolve(c.readings()[0], point, sym)
	if err != nil {
		t.Fatal(err)
	}
	rn := &runner{c: c, m: Methods[c.Algorithm.Name.S], res: res, in: in, seed: seed, mc: mc}
	measure := rn.measure
	if forceMC {
		measure = rn.monteCarlo
	}
	ms, err := measure()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func quadInstance(t *testing.T, het string, n int, k map[string]float64, label string) *Instance {
	t.Helper()
	spec := InstanceSpec{Family: "quadratic", Dim: 2, Clients: n, Seed: 3, Labels: []string{label}, Convexity: "strongly-convex", Heterogeneity: het, Constants: k}
	spec.Theta = randTheta(rng.New(3, label).Rand(), ThetaDims("quadratic", 2, n, het))
	in, err := Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestExactMatchesMonteCarlo: the exact moments of FedAvg with client
// sampling (both schemes) and gradient noise on a heterogeneous quadratic
// lie inside the Monte-Carlo confidence interval of many replicates, for
// the last iterate, the averaged iterate and the per-step minimum.
func TestExactMatchesMonteCarlo(t *testing.T) {
	k := map[string]float64{"L": 1, "mu": 0.2, "sigma2": 0.3}
	in := quadInstance(t, "any", 4, k, "mc")
	for _, over := range []string{"over: last", "{over: average, from: 0, to: T, weight: \"1 + t\"}", "{over: min, from: 1, to: T}"} {
		for _, repl := range []string{"0", "1"} {
			src := header + `algorithm: {name: fedavg, params: {lr: 0.3/(1 + 0.1*t), E: 2, K: 2, with_replacement: ` + repl + `}}
class: {convexity: strongly-convex, heterogeneity: any, noise: bounded-variance, constants: {L: 1, mu: 0.2, sigma2: 0.3}}
variables: {N: 4, T: 3}
quantity: ` + strings.Replace(strings.Replace(over, "over: last", "{measure: gap, over: last}", 1), "{over:", "{measure: gap, over:", 1) + `
bound: R2
`
			c := claimFor(t, src)
			ex := runOn(t, c, in, nil, 0, 1)
			if ex.Mode != ModeExact {
				t.Fatalf("%s: mode %s, want exact", over, ex.Mode)
			}
			mc := runMode(t, c, in, nil, 6000, 1, true)
			if mc.Mode != ModeMonteCarlo {
				t.Fatalf("mode %s", mc.Mode)
			}
			if !(ex.Value >= mc.Lower && ex.Value <= mc.Upper) {
				t.Errorf("%s, with_replacement %s: exact %.6g outside the Monte-Carlo 99.9%% interval [%.6g, %.6g]", over, repl, ex.Value, mc.Lower, mc.Upper)
			}
		}
	}
}

// TestExactGDClosedForm: gradient descent on a quadratic with noise has
// E‖x_T − x*‖² = Σ_j (1 − ηλ_j)^{2T} c_j² + σ²/d·η² Σ_j Σ_{s<T} (1 − ηλ_j)^{2s}
// in the eigenbasis; the engine's exact moments match it to 1e-12.
func TestExactGDClosedForm(t *testing.T) {
	k := map[string]float64{"L": 1, "mu": 0.1, "sigma2": 0.4}
	in := quadInstance(t, "none", 1, k, "gd")
	c := claimFor(t, header+`algorithm: {name: gd, params: {lr: 0.7}}
class: {convexity: strongly-convex, heterogeneity: none, noise: bounded-variance, constants: {L: 1, mu: 0.1, sigma2: 0.4}}
variables: {T: 9}
quantity: {measure: dist, over: last}
bound: R2
`)
	ms := runOn(t, c, in, nil, 0, 1)
	var e mat.EigenSym
	e.Factorize(in.Quad[0].A, true)
	var v mat.Dense
	e.VectorsTo(&v)
	lam := e.Values(nil)
	x0 := sub(in.X0, in.XStar)
	want := 0.0
	for j, l := range lam {
		cj := 0.0
		for i := range x0 {
			cj += v.At(i, j) * x0[i]
		}
		q := 1 - 0.7*l
		want += math.Pow(q, 18) * cj * cj
		for s := 0; s < 9; s++ {
			want += 0.4 / 2 * 0.49 * math.Pow(q, float64(2*s))
		}
	}
	if math.Abs(ms.Value-want) > 1e-12*want {
		t.Errorf("exact %.17g, closed form %.17g", ms.Value, want)
	}
}

// TestNonAffineFallsBack: clipping makes DP-SGD non-affine; the engine's
// affinity check sends it to Monte Carlo rather than reporting wrong
// "exact" moments.
func TestNonAffineFallsBack(t *testing.T) {
	in := quadInstance(t, "none", 2, map[string]float64{"L": 1, "mu": 0.1}, "dp")
	c := claimFor(t, header+`algorithm: {name: dp-sgd, params: {lr: 0.5, clip: 0.1, z: 1, K: 1}}
class: {convexity: strongly-convex, heterogeneity: none, noise: none, constants: {L: 1, mu: 0.1}}
variables: {N: 2, T: 4}
quantity: {measure: gap, over: last}
bound: F0
`)
	if ms := runOn(t, c, in, nil, 8, 1); ms.Mode != ModeMonteCarlo {
		t.Errorf("mode %s, want %s", ms.Mode, ModeMonteCarlo)
	}
	// Forcing the exact path on the clipped method must be refused by the
	// affinity check.
	m := *Methods["dp-sgd"]
	m.Affine = true
	sym := in.Symbols()
	res, _ := c.resolve(c.readings()[0], nil, sym)
	rn := &runner{c: c, m: &m, res: res, in: in, seed: 1, mc: 8}
	if _, err := rn.exact(); err == nil {
		t.Error("the affinity check accepted a clipped step")
	}
}

// TestDroriTeboulleAttained: the Huber function of Drori and Teboulle
// (kink at R/(2T+1), x⁰ on its linear part at distance R) makes gradient
// descent with step 1/L reach f(x_T) − f* = L R²/(4T + 2) exactly.
func TestDroriTeboulleAttained(t *testing.T) {
	for _, T := range []int{1, 3, 10} {
		R := 2.0
		delta := R / float64(2*T+1)
		p := mat.NewSymDense(2, []float64{0, 0, 0, 0.5})
		h := &huberObj{u: []float64{1, 0}, a: 1, δ: delta, P: p}
		in := &Instance{Family: "huber", Dim: 2, Clients: []Objective{h}, Sigma2: []float64{0}, X0: []float64{R, 0}, XStar: []float64{0, 0},
			LCert: 1, Identical: true}
		c := claimFor(t, header+`algorithm: {name: gd, params: {lr: 1/L}}
class: {convexity: convex, heterogeneity: none, noise: none, constants: {L: 1}}
variables: {T: 1}
quantity: {measure: gap, over: last}
bound: L*R2/(4*T + 2)
`)
		ms := runOn(t, c, in, map[string]float64{"T": float64(T)}, 0, 1)
		want := R * R / float64(4*T+2)
		if ms.Mode != ModeDeterministic || math.Abs(ms.Value-want) > 1e-12 {
			t.Errorf("T = %d: %s %.17g, want %.17g", T, ms.Mode, ms.Value, want)
		}
	}
}

// TestOutcomes: sampling outcomes are complete (multisets for draws with
// replacement) and their probabilities sum to one.
func TestOutcomes(t *testing.T) {
	for _, tc := range []struct {
		n, k  int
		repl  bool
		count int
	}{{5, 0, false, 1}, {5, 2, false, 10}, {6, 3, false, 20}, {3, 2, true, 6}, {4, 3, true, 20}, {4, 4, true, 35}} {
		o := outcomes(tc.n, tc.k, tc.repl)
		if len(o) != tc.count {
			t.Errorf("n=%d k=%d repl=%v: %d outcomes, want %d", tc.n, tc.k, tc.repl, len(o), tc.count)
		}
		s := 0.0
		for _, x := range o {
			s += x.p
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("probabilities sum to %v", s)
		}
	}
	if outcomes(20, 10, false) != nil {
		t.Error("C(20,10) outcomes enumerated: want nil (Monte Carlo)")
	}
}

// TestDecodeErrors: bad input is one line naming the file and, where the
// YAML has one, the line.
func TestDecodeErrors(t *testing.T) {
	good := header + `algorithm: {name: gd, params: {lr: 1/L}}
class: {convexity: convex, heterogeneity: none, noise: none, constants: {L: 1}}
quantity: {measure: gap, over: last}
bound: L*R2/(2*T)
grid: {T: [1, 2]}
`
	if _, err := Decode("c.yaml", []byte(good)); err != nil {
		t.Fatalf("good claim: %v", err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown key", "bound:", "colour: red\nbound:", `c.yaml:9: unknown key "colour"`},
		{"unknown method", "name: gd", "name: sgdx", "algorithm.name"},
		{"unknown parameter", "lr: 1/L", "lr: 1/L, momentum: 0.9", `has no parameter "momentum"`},
		{"unknown name in bound", "L*R2/(2*T)", "L*R3/(2*T)", `unknown name "R3"`},
		{"bad formula", "L*R2/(2*T)", "L*R2/(2*", "bound"},
		{"missing horizon", "grid: {T: [1, 2]}", "grid: {S: [1, 2]}", "horizon T"},
		{"fractional horizon", "T: [1, 2]", "T: [1.5]", "whole number"},
		{"strongly convex without mu", "convexity: convex", "convexity: strongly-convex", "constants.mu"},
		{"cycle", "bound: L*R2/(2*T)", "variables: {a: b, b: a}\nbound: L*R2/(2*T)", "cycle"},
		{"constraint not a condition", "bound:", "constraints: [\"L + 1\"]\nbound:", "constraint"},
		{"number as text", "constants: {L: 1}", "constants: {L: one}", "c.yaml:"},
		{"path without formula", "measure: gap", "measure: path", "quantity.path"},
		{"formula without path", "measure: gap, over: last", "measure: gap, over: last, path: g2", "quantity.path"},
		{"path at the average", "measure: gap, over: last", "measure: path, path: g2, over: average, from: 0, to: T", "not average"},
		{"unknown step symbol", "measure: gap, over: last", "measure: path, path: g3, over: last", `unknown name "g3"`},
	} {
		bad := strings.Replace(good, tc.from, tc.to, 1)
		_, err := Decode("c.yaml", []byte(bad))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "c.yaml") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want one line starting c.yaml containing %q", tc.name, err, tc.want)
		}
	}
}

// TestPathMeasure: measure path evaluates its formula on the trajectory.
// On gradient descent (deterministic) the formula g2 reproduces measure
// grad (computed exactly) and gap reproduces measure gap, to 1e-12; and
// dx2 = ‖x_t − x_{t−1}‖² = lr²‖∇f(x_{t−1})‖², so the mean over t = 1..T of
// dx2/lr² equals the mean of g2 over t = 0..T−1. Noise sends it to Monte
// Carlo even on a quadratic (E of a product of norms is not exact).
func TestPathMeasure(t *testing.T) {
	k := map[string]float64{"L": 1, "mu": 0.1}
	in := quadInstance(t, "none", 1, k, "path")
	run := func(q string) Measurement {
		c := claimFor(t, header+`algorithm: {name: gd, params: {lr: eta}}
class: {convexity: strongly-convex, heterogeneity: none, noise: none, constants: {L: 1, mu: 0.1}}
variables: {T: 6, eta: 0.7}
quantity: `+q+`
bound: R2
`)
		return runOn(t, c, in, nil, 0, 1)
	}
	for _, tc := range []struct{ a, b string }{
		{"{measure: grad, over: mean, from: 0, to: T}", "{measure: path, path: g2, over: mean, from: 0, to: T}"},
		{"{measure: gap, over: last}", "{measure: path, path: gap, over: last}"},
		{"{measure: dist, over: min, from: 2, to: T}", "{measure: path, path: dist, over: min, from: 2, to: T}"},
		{"{measure: grad, over: mean, from: 0, to: 5}", "{measure: path, path: dx2/eta^2, over: mean, from: 1, to: T}"},
	} {
		a, b := run(tc.a), run(tc.b)
		if b.Mode != ModeDeterministic {
			t.Errorf("%s: mode %s, want %s", tc.b, b.Mode, ModeDeterministic)
		}
		if math.Abs(a.Value-b.Value) > 1e-12*math.Max(1, math.Abs(a.Value)) {
			t.Errorf("%s = %.17g, %s = %.17g", tc.a, a.Value, tc.b, b.Value)
		}
	}
	noisy := quadInstance(t, "none", 1, map[string]float64{"L": 1, "mu": 0.1, "sigma2": 0.2}, "path-noise")
	c := claimFor(t, header+`algorithm: {name: gd, params: {lr: 0.5}}
class: {convexity: strongly-convex, heterogeneity: none, noise: bounded-variance, constants: {L: 1, mu: 0.1, sigma2: 0.2}}
variables: {T: 3}
quantity: {measure: path, path: sqrt(g2*dx2), over: last}
bound: R2
`)
	if ms := runOn(t, c, noisy, nil, 8, 1); ms.Mode != ModeMonteCarlo {
		t.Errorf("noisy path measure: mode %s, want %s", ms.Mode, ModeMonteCarlo)
	}
}

// TestNelderMead minimises a shifted quadratic.
func TestNelderMead(t *testing.T) {
	f := func(x []float64) float64 { return (x[0]-0.3)*(x[0]-0.3) + 4*(x[1]-0.7)*(x[1]-0.7) }
	x, v := nelderMead(f, []float64{0.9, 0.1}, 0.2, 400)
	if v > 1e-8 || math.Abs(x[0]-0.3) > 1e-3 || math.Abs(x[1]-0.7) > 1e-3 {
		t.Errorf("nelderMead: %v %v", x, v)
	}
}

// TestAuditDeterministic: the same seed gives byte-identical reports; the
// planted 4T+4 variant of Drori–Teboulle is violated, and its saved
// instance replays to the same violation.
func TestAuditDeterministic(t *testing.T) {
	src := header + `algorithm: {name: gd, params: {lr: 1/L}}
class: {convexity: convex, heterogeneity: none, noise: none, constants: {L: 1}}
quantity: {measure: gap, over: last}
bound: L*R2/(4*T + 4)
grid: {T: [2]}
search: {families: [quadratic, huber], draws: 4, adversarial: 40}
`
	c := claimFor(t, src)
	a, err := Audit(c, Options{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Audit(c, Options{Seed: 9})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("two audits with one seed differ")
	}
	if a.Verdict != Violated || a.Readings[0].Worst.Family != "huber" {
		t.Fatalf("verdict %s on %s, want violated on huber", a.Verdict, a.Readings[0].Worst.Family)
	}
	f := a.Counterexample(a.Readings[0].Reading, 9)
	ev, err := Replay(c, f)
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Violated || ev.Measured.Value != f.Measured.Value {
		t.Errorf("replay: violated %v, measured %v vs saved %v", ev.Violated, ev.Measured.Value, f.Measured.Value)
	}
	// Quadratics alone never violate it (their worst case is ≈ L R²/(4eT)).
	q, err := Audit(c, Options{Seed: 9, Families: []string{"quadratic"}})
	if err != nil {
		t.Fatal(err)
	}
	if q.Verdict == Violated {
		t.Errorf("quadratics violate L R²/(4T+4): %s", q.Summary)
	}
}
