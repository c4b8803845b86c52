// Package model holds the differentiable models of fedrepro with analytic
// gradients: multinomial logistic regression and a multi-layer perceptron
// (ReLU, optional dropout), plus per-example gradients for DP-SGD.
//
// Parameters are a flat []float64 owned by the caller, so that federated
// algorithms can average, clip, extrapolate and add noise to them with plain
// vector code; each model documents its layout (torch's state-dict order)
// and lists its tensors (TensorLayout) for per-layer clipping and noise. A
// Model value holds only its shape, settings and scratch buffers; it is not
// safe for concurrent use: make one per goroutine with Clone. Scratch grows
// to the largest batch seen, after which no call allocates.
//
// Evaluator (and Evaluate) computes the mean loss and accuracy of a model on
// a data set in chunks.
package model

import "math/rand/v2"

// Batch is a view of N examples of D features (row-major X) with labels Y.
type Batch struct {
	X    []float64
	Y    []int
	N, D int
}

// Row returns the features of example i.
func (b Batch) Row(i int) []float64 { return b.X[i*b.D : (i+1)*b.D] }

// Loss selects how class scores become a loss.
type Loss int

const (
	// CrossEntropy is softmax cross-entropy on the logits.
	CrossEntropy Loss = iota
	// DoubleSoftmax reproduces the upstream Upcycled-FL code: the network
	// ends in a Softmax layer and torch's CrossEntropyLoss applies
	// log-softmax again, so the loss is CE(softmax(softmax(z)), y).
	DoubleSoftmax
)

// String names the loss ("cross-entropy", "double-softmax").
func (l Loss) String() string {
	switch l {
	case CrossEntropy:
		return "cross-entropy"
	case DoubleSoftmax:
		return "double-softmax"
	}
	return "unknown-loss"
}

// Differentiable is what local training needs: a parameter count and a
// mean-loss gradient over a batch. Classifiers (Model) and non-classifiers
// such as the diffusion denoiser both satisfy it, so the FL engine and the
// optimizers work with either.
type Differentiable interface {
	// NumParams is the length of the parameter vector.
	NumParams() int
	// LossGrad returns the mean loss over the batch and, when grad is not
	// nil, overwrites grad with the gradient of that mean. r drives
	// stochastic parts (dropout, diffusion time steps and noise); r == nil
	// means evaluation mode where that makes sense.
	LossGrad(p []float64, b Batch, grad []float64, r *rand.Rand) float64
}

// GradOnly is implemented by models that can compute the mean-loss
// gradient without the loss value itself: training loops that discard the
// loss use it to skip the per-example logarithm. The gradient must equal
// LossGrad's.
type GradOnly interface {
	Grad(p []float64, b Batch, grad []float64, r *rand.Rand)
}

// RowGrad is implemented by models that compute Grad of selected rows of a
// row-major data set in place: rows[i] indexes the examples of X (n×d)
// and Y. It must equal Grad on the gathered batch up to rounding.
type RowGrad interface {
	GradRows(p, X []float64, Y []int, d int, rows []int, grad []float64, r *rand.Rand)
}

// Model is a classifier with analytic gradients.
type Model interface {
	Differentiable
	// Classes is the number of output classes.
	Classes() int
	// InputDim is the number of input features.
	InputDim() int
	// Init writes initial parameters drawn from r.
	Init(p []float64, r *rand.Rand)
	// PerExampleGrads writes the gradient of example i's loss into
	// g[i*NumParams():(i+1)*NumParams()] and its loss into loss[i] (when
	// loss is not nil). Same r convention as LossGrad.
	PerExampleGrads(p []float64, b Batch, g []float64, loss []float64, r *rand.Rand)
	// Predict writes class probabilities, row-major N×Classes, into out
	// (evaluation mode).
	Predict(p []float64, b Batch, out []float64)
	// Clone returns an independent model of the same shape (own scratch).
	Clone() Model
}
