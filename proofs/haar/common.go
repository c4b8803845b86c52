// Package haar registers the executable checks of every theoretical claim
// of Ranaweera et al., "Federated Learning with Differential Privacy: An
// Utility-Enhanced Approach" (DP-SGD-WAV / DP-FedAvg-WAV), and of the
// errors the spec (shared/specs/haar.md §4, §4.5, §7.3) lists as findings.
//
// Claim IDs are "haar/<slug>". Each check computes its verdict: exact
// linear algebra on the Haar transform where possible (the transform is
// linear, so every noise variance and sensitivity is a finite computation),
// Monte-Carlo only as a cross-check with a stated interval, and the
// project's accountants for ε. Quick mode (go test -short) shrinks sizes
// and sample counts but never the set of cases that decides a verdict.
package haar

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
)

const paper = "haar"

func register(slug, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement, Check: check})
}

// registerAlgebra registers a check of the paper's own algebra or
// transcription: its verdict rests on the paper's formulas, not on the
// project's implementations (proofs.Algebra).
func registerAlgebra(slug, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement, Check: check, Kind: proofs.Algebra})
}

// mkey formats an integer map key (JSON objects need string keys).
func mkey(m int) string { return strconv.Itoa(m) }

// round keeps Values readable and stable across platforms.
func round(x float64, sig int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', sig, 64), 64)
	return v
}

// finite turns ±Inf/NaN into strings so Values stay JSON-encodable.
func finite(x float64) any {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Sprint(x)
	}
	return round(x, 10)
}

// powers returns 2, 4, …, max.
func powers(max int) []int {
	var out []int
	for m := 2; m <= max; m *= 2 {
		out = append(out, m)
	}
	return out
}

// sortedKeys returns a map's keys in numeric order when they are numbers.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, ea := strconv.Atoi(keys[i])
		b, eb := strconv.Atoi(keys[j])
		if ea == nil && eb == nil {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}

// sweepOf names the sweep of a claim, sweep.New(cfg.Seed, paper, slug,
// labels…), and returns its draw count: full, or quick under cfg.Quick.
func sweepOf(cfg proofs.Config, slug string, full, quick int, labels ...any) (sweep.Stream, int) {
	n := full
	if cfg.Quick {
		n = quick
	}
	return sweep.New(cfg.Seed, append([]any{paper, slug}, labels...)...), n
}
