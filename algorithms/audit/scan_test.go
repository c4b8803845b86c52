package audit

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// TestThresholdScanIsEpsilonLB: over random sizes, confidences, δ and
// scan orders (counts revisited), ThresholdScan.At equals EpsilonLB's ε
// bit for bit, and its constructor refuses what EpsilonLB refuses.
func TestThresholdScanIsEpsilonLB(t *testing.T) {
	r := rng.Stream(1, "audit", "threshold-scan")
	for range 60 {
		nPos, nNeg := 1+r.IntN(300), 1+r.IntN(300)
		conf := []float64{0.5, 0.9, 0.95, 0.99}[r.IntN(4)]
		delta := []float64{0, 1e-5, 0.1}[r.IntN(3)]
		s, err := NewThresholdScan(nPos, nNeg, delta, conf)
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			tp, fp := r.IntN(nPos+1), r.IntN(nNeg+1)
			want, err := EpsilonLB(Counts{TP: tp, FN: nPos - tp, FP: fp, TN: nNeg - fp}, delta, conf)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.At(tp, fp); math.Float64bits(got) != math.Float64bits(want.Epsilon) {
				t.Fatalf("n=(%d,%d) conf %g δ %g counts (%d,%d): scan %v, EpsilonLB %v", nPos, nNeg, conf, delta, tp, fp, got, want.Epsilon)
			}
		}
	}
	for _, bad := range []struct {
		nPos, nNeg  int
		delta, conf float64
	}{{0, 5, 0, 0.95}, {5, 0, 0, 0.95}, {5, 5, 1, 0.95}, {5, 5, 0, 1}, {5, 5, -0.1, 0.95}} {
		if _, err := NewThresholdScan(bad.nPos, bad.nNeg, bad.delta, bad.conf); err == nil {
			t.Errorf("NewThresholdScan%v accepted", bad)
		}
	}
}
