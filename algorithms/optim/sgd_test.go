package optim

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// run applies steps of opt to p under the gradient of f(p) = ½‖p‖²
// (g = p) and returns the trajectory of p[0].
func run(opt Optimizer, p []float64, steps int) []float64 {
	g := make([]float64, len(p))
	var traj []float64
	for range steps {
		copy(g, p)
		opt.Step(p, g)
		traj = append(traj, p[0])
	}
	return traj
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// Hand-computed trajectories of a scalar p0 = 1 under g(p) = p with
// lr 0.1, momentum 0.5, μ 0.5 (anchor captured at the first step = 1) and
// linear term n = 0.2 — the upstream momentum-buffer quirk (viii) and its
// alternatives over three steps. See the comments for the arithmetic.
func TestSGDHandComputed(t *testing.T) {
	cases := []struct {
		name    string
		sgd     SGD
		want    []float64 // p after each step
		wantBuf float64   // momentum buffer after the last step (NaN: none)
	}{
		// p ← p − 0.1·p.
		{"plain", SGD{LR: 0.1}, []float64{0.9, 0.81, 0.729}, math.NaN()},
		// d = p + 0.1p: p ← 0.89p.
		{"weight-decay", SGD{LR: 0.1, WeightDecay: 0.1}, []float64{0.89, 0.7921, 0.704969}, math.NaN()},
		// Explicit anchor 0: d = p + 0.5p = 1.5p: p ← 0.85p.
		{"prox-anchor", SGD{LR: 0.1, Prox: 0.5, Anchor: []float64{0}}, []float64{0.85, 0.7225, 0.614125}, math.NaN()},
		// Momentum only: buf 1 → p .9; buf .5+.9=1.4 → p .76; buf .7+.76=1.46 → p .614.
		{"momentum", SGD{LR: 0.1, Momentum: 0.5}, []float64{0.9, 0.76, 0.614}, 1.46},
		// Upstream: buf = ρbuf + g, then buf += μ(p−p_init) + n in place.
		// 1: buf = 1 + 0 + .2 = 1.2, p = .88
		// 2: buf = .6 + .88 − .06 + .2 = 1.62, p = .718
		// 3: buf = .81 + .718 − .141 + .2 = 1.587, p = .5593
		{"upstream-buffer", SGD{LR: 0.1, Momentum: 0.5, Prox: 0.5, Linear: []float64{0.2}, Mode: ModeUpstreamBuffer},
			[]float64{0.88, 0.718, 0.5593}, 1.587},
		// Paper mode: the same recursion, summed in another order.
		{"gradient", SGD{LR: 0.1, Momentum: 0.5, Prox: 0.5, Linear: []float64{0.2}, Mode: ModeGradient},
			[]float64{0.88, 0.718, 0.5593}, 1.587},
		// Decoupled: buf holds gradients only, v = buf + μ(p−a) + n.
		// 1: buf 1, v 1.2, p .88
		// 2: buf .5+.88 = 1.38, v 1.38 − .06 + .2 = 1.52, p .728
		// 3: buf .69+.728 = 1.418, v 1.418 − .136 + .2 = 1.482, p .5798
		{"decoupled", SGD{LR: 0.1, Momentum: 0.5, Prox: 0.5, Linear: []float64{0.2}, Mode: ModeDecoupled},
			[]float64{0.88, 0.728, 0.5798}, 1.418},
		// Upstream Nesterov: v = g + ρbuf (new tensor), then + μ(p−a) + n.
		// 1: buf 1, v 1.5 + 0 + .2 = 1.7, p .83
		// 2: buf 1.33, v .83 + .665 − .085 + .2 = 1.61, p .669
		// 3: buf 1.334, v .669 + .667 − .1655 + .2 = 1.3705, p .53195
		{"upstream-nesterov", SGD{LR: 0.1, Momentum: 0.5, Nesterov: true, Prox: 0.5, Linear: []float64{0.2}, Mode: ModeUpstreamBuffer},
			[]float64{0.83, 0.669, 0.53195}, 1.334},
		{"decoupled-nesterov", SGD{LR: 0.1, Momentum: 0.5, Nesterov: true, Prox: 0.5, Linear: []float64{0.2}, Mode: ModeDecoupled},
			[]float64{0.83, 0.669, 0.53195}, 1.334},
		// Gradient-mode Nesterov: d' = g + μ(p−a) + n, buf = ρbuf + d', v = d' + ρbuf.
		// 1: d' 1.2, buf 1.2, v 1.8, p .82
		// 2: d' .93, buf 1.53, v 1.695, p .6505
		// 3: d' .67575, buf 1.44075, v 1.396125, p .5108875
		{"gradient-nesterov", SGD{LR: 0.1, Momentum: 0.5, Nesterov: true, Prox: 0.5, Linear: []float64{0.2}},
			[]float64{0.82, 0.6505, 0.5108875}, 1.44075},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.sgd
			for round := range 2 { // the second round checks Reset
				got := run(&s, []float64{1}, 3)
				for i := range got {
					if !near(got[i], c.want[i]) {
						t.Errorf("round %d step %d: p = %.15g, want %.15g", round, i+1, got[i], c.want[i])
					}
				}
				if buf := s.Buffer(); math.IsNaN(c.wantBuf) != (buf == nil) || buf != nil && !near(buf[0], c.wantBuf) {
					t.Errorf("round %d: buffer %v, want %g", round, buf, c.wantBuf)
				}
				if s.Steps() != 3 {
					t.Errorf("Steps = %d", s.Steps())
				}
				if s.Prox != 0 && s.Anchor == nil && s.ProxAnchor()[0] != 1 {
					t.Errorf("captured anchor %v, want the first step's parameters", s.ProxAnchor())
				}
				s.Reset()
			}
		})
	}
}

// Without Nesterov, upstream's in-place buffer update is momentum on
// g + μ(p − p_init) + n: the two modes agree to rounding on any problem.
func TestUpstreamBufferEqualsGradientMode(t *testing.T) {
	r := rng.New(1, "optim-test", "modes").Rand()
	n := 50
	p0, lin, a := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range n {
		p0[j], lin[j], a[j] = r.NormFloat64(), r.NormFloat64(), 0.5+r.Float64()
	}
	traj := func(mode Mode) []float64 {
		s := SGD{LR: 0.05, Momentum: 0.9, WeightDecay: 0.01, Prox: 0.3, Linear: lin, Mode: mode}
		p := append([]float64(nil), p0...)
		g := make([]float64, n)
		for range 100 {
			for j := range g {
				g[j] = a[j]*p[j] + math.Sin(p[j]) // a non-quadratic gradient
			}
			s.Step(p, g)
		}
		return p
	}
	up, gr, dec := traj(ModeUpstreamBuffer), traj(ModeGradient), traj(ModeDecoupled)
	var diff, diffDec float64
	for j := range n {
		diff = math.Max(diff, math.Abs(up[j]-gr[j]))
		diffDec = math.Max(diffDec, math.Abs(up[j]-dec[j]))
	}
	if diff > 1e-12 {
		t.Errorf("upstream and gradient modes differ by %g", diff)
	}
	if diffDec < 1e-3 {
		t.Errorf("decoupled mode should differ from upstream, differs by %g", diffDec)
	}
}

// SGD with prox μ and linear term n on f(p) = ½Σ a_j (p_j − c_j)²
// converges to the prox solution p* = (a∘c + μ·anchor − n)/(a + μ), in
// every mode with momentum 0 and in the gradient and upstream modes with
// momentum; decoupled momentum converges to the solution with μ and n
// scaled by (1 − ρ).
func TestSGDConvergesToProxSolution(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(20240727)
	if testing.Short() {
		params.MinSuccessfulTests = 30
	}
	props := gopter.NewProperties(params)
	modes := []Mode{ModeGradient, ModeUpstreamBuffer, ModeDecoupled}
	props.Property("prox fixed point", prop.ForAll(func(seed uint64, momentum bool, mode int) (bool, error) {
		r := rng.New(seed, "optim-test", "prox").Rand()
		n := 1 + r.IntN(8)
		a, c, anchor, lin := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		amax := 0.0
		for j := range n {
			a[j], c[j], anchor[j], lin[j] = 0.5+1.5*r.Float64(), 3*r.NormFloat64(), 3*r.NormFloat64(), r.NormFloat64()
			amax = math.Max(amax, a[j])
		}
		mu := 0.1 + 1.9*r.Float64()
		s := SGD{LR: 1 / (amax + mu), Prox: mu, Anchor: anchor, Linear: lin, Mode: modes[mode]}
		steps := 400
		if momentum {
			s.Momentum, s.LR, steps = 0.5, 0.5/(amax+mu), 1500
		}
		p := make([]float64, n)
		for j := range p {
			p[j] = 3 * r.NormFloat64()
		}
		g := make([]float64, n)
		for range steps {
			for j := range g {
				g[j] = a[j] * (p[j] - c[j])
			}
			s.Step(p, g)
		}
		scale := 1.0
		if momentum && s.Mode == ModeDecoupled {
			scale = 1 - s.Momentum
		}
		for j := range n {
			want := (a[j]*c[j] + scale*(mu*anchor[j]-lin[j])) / (a[j] + scale*mu)
			if !(math.Abs(p[j]-want) <= 1e-9*math.Max(1, math.Abs(want))) {
				return false, fmt.Errorf("mode %v momentum %v: p[%d] = %.12g, want %.12g", s.Mode, momentum, j, p[j], want)
			}
		}
		return true, nil
	}, gen.UInt64(), gen.Bool(), gen.IntRange(0, len(modes)-1)))
	props.TestingRun(t)
}

func TestSGDPanicsOnMismatch(t *testing.T) {
	cases := map[string]func(){
		"gradient": func() { NewSGD(0.1, 0).Step(make([]float64, 3), make([]float64, 2)) },
		"anchor":   func() { (&SGD{LR: 0.1, Prox: 1, Anchor: []float64{0}}).Step(make([]float64, 3), make([]float64, 3)) },
		"linear":   func() { (&SGD{LR: 0.1, Linear: []float64{0}}).Step(make([]float64, 3), make([]float64, 3)) },
		"resize": func() {
			s := NewSGD(0.1, 0.5)
			s.Step(make([]float64, 3), make([]float64, 3))
			s.Step(make([]float64, 4), make([]float64, 4))
		},
		"mode": func() { (&SGD{LR: 0.1, Momentum: 0.5, Mode: Mode(7)}).Step(make([]float64, 1), make([]float64, 1)) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		})
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{ModeGradient: "gradient", ModeUpstreamBuffer: "upstream-buffer", ModeDecoupled: "decoupled", Mode(9): "unknown-mode"} {
		if m.String() != want {
			t.Errorf("%d: %q", m, m.String())
		}
	}
}
