package accountant

import "testing"

// Performance targets (issue 3): ε for 10,000 steps over the default
// orders < 1 ms; calibration < 50 ms; PLD for 10,000 compositions < 1 s.

func BenchmarkRDPEpsilon10000Steps(b *testing.B) {
	e := poissonSteps(0.01, 1.1, 10000)
	for b.Loop() {
		if _, _, err := RDPEpsilon(e, 1e-5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCalibrateRDP(b *testing.B) {
	build := func(s float64) Event { return poissonSteps(0.01, s, 10000) }
	for b.Loop() {
		if _, err := Calibrate(build, 2, 1e-5, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPLD10000Steps(b *testing.B) {
	e := poissonSteps(0.01, 1.1, 10000)
	for b.Loop() {
		if _, err := PLDEpsilon(e, 1e-5); err != nil {
			b.Fatal(err)
		}
	}
}
