// Package proofs is the registry of executable claim checks.
//
// Every theoretical statement of a paper (a lemma, a theorem, a formula, an
// erratum found while reading) becomes a Claim whose Check runs a
// computation — a seeded random sweep (proofs/sweep), a Monte-Carlo experiment, an exact
// enumeration — and returns a Verdict computed from what it found. Its
// Kind says what that verdict rests on: the project's implementations
// (Computation) or only the paper's own formulas and numbers (Algebra). The
// sub-packages proofs/<paper> register their claims in init; tests compare
// each verdict with the expectation recorded in golden/<paper>/claims.yaml,
// so a test fails when a verdict changes, not when a paper is wrong.
package proofs

import (
	"fmt"
	"sort"
	"sync"

	"github.com/fedrepro/fedrepro/internal/memo"
)

// Verdict is the outcome of a claim check.
type Verdict string

const (
	// Holds: the computation found no violation where the claim applies.
	Holds Verdict = "holds"
	// Refuted: the computation found a counterexample or a wrong value.
	Refuted Verdict = "refuted"
	// HoldsWithErratum: the claim holds once a stated typo or missing
	// condition is fixed; Evidence says which.
	HoldsWithErratum Verdict = "holds-with-erratum"
	// Inconclusive: the check could not decide (e.g. Monte-Carlo interval
	// straddles the claimed value, or assumptions never met).
	Inconclusive Verdict = "inconclusive"
)

// Valid reports whether v is one of the four verdicts.
func (v Verdict) Valid() bool {
	switch v {
	case Holds, Refuted, HoldsWithErratum, Inconclusive:
		return true
	}
	return false
}

// DefaultSeed is the seed of every recorded verdict (tests, `fedrepro
// verify`, the reports), so all of them show the same numbers.
const DefaultSeed = 20240727

// Config tunes a check run.
type Config struct {
	// Seed names the random streams of the check (rng.New(Seed, claimID, ...)).
	Seed uint64
	// Quick asks for the reduced sample sizes used by `go test -short` and
	// CI; a quick run must reach the same verdict as a full one.
	Quick bool
}

// Result is what a check found.
type Result struct {
	Verdict  Verdict
	Evidence string
	// Values holds the named numbers behind the verdict (JSON-encodable:
	// numbers, strings, bools, and maps/slices of them).
	Values map[string]any
}

// Kind says what a check's verdict rests on.
type Kind string

const (
	// Computation: the verdict follows from running the project's
	// implementations — the algorithm or a simulation of it, an exact
	// enumeration of its behaviour, an accountant, the transform, the
	// released data — and deciding from what was measured, with a reachable
	// branch to another verdict, so a bug in algorithms/ can move it. The
	// default.
	Computation Kind = "computation"
	// Algebra: the check re-derives or transcribes the paper's own algebra
	// or published numbers, evaluating its formulas at numbers of its own
	// (by hand-built instances, enumeration, a random sweep or a Monte Carlo of the
	// paper's own expressions); the verdict rests on the paper's formulas
	// and constants, not on the project's implementations (helpers it calls
	// for arithmetic are incidental: no plausible bug in them moves it).
	// Reports and `fedrepro verify` show the kind so that nobody mistakes
	// such a check for an experiment; each registration says why it is
	// algebra.
	Algebra Kind = "algebra"
)

// Claim is one registered statement with its check.
type Claim struct {
	ID        string // "<paper>/<slug>", unique
	Paper     string
	Source    string // where in the paper: "Lemma 1, §5.1"
	Statement string // the claim in the paper's terms
	Check     func(Config) Result
	// Kind is Computation unless set to Algebra.
	Kind Kind
	// Needs names the datasets the check reads ("upcycled-synthetic"); a
	// test skips the claim (fails under CI=true) when one is missing,
	// because the check would run on a stand-in and its values differ.
	Needs []string
}

// KindOf returns the claim's kind (Computation when unset).
func (c Claim) KindOf() Kind {
	if c.Kind == "" {
		return Computation
	}
	return c.Kind
}

var (
	mu     sync.Mutex
	claims = map[string]Claim{}
	needs  = map[string][]string{}
)

// Register adds a claim; it panics on a duplicate or malformed ID, which is
// a programming error caught by any test that imports the package.
func Register(c Claim) {
	mu.Lock()
	defer mu.Unlock()
	if c.ID == "" || c.Paper == "" || c.Check == nil {
		panic(fmt.Sprintf("proofs: incomplete claim %+v", c))
	}
	if c.Kind != "" && c.Kind != Computation && c.Kind != Algebra {
		panic(fmt.Sprintf("proofs: claim %s has unknown kind %q", c.ID, c.Kind))
	}
	if _, dup := claims[c.ID]; dup {
		panic("proofs: duplicate claim " + c.ID)
	}
	claims[c.ID] = c
}

// RequireData records that a claim reads the given datasets (see
// Claim.Needs). It may be called before or after the claim registers
// (package init order is by file name).
func RequireData(id string, datasets ...string) {
	mu.Lock()
	defer mu.Unlock()
	needs[id] = append(needs[id], datasets...)
}

// Claims returns the claims of a paper (all papers when paper == ""),
// sorted by ID.
func Claims(paper string) []Claim {
	mu.Lock()
	defer mu.Unlock()
	var out []Claim
	for _, c := range claims {
		if paper == "" || c.Paper == paper {
			c.Needs = append(append([]string(nil), c.Needs...), needs[c.ID]...)
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Papers lists the papers that have registered claims.
func Papers() []string {
	mu.Lock()
	defer mu.Unlock()
	set := map[string]bool{}
	for _, c := range claims {
		set[c.Paper] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Run executes a claim's check, turning a panic into an Inconclusive
// result that says so (a crashing check must not look like a verdict).
func Run(c Claim, cfg Config) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Verdict: Inconclusive, Evidence: fmt.Sprintf("check panicked: %v", r)}
		}
	}()
	res = c.Check(cfg)
	if !res.Verdict.Valid() {
		res = Result{Verdict: Inconclusive, Evidence: fmt.Sprintf("check returned invalid verdict %q: %s", res.Verdict, res.Evidence)}
	}
	return res
}

// RunShared is Run for a registered claim, computed once per process for
// each (claim ID, Config): a check is a deterministic function of its
// claim and Config (its random streams are named by Config.Seed and the
// claim's ID), so the report's claims section and the claim gate
// (gatetest.Claims), which run the same registered checks with the same
// Config in one test binary, share one computation. Checks that read a
// dataset (Needs) run every time: what they read can appear or vanish
// between calls, and so does a claim whose ID is not registered (a test's
// own claim). The Result is shared; callers must not modify Values.
func RunShared(c Claim, cfg Config) Result {
	mu.Lock()
	_, registered := claims[c.ID]
	mu.Unlock()
	if len(c.Needs) > 0 || !registered {
		return Run(c, cfg)
	}
	r, _ := sharedRuns.Get(fmt.Sprintf("%s|%#v", c.ID, cfg), func() (Result, error) { return Run(c, cfg), nil })
	return r
}

var sharedRuns memo.Memo[Result]
