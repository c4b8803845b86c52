package accountant

import (
	"errors"
	"testing"
)

// Speed targets (brief H1): ε for 10⁴ Poisson-Gaussian steps (q = 0.01,
// σ = 1.1, δ = 1e-5): RDP ≤ 0.2 ms, PLD ≤ 50 ms, PRV ≤ 100 ms;
// calibration by PLD ≤ 1 s for any target ≥ 0.1. Each benchmark also
// reports process CPU time per op (cpu-ms/op), which a busy shared
// machine distorts far less than wall time. Each iteration empties the
// process-wide fractional-RDP memo (rdp_gaussian.go) so it times cold work.

func BenchmarkRDPEpsilon10000Steps(b *testing.B) {
	e := poissonSteps(0.01, 1.1, 10000)
	start := processCPU()
	for b.Loop() {
		fracMemo.reset() // time the computation, not the memo
		if _, _, err := RDPEpsilon(e, 1e-5); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkCalibrateRDP(b *testing.B) {
	build := func(s float64) Event { return poissonSteps(0.01, s, 10000) }
	start := processCPU()
	for b.Loop() {
		fracMemo.reset() // time the computation, not the memo
		if _, err := Calibrate(build, 2, 1e-5, Config{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkPLD10000Steps(b *testing.B) {
	e := poissonSteps(0.01, 1.1, 10000)
	start := processCPU()
	for b.Loop() {
		fracMemo.reset() // time the computation, not the memo
		if _, err := PLDEpsilon(e, 1e-5); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkPRV10000Steps(b *testing.B) {
	e := poissonSteps(0.01, 1.1, 10000)
	start := processCPU()
	for b.Loop() {
		fracMemo.reset() // time the computation, not the memo
		a := NewPRV(PRVOptions{})
		if err := a.Compose(e); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Epsilon(1e-5); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// Calibration by PLD: the single-step replace-one Poisson-Gaussian cases
// that took 19–29 s before the search started from the RDP guess and the
// substitution loss was inverted in closed form, and the 10⁴-step case.
func BenchmarkCalibratePLDReplaceOneSingleStep(b *testing.B) {
	build := func(s float64) Event { return PoissonSampled{Q: 0.01, Event: Gaussian{Sigma: s}} }
	c := Config{Kind: KindPLD, Neighbouring: ReplaceOne}
	start := processCPU()
	for b.Loop() {
		fracMemo.reset() // time the computation, not the memo
		for _, target := range []float64{0.1, 1, 4} {
			if _, err := Calibrate(build, target, 1e-5, c); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, start)
}

func BenchmarkCalibratePLD10000Steps(b *testing.B) {
	build := func(s float64) Event { return poissonSteps(0.01, s, 10000) }
	start := processCPU()
	for b.Loop() {
		fracMemo.reset() // time the computation, not the memo
		for _, target := range []float64{0.1, 1, 4} {
			if _, err := Calibrate(build, target, 1e-5, Config{Kind: KindPLD}); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, start)
}

// Session-30 sweep corners (targets: each well under the 2 s per
// accountant call; measured 0.20 s, 0.07 s, 0.31 s): the exact discrete
// Gaussian near its σ bound, one Poisson-Laplace RDP ε at a tiny scale,
// and the PLD at a tiny scale and δ below 8·TailMass.
func BenchmarkDiscreteGaussianEpsilonLargeSigma(b *testing.B) {
	start := processCPU()
	for b.Loop() {
		if _, err := DiscreteGaussianEpsilon(99999, 3, 1e-5); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkLaplaceRDPTinyScale(b *testing.B) {
	e := SelfComposed{Event: PoissonSampled{Q: 0.0131, Event: Laplace{Scale: 0.0017286}}, Count: 10669}
	start := processCPU()
	for b.Loop() {
		if _, _, err := RDPEpsilon(e, 4.06e-4); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkPLDLaplaceTinyDelta(b *testing.B) {
	e := PoissonSampled{Q: 0.18, Event: Laplace{Scale: 1e-6}}
	start := processCPU()
	for b.Loop() {
		pldMemo.reset() // time the computation, not the memo
		if _, _, err := PLDEpsilonAdaptive(e, 1.65e-15, PLDOptions{MaxPoints: 1 << 20}); !errors.Is(err, ErrGridCap) {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkTreeSensitivityAtLimit: the tree DP near TreeAggregation's work
// limit (2 participations ≥ 90 leaves apart in 2^20 − 1 leaves, work
// 1.7e8 of 2e8); the session-30 sweep met 18 s at a tenth of the limit
// before the DP's memo became a dense table.
func BenchmarkTreeSensitivityAtLimit(b *testing.B) {
	start := processCPU()
	for b.Loop() {
		treeSensitivitySqDP(1<<20-1, 2, 90)
	}
	reportCPU(b, start)
}
