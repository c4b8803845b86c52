package model

import (
	"math"
	"testing"
)

func TestHeadLossHandComputed(t *testing.T) {
	ln2 := math.Log(2)
	s := 1 / (1 + math.Exp(-1)) // softmax([1,0])_0
	// Double softmax on z = [1, 0], y = 1: s = [s, 1−s], loss = log(e^s + e^{1−s}) − (1−s).
	dsLoss := math.Log(math.Exp(s)+math.Exp(1-s)) - (1 - s)
	q0 := math.Exp(s) / (math.Exp(s) + math.Exp(1-s))
	u := []float64{q0, (1 - q0) - 1}
	dot := s*u[0] + (1-s)*u[1]
	dsGrad := []float64{s * (u[0] - dot), (1 - s) * (u[1] - dot)}
	cases := []struct {
		name  string
		loss  Loss
		z     []float64
		y     int
		want  float64
		wantD []float64
	}{
		{"ce-equal", CrossEntropy, []float64{0, 0}, 0, ln2, []float64{-0.5, 0.5}},
		{"ds-equal", DoubleSoftmax, []float64{0, 0}, 0, ln2, []float64{-0.25, 0.25}},
		{"ce-three", CrossEntropy, []float64{1, 2, 3}, 2, math.Log(math.Exp(-2) + math.Exp(-1) + 1),
			[]float64{math.Exp(1) / (math.E + math.Exp(2) + math.Exp(3)), math.Exp(2) / (math.E + math.Exp(2) + math.Exp(3)), math.Exp(3)/(math.E+math.Exp(2)+math.Exp(3)) - 1}},
		{"ds-two", DoubleSoftmax, []float64{1, 0}, 1, dsLoss, dsGrad},
		// Stability: huge logits neither overflow nor lose the loss.
		{"ce-huge", CrossEntropy, []float64{1000, -1000}, 1, 2000, []float64{1, -1}},
		{"ds-huge", DoubleSoftmax, []float64{1000, -1000}, 1, math.Log(math.E + 1), []float64{0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := make([]float64, len(c.z))
			work := make([]float64, len(c.z))
			got := headLoss(c.loss, c.z, c.y, d, work)
			if !closeTo(got, c.want, 1e-12) {
				t.Errorf("loss = %.15g, want %.15g", got, c.want)
			}
			if ok, msg := closeVec(d, c.wantD, 1e-12, 1e-12); !ok {
				t.Errorf("gradient %v, want %v: %s", d, c.wantD, msg)
			}
			if lo := headLoss(c.loss, c.z, c.y, nil, work); !closeTo(lo, got, 1e-14) {
				t.Errorf("loss without gradient %.15g, with %.15g", lo, got)
			}
		})
	}
}

func TestLossString(t *testing.T) {
	for _, c := range []struct {
		l    Loss
		want string
	}{{CrossEntropy, "cross-entropy"}, {DoubleSoftmax, "double-softmax"}, {Loss(9), "unknown-loss"}} {
		if got := c.l.String(); got != c.want {
			t.Errorf("%d: %q, want %q", c.l, got, c.want)
		}
	}
}
