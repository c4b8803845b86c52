package optim

import "math"

// Adam is Kingma & Ba's Adam with bias correction, in PyTorch's
// formulation (torch.optim.Adam, amsgrad off). With t counting Steps since
// Reset and d = g + WeightDecay·p, elementwise:
//
//	m ← β1·m + (1−β1)·d
//	v ← β2·v + (1−β2)·d²
//	p ← p − (LR/(1−β1ᵗ)) · m / (√v/√(1−β2ᵗ) + Eps)
//
// m and v start at 0. Step does not allocate after the first call.
type Adam struct {
	// LR is the learning rate (torch default 1e-3).
	LR float64
	// Beta1 and Beta2 are the moment decay rates (torch defaults 0.9,
	// 0.999).
	Beta1, Beta2 float64
	// Eps is added to the bias-corrected root second moment (torch
	// default 1e-8).
	Eps float64
	// WeightDecay λ adds λp to the gradient (L2, torch's weight_decay; not
	// AdamW's decoupled decay).
	WeightDecay float64

	m, v []float64
	t    int
}

// NewAdam returns Adam with learning rate lr and PyTorch's defaults
// β1 = 0.9, β2 = 0.999, ε = 1e-8.
func NewAdam(lr float64) *Adam { return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// Reset zeroes the moment estimates and the step count.
func (a *Adam) Reset() { a.t = 0 }

// Steps is the number of Steps since the last Reset.
func (a *Adam) Steps() int { return a.t }

// Step applies one Adam update to p in place.
func (a *Adam) Step(p, g []float64) {
	n := len(p)
	if len(g) != n {
		panic("optim: Adam gradient and parameters differ in length")
	}
	if a.t == 0 {
		a.m, a.v = zeroed(a.m, n), zeroed(a.v, n)
	} else if len(a.m) != n {
		panic("optim: Adam parameters changed length without Reset")
	}
	a.t++
	b1, b2, wd, eps := a.Beta1, a.Beta2, a.WeightDecay, a.Eps
	stepSize := a.LR / (1 - math.Pow(b1, float64(a.t)))
	bc2Sqrt := math.Sqrt(1 - math.Pow(b2, float64(a.t)))
	m, v := a.m[:n], a.v[:n]
	for j := range p {
		d := g[j]
		if wd != 0 {
			d += wd * p[j]
		}
		m[j] = b1*m[j] + (1-b1)*d
		v[j] = b2*v[j] + (1-b2)*d*d
		p[j] -= stepSize * m[j] / (math.Sqrt(v[j])/bc2Sqrt + eps)
	}
}

// AdaGrad is Duchi et al.'s AdaGrad in PyTorch's formulation
// (torch.optim.Adagrad). With t counting Steps since Reset and
// d = g + WeightDecay·p, elementwise:
//
//	s ← s + d²
//	p ← p − (LR/(1 + (t−1)·LRDecay)) · d / (√s + Eps)
//
// s starts at InitialAccumulator. Step does not allocate after the first
// call.
type AdaGrad struct {
	// LR is the learning rate (torch default 1e-2).
	LR float64
	// LRDecay divides the learning rate by 1 + (t−1)·LRDecay (torch
	// default 0).
	LRDecay float64
	// InitialAccumulator is the starting value of the sum of squared
	// gradients (torch default 0).
	InitialAccumulator float64
	// Eps is added to the root accumulator (torch default 1e-10).
	Eps float64
	// WeightDecay λ adds λp to the gradient.
	WeightDecay float64

	s []float64
	t int
}

// NewAdaGrad returns AdaGrad with learning rate lr and PyTorch's defaults
// (initial accumulator 0, ε = 1e-10, no decay).
func NewAdaGrad(lr float64) *AdaGrad { return &AdaGrad{LR: lr, Eps: 1e-10} }

// Reset restores the accumulator to InitialAccumulator and the step count
// to 0.
func (a *AdaGrad) Reset() { a.t = 0 }

// Steps is the number of Steps since the last Reset.
func (a *AdaGrad) Steps() int { return a.t }

// Step applies one AdaGrad update to p in place.
func (a *AdaGrad) Step(p, g []float64) {
	n := len(p)
	if len(g) != n {
		panic("optim: AdaGrad gradient and parameters differ in length")
	}
	if a.t == 0 {
		a.s = zeroed(a.s, n)
		if a.InitialAccumulator != 0 {
			for j := range a.s {
				a.s[j] = a.InitialAccumulator
			}
		}
	} else if len(a.s) != n {
		panic("optim: AdaGrad parameters changed length without Reset")
	}
	a.t++
	clr := a.LR / (1 + float64(a.t-1)*a.LRDecay)
	wd, eps, s := a.WeightDecay, a.Eps, a.s[:n]
	for j := range p {
		d := g[j]
		if wd != 0 {
			d += wd * p[j]
		}
		s[j] += d * d
		p[j] -= clr * d / (math.Sqrt(s[j]) + eps)
	}
}

// zeroed returns s resized to n and cleared, reusing its capacity.
func zeroed(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}
