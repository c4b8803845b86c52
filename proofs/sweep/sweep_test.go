package sweep

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestDeterministicAndReplayable: the same stream gives the same draws in
// every run, and At(i) replays draw i of Run alone.
func TestDeterministicAndReplayable(t *testing.T) {
	s := New(7, "paper", "claim")
	var seen []string
	Run(s, 50, func(c *Case) bool {
		c.Float64Range(-1, 1)
		c.IntRange(3, 9)
		c.Uint64()
		seen = append(seen, c.Args())
		return true
	})
	var again []string
	Run(New(7, "paper", "claim"), 50, func(c *Case) bool {
		c.Float64Range(-1, 1)
		c.IntRange(3, 9)
		c.Uint64()
		again = append(again, c.Args())
		return true
	})
	for i := range seen {
		if seen[i] != again[i] {
			t.Fatalf("draw %d differs between runs: %s vs %s", i, seen[i], again[i])
		}
		c := s.At(i)
		c.Float64Range(-1, 1)
		c.IntRange(3, 9)
		c.Uint64()
		if c.Args() != seen[i] {
			t.Fatalf("At(%d) replays %s, Run drew %s", i, c.Args(), seen[i])
		}
	}
}

// TestStreamsDiffer: distinct labels or seeds name unrelated streams, and
// the draws of one stream differ from each other.
func TestStreamsDiffer(t *testing.T) {
	first := func(s Stream) uint64 { return s.At(0).Uint64() }
	base := New(1, "p", "a")
	for _, other := range []Stream{New(2, "p", "a"), New(1, "p", "b"), New(1, "p", "a", "x")} {
		if first(base) == first(other) {
			t.Errorf("streams %s and %s share their first draw", base, other)
		}
	}
	if base.At(0).Uint64() == base.At(1).Uint64() {
		t.Error("draws 0 and 1 of one stream agree")
	}
}

// TestSamplerDomains: every sampler stays in its domain, IntRange reaches
// both ends, OneOf reaches every value, and the float samplers spread over
// their range (mean within 5 standard errors of the midpoint).
func TestSamplerDomains(t *testing.T) {
	const n = 4000
	ints := map[int]int{}
	picks := map[float64]int{}
	var sum float64
	out := Run(New(3, "domains"), n, func(c *Case) string {
		x := c.Float64Range(-2, 6)
		if x < -2 || x >= 6 {
			return fmt.Sprintf("Float64Range(-2, 6) = %g", x)
		}
		sum += x
		k := c.IntRange(-1, 2)
		if k < -1 || k > 2 {
			return fmt.Sprintf("IntRange(-1, 2) = %d", k)
		}
		ints[k]++
		picks[OneOf(c, 0.0, 1e-8, 100.0)]++
		for _, v := range c.Float64s(6, -1, 1) {
			if v < -1 || v >= 1 {
				return fmt.Sprintf("Float64s(6, -1, 1) holds %g", v)
			}
		}
		return ""
	})
	if !out.OK() {
		t.Fatal(out)
	}
	for k := -1; k <= 2; k++ {
		if ints[k] == 0 {
			t.Errorf("IntRange(-1, 2) never drew %d in %d draws", k, n)
		}
	}
	if len(picks) != 3 {
		t.Errorf("OneOf drew %v, want all three values", picks)
	}
	// Uniform on [-2, 6): mean 2, standard deviation 8/√12.
	if se := 8 / math.Sqrt(12*n); math.Abs(sum/n-2) > 5*se {
		t.Errorf("Float64Range(-2, 6) mean %g, want 2 ± %g", sum/n, 5*se)
	}
}

// TestOutcomeCountsEveryDraw: a sweep evaluates every draw, counts the
// failures, keeps the first one with its drawn values and message, and a
// panic fails its draw instead of escaping.
func TestOutcomeCountsEveryDraw(t *testing.T) {
	tests := []struct {
		name            string
		pred            func(*Case) string
		failed, first   int
		msgHas, argsHas string
	}{
		{"all hold", func(c *Case) string { c.IntRange(0, 9); return "" }, 0, -1, "", ""},
		{"every third fails", func(c *Case) string {
			c.IntRange(5, 5)
			if c.Index%3 == 2 {
				return fmt.Sprintf("index %d", c.Index)
			}
			return ""
		}, 10, 2, "index 2", "[5]"},
		{"panic", func(c *Case) string {
			if c.Index == 4 {
				panic("boom")
			}
			return ""
		}, 1, 4, "panic: boom", "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evaluated := 0
			out := Run(New(9, tc.name), 30, func(c *Case) string { evaluated++; return tc.pred(c) })
			if evaluated != 30 || out.Draws != 30 {
				t.Errorf("evaluated %d draws, outcome says %d, want 30", evaluated, out.Draws)
			}
			if out.Failed != tc.failed || out.First != tc.first || out.OK() != (tc.failed == 0) {
				t.Errorf("outcome %+v, want %d failures, first %d", out, tc.failed, tc.first)
			}
			if !strings.Contains(out.FirstMsg, tc.msgHas) || !strings.Contains(out.FirstArgs, tc.argsHas) {
				t.Errorf("first counterexample %q args %q, want %q and %q", out.FirstMsg, out.FirstArgs, tc.msgHas, tc.argsHas)
			}
			if !out.OK() && !strings.Contains(out.String(), fmt.Sprintf("At(%d)", tc.first)) {
				t.Errorf("report %q does not say how to replay draw %d", out, tc.first)
			}
		})
	}
}

// TestBoolPredicate: a bool predicate's false fails its draw.
func TestBoolPredicate(t *testing.T) {
	out := Run(New(1, "bool"), 10, func(c *Case) bool { return c.Index != 7 })
	if out.Failed != 1 || out.First != 7 || out.FirstMsg != "" {
		t.Errorf("outcome %+v, want draw 7 alone to fail", out)
	}
	if AllOK(out, Run(New(1, "ok"), 3, func(*Case) bool { return true })) {
		t.Error("AllOK true with a failing outcome")
	}
	if !strings.Contains(Report(out, out), "; ") {
		t.Error("Report does not join outcomes")
	}
}
