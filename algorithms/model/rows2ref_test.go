package model

import (
	"fmt"
	"math"
	"testing"
)

// refRows2 is the two-class GradRows/Grad kernel as it stood before the
// fused rewrite (scores2, then dsGrads or head2, then Σ g_i x_i four rows
// at a time), frozen here so that the optimised kernel can be checked
// against it; every golden of Upcycled-FL depends on these bits. With
// fused true it is the fused definition of issue 24 instead (fma2.go,
// written out in fmaDefScore and fmaDefAcc): the same head, the scores and
// Σ g_i x_i by fused multiply-adds in their fixed order; the kernels must
// match that bit for bit, and the old one within rounding (see
// TestLogRegTwoClassMatchesFrozenReference).
func refRows2(l Loss, d int, w, bias, X []float64, Y []int, rows []int, n int, gw, gb []float64, wantLoss, fused bool) float64 {
	if n == 0 {
		return 0
	}
	wd := make([]float64, d)
	for j := range wd {
		wd[j] = w[d+j] - w[j]
	}
	bd := bias[1] - bias[0]
	row := func(i int) []float64 {
		k := i
		if rows != nil {
			k = rows[i]
		}
		return X[k*d : k*d+d]
	}
	sc := make([]float64, n)
	i := 0
	if fused {
		for ; i < n; i++ {
			sc[i] = fmaDefScore(wd, row(i), bd)
		}
	}
	for ; i+4 <= n; i += 4 {
		x0, x1, x2, x3 := row(i), row(i+1), row(i+2), row(i+3)
		var a0, a1, a2, a3 float64
		for j, v := range wd {
			a0 += v * x0[j]
			a1 += v * x1[j]
			a2 += v * x2[j]
			a3 += v * x3[j]
		}
		sc[i], sc[i+1], sc[i+2], sc[i+3] = a0+bd, a1+bd, a2+bd, a3+bd
	}
	for ; i < n; i++ {
		x := row(i)
		var a float64
		for j, v := range wd {
			a += v * x[j]
		}
		sc[i] = a + bd
	}
	var total, gsum float64
	for i, di := range sc {
		k := i
		if rows != nil {
			k = rows[i]
		}
		var g, lo float64
		if l == DoubleSoftmax && !wantLoss {
			a := -math.Abs(di)
			e := math.Exp(a)
			if a >= expUnderBelow {
				e = expCore(a)
			}
			inv := 1 / (1 + e)
			sPos, sNeg := inv, e*inv
			et := expCore(-math.Copysign(sPos-sNeg, di))
			q1 := 1 / (1 + et)
			g = 2 * sPos * sNeg * (q1 - float64(Y[k]))
		} else {
			g, lo, _, _ = head2(l, di, Y[k], wantLoss)
		}
		sc[i] = g
		gsum += g
		total += lo
	}
	g1 := gw[d : 2*d]
	i = 0
	if fused {
		xs := make([][]float64, n)
		for i := range xs {
			xs[i] = row(i)
		}
		fmaDefAcc(sc, xs, g1)
		i = n
	}
	for ; i+4 <= n; i += 4 {
		x0, x1, x2, x3 := row(i), row(i+1), row(i+2), row(i+3)
		c0, c1, c2, c3 := sc[i], sc[i+1], sc[i+2], sc[i+3]
		for j := range g1 {
			g1[j] += c0*x0[j] + c1*x1[j] + c2*x2[j] + c3*x3[j]
		}
	}
	for ; i < n; i++ {
		x, c := row(i), sc[i]
		for j := range g1 {
			g1[j] += c * x[j]
		}
	}
	inv := 1 / float64(n)
	g0 := gw[:d]
	for j, v := range g1 {
		v *= inv
		g1[j], g0[j] = v, -v
	}
	gb[1] = gsum * inv
	gb[0] = -gb[1]
	return total * inv
}

// The two-class kernels (GradRows, Grad, LossGrad) must equal the frozen
// fused reference bit for bit, on scores spanning the whole range of the
// head (tiny, moderate, beyond the exp's fast range, exactly 0), every
// remainder of n mod 4, with and without a row list; and the frozen
// pre-fusion reference within rounding (oldDefCheck).
func TestLogRegTwoClassMatchesFrozenReference(t *testing.T) {
	r := stream(11, "rows2-ref")
	var worst float64
	for _, loss := range []Loss{CrossEntropy, DoubleSoftmax} {
		for _, d := range []int{1, 3, 4, 8, 20, 60, 61} {
			for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 64, 67} {
				for _, scale := range []float64{0, 1e-3, 1, 30, 1e3} {
					name := fmt.Sprintf("%v/d%d/n%d/s%g", loss, d, n, scale)
					m := NewLogReg(d, 2, loss)
					p := make([]float64, m.NumParams())
					for i := range p {
						p[i] = scale * r.NormFloat64()
					}
					all := randomBatch(r, 80, d, 2)
					rows := r.Perm(80)[:n]
					w, bias := m.split(p)
					check := func(what string, got, want []float64) {
						t.Helper()
						for i := range want {
							if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
								t.Fatalf("%s %s: coordinate %d: got %v, frozen reference %v", name, what, i, got[i], want[i])
							}
						}
					}
					want := make([]float64, len(p))
					got := make([]float64, len(p))
					ww, wb := m.split(want)
					old := func(X []float64, Y []int, rows []int, wantLoss bool) {
						t.Helper()
						o := make([]float64, len(p))
						ow, ob := m.split(o)
						refRows2(loss, d, w, bias, X, Y, rows, n, ow, ob, wantLoss, false)
						worst = math.Max(worst, oldDefCheck(t, name, got, o, scoreScale(d, w, bias, X, rows, n)))
					}
					refRows2(loss, d, w, bias, all.X, all.Y, rows, n, ww, wb, false, true)
					m.GradRows(p, all.X, all.Y, d, rows, got, nil)
					check("GradRows", got, want)
					old(all.X, all.Y, rows, false)

					b := Batch{X: all.X[:n*d], Y: all.Y[:n], N: n, D: d}
					clear(want)
					wantLoss := refRows2(loss, d, w, bias, b.X, b.Y, nil, n, ww, wb, true, true)
					gotLoss := m.LossGrad(p, b, got, nil)
					check("LossGrad", got, want)
					if math.Float64bits(gotLoss) != math.Float64bits(wantLoss) {
						t.Fatalf("%s LossGrad: loss %v, frozen reference %v", name, gotLoss, wantLoss)
					}
					old(b.X, b.Y, nil, true)
					clear(want)
					refRows2(loss, d, w, bias, b.X, b.Y, nil, n, ww, wb, false, true)
					m.Grad(p, b, got, nil)
					check("Grad", got, want)
					old(b.X, b.Y, nil, false)
				}
			}
		}
	}
	t.Logf("largest move from the pre-fusion definition: %.3g (relative to the gradient's largest entry)", worst)
}

// oldDefCheck bounds the move of a gradient from the pre-fusion definition
// to the fused one and returns it: max_j |got_j − old_j| / max_j |old_j|
// ≤ 1e-12·max(1, S/1000), where S = max_i Σ_j |wd_j x_ij| + |bd| is the
// scale of the score sums. Both definitions compute the same sums with
// other roundings (fused products, another association): each score
// moves by a few ulps of S and each Σ_i g_i x_ij by a few ulps of
// Σ_i |g_i x_ij|. Through a head in its linear range that is ~1e-15 of the
// gradient (measured ≤ 7e-15 at unit weights); a saturated head
// (|score| ≫ 1) has g ∝ e^{−|score|}, so a score's absolute move becomes a
// relative move of g: ~ε·S (measured 1.7e-13 at weights of scale 30,
// S ~ 1e3, and 4.7e-12 at scale 1e3, S ~ 3e4). Hence 1e-12 flat up to
// S = 1000 (≥ 6× margin), proportional to S beyond.
func oldDefCheck(t *testing.T, name string, got, old []float64, S float64) float64 {
	t.Helper()
	tol := 1e-12 * math.Max(1, S/1000)
	var big, move float64
	for j := range old {
		big = math.Max(big, math.Abs(old[j]))
		move = math.Max(move, math.Abs(got[j]-old[j]))
	}
	if big == 0 {
		if move != 0 {
			t.Fatalf("%s: the pre-fusion gradient is 0, the fused one moves by %g", name, move)
		}
		return 0
	}
	if rel := move / big; rel > tol {
		t.Fatalf("%s: the gradient moves by %.3g of its largest entry from the pre-fusion definition (bound %.3g, S = %.3g)", name, rel, tol, S)
	}
	return move / big
}

// scoreScale is S of oldDefCheck: max_i Σ_j |(w_1 − w_0)_j x_ij| + |b_1 − b_0|.
func scoreScale(d int, w, bias, X []float64, rows []int, n int) float64 {
	var S float64
	for i := 0; i < n; i++ {
		k := i
		if rows != nil {
			k = rows[i]
		}
		s := math.Abs(bias[1] - bias[0])
		for j := 0; j < d; j++ {
			s += math.Abs((w[d+j] - w[j]) * X[k*d+j])
		}
		S = math.Max(S, s)
	}
	return S
}

// BenchmarkLogRegGradRows times the local step of Upcycled-FL's synthetic
// tasks: two classes, 32 shuffled rows of a 446-row client (the largest
// Syn(iid) client), read in place; 20 features (the generated tasks) and
// 60 (the released data of the headline).
func BenchmarkLogRegGradRows(b *testing.B) {
	for _, d := range []int{20, 60} {
		for _, loss := range []Loss{DoubleSoftmax, CrossEntropy} {
			b.Run(fmt.Sprintf("d%d-c2-n32-%v", d, loss), func(b *testing.B) {
				m := NewLogReg(d, 2, loss)
				r := stream(1, "bench-rows")
				p := make([]float64, m.NumParams())
				for i := range p {
					p[i] = 0.3 * r.NormFloat64()
				}
				all := randomBatch(r, 446, d, 2)
				perm := r.Perm(446)
				g := make([]float64, len(p))
				b.ReportAllocs()
				i := 0
				c0 := processCPU()
				for b.Loop() {
					if i+32 > len(perm) {
						i = 0
					}
					m.GradRows(p, all.X, all.Y, d, perm[i:i+32], g, nil)
					i += 32
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32), "ns/example")
				reportCPU(b, c0, 32)
			})
		}
	}
}

// The AVX2 head kernel must write dsGrads's gradients bit for bit, and
// stop exactly at the first group of four holding a score whose −|d| is
// beyond expCore's range (or NaN), leaving that group as it was.
// Skipped where the kernel is not built or the CPU lacks AVX2.
func TestDSHeadsAVX2MatchesDSGrads(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel in this build or on this CPU")
	}
	r := stream(12, "ds4")
	for _, scale := range []float64{0, 1e-300, 1e-3, 1, 10, 100, 700, 800} {
		for _, n := range []int{4, 8, 32, 64} {
			sc := make([]float64, n)
			Y := make([]int, n)
			yf := make([]float64, n)
			for i := range sc {
				sc[i] = scale * r.NormFloat64()
				Y[i] = r.IntN(2)
				yf[i] = float64(Y[i])
			}
			want := append([]float64(nil), sc...)
			dsGrads(want, Y, nil)
			stop := n
			for i, d := range sc {
				if !(-math.Abs(d) >= expUnderBelow) {
					stop = i &^ 3
					break
				}
			}
			got := append([]float64(nil), sc...)
			done := dsHeadsAVX2(&got[0], &yf[0], n)
			if done != stop {
				t.Fatalf("scale %g n %d: kernel stopped at %d, want %d", scale, n, done, stop)
			}
			for i := range got {
				w := want[i]
				if i >= done {
					w = sc[i]
				}
				if math.Float64bits(got[i]) != math.Float64bits(w) {
					t.Fatalf("scale %g n %d: entry %d (d = %v): kernel %v, want %v", scale, n, i, sc[i], got[i], w)
				}
			}
		}
	}
	sc := []float64{1, 2, 3, 4, 5, math.NaN(), 7, 8}
	if done := dsHeadsAVX2(&sc[0], &make([]float64, 8)[0], 8); done != 4 || sc[4] != 5 {
		t.Fatalf("NaN in the second group: kernel wrote %d entries (sc = %v)", done, sc)
	}
}

// Both paths of rows2 (AVX2 kernels and Go) against the frozen reference.
func TestLogRegTwoClassGoPathMatchesFrozenReference(t *testing.T) {
	if !useAVX2 {
		t.Skip("the AVX2 path is off already: TestLogRegTwoClassMatchesFrozenReference covers the Go path")
	}
	setAVX2(false)
	defer setAVX2(true)
	TestLogRegTwoClassMatchesFrozenReference(t)
}

// The AVX2 cross-entropy head must write head2's gradient bit for bit (both
// signs of d including ±0, both labels, scores from subnormal to beyond
// exp's fast range), and stop exactly at the first group of four holding a
// score whose −|d| is beyond expCore's range (or NaN), leaving it as it was.
func TestCEHeadsAVX2MatchesHead2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel in this build or on this CPU")
	}
	r := stream(13, "ce4")
	for _, scale := range []float64{0, 1e-300, 1e-3, 1, 10, 100, 700, 800} {
		for _, n := range []int{4, 8, 32, 64} {
			sc := make([]float64, n)
			Y := make([]int, n)
			yf := make([]float64, n)
			for i := range sc {
				sc[i] = scale * r.NormFloat64()
				if i%7 == 3 {
					sc[i] = math.Copysign(0, sc[i]) // −0 and +0
				}
				Y[i] = r.IntN(2)
				yf[i] = float64(Y[i])
			}
			stop := n
			for i, d := range sc {
				if !(-math.Abs(d) >= expUnderBelow) {
					stop = i &^ 3
					break
				}
			}
			got := append([]float64(nil), sc...)
			done := ceHeadsAVX2(&got[0], &yf[0], n)
			if done != stop {
				t.Fatalf("scale %g n %d: kernel stopped at %d, want %d", scale, n, done, stop)
			}
			for i := range got {
				w := sc[i]
				if i < done {
					w, _, _, _ = head2(CrossEntropy, sc[i], Y[i], false)
				}
				if math.Float64bits(got[i]) != math.Float64bits(w) {
					t.Fatalf("scale %g n %d: entry %d (d = %v, y = %d): kernel %v, want %v", scale, n, i, sc[i], Y[i], got[i], w)
				}
			}
		}
	}
	sc := []float64{1, 2, 3, 4, 5, math.NaN(), 7, 8}
	if done := ceHeadsAVX2(&sc[0], &make([]float64, 8)[0], 8); done != 4 || sc[4] != 5 {
		t.Fatalf("NaN in the second group: kernel wrote %d entries (sc = %v)", done, sc)
	}
	sc = []float64{1, -2, math.Inf(1), 4}
	if done := ceHeadsAVX2(&sc[0], &make([]float64, 4)[0], 4); done != 0 || sc[2] != math.Inf(1) {
		t.Fatalf("+Inf in the first group: kernel wrote %d entries (sc = %v)", done, sc)
	}
}
