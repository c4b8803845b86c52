// Package sweep evaluates a predicate at N seeded random draws: the
// run-time sampler of the claim checks (proofs/<paper>).
//
// What it is: a check names a stream, sweep.New(cfg.Seed, paper, slug,
// …), and Run evaluates its predicate at draws 0 … N−1. Draw i reads its
// arguments from its own stream rng.New(seed, labels…, "sweep", i), so any
// draw can be replayed alone (Stream.At(i)) without replaying the ones
// before it, and the draws do not depend on how many values an earlier
// draw consumed. Every draw is evaluated (a failure does not stop the
// sweep, so accumulated worst cases cover all N draws); the Outcome counts
// the failures and keeps the first counterexample: its draw index, the
// values drawn and the predicate's message.
//
// Why: the fedrepro binary runs the claim checks (`fedrepro verify`), and
// it must not link package testing, which gopter's root package imports;
// and every random draw of the project must come from a named stream
// (algorithms/rng). Property tests with shrinking stay in _test.go files,
// where gopter drives the same predicates.
//
// Samplers: Float64Range(lo, hi) is lo + U·(hi − lo) with U uniform on
// [0, 1); IntRange(lo, hi) is uniform on the integers lo … hi (both
// included); Uint64 is uniform on 64 bits; OneOf picks one of the given
// values uniformly. These are the distributions of gopter's
// gen.Float64Range, gen.IntRange, gen.UInt64 and gen.OneConstOf, so a
// check keeps its domain when it moves from gopter to a sweep.
package sweep

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Stream names the draws of a sweep: draw i comes from
// rng.New(seed, labels…, "sweep", i).
type Stream struct {
	seed   uint64
	labels []any
}

// New names a sweep's stream by the run seed and labels (for the claim
// checks: paper, claim slug and, when a check sweeps several properties, the
// property's name).
func New(seed uint64, labels ...any) Stream {
	return Stream{seed: seed, labels: append([]any(nil), labels...)}
}

// String names the stream for evidence and replay messages.
func (s Stream) String() string {
	parts := []string{fmt.Sprint(s.seed)}
	for _, l := range s.labels {
		parts = append(parts, fmt.Sprint(l))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// At returns the case of draw i, for replaying a counterexample.
func (s Stream) At(i int) *Case {
	labels := append(append([]any(nil), s.labels...), "sweep", i)
	return &Case{Index: i, r: rng.New(s.seed, labels...).Rand()}
}

// Case is one draw: its index and the sampler of its arguments. It records
// every value drawn, so a failing draw can be shown.
type Case struct {
	// Index is the draw's index in the sweep (0 … N−1).
	Index int
	r     *rand.Rand
	drawn []string
}

func (c *Case) note(v any) { c.drawn = append(c.drawn, fmt.Sprint(v)) }

// Float64Range returns lo + U·(hi − lo), U uniform on [0, 1).
func (c *Case) Float64Range(lo, hi float64) float64 {
	if !(hi >= lo) {
		panic(fmt.Sprintf("sweep: Float64Range(%g, %g): empty range", lo, hi))
	}
	v := lo + c.r.Float64()*(hi-lo)
	c.note(v)
	return v
}

// IntRange returns an integer uniform on lo … hi (both included).
func (c *Case) IntRange(lo, hi int) int {
	if hi < lo {
		panic(fmt.Sprintf("sweep: IntRange(%d, %d): empty range", lo, hi))
	}
	v := lo + c.r.IntN(hi-lo+1)
	c.note(v)
	return v
}

// Uint64 returns 64 uniform bits (a seed for a check's own inner streams).
func (c *Case) Uint64() uint64 {
	v := c.r.Uint64()
	c.note(v)
	return v
}

// Float64s returns n values, each Float64Range(lo, hi).
func (c *Case) Float64s(n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + c.r.Float64()*(hi-lo)
	}
	c.note(out)
	return out
}

// OneOf returns one of vals, each with probability 1/len(vals).
func OneOf[T any](c *Case, vals ...T) T {
	if len(vals) == 0 {
		panic("sweep: OneOf of no values")
	}
	v := vals[c.r.IntN(len(vals))]
	c.note(v)
	return v
}

// Args lists the values drawn so far, in draw order.
func (c *Case) Args() string { return "[" + strings.Join(c.drawn, ", ") + "]" }

// Outcome is the result of a sweep.
type Outcome struct {
	// Stream names the sweep's stream (see Stream.String).
	Stream string
	// Draws is the number of draws evaluated, Failed how many failed.
	Draws, Failed int
	// First is the index of the first failing draw (−1 if none), FirstArgs
	// its drawn values and FirstMsg the predicate's message.
	First     int
	FirstArgs string
	FirstMsg  string
}

// OK reports whether every draw satisfied the predicate.
func (o Outcome) OK() bool { return o.Failed == 0 }

// String states the outcome in one line: the count, and the first
// counterexample with what replays it.
func (o Outcome) String() string {
	if o.OK() {
		return fmt.Sprintf("%d draws of stream %s, all hold", o.Draws, o.Stream)
	}
	msg := ""
	if o.FirstMsg != "" {
		msg = ": " + o.FirstMsg
	}
	return fmt.Sprintf("%d of %d draws of stream %s fail; first: draw %d, args %s%s (replay with sweep.New(…).At(%d))",
		o.Failed, o.Draws, o.Stream, o.First, o.FirstArgs, msg, o.First)
}

// Report joins outcomes' one-line statements with "; ".
func Report(outs ...Outcome) string {
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = o.String()
	}
	return strings.Join(parts, "; ")
}

// AllOK reports whether every outcome is OK.
func AllOK(outs ...Outcome) bool {
	for _, o := range outs {
		if !o.OK() {
			return false
		}
	}
	return true
}

// Run evaluates pred at draws 0 … n−1 of s, in order, on one goroutine (a
// predicate may accumulate worst cases in its closure). A predicate returns
// a bool (true: the draw holds) or a string (empty: the draw holds; else
// why it fails). A panic in the predicate fails its draw with the panic's
// message.
func Run[R bool | string](s Stream, n int, pred func(*Case) R) Outcome {
	out := Outcome{Stream: s.String(), First: -1}
	for i := range n {
		c := s.At(i)
		msg, ok := eval(c, pred)
		out.Draws++
		if ok {
			continue
		}
		out.Failed++
		if out.First < 0 {
			out.First, out.FirstArgs, out.FirstMsg = i, c.Args(), msg
		}
	}
	return out
}

// eval runs pred on c and turns its result (or panic) into a message and
// whether the draw holds.
func eval[R bool | string](c *Case, pred func(*Case) R) (msg string, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			msg, ok = fmt.Sprintf("panic: %v", p), false
		}
	}()
	switch v := any(pred(c)).(type) {
	case bool:
		return "", v
	case string:
		return v, v == ""
	}
	return "", false // unreachable: R is bool or string
}
