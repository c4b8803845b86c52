package accountant

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestRDPHugeSigma: at σ = 1e6 the fractional-order series cannot resolve
// A_α − 1 ≈ 1e-16 (it used to come out negative and abort the account
// command). The RDP must be ≥ 0, equal the leading term
// α·q²·(e^{1/σ²} − 1)/2 to 1e-6, and at fractional orders lie between the
// exact integer-order values (RDP is non-decreasing in α).
func TestRDPHugeSigma(t *testing.T) {
	for _, sigma := range []float64{1e3, 1e6, 1e9} {
		for _, q := range []float64{1e-3, 0.01, 0.5} {
			orders := []float64{1.1, 1.5, 2, 2.5, 3, 7.7, 8}
			v := make([]float64, len(orders))
			for i, a := range orders {
				v[i], _ = PoissonGaussianRDP(q, sigma, a)
				lead := a * q * q * math.Expm1(1/(sigma*sigma)) / 2
				if !(v[i] > 0) || !near(v[i], lead, 0, 1e-5) {
					t.Errorf("σ=%g q=%v α=%v: %.10g, leading term %.10g", sigma, q, a, v[i], lead)
				}
			}
			if !(v[3] >= v[2] && v[3] <= v[4]) || !(v[5] <= v[6]) {
				t.Errorf("σ=%g q=%v: not monotone in α: %v", sigma, q, v)
			}
		}
	}
}

// TestRDPOverflow: σ so small that 1/(2σ²) overflows gives +Inf with a
// reason, never NaN.
func TestRDPOverflow(t *testing.T) {
	for _, e := range []Event{poissonSteps(0.01, 1e-300, 100), Gaussian{Sigma: 1e-300}, poissonSteps(0.5, 1e-160, 1)} {
		eps, _, err := RDPEpsilon(e, 1e-5)
		if !math.IsInf(eps, 1) || !errors.Is(err, ErrInfinite) {
			t.Errorf("%v: ε = %v (%v), want +Inf", e, eps, err)
		}
	}
	_, _, err := RDPEpsilon(poissonSteps(0.01, 1e-300, 100), 1e-5)
	if err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("reason: %v", err)
	}
}

// TestConversionRoundoff: round-off below zero is read as 0; NaN and
// clearly negative values are errors.
func TestConversionRoundoff(t *testing.T) {
	o := []float64{1.5, 2, 3}
	eps, _, err := EpsilonFromRDP(o, []float64{-3.12e-15, 1e-9, 2e-9}, 1e-5, Classic)
	if err != nil || eps < 0 {
		t.Errorf("round-off: %v %v", eps, err)
	}
	if _, _, err := DeltaFromRDP(o, []float64{-1e-12, 0, 0}, 0.1, Improved); err != nil {
		t.Errorf("round-off in DeltaFromRDP: %v", err)
	}
	for _, bad := range [][]float64{{-1e-3, 0, 0}, {math.NaN(), 0, 0}} {
		if _, _, err := EpsilonFromRDP(o, bad, 1e-5, Improved); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestCalibrateSmallTargets: targets down to 1e-3 calibrate (the brief's
// `--q 0.01 --steps 100 --target-eps 0.1` used to abort on round-off).
// The classic conversion has a floor log(1/δ)/(α_max − 1) = 0.186 at
// α_max = 63 and reports that as unreachable.
func TestCalibrateSmallTargets(t *testing.T) {
	build := func(s float64) Event { return poissonSteps(0.01, s, 100) }
	for _, target := range []float64{0.1, 0.01, 1e-3} {
		if msg := checkCalibrated(build, target, 1e-5, Config{}); msg != "" {
			t.Errorf("target %v: %s", target, msg)
		}
	}
	if _, err := Calibrate(build, 0.1, 1e-5, Config{Conversion: Classic}); !errors.Is(err, ErrUnreachable) {
		t.Errorf("classic floor: %v", err)
	}
	if msg := checkCalibrated(build, 0.1, 1e-5, Config{Kind: KindPLD}); msg != "" {
		t.Errorf("PLD target 0.1: %s", msg)
	}
}

// TestPLDGridLimits: 2^48 compositions and σ = 1e-300 end in ErrGridCap
// (not a panic), while a Poisson-sampled σ = 1e-300 mechanism still gets
// its finite ε when δ exceeds the probability of ever sampling the record.
func TestPLDGridLimits(t *testing.T) {
	if _, err := PLDEpsilon(poissonSteps(0.01, 1.1, 1<<48), 1e-5); !errors.Is(err, ErrGridCap) || !strings.Contains(err.Error(), "points at interval") {
		t.Errorf("2^48 steps: %v", err)
	}
	if _, err := PLDEpsilon(Gaussian{Sigma: 1e-300}, 1e-5); !errors.Is(err, ErrGridCap) {
		t.Errorf("σ = 1e-300: %v", err)
	}
	// One step, q = 0.01: the loss is log(1 − q) unless the record is
	// sampled (probability q); at δ ≥ q the noiseless answer is exact:
	// ε = 0 since δ(0) = q·1 + (1−q)·0 = q.
	eps, err := PLDEpsilon(PoissonSampled{Q: 0.01, Event: Gaussian{Sigma: 1e-300}}, 0.02)
	if err != nil || eps > 1e-3 {
		t.Errorf("σ = 1e-300, δ = 0.02: %v %v", eps, err)
	}
	if _, err := PLDEpsilon(PoissonSampled{Q: 0.01, Event: Gaussian{Sigma: 1e-300}}, 0.005); !errors.Is(err, ErrGridCap) {
		t.Errorf("σ = 1e-300, δ < q: %v", err)
	}
	// Overflowing composition counts are rejected, not wrapped.
	if _, err := flatten(SelfComposed{Event: SelfComposed{Event: Gaussian{Sigma: 1}, Count: 1 << 40}, Count: 1 << 40}); err == nil {
		t.Error("2^80 compositions accepted")
	}
}
