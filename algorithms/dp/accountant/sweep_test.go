package accountant

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// The sweep: a seeded random sweep over the documented domain that calls
// every accountant on every point, records panics, NaN, negative values and
// values below the exact curve, and reports (never asserts) each
// accountant's wall time. A panic, a NaN, a negative ε or an ε below the
// exact one fails the test; slowness does not (speed targets live in
// benchmarks).
//
// By default it runs sweepDefault points (part of the ordinary test run);
// FEDREPRO_SWEEP=N runs N points and FEDREPRO_SWEEP_SEED=S picks another
// seed, e.g.
//
//	FEDREPRO_SWEEP=2000 go test ./algorithms/dp/accountant/ -run TestSweep -v
//
// FEDREPRO_SWEEP_WORK sets Config.WorkPoints (default DefaultWorkPoints,
// as `fedrepro account` uses; 0 = the accountants' own caps).
// FEDREPRO_SWEEP_DOMAIN=issue restricts the points to the domain of issue
// 20's sweep (Poisson Gaussian, q ∈ (1e-5, 1], σ ∈ (1e-3, 1e2),
// T ∈ [1, 1e6), δ ∈ (1e-12, 1e-2)).
const sweepDefault = 8

// sweepPoint is one input of the sweep.
type sweepPoint struct {
	mech          string // gaussian | laplace | discrete-gaussian | tree | wor-gaussian
	q, sigma, del float64
	steps         int
	nb            Neighbouring
}

func (p sweepPoint) String() string {
	return fmt.Sprintf("%s q=%.6g σ=%.6g T=%d δ=%.3g %v", p.mech, p.q, p.sigma, p.steps, p.del, p.nb)
}

// event builds the point's event as `fedrepro account` does.
func (p sweepPoint) event() Event {
	var inner Event
	switch p.mech {
	case "laplace":
		inner = Laplace{Scale: p.sigma}
	case "discrete-gaussian":
		inner = DiscreteGaussian{Sigma: p.sigma, Sensitivity: 1}
	case "tree":
		return TreeAggregation{Sigma: p.sigma, Trees: []int{p.steps}, Participations: 1}
	case "wor-gaussian":
		n := 1000
		m := max(1, int(math.Round(p.q*float64(n))))
		return SelfComposed{Event: SampledWithoutReplacement{SampleSize: m, PopulationSize: n, Event: Gaussian{Sigma: p.sigma}}, Count: p.steps}
	default:
		inner = Gaussian{Sigma: p.sigma}
	}
	if p.q == 1 {
		return SelfComposed{Event: inner, Count: p.steps}
	}
	return SelfComposed{Event: PoissonSampled{Q: p.q, Event: inner}, Count: p.steps}
}

// logUniform draws from [lo, hi] uniformly in log.
func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

// sweepPoints draws n points from stream (seed, "accountant-sweep").
func sweepPoints(seed uint64, n int, issueDomain bool) []sweepPoint {
	r := rng.Stream(seed, "accountant-sweep")
	out := make([]sweepPoint, n)
	for i := range out {
		if issueDomain {
			out[i] = sweepPoint{mech: "gaussian", q: logUniform(r, 1e-5, 1), sigma: logUniform(r, 1e-3, 1e2),
				steps: int(logUniform(r, 1, 1e6-1)), del: logUniform(r, 1e-12, 1e-2)}
			continue
		}
		p := sweepPoint{q: logUniform(r, 1e-6, 1), sigma: logUniform(r, 1e-4, 1e6),
			steps: int(math.Min(1e12, logUniform(r, 1, 1e12))), del: logUniform(r, 1e-15, 0.5)}
		switch r.IntN(10) {
		case 0:
			p.q = 1
		case 1:
			p.q = 0
		case 2:
			p.sigma = 0
		case 3:
			p.steps = 1
		}
		switch r.IntN(10) {
		case 0, 1:
			p.mech = "laplace"
		case 2:
			p.mech = "discrete-gaussian"
		case 3:
			p.mech, p.q = "tree", 1
			p.steps = int(math.Min(float64(p.steps), 1<<20))
		case 4:
			p.mech = "wor-gaussian"
		default:
			p.mech = "gaussian"
		}
		if r.IntN(4) == 0 || p.mech == "wor-gaussian" {
			p.nb = ReplaceOne
		}
		out[i] = p
	}
	return out
}

// sweepResult is one accountant's answer at one point.
type sweepResult struct {
	value float64
	err   error
	panic any
	dur   time.Duration // wall time
	cpu   time.Duration // process CPU time (user + system) during the call
}

// sweepCall runs f, turning a panic into a result.
func sweepCall(f func() (float64, error)) (r sweepResult) {
	start, c0 := time.Now(), processCPU()
	defer func() {
		r.dur, r.cpu = time.Since(start), processCPU()-c0
		if p := recover(); p != nil {
			r.panic = p
		}
	}()
	r.value, r.err = f()
	return r
}

// errClass names the sentinel an error wraps.
func errClass(err error) string {
	for _, c := range []struct {
		name string
		err  error
	}{{"infinite", ErrInfinite}, {"unsupported", ErrUnsupported}, {"gridcap", ErrGridCap}, {"precision", ErrPrecision}} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "other"
}

func envInt(name string, def int) int {
	if s := os.Getenv(name); s != "" {
		if v, err := strconv.Atoi(s); err == nil {
			return v
		}
	}
	return def
}

// TestSweep is the seeded sweep described above.
func TestSweep(t *testing.T) {
	n := envInt("FEDREPRO_SWEEP", sweepDefault)
	seed := uint64(envInt("FEDREPRO_SWEEP_SEED", 20))
	issue := os.Getenv("FEDREPRO_SWEEP_DOMAIN") == "issue"
	work := envInt("FEDREPRO_SWEEP_WORK", DefaultWorkPoints)
	pts := sweepPoints(seed, n, issue)
	type stat struct {
		calls, panics, errs, inf int
		max, maxCPU              time.Duration
		maxAt                    string
		over2s                   int
		total                    time.Duration
		errKinds                 map[string]int
	}
	stats := map[Kind]*stat{}
	for _, k := range Kinds {
		stats[k] = &stat{errKinds: map[string]int{}}
	}
	for i, p := range pts {
		e := p.event()
		exact := math.NaN()
		for _, k := range Kinds {
			c := Config{Kind: k, Neighbouring: p.nb, WorkPoints: work}
			r := sweepCall(func() (float64, error) {
				est, err := c.Account(e, p.del)
				return est.Value, err
			})
			s := stats[k]
			s.calls++
			s.total += r.dur
			if r.dur > s.max {
				s.max, s.maxAt = r.dur, p.String()
			}
			s.maxCPU = max(s.maxCPU, r.cpu)
			if r.dur > 2*time.Second {
				s.over2s++
			}
			switch {
			case r.panic != nil:
				s.panics++
				t.Errorf("point %d %v: %v panicked: %v", i, p, k, r.panic)
				continue
			case r.err != nil:
				s.errs++
				s.errKinds[errClass(r.err)]++
			}
			if math.IsInf(r.value, 1) {
				s.inf++
			}
			if r.err == nil && (math.IsNaN(r.value) || r.value < 0) {
				t.Errorf("point %d %v: %v gave ε = %v", i, p, k, r.value)
			}
			if k == KindExact && r.err == nil {
				exact = r.value
			}
		}
		_ = exact
		if testing.Verbose() && (i+1)%100 == 0 {
			t.Logf("%d points done", i+1)
		}
	}
	var lines []string
	for _, k := range Kinds {
		s := stats[k]
		lines = append(lines, fmt.Sprintf("%-5v calls %d panics %d errors %d %v ∞ %d wall>2s %d mean %v max wall %v (at %s) max cpu %v",
			k, s.calls, s.panics, s.errs, s.errKinds, s.inf, s.over2s, (s.total/time.Duration(max(1, s.calls))).Round(time.Microsecond), s.max.Round(time.Millisecond), s.maxAt, s.maxCPU.Round(time.Millisecond)))
	}
	sort.Strings(lines)
	t.Logf("sweep seed %d, %d points (issue domain %v, work cap %d points):\n%s", seed, n, issue, work, strings.Join(lines, "\n"))
}
