package optim

// Mode says where SGD's proximal term μ(p − anchor) and linear term n enter
// the update. Write d = g + λp for the gradient with weight decay, π =
// μ(p − anchor) + n for the extra terms, ρ for Momentum and η for LR. Each
// Step, elementwise (buf starts as a copy of its first input, dampening 0):
//
//	ModeGradient        buf ← ρ·buf + (d + π);  v = buf             (Nesterov: v = (d + π) + ρ·buf)
//	ModeUpstreamBuffer  buf ← ρ·buf + d;  buf ← buf + π;  v = buf    (Nesterov: v = (d + ρ·buf) + π)
//	ModeDecoupled       buf ← ρ·buf + d;  v = buf + π                (Nesterov: v = (d + ρ·buf) + π)
//
// and then p ← p − η·v. With Momentum 0 all three are p ← p − η(d + π).
//
// Without Nesterov, ModeUpstreamBuffer and ModeGradient follow the same
// recursion (the in-place addition to the buffer is the same as adding π to
// the gradient before momentum); they differ only in floating-point
// rounding order. The mode that keeps π out of the momentum is
// ModeDecoupled, which is also what upstream does with Nesterov momentum.
type Mode int

const (
	// ModeGradient adds the proximal and linear terms to the gradient
	// before momentum: momentum SGD on the objective as the papers state
	// it, F(p) + (μ/2)‖p − anchor‖² + ⟨n, p⟩ (+ (λ/2)‖p‖²).
	ModeGradient Mode = iota
	// ModeUpstreamBuffer replays upstream Upcycled-FL's
	// FedProxOptimizer.step (spec upcycled.md §6 quirk (viii)), operation
	// by operation in torch's order: d_p = grad (+ λp); with momentum,
	// buf = clone(d_p) on the first step and buf = ρ·buf + d_p after,
	// then d_p = buf (an alias, not a copy); then d_p += μ(p − p_init) and
	// d_p += noise in place, so both land in the momentum buffer and carry
	// into later steps; finally p += −η·d_p. With Nesterov, d_p = d_p +
	// ρ·buf is a new tensor and the extra terms stay out of the buffer.
	// p_init is Anchor, or, when Anchor is nil, the parameters at the first
	// Step after Reset (upstream's old_init state).
	ModeUpstreamBuffer
	// ModeDecoupled adds the proximal and linear terms to the step
	// direction after momentum, never to the buffer.
	ModeDecoupled
)

// String names the mode ("gradient", "upstream-buffer", "decoupled").
func (m Mode) String() string {
	switch m {
	case ModeGradient:
		return "gradient"
	case ModeUpstreamBuffer:
		return "upstream-buffer"
	case ModeDecoupled:
		return "decoupled"
	}
	return "unknown-mode"
}

// SGD is stochastic gradient descent with PyTorch momentum semantics
// (v = ρv + g with the buffer initialised to the first gradient, dampening
// 0, p −= lr·v), L2 weight decay, and the two extra gradient terms of the
// federated methods: a proximal term Prox·(p − Anchor) (FedProx, μ) and a
// fixed Linear vector (objective perturbation's ⟨n, p⟩). Mode says where
// the extra terms enter; see Mode for the exact update.
//
// The zero value with LR set is plain SGD. Step does not allocate after
// the first call following Reset (or construction).
type SGD struct {
	// LR is the learning rate η.
	LR float64
	// Momentum is ρ (0: none).
	Momentum float64
	// Nesterov selects PyTorch's Nesterov variant v = g + ρ·buf.
	Nesterov bool
	// WeightDecay λ adds λp to the gradient (torch's weight_decay).
	WeightDecay float64
	// Prox is the proximal coefficient μ of the term (μ/2)‖p − Anchor‖².
	Prox float64
	// Anchor is the proximal centre (the server model). When nil and Prox
	// ≠ 0, the parameters at the first Step after Reset with Prox ≠ 0 are
	// captured and used, which is upstream's p_init.
	Anchor []float64
	// Linear, when not nil, is added to every gradient (the gradient of
	// ⟨Linear, p⟩): objective perturbation's noise vector.
	Linear []float64
	// Mode places the proximal and linear terms (default ModeGradient).
	Mode Mode

	buf      []float64 // momentum buffer
	hasBuf   bool
	init     []float64 // captured anchor
	hasInit  bool
	numSteps int
}

// NewSGD returns SGD with learning rate lr and momentum ρ.
func NewSGD(lr, momentum float64) *SGD { return &SGD{LR: lr, Momentum: momentum} }

// Reset clears the momentum buffer, the captured anchor and the step count
// (capacity is kept).
func (s *SGD) Reset() {
	s.hasBuf, s.hasInit, s.numSteps = false, false, 0
}

// Steps is the number of Steps since the last Reset.
func (s *SGD) Steps() int { return s.numSteps }

// Buffer returns the momentum buffer (nil before the first Step or
// without momentum). It aliases internal state: read, don't keep.
func (s *SGD) Buffer() []float64 {
	if !s.hasBuf {
		return nil
	}
	return s.buf
}

// ProxAnchor returns the proximal centre in use: Anchor, or the captured
// parameters (nil when none has been captured yet).
func (s *SGD) ProxAnchor() []float64 {
	if s.Anchor != nil {
		return s.Anchor
	}
	if s.hasInit {
		return s.init
	}
	return nil
}

// Step applies one update to p in place given the gradient g of the loss
// (without the proximal, linear and weight-decay terms, which Step adds).
func (s *SGD) Step(p, g []float64) {
	n := len(p)
	if len(g) != n {
		panic("optim: SGD gradient and parameters differ in length")
	}
	if s.Linear != nil && len(s.Linear) != n {
		panic("optim: SGD Linear and parameters differ in length")
	}
	var anchor []float64
	if s.Prox != 0 {
		switch {
		case s.Anchor != nil:
			if len(s.Anchor) != n {
				panic("optim: SGD Anchor and parameters differ in length")
			}
			anchor = s.Anchor
		case s.hasInit:
			if len(s.init) != n {
				panic("optim: SGD parameters changed length without Reset")
			}
			anchor = s.init
		default:
			if cap(s.init) < n {
				s.init = make([]float64, n)
			}
			s.init = s.init[:n]
			copy(s.init, p)
			s.hasInit = true
			anchor = s.init
		}
	}
	rho, lr, wd, mu, lin := s.Momentum, s.LR, s.WeightDecay, s.Prox, s.Linear
	first := false
	if rho != 0 {
		if !s.hasBuf {
			if cap(s.buf) < n {
				s.buf = make([]float64, n)
			}
			s.buf = s.buf[:n]
			s.hasBuf, first = true, true
		} else if len(s.buf) != n {
			panic("optim: SGD parameters changed length without Reset")
		}
	}
	g = g[:n]
	if anchor != nil {
		anchor = anchor[:n]
	}
	if lin != nil {
		lin = lin[:n]
	}
	buf := s.buf
	if rho != 0 {
		buf = buf[:n] // lets the compiler drop bounds checks
	}
	s.numSteps++

	// Plain momentum SGD, the common case of the FL loops: with no weight
	// decay, proximal or linear term every mode computes buf = ρ·buf + g,
	// p −= lr·buf (Nesterov aside). Same operations as the general loops
	// below, without their per-element tests.
	known := s.Mode == ModeGradient || s.Mode == ModeUpstreamBuffer || s.Mode == ModeDecoupled
	if known && rho != 0 && !s.Nesterov && wd == 0 && anchor == nil && lin == nil {
		if first {
			for j, d := range g {
				buf[j] = d
				p[j] -= lr * d
			}
			return
		}
		j0 := 0
		if useAVX2 && n >= 4 {
			// The same elementwise operations, four at a time.
			j0 = n &^ 3
			momentumAVX2(&p[0], &buf[0], &g[0], j0, rho, lr)
		}
		for j := j0; j < n; j++ {
			b := rho*buf[j] + g[j]
			buf[j] = b
			p[j] -= lr * b
		}
		return
	}

	switch {
	case rho == 0:
		for j := range p {
			d := g[j]
			if wd != 0 {
				d += wd * p[j]
			}
			if anchor != nil {
				d += mu * (p[j] - anchor[j])
			}
			if lin != nil {
				d += lin[j]
			}
			p[j] -= lr * d
		}
	case s.Mode == ModeGradient:
		nest := s.Nesterov
		for j := range p {
			d := g[j]
			if wd != 0 {
				d += wd * p[j]
			}
			if anchor != nil {
				d += mu * (p[j] - anchor[j])
			}
			if lin != nil {
				d += lin[j]
			}
			b := d
			if !first {
				b = rho*buf[j] + d
			}
			buf[j] = b
			if nest {
				b = d + rho*b
			}
			p[j] -= lr * b
		}
	case s.Mode == ModeUpstreamBuffer && !s.Nesterov:
		for j := range p {
			d := g[j]
			if wd != 0 {
				d += wd * p[j]
			}
			b := d
			if !first {
				b = rho*buf[j] + d
			}
			if anchor != nil {
				b += mu * (p[j] - anchor[j])
			}
			if lin != nil {
				b += lin[j]
			}
			buf[j] = b
			p[j] -= lr * b
		}
	case s.Mode == ModeUpstreamBuffer || s.Mode == ModeDecoupled:
		nest := s.Nesterov
		for j := range p {
			d := g[j]
			if wd != 0 {
				d += wd * p[j]
			}
			b := d
			if !first {
				b = rho*buf[j] + d
			}
			buf[j] = b
			if nest {
				b = d + rho*b
			}
			if anchor != nil {
				b += mu * (p[j] - anchor[j])
			}
			if lin != nil {
				b += lin[j]
			}
			p[j] -= lr * b
		}
	default:
		panic("optim: unknown SGD mode " + s.Mode.String())
	}
}
