package model

// Unit pins (issue 12, item 4): LogReg and MLP losses and gradients on
// 4–10 parameter examples, derived by hand (comments) or by the textbook
// formulas written out below (softmax, cross-entropy, the softmax Jacobian
// for the double softmax, back-propagation through one ReLU layer with
// inverted dropout whose mask is recomputed from the stream). They test
// behaviour only, so a faster implementation must pass them unchanged.
// Tolerance 1e-12 absolute.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

const pinTol = 1e-12

func pinNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !(math.Abs(got-want) <= pinTol) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}

func pinVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s has length %d, want %d", what, len(got), len(want))
	}
	for j := range got {
		if !(math.Abs(got[j]-want[j]) <= pinTol) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

// TestPinLogRegByHand: 1 feature, 2 classes, p = (w_0, w_1, b_0, b_1) =
// (0.25, 0.5, 0.5, 0). Example (x = 2, y = 1): z = (1, 1), softmax ½, ½;
// loss ln 2; dz = (½, −½); ∇W = 2·dz = (1, −1), ∇b = (½, −½).
// Example (x = 0, y = 0): z = (0.5, 0), σ = softmax; loss = ln(1 + e^{−0.5});
// dz = (σ_0 − 1, σ_1) with σ_1 = 1/(1 + e^{0.5}); ∇W = 0, ∇b = dz.
// The batch mean is half their sum.
func TestPinLogRegByHand(t *testing.T) {
	m := NewLogReg(1, 2, CrossEntropy)
	p := []float64{0.25, 0.5, 0.5, 0}
	g := make([]float64, 4)
	loss := m.LossGrad(p, Batch{X: []float64{2}, Y: []int{1}, N: 1, D: 1}, g, nil)
	pinNear(t, "loss", loss, math.Ln2)
	pinVec(t, "gradient", g, []float64{1, -1, 0.5, -0.5})
	s1 := 1 / (1 + math.Exp(0.5))
	loss = m.LossGrad(p, Batch{X: []float64{2, 0}, Y: []int{1, 0}, N: 2, D: 1}, g, nil)
	pinNear(t, "batch loss", loss, (math.Ln2+math.Log1p(math.Exp(-0.5)))/2)
	pinVec(t, "batch gradient", g, []float64{0.5, -0.5, (0.5 + (1 - s1) - 1) / 2, (-0.5 + s1) / 2})
	// GradOnly gives the same gradient.
	g2 := make([]float64, 4)
	m.Grad(p, Batch{X: []float64{2, 0}, Y: []int{1, 0}, N: 2, D: 1}, g2, nil)
	pinVec(t, "Grad", g2, g)
	// Per-example gradients and losses.
	pe := make([]float64, 8)
	pl := make([]float64, 2)
	m.PerExampleGrads(p, Batch{X: []float64{2, 0}, Y: []int{1, 0}, N: 2, D: 1}, pe, pl, nil)
	pinVec(t, "example 0 gradient", pe[:4], []float64{1, -1, 0.5, -0.5})
	pinVec(t, "example 1 gradient", pe[4:], []float64{0, 0, -s1, s1})
	pinVec(t, "example losses", pl, []float64{math.Ln2, math.Log1p(math.Exp(-0.5))})
	// Predict: softmax rows.
	out := make([]float64, 4)
	m.Predict(p, Batch{X: []float64{2, 0}, N: 2, D: 1}, out)
	pinVec(t, "probabilities", out, []float64{0.5, 0.5, 1 - s1, s1})
}

// softmax and the reference heads, written plainly.
func refSoftmax(z []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	out := make([]float64, len(z))
	var s float64
	for c, v := range z {
		out[c] = math.Exp(v - mx)
		s += out[c]
	}
	for c := range out {
		out[c] /= s
	}
	return out
}

// refHead returns the loss and dloss/dz of one example. Cross-entropy:
// −log softmax(z)_y, gradient softmax(z) − e_y. Double softmax: s =
// softmax(z), loss −log softmax(s)_y, gradient Jᵀ(softmax(s) − e_y) with
// the softmax Jacobian J_ck = s_c(δ_ck − s_k).
func refHead(l Loss, z []float64, y int) (float64, []float64) {
	k := len(z)
	s := refSoftmax(z)
	if l == CrossEntropy {
		d := append([]float64(nil), s...)
		d[y]--
		return -math.Log(s[y]), d
	}
	q := refSoftmax(s)
	u := append([]float64(nil), q...)
	u[y]--
	d := make([]float64, k)
	for j := 0; j < k; j++ {
		for c := 0; c < k; c++ {
			jac := -s[c] * s[j]
			if c == j {
				jac += s[c]
			}
			d[j] += jac * u[c]
		}
	}
	return -math.Log(q[y]), d
}

// refLogReg is the mean loss and gradient of logistic regression over a
// batch (W row-major classes × d, then b).
func refLogReg(l Loss, p, x []float64, y []int, d, classes int) (float64, []float64, [][]float64) {
	n := len(y)
	g := make([]float64, len(p))
	var loss float64
	var per [][]float64
	for i := 0; i < n; i++ {
		z := make([]float64, classes)
		for c := range z {
			z[c] = p[classes*d+c]
			for j := 0; j < d; j++ {
				z[c] += p[c*d+j] * x[i*d+j]
			}
		}
		li, dz := refHead(l, z, y[i])
		loss += li / float64(n)
		gi := make([]float64, len(p))
		for c := range dz {
			for j := 0; j < d; j++ {
				gi[c*d+j] = dz[c] * x[i*d+j]
			}
			gi[classes*d+c] = dz[c]
		}
		for k := range g {
			g[k] += gi[k] / float64(n)
		}
		per = append(per, gi)
	}
	return loss, g, per
}

// TestPinLogRegReference: both losses, 2 and 3 classes, against refLogReg.
func TestPinLogRegReference(t *testing.T) {
	x := []float64{0.5, -1, 2, 0.3, -0.7, 1.2}
	for _, tc := range []struct {
		d, classes int
		y          []int
	}{{2, 2, []int{1, 0, 1}}, {1, 3, []int{2, 0, 1, 1, 2, 0}}, {2, 3, []int{0, 2, 1}}} {
		for _, l := range []Loss{CrossEntropy, DoubleSoftmax} {
			m := NewLogReg(tc.d, tc.classes, l)
			p := make([]float64, m.NumParams())
			for i := range p {
				p[i] = 0.3*float64(i%5) - 0.55 + 0.1*float64(i)
			}
			n := len(tc.y)
			b := Batch{X: x[:n*tc.d], Y: tc.y, N: n, D: tc.d}
			wl, wg, per := refLogReg(l, p, b.X, tc.y, tc.d, tc.classes)
			g := make([]float64, len(p))
			pinNear(t, l.String()+" loss", m.LossGrad(p, b, g, nil), wl)
			pinVec(t, l.String()+" gradient", g, wg)
			pinNear(t, l.String()+" loss without gradient", m.LossGrad(p, b, nil, nil), wl)
			if tc.classes == 2 {
				g2 := make([]float64, len(p))
				m.Grad(p, b, g2, nil)
				pinVec(t, l.String()+" Grad", g2, wg)
			}
			pe := make([]float64, n*len(p))
			pl := make([]float64, n)
			m.PerExampleGrads(p, b, pe, pl, nil)
			for i := 0; i < n; i++ {
				pinVec(t, l.String()+" per-example gradient", pe[i*len(p):(i+1)*len(p)], per[i])
			}
			losses := make([]float64, n)
			probs := make([]float64, n*tc.classes)
			m.PredictLoss(p, b, probs, losses)
			var sum float64
			for i := 0; i < n; i++ {
				sum += losses[i]
				pinNear(t, "per-example loss", losses[i], pl[i])
				z := make([]float64, tc.classes)
				for c := range z {
					z[c] = p[tc.classes*tc.d+c]
					for j := 0; j < tc.d; j++ {
						z[c] += p[c*tc.d+j] * b.X[i*tc.d+j]
					}
				}
				pinVec(t, "probabilities", probs[i*tc.classes:(i+1)*tc.classes], refSoftmax(z))
			}
			pinNear(t, "mean of per-example losses", sum/float64(n), wl)
		}
	}
}

// refMLP is a 1-hidden-layer ReLU network (weights row-major out × in)
// with inverted dropout: for every example and hidden unit (row-major) one
// draw u; the unit is dropped when u < drop, else scaled by 1/(1 − drop).
func refMLP(l Loss, p, x []float64, y []int, in, hid, classes int, drop float64, r *rand.Rand) (float64, []float64) {
	n := len(y)
	oW1, oB1 := 0, hid*in
	oW2, oB2 := oB1+hid, oB1+hid+classes*hid
	g := make([]float64, len(p))
	scale := 1.0
	if r != nil && drop > 0 {
		scale = 1 / (1 - drop)
	}
	h := make([][]float64, n)
	for i := 0; i < n; i++ {
		h[i] = make([]float64, hid)
		for j := 0; j < hid; j++ {
			z := p[oB1+j]
			for k := 0; k < in; k++ {
				z += p[oW1+j*in+k] * x[i*in+k]
			}
			if r != nil && drop > 0 && r.Float64() < drop {
				h[i][j] = 0
			} else if z > 0 {
				h[i][j] = z * scale
			}
		}
	}
	var loss float64
	for i := 0; i < n; i++ {
		z := make([]float64, classes)
		for c := range z {
			z[c] = p[oB2+c]
			for j := 0; j < hid; j++ {
				z[c] += p[oW2+c*hid+j] * h[i][j]
			}
		}
		li, dz := refHead(l, z, y[i])
		loss += li / float64(n)
		for c := range dz {
			dz[c] /= float64(n)
			g[oB2+c] += dz[c]
			for j := 0; j < hid; j++ {
				g[oW2+c*hid+j] += dz[c] * h[i][j]
			}
		}
		for j := 0; j < hid; j++ {
			if h[i][j] <= 0 {
				continue
			}
			var da float64
			for c := range dz {
				da += p[oW2+c*hid+j] * dz[c]
			}
			da *= scale
			g[oB1+j] += da
			for k := 0; k < in; k++ {
				g[oW1+j*in+k] += da * x[i*in+k]
			}
		}
	}
	return loss, g
}

// TestPinMLPByHand: sizes [1, 2, 2] (10 parameters), W1 = (1, −1),
// b1 = (0, 0), W2 = I, b2 = (0, 0). Example x = 1, y = 0: hidden
// (ReLU(1), ReLU(−1)) = (1, 0), logits (1, 0), loss ln(1 + e^{−1}),
// dz = (σ − 1, 1 − σ) with σ = 1/(1 + e^{−1}) = softmax_0;
// ∇W2 = dz ⊗ h = ((σ−1, 0), (1−σ, 0)); ∇b2 = dz; the only live hidden unit
// is 0, with da = W2[0,0]·dz_0 + W2[1,0]·dz_1 = σ − 1, so ∇W1 = (σ − 1, 0),
// ∇b1 = (σ − 1, 0).
func TestPinMLPByHand(t *testing.T) {
	m := NewMLP([]int{1, 2, 2}, 0, CrossEntropy)
	if m.NumParams() != 10 {
		t.Fatalf("NumParams %d", m.NumParams())
	}
	p := []float64{1, -1, 0, 0, 1, 0, 0, 1, 0, 0}
	g := make([]float64, 10)
	loss := m.LossGrad(p, Batch{X: []float64{1}, Y: []int{0}, N: 1, D: 1}, g, nil)
	s := 1 / (1 + math.Exp(-1))
	pinNear(t, "loss", loss, math.Log1p(math.Exp(-1)))
	pinVec(t, "gradient", g, []float64{s - 1, 0, s - 1, 0, s - 1, 0, 1 - s, 0, s - 1, 1 - s})
}

// TestPinMLPReference: sizes [2, 3, 3] and [3, 2, 2], both losses, with and
// without dropout, batch gradients and per-example gradients against refMLP.
func TestPinMLPReference(t *testing.T) {
	// The last shape is wider and taller than one gemm tile (64 rows ×
	// 192 columns), so the tiled products are checked too.
	x := make([]float64, 70*3)
	for i := range x {
		x[i] = math.Sin(1.3*float64(i)+0.4) * 1.7
	}
	for _, sh := range []struct{ in, hid, classes, n int }{{2, 3, 3, 4}, {3, 2, 2, 3}, {3, 200, 3, 70}} {
		for _, l := range []Loss{CrossEntropy, DoubleSoftmax} {
			for _, drop := range []float64{0, 0.4} {
				m := NewMLP([]int{sh.in, sh.hid, sh.classes}, drop, l)
				p := make([]float64, m.NumParams())
				for i := range p {
					p[i] = 0.37*float64((i*7)%11) - 1.6
				}
				y := make([]int, sh.n)
				for i := range y {
					y[i] = (i*i + 1) % sh.classes
				}
				b := Batch{X: x[:sh.n*sh.in], Y: y, N: sh.n, D: sh.in}
				var r1, r2 *rand.Rand
				if drop > 0 {
					r1, r2 = rng.Stream(6, "drop"), rng.Stream(6, "drop")
				}
				wl, wg := refMLP(l, p, b.X, y, sh.in, sh.hid, sh.classes, drop, r1)
				g := make([]float64, len(p))
				pinNear(t, "MLP loss", m.LossGrad(p, b, g, r2), wl)
				pinVec(t, "MLP gradient", g, wg)
				// Per-example gradients (same mask) average to the batch gradient,
				// and each is the one-example reference with that example's mask.
				pe := make([]float64, sh.n*len(p))
				pl := make([]float64, sh.n)
				var r3 *rand.Rand
				if drop > 0 {
					r3 = rng.Stream(6, "drop")
				}
				m.PerExampleGrads(p, b, pe, pl, r3)
				mean := make([]float64, len(p))
				var lsum float64
				for i := 0; i < sh.n; i++ {
					lsum += pl[i] / float64(sh.n)
					for k := range mean {
						mean[k] += pe[i*len(p)+k] / float64(sh.n)
					}
				}
				pinVec(t, "mean of per-example gradients", mean, wg)
				pinNear(t, "mean of per-example losses", lsum, wl)
				// Evaluation mode (r = nil) has no dropout.
				el, _ := refMLP(l, p, b.X, y, sh.in, sh.hid, sh.classes, drop, nil)
				pinNear(t, "evaluation loss", m.LossGrad(p, b, nil, nil), el)
				losses := make([]float64, sh.n)
				m.PredictLoss(p, b, nil, losses)
				var es float64
				for _, v := range losses {
					es += v / float64(sh.n)
				}
				pinNear(t, "PredictLoss mean", es, el)
			}
		}
	}
}
