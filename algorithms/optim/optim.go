// Package optim updates flat parameter vectors from gradients: SGD with
// momentum and an optional proximal term, Adam and AdaGrad.
package optim

// Optimizer applies one update p ← p − step(g) in place.
type Optimizer interface {
	Step(p, g []float64)
	// Reset clears internal state (momentum buffers, moment estimates).
	Reset()
}
