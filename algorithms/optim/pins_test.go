package optim

import (
	"math"
	"testing"
)

// Unit pins (issue 12, item 4): two parameters, two steps, every term on
// at once. Each expectation is a second, plainly written computation of
// the update PyTorch documents (torch.optim.SGD / Adam / Adagrad) and the
// Mode doc states, unrolled step by step without the package's code.
// Tolerance: 1e-12 relative (absolute below 1).

// pinNear is the pins' tolerance: |got − want| ≤ 1e-12·max(1, |want|).
func pinNear(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

// The pins' problem: p0, a fixed gradient per step (so the expectation
// does not depend on a loss function), an anchor and a linear term.
var (
	pinP0     = [2]float64{1, -2}
	pinG      = [2][2]float64{{0.3, -0.2}, {-0.1, 0.4}}
	pinAnchor = [2]float64{0.5, 0.25}
	pinLin    = [2]float64{0.1, -0.3}
)

const (
	pinLR  = 0.1
	pinRho = 0.5
	pinWD  = 0.2
	pinMu  = 0.4
)

// sgdExpect is a plainly written SGD recursion for the pins: per step,
// e = g + wd·p (torch's weight decay), π = μ(p − a) + n, then the mode's
// buffer rule. It returns p after each step and the last buffer.
func sgdExpect(mode Mode, rho float64, nesterov bool, anchor [2]float64) (ps [2][2]float64, buf [2]float64) {
	p := pinP0
	for k := 0; k < 2; k++ {
		for j := 0; j < 2; j++ {
			e := pinG[k][j] + pinWD*p[j]
			pi := pinMu*(p[j]-anchor[j]) + pinLin[j]
			var v float64
			switch {
			case rho == 0:
				v = e + pi
			case mode == ModeGradient:
				d := e + pi
				if k == 0 {
					buf[j] = d
				} else {
					buf[j] = rho*buf[j] + d
				}
				v = buf[j]
				if nesterov {
					v = d + rho*buf[j]
				}
			case mode == ModeUpstreamBuffer && !nesterov:
				// buf = ρ·buf + e, then buf += π in place: π stays in the buffer.
				if k == 0 {
					buf[j] = e + pi
				} else {
					buf[j] = rho*buf[j] + e + pi
				}
				v = buf[j]
			default: // decoupled, or upstream with Nesterov: π after momentum
				if k == 0 {
					buf[j] = e
				} else {
					buf[j] = rho*buf[j] + e
				}
				v = buf[j]
				if nesterov {
					v = e + rho*buf[j]
				}
				v += pi
			}
			p[j] -= pinLR * v
		}
		ps[k] = p
	}
	return ps, buf
}

func TestPinSGDTwoStepsAllTerms(t *testing.T) {
	cases := []struct {
		name     string
		mode     Mode
		rho      float64
		nesterov bool
		explicit bool // Anchor set; else captured at the first step (= p0)
	}{
		{"plain-all-terms", ModeGradient, 0, false, true},
		{"plain-captured-anchor", ModeDecoupled, 0, false, false},
		{"gradient-momentum", ModeGradient, pinRho, false, true},
		{"gradient-nesterov", ModeGradient, pinRho, true, true},
		{"upstream-momentum", ModeUpstreamBuffer, pinRho, false, false},
		{"upstream-nesterov", ModeUpstreamBuffer, pinRho, true, true},
		{"decoupled-momentum", ModeDecoupled, pinRho, false, true},
		{"decoupled-nesterov", ModeDecoupled, pinRho, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			anchor := pinAnchor
			s := &SGD{LR: pinLR, Momentum: c.rho, Nesterov: c.nesterov, WeightDecay: pinWD, Prox: pinMu,
				Linear: pinLin[:], Mode: c.mode}
			if c.explicit {
				s.Anchor = pinAnchor[:]
			} else {
				anchor = pinP0
			}
			wantP, wantBuf := sgdExpect(c.mode, c.rho, c.nesterov, anchor)
			for round := 0; round < 2; round++ { // round 2 checks Reset
				p := pinP0
				for k := 0; k < 2; k++ {
					g := pinG[k]
					s.Step(p[:], g[:])
					for j := range p {
						if !pinNear(p[j], wantP[k][j]) {
							t.Errorf("round %d step %d p[%d] = %.17g, want %.17g", round, k+1, j, p[j], wantP[k][j])
						}
					}
				}
				buf := s.Buffer()
				if c.rho == 0 {
					if buf != nil {
						t.Errorf("buffer %v without momentum", buf)
					}
				} else {
					for j := range wantBuf {
						if buf == nil || !pinNear(buf[j], wantBuf[j]) {
							t.Errorf("round %d buffer %v, want %v", round, buf, wantBuf)
							break
						}
					}
				}
				if a := s.ProxAnchor(); a == nil || a[0] != anchor[0] || a[1] != anchor[1] {
					t.Errorf("anchor %v, want %v", a, anchor)
				}
				s.Reset()
				if s.Buffer() != nil || s.Steps() != 0 {
					t.Errorf("Reset left buffer %v, steps %d", s.Buffer(), s.Steps())
				}
				if !c.explicit && s.ProxAnchor() != nil {
					t.Errorf("Reset kept the captured anchor %v", s.ProxAnchor())
				}
			}
		})
	}
}

// A worked instance of the gradient-mode momentum pin, by hand, so the
// reference above is itself checked against arithmetic on paper.
// Coordinate 0: p0 = 1, a = 0.5, n = 0.1.
//
//	step 1: e = 0.3 + 0.2·1 = 0.5; π = 0.4·0.5 + 0.1 = 0.3; buf = 0.8; p = 1 − 0.08 = 0.92
//	step 2: e = −0.1 + 0.2·0.92 = 0.084; π = 0.4·0.42 + 0.1 = 0.268;
//	        buf = 0.5·0.8 + 0.352 = 0.752; p = 0.92 − 0.0752 = 0.8448
//
// Coordinate 1: p0 = −2, a = 0.25, n = −0.3.
//
//	step 1: e = −0.2 − 0.4 = −0.6; π = 0.4·(−2.25) − 0.3 = −1.2; buf = −1.8; p = −2 + 0.18 = −1.82
//	step 2: e = 0.4 − 0.364 = 0.036; π = 0.4·(−2.07) − 0.3 = −1.128;
//	        buf = −0.9 − 1.092 = −1.992; p = −1.82 + 0.1992 = −1.6208
func TestPinSGDByHand(t *testing.T) {
	s := &SGD{LR: pinLR, Momentum: pinRho, WeightDecay: pinWD, Prox: pinMu, Anchor: pinAnchor[:], Linear: pinLin[:]}
	p := pinP0
	for k := 0; k < 2; k++ {
		g := pinG[k]
		s.Step(p[:], g[:])
	}
	want := [2]float64{0.8448, -1.6208}
	wantBuf := [2]float64{0.752, -1.992}
	for j := range p {
		if !pinNear(p[j], want[j]) || !pinNear(s.Buffer()[j], wantBuf[j]) {
			t.Fatalf("p = %v buf = %v, want %v and %v", p, s.Buffer(), want, wantBuf)
		}
	}
	wp, wb := sgdExpect(ModeGradient, pinRho, false, pinAnchor)
	if !pinNear(wp[1][0], want[0]) || !pinNear(wb[1], wantBuf[1]) {
		t.Fatalf("reference recursion %v %v disagrees with the hand computation", wp, wb)
	}
}

// Adam with weight decay, two parameters, two steps; torch.optim.Adam:
// d = g + λp, m = β1m + (1−β1)d, v = β2v + (1−β2)d²,
// p −= lr/(1−β1ᵗ) · m/(√v/√(1−β2ᵗ) + ε).
func TestPinAdamTwoSteps(t *testing.T) {
	const lr, b1, b2, eps, wd = 0.05, 0.8, 0.9, 1e-3, 0.1
	a := &Adam{LR: lr, Beta1: b1, Beta2: b2, Eps: eps, WeightDecay: wd}
	var want [2][2]float64
	{
		p := pinP0
		var m, v [2]float64
		for k := 0; k < 2; k++ {
			step := float64(k + 1)
			for j := 0; j < 2; j++ {
				d := pinG[k][j] + wd*p[j]
				m[j] = b1*m[j] + (1-b1)*d
				v[j] = b2*v[j] + (1-b2)*d*d
				mhat := m[j] / (1 - math.Pow(b1, step))
				vhat := v[j] / (1 - math.Pow(b2, step))
				p[j] -= lr * mhat / (math.Sqrt(vhat) + eps) // ε added to √v̂
			}
			want[k] = p
		}
	}
	// By hand, coordinate 0, step 1: d = 0.3 + 0.1 = 0.4, m̂ = 0.4, v̂ = 0.16,
	// p = 1 − 0.05·0.4/(0.4 + 0.001) = 1 − 0.02/0.401.
	if !pinNear(want[0][0], 1-0.02/0.401) {
		t.Fatalf("reference step 1 = %.17g, want %.17g", want[0][0], 1-0.02/0.401)
	}
	for round := 0; round < 2; round++ {
		p := pinP0
		for k := 0; k < 2; k++ {
			g := pinG[k]
			a.Step(p[:], g[:])
			for j := range p {
				if !pinNear(p[j], want[k][j]) {
					t.Errorf("round %d step %d p[%d] = %.17g, want %.17g", round, k+1, j, p[j], want[k][j])
				}
			}
		}
		if a.Steps() != 2 {
			t.Errorf("Steps = %d", a.Steps())
		}
		a.Reset()
	}
}

// AdaGrad with every option, two parameters, two steps; torch.optim.Adagrad:
// d = g + λp, clr = lr/(1 + (t−1)·decay), s += d², p −= clr·d/(√s + ε),
// s starting at the initial accumulator.
func TestPinAdaGradTwoSteps(t *testing.T) {
	const lr, decay, acc0, eps, wd = 0.1, 0.5, 0.2, 1e-3, 0.1
	a := &AdaGrad{LR: lr, LRDecay: decay, InitialAccumulator: acc0, Eps: eps, WeightDecay: wd}
	var want [2][2]float64
	{
		p := pinP0
		s := [2]float64{acc0, acc0}
		for k := 0; k < 2; k++ {
			clr := lr / (1 + float64(k)*decay)
			for j := 0; j < 2; j++ {
				d := pinG[k][j] + wd*p[j]
				s[j] += d * d
				p[j] -= clr * d / (math.Sqrt(s[j]) + eps)
			}
			want[k] = p
		}
	}
	// By hand, coordinate 1, step 1: d = −0.2 − 0.2 = −0.4, s = 0.2 + 0.16 = 0.36,
	// p = −2 + 0.1·0.4/(0.6 + 0.001).
	if !pinNear(want[0][1], -2+0.04/0.601) {
		t.Fatalf("reference step 1 = %.17g", want[0][1])
	}
	for round := 0; round < 2; round++ {
		p := pinP0
		for k := 0; k < 2; k++ {
			g := pinG[k]
			a.Step(p[:], g[:])
			for j := range p {
				if !pinNear(p[j], want[k][j]) {
					t.Errorf("round %d step %d p[%d] = %.17g, want %.17g", round, k+1, j, p[j], want[k][j])
				}
			}
		}
		if a.Steps() != 2 {
			t.Errorf("Steps = %d", a.Steps())
		}
		a.Reset()
	}
}

// Length changes without Reset are caller bugs; each optimizer panics
// rather than reading a stale state of another length.
func TestPinResizeWithoutResetPanics(t *testing.T) {
	cases := map[string]Optimizer{
		"sgd-anchor-length": &SGD{LR: 0.1, Prox: 1, Anchor: []float64{0, 0}},
		"sgd-captured":      &SGD{LR: 0.1, Prox: 1},
		"adam":              NewAdam(0.1),
		"adagrad":           NewAdaGrad(0.1),
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			if name != "sgd-anchor-length" {
				o.Step(make([]float64, 2), make([]float64, 2))
			}
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			o.Step(make([]float64, 3), make([]float64, 3))
		})
	}
}
