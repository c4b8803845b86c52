package model

// LossPredictor is implemented by models that compute class probabilities
// and per-example losses (under their own loss mode, evaluation mode) in
// one forward pass. LogReg and MLP implement it; Evaluator uses it when it
// can.
type LossPredictor interface {
	// PredictLoss writes probabilities (N×Classes) into out and losses
	// into loss; either may be nil.
	PredictLoss(p []float64, b Batch, out, loss []float64)
}

// DefaultEvalChunk is the number of examples an Evaluator processes per
// forward pass unless its Chunk says otherwise.
const DefaultEvalChunk = 256

// Evaluator computes the mean loss and accuracy of a model on a data set in
// chunks, reusing its buffers across calls (the zero value is ready to use;
// not safe for concurrent use).
type Evaluator struct {
	// Chunk is the number of examples per forward pass (default
	// DefaultEvalChunk).
	Chunk int

	probs, loss []float64
}

// Evaluate returns the mean loss (the model's own loss mode, evaluation
// mode: no dropout) and the accuracy (share of examples whose first
// largest predicted probability is at the label) of m with parameters p
// on the n examples of d features in X (row-major) with labels Y. With
// n = 0 both are 0.
func (e *Evaluator) Evaluate(m Model, p []float64, X []float64, Y []int, n, d int) (meanLoss, accuracy float64) {
	if n == 0 {
		return 0, 0
	}
	if len(X) < n*d || len(Y) < n {
		panic("model: Evaluate: X or Y shorter than n")
	}
	chunk := e.Chunk
	if chunk <= 0 {
		chunk = DefaultEvalChunk
	}
	c := m.Classes()
	e.probs = grow(e.probs, chunk*c)
	e.loss = grow(e.loss, chunk)
	lp, fast := m.(LossPredictor)
	var lossSum float64
	correct := 0
	for start := 0; start < n; start += chunk {
		k := min(chunk, n-start)
		b := Batch{X: X[start*d : (start+k)*d], Y: Y[start : start+k], N: k, D: d}
		probs := e.probs[:k*c]
		if fast {
			lp.PredictLoss(p, b, probs, e.loss[:k])
			for _, l := range e.loss[:k] {
				lossSum += l
			}
		} else {
			lossSum += m.LossGrad(p, b, nil, nil) * float64(k)
			m.Predict(p, b, probs)
		}
		for i := range k {
			if argmax(probs[i*c:(i+1)*c]) == b.Y[i] {
				correct++
			}
		}
	}
	return lossSum / float64(n), float64(correct) / float64(n)
}

// Evaluate is Evaluator.Evaluate with a temporary Evaluator (it allocates
// chunk-sized buffers once per call; keep an Evaluator to avoid even that).
func Evaluate(m Model, p []float64, X []float64, Y []int, n, d int) (meanLoss, accuracy float64) {
	var e Evaluator
	return e.Evaluate(m, p, X, Y, n, d)
}
