package accountant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLogIntegralSkip compares logIntegralSkip (ends first, skip the
// negligible panels, merge the flat runs) with the plain panel-by-panel
// rule on the subsampled Laplace's integrands, over random sampling rates,
// scales and orders of both directions: they must agree to 1e-13
// relative in the integral, i.e. 1e-13 absolute in its log, plus the few
// ulps of the log itself (at log ≈ 3·10⁴ an ulp is 4e-12).
func TestLogIntegralSkip(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	worst := 0.0
	for i := 0; i < 400; i++ {
		q := math.Exp(r.Float64() * math.Log(1e-7))         // (1e-7, 1]
		b := math.Exp(math.Log(1e-3) + r.Float64()*9.2)     // (1e-3, 10)
		alpha := 1 + math.Exp(math.Log(0.05)+r.Float64()*7) // (1.05, ~56)
		for _, beta := range []float64{alpha, 1 - alpha} {
			mid := laplaceMidLog(q, b, beta)
			panels := int(math.Min(laplaceMaxPanels, laplaceQuadPanels(beta, b)))
			got := logIntegralSkip(mid, 0, 1, panels, (2*math.Abs(beta)+1)/(b*float64(panels)))
			want := logIntegral(mid, 0, 1, panels)
			if math.IsInf(want, -1) && math.IsInf(got, -1) {
				continue
			}
			d := math.Abs(got - want)
			ulp := math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want)
			worst = math.Max(worst, d/(1e-13+8*ulp))
			if !(d <= 1e-13+8*ulp) {
				t.Errorf("q=%.3g b=%.3g β=%.4g (%d panels): skip %.17g, full %.17g", q, b, beta, panels, got, want)
			}
		}
	}
	t.Logf("largest |Δ log integral| / tolerance = %.3g", worst)
}
