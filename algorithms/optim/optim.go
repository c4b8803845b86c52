// Package optim updates flat parameter vectors from gradients: SGD with
// PyTorch momentum, weight decay, a proximal term (FedProx) and a fixed
// linear term (objective perturbation), Adam and AdaGrad, each following
// PyTorch's update rules.
//
// SGD's Mode says where the proximal and linear terms enter relative to the
// momentum buffer: as part of the gradient (the papers' objective), exactly
// as upstream Upcycled-FL's FedProxOptimizer does it (in place in the
// buffer), or after the momentum (decoupled). Without Nesterov momentum the
// first two are the same recursion; see Mode.
//
// Optimizers keep state sized to the parameter vector, allocate it on the
// first Step and reuse it after Reset; they are not safe for concurrent use.
package optim

// Optimizer applies one update p ← p − step(g) in place.
type Optimizer interface {
	Step(p, g []float64)
	// Reset clears internal state (momentum buffers, moment estimates).
	Reset()
}

// Interface conformance.
var (
	_ Optimizer = (*SGD)(nil)
	_ Optimizer = (*Adam)(nil)
	_ Optimizer = (*AdaGrad)(nil)
)
