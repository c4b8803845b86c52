package model

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/fedrepro/fedrepro/algorithms/linalg"
)

// ExactClipper is implemented by models that compute DP-SGD's clipped
// gradient sum bit for bit as the materialised path does — PerExampleGrads,
// then dst += f_i·g_i (gonum's floats.AddScaled) for i = 0, 1, … with
// f_i = factor(g_i·g_i) — without writing the per-example gradients. MLP
// and LogReg implement it.
type ExactClipper interface {
	// ExactClippedGradSum overwrites dst with that sum over b (dropout
	// masks from r as PerExampleGrads draws them). factor receives
	// ss_i = floats.Dot(g_i, g_i), rounded exactly as gonum computes it,
	// and a function that materialises g_i (in scratch, valid until the
	// next call) for factors that need more than ss (a scaled norm when ss
	// over- or underflows); it returns the clip factor f_i. It returns
	// false, without touching r or dst, when gonum's rounding order is not
	// the one reproduced here (linalg.GonumAsmOrder): the caller then
	// materialises.
	ExactClippedGradSum(p []float64, b Batch, dst []float64, factor func(ss float64, g func() []float64) float64, r *rand.Rand) bool
}

// denseGrad describes the per-example gradient of one dense layer: the
// weights δ ⊗ a at offset offW (row-major out×in, row j cleared when
// δ_j = 0, else δ_j·a as floats.ScaleTo computes it) and the biases δ at
// offB, for the rows of a (n×in) and d (n×out).
type denseGrad struct {
	a, d       []float64
	in, out    int
	offW, offB int
}

// exactSumSq is floats.Dot(g, g) for example i's flattened gradient g of
// np parameters made of layers, in gonum's amd64 order (DotUnitary: four
// partial sums over the indices ≡ r mod 4 of the leading multiple of 4,
// the last np%4 squares added to the first, then (s0+s2)+(s1+s3)). The
// squares of cleared rows are +0 and leave the sums unchanged, so those
// rows are skipped.
func exactSumSq(layers []denseGrad, i, np int) float64 {
	p4 := np &^ 3
	var s [4]float64
	add := func(e int, v float64) {
		if e < p4 {
			s[e&3] += float64(v * v)
		} else {
			s[0] += float64(v * v)
		}
	}
	for _, L := range layers {
		a := L.a[i*L.in : (i+1)*L.in]
		d := L.d[i*L.out : (i+1)*L.out]
		for j, dj := range d {
			if dj == 0 {
				continue
			}
			e0 := L.offW + j*L.in
			if e0&3 != 0 || e0+len(a) > p4 {
				for k, x := range a {
					add(e0+k, float64(x*dj))
				}
				continue
			}
			s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
			k := 0
			for ; k+4 <= len(a); k += 4 {
				v0, v1, v2, v3 := float64(a[k]*dj), float64(a[k+1]*dj), float64(a[k+2]*dj), float64(a[k+3]*dj)
				s0 += float64(v0 * v0)
				s1 += float64(v1 * v1)
				s2 += float64(v2 * v2)
				s3 += float64(v3 * v3)
			}
			s[0], s[1], s[2], s[3] = s0, s1, s2, s3
			for ; k < len(a); k++ {
				add(e0+k, float64(a[k]*dj))
			}
		}
		for j, dj := range d {
			add(L.offB+j, dj)
		}
	}
	return float64(s[0]+s[2]) + float64(s[1]+s[3])
}

// exactAddScaled adds f·g_i to dst for example i, entry by entry as
// floats.AddScaled(dst, f, g_i) rounds it ((g·f) + dst, with g = a·δ_j as
// floats.ScaleTo rounds it: linalg.AddScaledProduct); cleared rows add ±0 to entries that are
// never −0 (dst starts at +0 and only sums) and are skipped, which is
// exact when f is not NaN.
func exactAddScaled(dst []float64, layers []denseGrad, i int, f float64) {
	for _, L := range layers {
		a := L.a[i*L.in : (i+1)*L.in]
		d := L.d[i*L.out : (i+1)*L.out]
		for j, dj := range d {
			if dj == 0 {
				continue
			}
			linalg.AddScaledProduct(dst[L.offW+j*L.in:L.offW+(j+1)*L.in], a, dj, f)
		}
		bias := dst[L.offB : L.offB+L.out]
		for j, dj := range d {
			bias[j] += float64(dj * f)
		}
	}
}

// materialise writes example i's gradient into g as PerExampleGrads does.
func materialise(g []float64, layers []denseGrad, i int) {
	for _, L := range layers {
		a := L.a[i*L.in : (i+1)*L.in]
		d := L.d[i*L.out : (i+1)*L.out]
		for j, dj := range d {
			row := g[L.offW+j*L.in : L.offW+(j+1)*L.in]
			if dj == 0 {
				clear(row)
			} else {
				floats.ScaleTo(row, dj, a)
			}
		}
		copy(g[L.offB:L.offB+L.out], d)
	}
}

// exactState is the scratch of an exact clipped sum: the layer views, the
// example being summed, and one materialised gradient for the factors
// that ask for it. grad is bound once (gfn), so that a sum allocates
// nothing once scratch has grown.
type exactState struct {
	layers  []denseGrad
	cur, np int
	scratch []float64
	gfn     func() []float64
}

// grad materialises the current example's gradient into scratch.
func (s *exactState) grad() []float64 {
	s.scratch = grow(s.scratch, s.np)
	g := s.scratch[:s.np]
	materialise(g, s.layers, s.cur)
	return g
}

// sum runs the clipped sum over n examples of s.layers into dst.
func (s *exactState) sum(dst []float64, n int, factor func(float64, func() []float64) float64) {
	if s.gfn == nil {
		s.gfn = s.grad
	}
	s.np = len(dst)
	clear(dst)
	for i := range n {
		s.cur = i
		f := factor(exactSumSq(s.layers, i, s.np), s.gfn)
		if math.IsNaN(f) {
			// f·0 is NaN too: every entry is touched, as AddScaled does.
			floats.AddScaled(dst, f, s.grad())
			continue
		}
		exactAddScaled(dst, s.layers, i, f)
	}
}

// ExactClippedGradSum implements ExactClipper: one forward and backward
// pass as PerExampleGrads, then per example its exact squared norm from
// the activations and errors, the caller's factor, and the scaled add.
func (m *MLP) ExactClippedGradSum(p []float64, b Batch, dst []float64, factor func(ss float64, g func() []float64) float64, r *rand.Rand) bool {
	if !linalg.GonumAsmOrder {
		return false
	}
	m.checkParams(p)
	checkBatch(b, m.InputDim(), true)
	m.checkParams(dst)
	if b.N == 0 {
		clear(dst)
		return true
	}
	scale := m.forward(p, b, r)
	m.headPass(b, true, nil)
	m.backprop(p, b.N, scale)
	L := m.Layers()
	if len(m.ex.layers) != L {
		m.ex.layers = make([]denseGrad, L)
	}
	for l := range L {
		in, out := m.sizes[l], m.sizes[l+1]
		m.ex.layers[l] = denseGrad{a: m.layerInput(b, l), d: m.dlt[l], in: in, out: out, offW: m.offW[l], offB: m.offB[l]}
	}
	m.ex.sum(dst, b.N, factor)
	return true
}

// ExactClippedGradSum implements ExactClipper for logistic regression: the
// head gradients δ_i as PerExampleGrads computes them, then as the MLP.
func (m *LogReg) ExactClippedGradSum(p []float64, b Batch, dst []float64, factor func(ss float64, g func() []float64) float64, _ *rand.Rand) bool {
	if !linalg.GonumAsmOrder {
		return false
	}
	m.checkParams(p)
	checkBatch(b, m.d, true)
	m.checkParams(dst)
	n := b.N
	w, bias := m.split(p)
	m.dl = grow(m.dl, n*m.c)
	d := m.dl[:n*m.c]
	for i := range n {
		z := m.scores(w, bias, b.Row(i))
		headLoss(m.Loss, z, b.Y[i], d[i*m.c:(i+1)*m.c], m.z[m.c:2*m.c])
	}
	if len(m.ex.layers) != 1 {
		m.ex.layers = make([]denseGrad, 1)
	}
	m.ex.layers[0] = denseGrad{a: b.X, d: d, in: m.d, out: m.c, offW: 0, offB: m.c * m.d}
	m.ex.sum(dst, n, factor)
	return true
}
