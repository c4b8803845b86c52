package diffusion

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Activation is the non-linearity of the hidden layers.
type Activation int

const (
	// SiLU is z·sigmoid(z) (DDPM's U-Net uses it); smooth, so finite
	// differences check its gradients everywhere.
	SiLU Activation = iota
	// ReLU is max(z, 0).
	ReLU
)

// String names the activation.
func (a Activation) String() string {
	switch a {
	case SiLU:
		return "silu"
	case ReLU:
		return "relu"
	}
	return fmt.Sprintf("activation(%d)", int(a))
}

// NetConfig is the shape of an MLP denoiser.
type NetConfig struct {
	// Dim is the data dimension d (input and output width).
	Dim int
	// Hidden are the widths of the hidden layers (at least one).
	Hidden []int
	// TimeDim is the width of the sinusoidal time embedding (even, ≥ 2).
	TimeDim int
	// Act is the hidden-layer activation.
	Act Activation
}

// Net is the MLP ε_w(x_t, t) described in the package documentation. It
// holds its shape, the embedding table for t = 0..T and scratch buffers;
// parameters are passed in as a flat vector laid out layer by layer as
// W_l (fan_in × fan_out, row-major) followed by b_l (fan_out). A Net is not
// safe for concurrent use; Clone gives an independent one.
type Net struct {
	cfg     NetConfig
	steps   int
	emb     []float64 // (steps+1) × TimeDim
	widths  []int     // layer widths: in = Dim+TimeDim, Hidden..., Dim
	offW    []int     // offset of W_l in p (l = 1..L, stored at l-1)
	offB    []int
	nparams int

	capRows int
	acts    [][]float64 // acts[0] = input rows; acts[l] = post-activation of hidden layer l; acts[L] = output
	pre     [][]float64 // pre-activations of hidden layers (index l-1)
	// den holds 1 + exp(−z) of every hidden pre-activation z (SiLU only,
	// index l-1): Forward divides by it and Backward's sigmoid is its
	// reciprocal, so Backward needs no exponential of its own.
	den    [][]float64
	dA, dZ []float64 // ping-pong backward buffers (capRows × max width)
	ts     []int     // per-row steps of the last forward
}

// NewNet builds a network for a schedule of T steps.
func NewNet(cfg NetConfig, T int) (*Net, error) {
	if cfg.Dim < 1 {
		return nil, fmt.Errorf("diffusion: net needs Dim ≥ 1, got %d", cfg.Dim)
	}
	if len(cfg.Hidden) == 0 {
		return nil, fmt.Errorf("diffusion: net needs at least one hidden layer")
	}
	for _, h := range cfg.Hidden {
		if h < 1 {
			return nil, fmt.Errorf("diffusion: hidden width %d < 1", h)
		}
	}
	if cfg.TimeDim < 2 || cfg.TimeDim%2 != 0 {
		return nil, fmt.Errorf("diffusion: time embedding width must be even and ≥ 2, got %d", cfg.TimeDim)
	}
	if cfg.Act != SiLU && cfg.Act != ReLU {
		return nil, fmt.Errorf("diffusion: unknown activation %v", cfg.Act)
	}
	if T < 1 {
		return nil, fmt.Errorf("diffusion: net needs T ≥ 1 steps, got %d", T)
	}
	cfg.Hidden = append([]int(nil), cfg.Hidden...)
	n := &Net{cfg: cfg, steps: T}
	n.widths = append(append([]int{cfg.Dim + cfg.TimeDim}, cfg.Hidden...), cfg.Dim)
	off := 0
	for l := 1; l < len(n.widths); l++ {
		n.offW = append(n.offW, off)
		off += n.widths[l-1] * n.widths[l]
		n.offB = append(n.offB, off)
		off += n.widths[l]
	}
	n.nparams = off
	n.emb = TimeEmbedding(T, cfg.TimeDim)
	return n, nil
}

// TimeEmbedding returns the (T+1) × dim table of sinusoidal embeddings of
// the steps t = 0..T: row t is [sin(t·ω_0..ω_{h−1}), cos(t·ω_0..ω_{h−1})]
// with h = dim/2 and ω_j = 10000^{−j/(h−1)} (ω_0 = 1 when h = 1), DDPM's
// get_timestep_embedding.
func TimeEmbedding(T, dim int) []float64 {
	h := dim / 2
	out := make([]float64, (T+1)*dim)
	for t := 0; t <= T; t++ {
		row := out[t*dim : (t+1)*dim]
		for j := 0; j < h; j++ {
			w := 1.0
			if h > 1 {
				w = math.Exp(-math.Log(10000) * float64(j) / float64(h-1))
			}
			row[j] = math.Sin(float64(t) * w)
			row[h+j] = math.Cos(float64(t) * w)
		}
	}
	return out
}

// Config returns the network's shape.
func (n *Net) Config() NetConfig {
	c := n.cfg
	c.Hidden = append([]int(nil), c.Hidden...)
	return c
}

// Steps returns the number of diffusion steps T the embedding covers.
func (n *Net) Steps() int { return n.steps }

// NumParams is the length of the parameter vector.
func (n *Net) NumParams() int { return n.nparams }

// Init writes LeCun-normal weights (N(0, 1/fan_in)) and zero biases, drawn
// from r, into p.
func (n *Net) Init(p []float64, r *rand.Rand) {
	for l := 1; l < len(n.widths); l++ {
		in, out := n.widths[l-1], n.widths[l]
		std := 1 / math.Sqrt(float64(in))
		w := p[n.offW[l-1] : n.offW[l-1]+in*out]
		for i := range w {
			w[i] = std * r.NormFloat64()
		}
		clear(p[n.offB[l-1] : n.offB[l-1]+out])
	}
}

// Clone returns a network of the same shape with its own scratch buffers.
func (n *Net) Clone() *Net {
	m, err := NewNet(n.cfg, n.steps)
	if err != nil {
		panic(err) // the shape was valid when n was built
	}
	return m
}

func (n *Net) ensure(rows int) {
	if rows <= n.capRows {
		return
	}
	c := max(rows, 2*n.capRows)
	L := len(n.widths) - 1
	n.acts = make([][]float64, L+1)
	n.pre = make([][]float64, L-1)
	n.den = make([][]float64, L-1)
	maxW := 0
	for l, w := range n.widths {
		n.acts[l] = make([]float64, c*w)
		if l >= 1 && l < L {
			n.pre[l-1] = make([]float64, c*w)
			if n.cfg.Act == SiLU {
				n.den[l-1] = make([]float64, c*w)
			}
		}
		maxW = max(maxW, w)
	}
	n.dA = make([]float64, c*maxW)
	n.dZ = make([]float64, c*maxW)
	n.ts = make([]int, c)
	n.capRows = c
}

func general(rows, cols int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data[:rows*cols]}
}

// Forward computes ε_w(x_t, t) for rows rows of x (row-major, rows × Dim),
// row i at step ts[i] (1..T; 0 is allowed and means clean data), and returns
// the output rows × Dim. The result is a view of an internal buffer valid
// until the next call; it also keeps the activations that Backward needs.
func (n *Net) Forward(p, x []float64, ts []int, rows int) []float64 {
	return n.forward(p, x, ts, rows, true)
}

// forward is Forward; keep says whether Backward may follow, so that the
// SiLU denominators must be stored (sampling skips the stores).
func (n *Net) forward(p, x []float64, ts []int, rows int, keep bool) []float64 {
	if len(p) != n.nparams {
		panic(fmt.Sprintf("diffusion: %d parameters, net has %d", len(p), n.nparams))
	}
	n.ensure(rows)
	d, e := n.cfg.Dim, n.cfg.TimeDim
	in0 := d + e
	a0 := n.acts[0]
	for i := 0; i < rows; i++ {
		t := ts[i]
		if t < 0 || t > n.steps {
			panic(fmt.Sprintf("diffusion: step %d outside 0..%d", t, n.steps))
		}
		n.ts[i] = t
		row := a0[i*in0 : (i+1)*in0]
		copy(row[:d], x[i*d:(i+1)*d])
		copy(row[d:], n.emb[t*e:(t+1)*e])
	}
	L := len(n.widths) - 1
	for l := 1; l <= L; l++ {
		in, out := n.widths[l-1], n.widths[l]
		W := general(in, out, p[n.offW[l-1]:])
		b := p[n.offB[l-1] : n.offB[l-1]+out]
		var z []float64
		if l < L {
			z = n.pre[l-1][:rows*out]
		} else {
			z = n.acts[L][:rows*out]
		}
		for i := 0; i < rows; i++ {
			copy(z[i*out:(i+1)*out], b)
		}
		gemm(blas.NoTrans, blas.NoTrans, 1, general(rows, in, n.acts[l-1]), W, 1, general(rows, out, z))
		if l < L {
			act := n.acts[l][:rows*out]
			switch n.cfg.Act {
			case SiLU:
				// act = z·σ(z) = z / (1 + e^{−z}); the denominator is kept
				// for Backward (σ(z) = 1/den), computed exactly as before
				// so the bits do not move.
				if !keep {
					for i, v := range z {
						act[i] = v / (1 + math.Exp(-v))
					}
					break
				}
				den := n.den[l-1][:rows*out]
				for i, v := range z {
					u := 1 + math.Exp(-v)
					den[i] = u
					act[i] = v / u
				}
			case ReLU:
				for i, v := range z {
					act[i] = max(v, 0)
				}
			}
		}
	}
	return n.acts[L][:rows*d]
}

// Backward overwrites grad (NumParams) with the gradient of Σ_ij dOut_ij·out_ij
// with respect to the parameters, where out is the output of the last
// Forward on rows rows with the same p. dOut may alias nothing of the Net.
func (n *Net) Backward(p, dOut, grad []float64, rows int) {
	L := len(n.widths) - 1
	d := n.cfg.Dim
	dz := n.dZ[:rows*d]
	copy(dz, dOut[:rows*d])
	for l := L; l >= 1; l-- {
		in, out := n.widths[l-1], n.widths[l]
		dZ := general(rows, out, dz)
		// dW_l = A_{l−1}ᵀ dZ_l, db_l = Σ_rows dZ_l.
		gW := general(in, out, grad[n.offW[l-1]:])
		gemm(blas.Trans, blas.NoTrans, 1, general(rows, in, n.acts[l-1]), dZ, 0, gW)
		gb := grad[n.offB[l-1] : n.offB[l-1]+out]
		clear(gb)
		for i := 0; i < rows; i++ {
			row := dz[i*out : (i+1)*out]
			for j, v := range row {
				gb[j] += v
			}
		}
		if l == 1 {
			break
		}
		// dA_{l−1} = dZ_l W_lᵀ, then dZ_{l−1} = dA_{l−1} ⊙ act'(Z_{l−1}).
		da := n.dA[:rows*in]
		gemm(blas.NoTrans, blas.Trans, 1, dZ, general(in, out, p[n.offW[l-1]:]), 0, general(rows, in, da))
		z := n.pre[l-2][:rows*in]
		switch n.cfg.Act {
		case SiLU:
			// SiLU'(z) = σ(z)(1 + z(1 − σ(z))), with σ(z) = 1/(1 + e^{−z})
			// from the denominators Forward kept.
			den := n.den[l-2][:rows*in]
			for i, v := range z {
				s := 1 / den[i]
				da[i] *= s * (1 + v*(1-s))
			}
		case ReLU:
			for i, v := range z {
				if v <= 0 {
					da[i] = 0
				}
			}
		}
		n.dA, n.dZ = n.dZ, n.dA
		dz = da
	}
}
