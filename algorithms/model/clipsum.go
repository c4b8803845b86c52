package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
)

// ClippedSummer is implemented by models that compute the clipped
// gradient sum of DP-SGD (Abadi et al. 2016, Algorithm 1),
//
//	Σ_i min(1, c/‖g_i‖₂)·g_i,
//
// without materialising the per-example gradients g_i. MLP and LogReg
// implement it.
type ClippedSummer interface {
	// ClippedGradSum overwrites dst with Σ_i min(1, c/‖g_i‖)·g_i over the
	// examples of b, where g_i is example i's gradient as PerExampleGrads
	// computes it (same r convention: same dropout masks), and writes
	// ‖g_i‖ into norms[i] when norms is not nil. A factor is exactly 1
	// when ‖g_i‖ ≤ c. c must be ≥ 0 (+Inf: no clipping).
	ClippedGradSum(p []float64, b Batch, c float64, dst, norms []float64, r *rand.Rand)
}

// clipScale is min(1, c/norm): exactly 1 when norm ≤ c (dpfl's rule).
func clipScale(norm, c float64) float64 {
	if norm <= c {
		return 1
	}
	return c / norm
}

func checkClip(c float64) {
	if !(c >= 0) {
		panic(fmt.Sprintf("model: clip norm %v must be ≥ 0", c))
	}
}

// ghostSq is the squared norm of the gradient of one dense layer for one
// example, the outer product δ ⊗ a plus the bias gradient δ:
//
//	‖δ ⊗ a‖²_F + ‖δ‖² = (‖a‖² + 1)·‖δ‖²
//
// (the "ghost norm" identity of Goodfellow 2015, "Efficient per-example
// gradient computations", and Li et al. 2022, "Large language models can
// be strong differentially private learners", §4). It returns ok = false
// when a sum of squares leaves the range where it is exact up to rounding
// (over- or underflow); the caller then uses safeNorm.
func ghostSq(a, d []float64) (sq float64, ok bool) {
	aa, dd := floats.Dot(a, a), floats.Dot(d, d)
	sq = (aa + 1) * dd
	return sq, aa < 1e280 && (dd == 0 || (dd > 1e-280 && dd < 1e280)) && sq < 1e300
}

// safeNorm is sqrt(Σ_l (‖a_l‖² + 1)·‖δ_l‖²) from gonum's scaled norms,
// without intermediate over- or underflow: ‖δ‖·hypot(‖a‖, 1) per layer,
// combined with hypot.
func safeNorm(as, ds [][]float64) float64 {
	var n float64
	for l := range as {
		n = math.Hypot(n, floats.Norm(ds[l], 2)*math.Hypot(floats.Norm(as[l], 2), 1))
	}
	return n
}

// ClippedGradSum implements ClippedSummer for the MLP: one forward and
// backward pass over the batch (the activations a_{l−1} and errors δ_l of
// PerExampleGrads), per-example norms from ghostSq summed over the layers,
// then per layer the weight sum (diag(f)·δ_l)ᵀ·a_{l−1} as one matrix
// product and the bias sum Σ_i f_i·δ_{l,i}, with f_i = min(1, c/‖g_i‖).
// The work is that of LossGrad plus O(n·Σ sizes) for the norms, against
// O(n·NumParams) memory traffic for materialising the gradients. The
// result equals the clipped sum of PerExampleGrads up to rounding (the
// products are associated as (f_i·δ)·a instead of f_i·(δ·a), the norms
// summed per layer), not bit for bit.
func (m *MLP) ClippedGradSum(p []float64, b Batch, c float64, dst, norms []float64, r *rand.Rand) {
	m.checkParams(p)
	checkBatch(b, m.InputDim(), true)
	m.checkParams(dst)
	checkClip(c)
	if norms != nil {
		checkLen("norm buffer", norms, b.N)
	}
	if b.N == 0 {
		clear(dst)
		return
	}
	n, L := b.N, m.Layers()
	scale := m.forward(p, b, r)
	m.headPass(b, true, nil)
	m.backprop(p, n, scale)
	m.fac = grow(m.fac, n)
	f := m.fac[:n]
	for i := range n {
		var sq float64
		ok := true
		for l := range L {
			in, out := m.sizes[l], m.sizes[l+1]
			s, good := ghostSq(m.layerInput(b, l)[i*in:(i+1)*in], m.dlt[l][i*out:(i+1)*out])
			sq += s
			ok = ok && good
		}
		nrm := math.Sqrt(sq)
		if !ok {
			nrm = m.safeNorm(b, i)
		}
		if norms != nil {
			norms[i] = nrm
		}
		f[i] = clipScale(nrm, c)
	}
	for l := range L {
		in, out := m.sizes[l], m.sizes[l+1]
		d := m.dlt[l][:n*out]
		for i, fi := range f {
			if fi != 1 {
				floats.Scale(fi, d[i*out:(i+1)*out])
			}
		}
		gw, gb := m.Layer(dst, l)
		gemm(blas.Trans, blas.NoTrans, 1, general(n, out, d), general(n, in, m.layerInput(b, l)), 0, general(out, in, gw))
		copy(gb, d[:out])
		for i := 1; i < n; i++ {
			floats.Add(gb, d[i*out:(i+1)*out])
		}
	}
}

// safeNorm is example i's gradient norm by safeNorm after a backward pass.
func (m *MLP) safeNorm(b Batch, i int) float64 {
	L := m.Layers()
	as, ds := make([][]float64, L), make([][]float64, L)
	for l := range L {
		in, out := m.sizes[l], m.sizes[l+1]
		as[l] = m.layerInput(b, l)[i*in : (i+1)*in]
		ds[l] = m.dlt[l][i*out : (i+1)*out]
	}
	return safeNorm(as, ds)
}

// ClippedGradSum implements ClippedSummer for logistic regression: the
// head gradients δ_i (as PerExampleGrads writes into the bias block), the
// ghost norms ‖g_i‖² = (‖x_i‖² + 1)·‖δ_i‖², and the weight sum
// (diag(f)·δ)ᵀ·X as one matrix product. Equal to the clipped sum of
// PerExampleGrads up to rounding.
func (m *LogReg) ClippedGradSum(p []float64, b Batch, c float64, dst, norms []float64, _ *rand.Rand) {
	m.checkParams(p)
	checkBatch(b, m.d, true)
	m.checkParams(dst)
	checkClip(c)
	if norms != nil {
		checkLen("norm buffer", norms, b.N)
	}
	if b.N == 0 {
		clear(dst)
		return
	}
	n := b.N
	w, bias := m.split(p)
	m.dl = grow(m.dl, n*m.c)
	d := m.dl[:n*m.c]
	for i := range n {
		x := b.Row(i)
		z := m.scores(w, bias, x)
		di := d[i*m.c : (i+1)*m.c]
		headLoss(m.Loss, z, b.Y[i], di, m.z[m.c:2*m.c])
		sq, ok := ghostSq(x, di)
		nrm := math.Sqrt(sq)
		if !ok {
			nrm = safeNorm([][]float64{x}, [][]float64{di})
		}
		if norms != nil {
			norms[i] = nrm
		}
		if fi := clipScale(nrm, c); fi != 1 {
			floats.Scale(fi, di)
		}
	}
	gw, gb := m.split(dst)
	gemm(blas.Trans, blas.NoTrans, 1, general(n, m.c, d), general(n, m.d, b.X), 0, general(m.c, m.d, gw))
	copy(gb, d[:m.c])
	for i := 1; i < n; i++ {
		floats.Add(gb, d[i*m.c:(i+1)*m.c])
	}
}
