package normec

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
)

// paper is the paper ID of every claim here.
const paper = "normec"

// register adds a claim of this paper.
func register(slug, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement, Check: check})
}

// registerAlgebra registers a check of the paper's own algebra or
// transcription: its verdict rests on the paper's formulas, not on the
// project's implementations (proofs.Algebra).
func registerAlgebra(slug, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement, Check: check, Kind: proofs.Algebra})
}

// key names the random streams of a check: (seed, "normec", slug, labels…).
func key(cfg proofs.Config, slug string, labels ...any) rng.Key {
	return rng.New(cfg.Seed, append([]any{"normec", slug}, labels...)...)
}

// sweepOf names the sweep of a check: sweep.New(cfg.Seed, "normec", slug).
func sweepOf(cfg proofs.Config, slug string) sweep.Stream {
	return sweep.New(cfg.Seed, paper, slug)
}

// pick returns quick when cfg.Quick and full otherwise.
func pick[T any](cfg proofs.Config, full, quick T) T {
	if cfg.Quick {
		return quick
	}
	return full
}

// result builds a Result; values may be nil.
func result(v proofs.Verdict, vals map[string]any, format string, args ...any) proofs.Result {
	return proofs.Result{Verdict: v, Evidence: fmt.Sprintf(format, args...), Values: vals}
}

// stat accumulates a sample mean and standard error.
type stat struct{ n, sum, sq float64 }

func (s *stat) add(x float64) { s.n++; s.sum += x; s.sq += x * x }
func (s *stat) mean() float64 { return s.sum / s.n }
func (s *stat) se() float64 {
	m := s.mean()
	v := (s.sq - s.n*m*m) / (s.n - 1)
	return math.Sqrt(math.Max(v, 0) / s.n)
}

// zCrit is the one-sided z of the Monte-Carlo intervals (≈ 1e-5 tail): a
// Monte-Carlo check calls a bound violated only when the whole interval
// mean ± zCrit·SE lies above it, and confirmed only when it lies below.
const zCrit = 4.0

// mcVerdict compares Monte-Carlo estimates with upper bounds: Refuted if
// some lower confidence limit exceeds its bound, Holds if every upper
// confidence limit is below its bound, Inconclusive otherwise. It returns
// the worst ratio mean/bound too.
func mcVerdict(means, ses, bounds []float64) (proofs.Verdict, float64) {
	v := proofs.Holds
	worst := 0.0
	for i := range means {
		worst = math.Max(worst, means[i]/bounds[i])
		switch {
		case means[i]-zCrit*ses[i] > bounds[i]:
			return proofs.Refuted, worst
		case means[i]+zCrit*ses[i] > bounds[i]:
			v = proofs.Inconclusive
		}
	}
	return v, worst
}

// slope fits log y = a + b·log x by least squares and returns b.
func slope(xs, ys []float64) float64 {
	var sx, sy, sxx, sxy float64
	n := float64(len(xs))
	for i := range xs {
		lx, ly := math.Log(xs[i]), math.Log(ys[i])
		sx += lx
		sy += ly
		sxx += lx * lx
		sxy += lx * ly
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// relErr is |a−b|/max(|b|, tiny).
func relErr(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300) }

// fmtList formats floats compactly for evidence strings.
func fmtList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.4g", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// worse returns the more severe of two verdicts (Refuted > Inconclusive >
// HoldsWithErratum > Holds) for checks that combine sub-checks.
func worse(a, b proofs.Verdict) proofs.Verdict {
	rank := map[proofs.Verdict]int{proofs.Holds: 0, proofs.HoldsWithErratum: 1, proofs.Inconclusive: 2, proofs.Refuted: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
