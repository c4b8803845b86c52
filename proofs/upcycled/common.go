// Package upcycled registers the executable checks of the theoretical claims
// of Yin, Tan, Zhang, Khalili and Liu, "Federated Learning with Reduced
// Information Leakage and Computation" (Upcycled-FL, TMLR 2024), and of the
// typos and inconsistencies the spec (shared/specs/upcycled.md §4, §7)
// lists as findings.
//
// Claim IDs are "upcycled/<slug>". Every verdict is computed: exact algebra
// where the claim is algebra (predicates over seeded random sweeps,
// proofs/sweep, named by the claim slug so a failure replays), exact expectations over client
// sampling on quadratic federations for the convergence lemma, the project's
// accountants and the paper's own closed forms for the privacy theorems, and
// the released Upcycled synthetic data (shared/datasets/upcycled-synthetic)
// for the assumptions the theorems place on data. Quick mode (go test
// -short) shrinks sample counts but never the cases that decide a verdict.
package upcycled

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/proofs/sweep"
)

const paper = "upcycled"

func register(slug, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement, Check: check})
}

// registerAlgebra registers a check of the paper's own algebra or
// transcription: its verdict rests on the paper's formulas, not on the
// project's implementations (proofs.Algebra).
func registerAlgebra(slug, source, statement string, check func(proofs.Config) proofs.Result) {
	proofs.Register(proofs.Claim{ID: paper + "/" + slug, Paper: paper, Source: source, Statement: statement, Check: check, Kind: proofs.Algebra})
}

// round keeps Values readable and stable across platforms.
func round(x float64, sig int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', sig, 64), 64)
	return v
}

// num turns ±Inf/NaN into strings so Values stay JSON-encodable, and rounds
// finite values to 10 significant digits.
func num(x float64) any {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Sprint(x)
	}
	return round(x, 10)
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

// inconclusive reports a check that could not run.
func inconclusive(format string, a ...any) proofs.Result {
	return proofs.Result{Verdict: proofs.Inconclusive, Evidence: fmt.Sprintf(format, a...)}
}

// relErr is |a−b| / max(1, |a|, |b|).
func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Released data ------------------------------------------------------------

// releasedRoots are the places the released Upcycled synthetic data may be,
// in order: $FEDREPRO_SHARED/datasets/upcycled-synthetic, then
// ../shared/… relative to the working directory (the repository root, as
// `fedrepro verify` runs), then ../../../shared/… (proofs/upcycled, as
// `go test` runs), then the download cache (.cache/…, from either place).
func releasedRoots() []string {
	var roots []string
	if s := os.Getenv("FEDREPRO_SHARED"); s != "" {
		roots = append(roots, filepath.Join(s, "datasets", "upcycled-synthetic"))
	}
	return append(roots,
		filepath.Join("..", "shared", "datasets", "upcycled-synthetic"),
		filepath.Join("..", "..", "..", "shared", "datasets", "upcycled-synthetic"),
		// The download cache of `fedrepro data --fetch` (reproduce/datasets).
		filepath.Join(".cache", "datasets", "upcycled-synthetic"),
		filepath.Join("..", "..", ".cache", "datasets", "upcycled-synthetic"))
}

// federation is one synthetic dataset and where it came from.
type federation struct {
	name   string // upstream name (synthetic_iid, …)
	source string // "released:<root>" or "generated(seed …)"
	fed    *data.Federated
}

var (
	fedMu    sync.Mutex
	fedCache = map[uint64][]federation{}
)

// loadFederations returns the four synthetic datasets: the released files
// when they are found (SHA-256 verified by data.LoadUpcycled), otherwise
// the seeded FedProx generator with the same presets (and says so). Results
// are cached per seed; callers must not modify them.
func loadFederations(seed uint64) ([]federation, error) {
	fedMu.Lock()
	defer fedMu.Unlock()
	if f, ok := fedCache[seed]; ok {
		return f, nil
	}
	f, err := loadFederationsUncached(seed)
	if err == nil {
		fedCache[seed] = f
	}
	return f, err
}

// federationByName returns one of the four datasets.
func federationByName(seed uint64, name string) (federation, error) {
	feds, err := loadFederations(seed)
	if err != nil {
		return federation{}, err
	}
	for _, f := range feds {
		if f.name == name {
			return f, nil
		}
	}
	return federation{}, fmt.Errorf("no dataset %s", name)
}

func loadFederationsUncached(seed uint64) ([]federation, error) {
	for _, root := range releasedRoots() {
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			continue
		}
		var out []federation
		for _, name := range data.UpcycledSyntheticNames {
			f, err := data.LoadUpcycled(root, name)
			if err != nil {
				return nil, fmt.Errorf("released data at %s: %w", root, err)
			}
			out = append(out, federation{name: name, source: "released:" + root, fed: f})
		}
		return out, nil
	}
	var out []federation
	for _, name := range data.UpcycledSyntheticNames {
		cfg, err := data.SyntheticPreset(name)
		if err != nil {
			return nil, err
		}
		cfg.MaxSamples = 3000
		f, err := data.GenerateSynthetic(cfg, rng.New(seed, "proofs", paper, "generated", name))
		if err != nil {
			return nil, err
		}
		out = append(out, federation{name: name, source: fmt.Sprintf("generated(seed %d; released data not found at %s)", seed, strings.Join(releasedRoots(), ", ")), fed: f})
	}
	return out, nil
}

// The checks that read the released data (a stand-in generated data set is
// used, and said, when it is absent; the recorded values are the released
// data's).
func init() {
	for _, id := range []string{"lemma5.5-one-step", "spec7-12-output-sensitivity", "spec7-16-noise-std", "thm6.3-assumptions-released-data"} {
		proofs.RequireData(paper+"/"+id, "upcycled-synthetic")
	}
}
