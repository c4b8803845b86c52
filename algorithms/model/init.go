package model

import (
	"math"
	"math/rand/v2"
)

// InitScheme selects how Init draws the weights of a linear layer. Every
// scheme draws weights in parameter-layout order (layer by layer, each
// weight matrix row-major), then that layer's biases, so a given r always
// yields the same parameters.
type InitScheme int

const (
	// InitNormal draws weights from N(0, InitStd²) and sets biases to 0. This
	// is the upstream Upcycled-FL initialisation (torch normal_(0, 0.01),
	// whose second argument is a standard deviation) with the default
	// InitStd = 0.01.
	InitNormal InitScheme = iota
	// InitHe draws weights from N(0, 2/fanIn) (Kaiming normal, ReLU gain)
	// and sets biases to 0.
	InitHe
	// InitGlorot draws weights from U(−a, a) with a = √(6/(fanIn+fanOut))
	// (Xavier uniform) and sets biases to 0.
	InitGlorot
	// InitTorchDefault is what torch.nn.Linear does when nothing else is
	// said: weights and biases from U(−1/√fanIn, 1/√fanIn).
	InitTorchDefault
	// InitZero sets every parameter to 0 (common for convex models).
	InitZero
)

// DefaultInitStd is the standard deviation of InitNormal weights unless a
// model's InitStd says otherwise.
const DefaultInitStd = 0.01

// String names the scheme ("normal", "he", ...).
func (s InitScheme) String() string {
	switch s {
	case InitNormal:
		return "normal"
	case InitHe:
		return "he"
	case InitGlorot:
		return "glorot"
	case InitTorchDefault:
		return "torch-default"
	case InitZero:
		return "zero"
	}
	return "unknown-init"
}

// initLinear fills the weights w (fanOut×fanIn) and biases b (fanOut) of
// one linear layer.
func initLinear(s InitScheme, std float64, w, b []float64, fanIn, fanOut int, r *rand.Rand) {
	switch s {
	case InitNormal:
		for i := range w {
			w[i] = std * r.NormFloat64()
		}
		clear(b)
	case InitHe:
		sd := math.Sqrt(2 / float64(fanIn))
		for i := range w {
			w[i] = sd * r.NormFloat64()
		}
		clear(b)
	case InitGlorot:
		a := math.Sqrt(6 / float64(fanIn+fanOut))
		for i := range w {
			w[i] = a * (2*r.Float64() - 1)
		}
		clear(b)
	case InitTorchDefault:
		a := 1 / math.Sqrt(float64(fanIn))
		for i := range w {
			w[i] = a * (2*r.Float64() - 1)
		}
		for i := range b {
			b[i] = a * (2*r.Float64() - 1)
		}
	case InitZero:
		clear(w)
		clear(b)
	default:
		panic("model: unknown init scheme " + s.String())
	}
}

// Tensor names one parameter tensor inside a flat parameter vector: the
// entries p[Offset : Offset+Rows*Cols], row-major Rows×Cols (a bias has
// Cols = 1). Names follow torch's state-dict convention ("fc1.weight").
type Tensor struct {
	Name       string
	Offset     int
	Rows, Cols int
}

// Len is the number of parameters in the tensor.
func (t Tensor) Len() int { return t.Rows * t.Cols }

// Of returns the tensor's view of the flat vector p.
func (t Tensor) Of(p []float64) []float64 { return p[t.Offset : t.Offset+t.Len()] }

// TensorLayout is implemented by models whose flat parameter vector is a
// concatenation of named tensors, for per-layer clipping and per-tensor
// noise. Tensors are listed in order and cover the vector exactly.
type TensorLayout interface {
	Tensors() []Tensor
}

// grow returns s resliced to n, reallocating only when its capacity is short.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// growInt is grow for []int.
func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// checkBatch panics when b does not fit a model of d features, or when
// labels are needed and Y is shorter than N.
func checkBatch(b Batch, d int, needY bool) {
	if b.D != d {
		panic("model: batch has the wrong number of features")
	}
	if b.N < 0 || len(b.X) < b.N*b.D {
		panic("model: batch X shorter than N·D")
	}
	if needY && len(b.Y) < b.N {
		panic("model: batch Y shorter than N")
	}
}

func checkLen(name string, s []float64, n int) {
	if len(s) < n {
		panic("model: " + name + " is too short")
	}
}
