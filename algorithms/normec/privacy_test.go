package normec

import (
	"errors"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

func TestEpsilonVisibleParticipationFullParticipation(t *testing.T) {
	// p = 1: every round is a participation, so the curve is the K-fold
	// Gaussian, i.e. one Gaussian with multiplier σ/√K.
	for _, tc := range []struct {
		sigma float64
		nb    accountant.Neighbouring
		scale float64
	}{{2, accountant.AddRemove, 1}, {5, accountant.AddRemove, 1}, {5, accountant.ReplaceOne, 0.5}} {
		got, err := EpsilonVisibleParticipation(tc.sigma, 1, 50, 1e-5, tc.nb)
		if err != nil {
			t.Fatal(err)
		}
		want, err := accountant.GaussianEpsilon(tc.sigma*tc.scale/math.Sqrt(50), 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(got-want) <= 1e-9*want) {
			t.Errorf("σ=%v %v: visible ε = %v, Gaussian composition %v", tc.sigma, tc.nb, got, want)
		}
	}
}

func TestPrivacyMonotone(t *testing.T) {
	prevAmp, prevVis := math.Inf(1), math.Inf(1)
	for _, s := range []float64{0.5, 1, 2, 4} {
		amp, err := Epsilon(s, 0.25, 100, 1e-5, accountant.AddRemove, accountant.KindRDP)
		if err != nil {
			t.Fatal(err)
		}
		vis, err := EpsilonVisibleParticipation(s, 0.25, 100, 1e-5, accountant.AddRemove)
		if err != nil {
			t.Fatal(err)
		}
		if !(amp < prevAmp && vis < prevVis) {
			t.Errorf("ε not decreasing in σ at σ = %v: amplified %v (prev %v), visible %v (prev %v)", s, amp, prevAmp, vis, prevVis)
		}
		prevAmp, prevVis = amp, vis
	}
	a1, _ := Epsilon(2, 0.1, 100, 1e-5, accountant.AddRemove, accountant.KindRDP)
	a2, _ := Epsilon(2, 0.5, 100, 1e-5, accountant.AddRemove, accountant.KindRDP)
	if !(a1 < a2) {
		t.Errorf("ε not increasing in p: %v at 0.1, %v at 0.5", a1, a2)
	}
	if _, err := Epsilon(2, 0.5, 100, 1e-5, accountant.ReplaceOne, accountant.KindRDP); !errors.Is(err, ErrNoBound) {
		t.Errorf("RDP replace-one Poisson: err = %v, want ErrNoBound", err)
	}
}

func TestCalibrationMeetsTarget(t *testing.T) {
	for _, p := range []float64{0.25, 1} {
		s, err := CalibratedSigma(p, 300, 8, 1e-5, accountant.AddRemove, accountant.KindRDP)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Epsilon(s, p, 300, 1e-5, accountant.AddRemove, accountant.KindRDP)
		if err != nil || e > 8 || e < 7.99 {
			t.Errorf("p = %v: calibrated σ = %v gives ε = %v (%v), want ≤ 8 and tight", p, s, e, err)
		}
		sv, err := CalibratedSigmaVisibleParticipation(p, 300, 8, 1e-5, accountant.AddRemove)
		if err != nil {
			t.Fatal(err)
		}
		ev, _ := EpsilonVisibleParticipation(sv, p, 300, 1e-5, accountant.AddRemove)
		if ev > 8 || ev < 7.99 {
			t.Errorf("p = %v: visible-participation σ = %v gives ε = %v", p, sv, ev)
		}
	}
	if _, err := CalibratedSigma(0, 300, 8, 1e-5, accountant.AddRemove, accountant.KindRDP); err == nil {
		t.Error("p = 0 accepted")
	}
}
