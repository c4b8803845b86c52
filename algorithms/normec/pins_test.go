package normec

// Unit pins (issue 12, item 4): tiny Fed-α-NormEC and DP-FedAvg rounds whose
// expected values are derived here independently of the package — by hand
// (arithmetic in the comments) or by a second, plainly written
// implementation of the listing (refNormEC, refFedAvg below) that uses no
// helper of the package and recomputes the named random streams itself.
// Tolerance: 1e-12 absolute on quantities of order one.

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

const pinTol = 1e-12

// centred is f(x) = ½·a·‖x − c‖², with ∇f(x) = a·(x − c). Its components
// (for the incremental-gradient operator) are further centred functions.
type centred struct {
	a float64
	c []float64
}

func (q centred) NumParams() int { return len(q.c) }

func (q centred) Grad(x, g []float64) float64 {
	var f float64
	for j := range x {
		d := x[j] - q.c[j]
		g[j] = q.a * d
		f += 0.5 * q.a * d * d
	}
	return f
}

// parts is f = (1/N)Σ_j f_j for centred f_j: a Components objective.
type parts []centred

func (p parts) NumParams() int     { return len(p[0].c) }
func (p parts) NumComponents() int { return len(p) }
func (p parts) ComponentGrad(j int, x, g []float64) {
	p[j].Grad(x, g)
}
func (p parts) Grad(x, g []float64) float64 {
	tmp := make([]float64, len(x))
	for j := range g {
		g[j] = 0
	}
	var f float64
	for _, q := range p {
		f += q.Grad(x, tmp)
		for j := range g {
			g[j] += tmp[j] / float64(len(p))
		}
	}
	return f / float64(len(p))
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !(math.Abs(got-want) <= pinTol) || math.IsNaN(got) != math.IsNaN(want) {
		t.Errorf("%s = %.17g, want %.17g (|Δ| = %.3g)", what, got, want, math.Abs(got-want))
	}
}

func nearVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s has length %d, want %d", what, len(got), len(want))
	}
	for j := range got {
		if !(math.Abs(got[j]-want[j]) <= pinTol) || math.IsNaN(got[j]) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

// TestPinLocalOperators pins the three local operators on hand-computed
// examples.
func TestPinLocalOperators(t *testing.T) {
	ws := NewWorkspace(2)
	// One GD step on f = ½·2‖x − 0‖² at x = (1, 1): P = ∇f(x) = (2, 2).
	f := centred{a: 2, c: []float64{0, 0}}
	x := []float64{1, 1}
	p := make([]float64, 2)
	cost := Local{Kind: OneStep}.Pseudo(f, x, 0.5, p, ws)
	nearVec(t, "one-step P", p, []float64{2, 2})
	if cost != (Cost{Grads: 1}) {
		t.Errorf("one-step cost %+v", cost)
	}
	// T = 2 GD steps of size γ/T = 0.25 (γ = 0.5) from x = (1, 1):
	//   g0 = 2·(1, 1) = (2, 2); y1 = (1, 1) − 0.25·(2, 2) = (0.5, 0.5);
	//   g1 = 2·(0.5, 0.5) = (1, 1);
	//   P = (g0 + g1)/2 = (1.5, 1.5); T(x) = x − γP = (0.25, 0.25) = y2.
	cost = Local{Kind: GDSteps, Steps: 2}.Pseudo(f, x, 0.5, p, ws)
	nearVec(t, "GD(T=2) P", p, []float64{1.5, 1.5})
	if cost != (Cost{Grads: 2}) {
		t.Errorf("GD(T=2) cost %+v", cost)
	}
	tx := make([]float64, 2)
	Local{Kind: GDSteps, Steps: 2}.Apply(f, x, 0.5, tx, ws)
	nearVec(t, "GD(T=2) T(x)", tx, []float64{0.25, 0.25})
	it, pp := Local{Kind: GDSteps, Steps: 2}.Path(f, x, 0.5)
	if len(it) != 3 {
		t.Fatalf("GD(T=2) path has %d iterates, want 3", len(it))
	}
	nearVec(t, "GD path x0", it[0], []float64{1, 1})
	nearVec(t, "GD path x1", it[1], []float64{0.5, 0.5})
	nearVec(t, "GD path x2", it[2], []float64{0.25, 0.25})
	nearVec(t, "GD path P", pp, []float64{1.5, 1.5})
	// T = 3 steps of size γ/3 = 1/3 (γ = 1) on f = ½‖x − (1, 0)‖² from
	// x = (4, 3): d0 = x − c = (3, 3); each step multiplies d by 2/3:
	//   d1 = (2, 2), d2 = (4/3, 4/3); P = (d0 + d1 + d2)/3 = (19/9, 19/9).
	g := centred{a: 1, c: []float64{1, 0}}
	Local{Kind: GDSteps, Steps: 3}.Pseudo(g, []float64{4, 3}, 1, p, ws)
	nearVec(t, "GD(T=3) P", p, []float64{19.0 / 9, 19.0 / 9})

	// Incremental gradient, N = 2 components c0 = (0, 0), c1 = (0, 2),
	// a = 1, γ = 1 (steps γ/N = 0.5) from x = (1, 0):
	//   g0 = x − c0 = (1, 0); y1 = x − 0.5·g0 = (0.5, 0);
	//   g1 = y1 − c1 = (0.5, −2); y2 = y1 − 0.5·g1 = (0.25, 1);
	//   P = (g0 + g1)/2 = (0.75, −1); T(x) = x − γP = (0.25, 1) = y2.
	ig := parts{{a: 1, c: []float64{0, 0}}, {a: 1, c: []float64{0, 2}}}
	cost = Local{Kind: IncrementalGradient}.Pseudo(ig, []float64{1, 0}, 1, p, ws)
	nearVec(t, "IG P", p, []float64{0.75, -1})
	if cost != (Cost{ComponentGrads: 2}) {
		t.Errorf("IG cost %+v", cost)
	}
	Local{Kind: IncrementalGradient}.Apply(ig, []float64{1, 0}, 1, tx, ws)
	nearVec(t, "IG T(x)", tx, []float64{0.25, 1})
	it, pp = Local{Kind: IncrementalGradient}.Path(ig, []float64{1, 0}, 1)
	if len(it) != 3 {
		t.Fatalf("IG path has %d iterates, want 3", len(it))
	}
	nearVec(t, "IG path x1", it[1], []float64{0.5, 0})
	nearVec(t, "IG path x2", it[2], []float64{0.25, 1})
	nearVec(t, "IG path P", pp, []float64{0.75, -1})
	// One-step path: [x, x − γ∇f(x)].
	it, pp = Local{Kind: OneStep}.Path(f, x, 0.5)
	if len(it) != 2 {
		t.Fatalf("one-step path has %d iterates, want 2", len(it))
	}
	nearVec(t, "one-step path x1", it[1], []float64{0, 0})
	nearVec(t, "one-step path P", pp, []float64{2, 2})
}

// TestPinRoundByHand runs two rounds of Fed-α-NormEC (OneStep, p = 1,
// σ = 0, v_i^0 = 0) on M = 2 clients f_i = ½‖x − c_i‖² with
// c_1 = (3, 4), c_2 = (6, 8), x^0 = 0, α = 1, β = 0.5, η = 0.5.
//
// Round 0. P_i = x^0 − c_i: P_1 = (−3, −4) (norm 5), P_2 = (−6, −8) (norm 10).
//
//	Δ_1 = P_1/(1 + 5) = (−1/2, −2/3),  Δ_2 = P_2/(1 + 10) = (−6/11, −8/11);
//	v_1^1 = βΔ_1 = (−1/4, −1/3),       v_2^1 = βΔ_2 = (−3/11, −4/11);
//	v̂^1 = (β/M)(Δ_1 + Δ_2) = ¼·(−3, −4)·(1/6 + 2/11) = (−3, −4)·23/264,
//	‖v̂^1‖ = 5·23/264 = 115/264.
//	Normalized: x^1 = x^0 − η·v̂/‖v̂‖ = 0.5·(0.6, 0.8) = (0.3, 0.4).
//	Plain:      x^1 = x^0 − η·v̂ = (3, 4)·23/528 = (23/176, 23/132).
//
// Round 1 (normalized). P_1 = x^1 − c_1 = 0.9·(−3, −4),
// P_2 = 1.9·(−3, −4). u_1 = P_1 − v_1 = (−3, −4)·(0.9 − 1/12) =
// (−3, −4)·49/60, ‖u_1‖ = 49/12, Δ_1 = u_1/(1 + 49/12) = (−3, −4)·49/305;
// u_2 = (−3, −4)·(1.9 − 1/11) = (−3, −4)·199/110, ‖u_2‖ = 199/22,
// Δ_2 = u_2·22/221 = (−3, −4)·199/1105. Everything stays on the ray of
// (−3, −4), so v̂^2 does too and x^2 = x^1 + 0.5·(0.6, 0.8) = (0.6, 0.8).
func TestPinRoundByHand(t *testing.T) {
	objs := []Objective{centred{a: 1, c: []float64{3, 4}}, centred{a: 1, c: []float64{6, 8}}}
	base := Config{Alpha: 1, Beta: 0.5, Gamma: 1, Eta: 0.5, P: 1}
	for _, server := range []ServerStep{NormalizedStep, PlainStep} {
		t.Run(server.String(), func(t *testing.T) {
			cfg := base
			cfg.Server = server
			var seen []RoundStats
			cfg.OnRound = func(a *Algorithm, s RoundStats) { seen = append(seen, s) }
			a, err := New(cfg, objs, []float64{0, 0}, rng.New(1, "pin"))
			if err != nil {
				t.Fatal(err)
			}
			if !math.IsNaN(a.InitialR()) {
				t.Errorf("InitialR with InitZero = %v, want NaN", a.InitialR())
			}
			st := a.Step()
			if st.Round != 0 || st.Participants != 2 || st.Skipped {
				t.Errorf("round 0 stats %+v", st)
			}
			near(t, "MaxResidual", st.MaxResidual, 10)
			near(t, "Residual(0)", a.Residual(0), 5)
			near(t, "Residual(1)", a.Residual(1), 10)
			nearVec(t, "P_1", a.Pseudo(0), []float64{-3, -4})
			nearVec(t, "Δ_1", a.Delta(0), []float64{-0.5, -2.0 / 3})
			nearVec(t, "Δ_2", a.Delta(1), []float64{-6.0 / 11, -8.0 / 11})
			nearVec(t, "v_1", a.V(0), []float64{-0.25, -1.0 / 3})
			nearVec(t, "v_2", a.V(1), []float64{-3.0 / 11, -4.0 / 11})
			nearVec(t, "v̂", a.VHat(), []float64{-69.0 / 264, -92.0 / 264})
			nearVec(t, "mean v", a.MeanV(make([]float64, 2)), []float64{-69.0 / 264, -92.0 / 264})
			near(t, "VHatNorm", st.VHatNorm, 115.0/264)
			nearVec(t, "XPrev", a.XPrev(), []float64{0, 0})
			if server == NormalizedStep {
				nearVec(t, "x^1", a.X(), []float64{0.3, 0.4})
				near(t, "StepNorm", st.StepNorm, 0.5)
			} else {
				nearVec(t, "x^1", a.X(), []float64{23.0 / 176, 23.0 / 132})
				near(t, "StepNorm", st.StepNorm, 0.5*115.0/264)
			}
			st = a.Step()
			if st.Round != 1 || a.Round() != 2 {
				t.Errorf("round index %d, Round() = %d", st.Round, a.Round())
			}
			if server == NormalizedStep {
				nearVec(t, "Δ_1 round 1", a.Delta(0), []float64{-3 * 49.0 / 305, -4 * 49.0 / 305})
				nearVec(t, "Δ_2 round 1", a.Delta(1), []float64{-3 * 199.0 / 1105, -4 * 199.0 / 1105})
				near(t, "Residual(0) round 1", a.Residual(0), 49.0/12)
				near(t, "Residual(1) round 1", a.Residual(1), 199.0/22)
				nearVec(t, "x^2", a.X(), []float64{0.6, 0.8})
				nearVec(t, "XPrev", a.XPrev(), []float64{0.3, 0.4})
			}
			if len(seen) != 2 || seen[1] != st {
				t.Errorf("OnRound saw %+v, Step returned %+v", seen, st)
			}
			c := a.Counters()
			if c != (Counters{Rounds: 2, Transmissions: 4, LocalRuns: 4, Grads: 4}) {
				t.Errorf("counters %+v", c)
			}
		})
	}
}

// refClient is the reference's view of one client: f_i = ½·a_i‖x − c_i‖²
// run through T local GD steps, so P_i(x) = (1/T)Σ_{j<T} a_i(1 − a_iγ/T)^j (x − c_i).
type refClient struct {
	a float64
	c []float64
}

func (r refClient) pseudo(x []float64, gamma float64, T int) []float64 {
	out := make([]float64, len(x))
	for j := range x {
		var s float64
		f := 1.0
		for k := 0; k < T; k++ {
			s += r.a * f
			f *= 1 - r.a*gamma/float64(T)
		}
		out[j] = s / float64(T) * (x[j] - r.c[j])
	}
	return out
}

type refRound struct {
	sel      []bool
	x, vhat  []float64
	v, delta [][]float64
	resid    []float64
}

// refNormEC is Algorithm 1 written out plainly: selection u < p from the
// stream (key, "participation") with M uniforms per round; per-coordinate
// noise σ·N(0,1) from (key, "client", i, "noise") for the participants;
// v̂ += (β/M)Σ_{i∈S}(1/p)(Δ_i + z_i); normalized or plain server step.
func refNormEC(cl []refClient, x0 []float64, offsets [][]float64, alpha, beta, gamma, eta, p, sigma float64, T int, participantsOnly, normalized bool, key rng.Key, rounds int) []refRound {
	m, d := len(cl), len(x0)
	x := append([]float64(nil), x0...)
	v := make([][]float64, m)
	vhat := make([]float64, d)
	for i := range cl {
		pi := cl[i].pseudo(x, gamma, T)
		v[i] = make([]float64, d)
		for j := range v[i] {
			v[i][j] = pi[j] + offsets[i][j]
			vhat[j] += v[i][j] / float64(m)
		}
	}
	part := key.Derive("participation").Rand()
	noise := make([]interface{ NormFloat64() float64 }, m)
	for i := range noise {
		noise[i] = key.Derive("client", i, "noise").Rand()
	}
	var out []refRound
	for range rounds {
		sel := make([]bool, m)
		for i := range sel {
			sel[i] = part.Float64() < p
		}
		delta := make([][]float64, m)
		resid := make([]float64, m)
		for i := range cl {
			delta[i] = make([]float64, d)
			if participantsOnly && !sel[i] {
				continue
			}
			pi := cl[i].pseudo(x, gamma, T)
			var n2 float64
			for j := range pi {
				delta[i][j] = pi[j] - v[i][j]
				n2 += delta[i][j] * delta[i][j]
			}
			n := math.Sqrt(n2)
			resid[i] = n
			for j := range pi {
				delta[i][j] /= alpha + n
				v[i][j] += beta * delta[i][j]
			}
		}
		for i := range cl {
			if !sel[i] {
				continue
			}
			for j := range vhat {
				msg := delta[i][j]
				if sigma > 0 {
					msg += sigma * noise[i].NormFloat64()
				}
				vhat[j] += beta / float64(m) * msg / p
			}
		}
		var n2 float64
		for _, vj := range vhat {
			n2 += vj * vj
		}
		for j := range x {
			if normalized {
				x[j] -= eta * vhat[j] / math.Sqrt(n2)
			} else {
				x[j] -= eta * vhat[j]
			}
		}
		r := refRound{sel: sel, x: append([]float64(nil), x...), vhat: append([]float64(nil), vhat...), resid: resid}
		for i := range cl {
			r.v = append(r.v, append([]float64(nil), v[i]...))
			r.delta = append(r.delta, delta[i])
		}
		out = append(out, r)
	}
	return out
}

// TestPinRoundsAgainstReference runs two rounds with every ingredient
// switched on — T = 2 local GD steps, explicit initial offsets, partial
// participation (p = 0.5), DP noise (σ = 0.3) — in both server modes and
// both memory modes, and compares every state variable with refNormEC.
func TestPinRoundsAgainstReference(t *testing.T) {
	cl := []refClient{{a: 1, c: []float64{1, -2}}, {a: 0.5, c: []float64{-3, 0.5}}, {a: 2, c: []float64{0.25, 1}}}
	objs := make([]Objective, len(cl))
	for i, c := range cl {
		objs[i] = centred{a: c.a, c: c.c}
	}
	x0 := []float64{0.5, -0.25}
	offsets := [][]float64{{0.1, 0}, {0, -0.2}, {0.3, 0.4}}
	const (
		alpha, beta, gamma, eta, p, sigma = 0.2, 0.15, 0.4, 0.3, 0.5, 0.3
		T, rounds                         = 2, 3
	)
	key := rng.New(7, "normec-pin")
	for _, normalized := range []bool{true, false} {
		for _, partOnly := range []bool{false, true} {
			server, memory := NormalizedStep, AllClients
			if !normalized {
				server = PlainStep
			}
			if partOnly {
				memory = ParticipantsOnly
			}
			t.Run(server.String()+"/"+memory.String(), func(t *testing.T) {
				want := refNormEC(cl, x0, offsets, alpha, beta, gamma, eta, p, sigma, T, partOnly, normalized, key, rounds)
				// The pin is only meaningful when the selection is mixed.
				mixed := false
				for _, r := range want {
					n := 0
					for _, s := range r.sel {
						if s {
							n++
						}
					}
					mixed = mixed || (n > 0 && n < len(cl))
				}
				if !mixed {
					t.Fatal("reference selection is all-or-nothing in every round; pick another key")
				}
				cfg := Config{Alpha: alpha, Beta: beta, Gamma: gamma, Eta: eta, P: p, Sigma: sigma,
					Local: Local{Kind: GDSteps, Steps: T}, Server: server, Memory: memory,
					Init: Init{Kind: InitExplicit, Offsets: offsets}}
				a, err := New(cfg, objs, x0, key)
				if err != nil {
					t.Fatal(err)
				}
				near(t, "InitialR", a.InitialR(), 0.5) // max(0.1, 0.2, ‖(0.3, 0.4)‖ = 0.5)
				transmissions, runs := 0, 0
				for k, r := range want {
					st := a.Step()
					var sel []int
					for i, s := range r.sel {
						if s {
							sel = append(sel, i)
						}
					}
					if !equalInts(a.Participants(), sel) || st.Participants != len(sel) {
						t.Fatalf("round %d: participants %v, want %v", k, a.Participants(), sel)
					}
					transmissions += len(sel)
					maxRes := 0.0
					for i := range cl {
						upd := !partOnly || r.sel[i]
						if a.Updated(i) != upd {
							t.Errorf("round %d client %d: Updated = %v, want %v", k, i, a.Updated(i), upd)
						}
						if upd {
							runs++
							nearVec(t, "Δ", a.Delta(i), r.delta[i])
							near(t, "residual", a.Residual(i), r.resid[i])
							maxRes = math.Max(maxRes, r.resid[i])
						}
						nearVec(t, "v_i", a.V(i), r.v[i])
					}
					near(t, "MaxResidual", st.MaxResidual, maxRes)
					nearVec(t, "v̂", a.VHat(), r.vhat)
					nearVec(t, "x", a.X(), r.x)
					var n2 float64
					for _, v := range r.vhat {
						n2 += v * v
					}
					near(t, "VHatNorm", st.VHatNorm, math.Sqrt(n2))
				}
				c := a.Counters()
				wantC := Counters{Rounds: rounds, Transmissions: transmissions, LocalRuns: runs, Grads: T * (len(cl) + runs)}
				if c != wantC {
					t.Errorf("counters %+v, want %+v", c, wantC)
				}
			})
		}
	}
}

// refFedAvg is DP-FedAvg's eq. (2) written out plainly: the selected
// clients bound u_i = γ^s·P_i(x) (s = 1 for the model delta, 0 for the
// pseudo-gradient) with Norm_α or clipping to C, add σ·N(0, 1) noise, and
// the server moves by −(η/|S|)Σ_{i∈S} β(Ψ(u_i) + z_i).
func refFedAvg(cl []refClient, x0 []float64, clip bool, alphaOrC, beta, gamma, eta, p, sigma float64, T int, modelDelta bool, key rng.Key, rounds int) (xs [][]float64, sels [][]bool, maxNorms []float64) {
	x := append([]float64(nil), x0...)
	part := key.Derive("participation").Rand()
	noise := make([]interface{ NormFloat64() float64 }, len(cl))
	for i := range noise {
		noise[i] = key.Derive("client", i, "noise").Rand()
	}
	for range rounds {
		sel := make([]bool, len(cl))
		for i := range sel {
			sel[i] = part.Float64() < p
		}
		agg := make([]float64, len(x))
		n := 0
		maxNorm := 0.0
		for i := range cl {
			if !sel[i] {
				continue
			}
			n++
			u := cl[i].pseudo(x, gamma, T)
			if modelDelta {
				for j := range u {
					u[j] *= gamma
				}
			}
			var n2 float64
			for _, uj := range u {
				n2 += uj * uj
			}
			nu := math.Sqrt(n2)
			maxNorm = math.Max(maxNorm, nu)
			scale := 1 / (alphaOrC + nu)
			if clip {
				scale = 1
				if nu > alphaOrC {
					scale = alphaOrC / nu
				}
			}
			for j := range u {
				msg := scale * u[j]
				if sigma > 0 {
					msg += sigma * noise[i].NormFloat64()
				}
				agg[j] += beta * msg
			}
		}
		if n > 0 {
			for j := range x {
				x[j] -= eta * agg[j] / float64(n)
			}
		}
		xs = append(xs, append([]float64(nil), x...))
		sels = append(sels, sel)
		maxNorms = append(maxNorms, maxNorm)
	}
	return xs, sels, maxNorms
}

// TestPinFedAvgAgainstReference pins DP-FedAvg rounds (both bounding
// operators, both inputs, partial participation, noise) against refFedAvg.
func TestPinFedAvgAgainstReference(t *testing.T) {
	cl := []refClient{{a: 1, c: []float64{1, -2}}, {a: 0.5, c: []float64{-3, 0.5}}, {a: 2, c: []float64{0.25, 1}}}
	objs := make([]Objective, len(cl))
	for i, c := range cl {
		objs[i] = centred{a: c.a, c: c.c}
	}
	x0 := []float64{0.5, -0.25}
	key := rng.New(11, "fedavg-pin")
	const beta, gamma, eta, p, sigma, T, rounds = 0.7, 0.4, 0.3, 0.5, 0.2, 2, 4
	for _, tc := range []struct {
		psi        Psi
		modelDelta bool
	}{
		{Psi{Kind: SmoothNormalization, Alpha: 0.1}, true},
		{Psi{Kind: SmoothNormalization, Alpha: 0.1}, false},
		{Psi{Kind: Clipping, C: 0.5}, true},
		{Psi{Kind: Clipping, C: 0.5}, false},
	} {
		input := PseudoGradient
		if tc.modelDelta {
			input = ModelDelta
		}
		t.Run(tc.psi.String()+"/"+input.String(), func(t *testing.T) {
			param := tc.psi.Alpha
			if tc.psi.Kind == Clipping {
				param = tc.psi.C
			}
			xs, sels, maxNorms := refFedAvg(cl, x0, tc.psi.Kind == Clipping, param, beta, gamma, eta, p, sigma, T, tc.modelDelta, key, rounds)
			cfg := FedAvgConfig{Psi: tc.psi, Input: input, Beta: beta, Eta: eta, Gamma: gamma, P: p, Sigma: sigma,
				Local: Local{Kind: GDSteps, Steps: T}}
			f, err := NewFedAvg(cfg, objs, x0, key)
			if err != nil {
				t.Fatal(err)
			}
			trans, empty := 0, 0
			for k := range xs {
				prev := append([]float64(nil), f.X()...)
				st := f.Step()
				var sel []int
				for i, s := range sels[k] {
					if s {
						sel = append(sel, i)
					}
				}
				if !equalInts(f.Participants(), sel) || st.Participants != len(sel) {
					t.Fatalf("round %d: participants %v, want %v", k, f.Participants(), sel)
				}
				trans += len(sel)
				if len(sel) == 0 {
					empty++
				}
				if st.Skipped != (len(sel) == 0) {
					t.Errorf("round %d: Skipped = %v with %d participants", k, st.Skipped, len(sel))
				}
				nearVec(t, "x", f.X(), xs[k])
				nearVec(t, "XPrev", f.XPrev(), prev)
				near(t, "MaxResidual (‖u‖ before Ψ)", st.MaxResidual, maxNorms[k])
				var step, vh float64
				for j := range prev {
					step += (xs[k][j] - prev[j]) * (xs[k][j] - prev[j])
				}
				near(t, "StepNorm", st.StepNorm, math.Sqrt(step))
				if len(sel) > 0 {
					vh = math.Sqrt(step) / eta
				}
				near(t, "VHatNorm", st.VHatNorm, vh)
			}
			c := f.Counters()
			want := Counters{Rounds: rounds, Transmissions: trans, LocalRuns: trans, Grads: T * trans, Skipped: empty}
			if c != want || f.Round() != rounds {
				t.Errorf("counters %+v (round %d), want %+v", c, f.Round(), want)
			}
		})
	}
}

// TestPinFedAvgEmptyRound: with nobody selected the model stays and the
// round is counted as skipped (p small, checked against the stream).
func TestPinFedAvgEmptyRound(t *testing.T) {
	objs := []Objective{centred{a: 1, c: []float64{1, 1}}, centred{a: 1, c: []float64{-1, 2}}}
	const p = 0.05
	for seed := uint64(0); seed < 100; seed++ {
		key := rng.New(seed, "empty")
		r := key.Derive("participation").Rand()
		if r.Float64() < p || r.Float64() < p {
			continue
		}
		f, err := NewFedAvg(FedAvgConfig{Psi: Psi{Kind: SmoothNormalization, Alpha: 1}, Beta: 1, Eta: 1, Gamma: 1, P: p}, objs, []float64{3, 4}, key)
		if err != nil {
			t.Fatal(err)
		}
		st := f.Step()
		if !st.Skipped || st.StepNorm != 0 || st.VHatNorm != 0 || f.Counters().Skipped != 1 || f.Counters().Transmissions != 0 {
			t.Errorf("empty round: stats %+v counters %+v", st, f.Counters())
		}
		nearVec(t, "x after empty round", f.X(), []float64{3, 4})
		return
	}
	t.Fatal("no key with an empty first round among 100")
}
