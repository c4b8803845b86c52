package accountant

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// pldState is everything a composed PLD answers from, bit for bit.
func pldState(a *PLD) string {
	s := ""
	for _, d := range a.dir {
		h := uint64(14695981039346656037)
		for _, v := range d.p {
			h = (h ^ math.Float64bits(v)) * 1099511628211
		}
		s += fmt.Sprintf("[lo=%d n=%d inf=%x trunc=%x h=%x]", d.lo, len(d.p), math.Float64bits(d.inf), math.Float64bits(d.trunc), h)
	}
	return s
}

// composeWith composes e on a fresh PLD with opts and stopAt, returning
// its state (or the error).
func composeWith(e Event, o PLDOptions, stopAt float64) string {
	a := NewPLD(o)
	a.stopAt = stopAt
	if err := a.Compose(e); err != nil {
		return "error: " + err.Error()
	}
	return pldState(a)
}

// TestPLDMemoReturnsTheComputation checks the process-wide PLD memo: a
// composition served from it — on a repeat, after the same leaf was
// self-composed another number of times, and when an earlier run of the
// same step stopped early at the grid cap (stopAt) or did not — has the
// bits (and the error) of a computation on an empty memo. The cases cover
// symmetric and asymmetric leaves, both relations, atomic losses, a grid
// cap that truncates (the one step whose result depends on stopAt) and a
// composition of two leaves.
func TestPLDMemoReturnsTheComputation(t *testing.T) {
	t.Cleanup(pldMemo.reset)
	type tc struct {
		e  Event
		o  PLDOptions
		st []float64 // stopAt values to replay, in this order
	}
	capped := PLDOptions{Interval: 1e-3, MaxPoints: 1000}
	cases := []tc{
		{SelfComposed{Event: Gaussian{Sigma: 2}, Count: 30}, PLDOptions{Interval: 1e-3}, []float64{0, 1e-5}},
		{SelfComposed{Event: PoissonSampled{Q: 0.05, Event: Gaussian{Sigma: 1.1}}, Count: 200}, PLDOptions{Interval: 1e-3}, []float64{0, 1e-9}},
		{SelfComposed{Event: PoissonSampled{Q: 0.3, Event: Gaussian{Sigma: 0.8}}, Count: 40}, PLDOptions{Interval: 1e-3, Neighbouring: ReplaceOne}, []float64{0}},
		{SelfComposed{Event: PoissonSampled{Q: 0.1, Event: Gaussian{Sigma: 0}}, Count: 5}, PLDOptions{Interval: 1e-2}, []float64{0}},
		{Composed{Events: []Event{SelfComposed{Event: Gaussian{Sigma: 3}, Count: 7}, SelfComposed{Event: PoissonSampled{Q: 0.2, Event: Gaussian{Sigma: 1.5}}, Count: 11}}}, PLDOptions{Interval: 1e-3}, []float64{0}},
		// Truncated by the cap: stopAt decides between an early ErrGridCap
		// and the full (capped) grid, in both orders.
		{SelfComposed{Event: Gaussian{Sigma: 0.71}, Count: 3}, capped, []float64{1e-5, 0, 1e-5, 0.9, 0}},
		{SelfComposed{Event: Gaussian{Sigma: 0.6}, Count: 4}, capped, []float64{0, 1e-5, 0.9, 1e-5}},
	}
	for _, c := range cases {
		for _, st := range c.st {
			pldMemo.reset()
			want := composeWith(c.e, c.o, st)
			// Fill the memo from other runs first: other stopAt values,
			// another count of the same leaves, then this run itself.
			for _, other := range c.st {
				pldMemo.reset()
				composeWith(c.e, c.o, other)
				if sc, ok := c.e.(SelfComposed); ok {
					composeWith(SelfComposed{Event: sc.Event, Count: sc.Count + 1}, c.o, other)
				}
				for pass := 0; pass < 2; pass++ {
					if got := composeWith(c.e, c.o, st); got != want {
						t.Errorf("%v %+v stopAt %g after a run at stopAt %g (pass %d):\n got %s\nwant %s", c.e, c.o, st, other, pass, got, want)
					}
				}
			}
		}
	}
	// Runs that differ in one option only never share an entry.
	e := SelfComposed{Event: PoissonSampled{Q: 0.3, Event: Gaussian{Sigma: 0.7}}, Count: 3}
	opts := []PLDOptions{{Interval: 1e-3}, {Interval: 1e-3, MaxPoints: 3000}, {Interval: 2e-3}, {Interval: 1e-3, TailMass: 1e-12}, {Interval: 1e-3, Neighbouring: ReplaceOne}}
	var fresh []string
	for _, o := range opts {
		pldMemo.reset()
		fresh = append(fresh, composeWith(e, o, 0))
	}
	pldMemo.reset()
	for pass := 0; pass < 2; pass++ {
		for i, o := range opts {
			if got := composeWith(e, o, 0); got != fresh[i] {
				t.Errorf("options %+v after the others (pass %d):\n got %s\nwant %s", o, pass, got, fresh[i])
			}
		}
	}
	// The capped case has both outcomes of the early stop, whatever the
	// memo holds: full entries from a run without stopAt must not keep a
	// run at stopAt 1e-5 from stopping (leafPMF's pre-check, or the
	// replayed check of memoStep), and a second full run is served by
	// the memo.
	pldMemo.reset()
	if s := composeWith(cases[5].e, capped, 0); s[:6] == "error:" {
		t.Fatalf("capped case without stopAt failed: %s", s)
	}
	if s := composeWith(cases[5].e, capped, 1e-5); s[:6] != "error:" {
		t.Fatalf("capped case at stopAt 1e-5 did not stop early after a full run: %s", s)
	}
	if s := composeWith(cases[5].e, capped, 0); s[:6] == "error:" {
		t.Fatalf("capped case without stopAt failed on the second run: %s", s)
	}
	if pldMemo.hits == 0 {
		t.Fatal("the memo was never hit")
	}
}

// TestPLDMemoBounded checks that the memo never holds more grid points
// than its cap and drops the least recently used entry first.
func TestPLDMemoBounded(t *testing.T) {
	m := newGridMemo(100)
	for i := 0; i < 50; i++ {
		m.put(gridMemoEntry{key: fmt.Sprint(i), p: pmf{p: make([]float64, 30)}, full: true})
		if m.size > 100 {
			t.Fatalf("memo holds %d points, cap 100", m.size)
		}
		if i > 0 {
			m.get(fmt.Sprint(i - 1)) // keep the previous one warm
		}
	}
	if _, ok := m.get("48"); !ok {
		t.Error("recently used entry 48 was dropped")
	}
	if _, ok := m.get("0"); ok {
		t.Error("entry 0 survived")
	}
	m.put(gridMemoEntry{key: "big", p: pmf{p: make([]float64, 101)}})
	if _, ok := m.get("big"); ok {
		t.Error("an entry above the cap was stored")
	}
}

// TestPLDPrecheckBeforeAnyGrid: when the grid cap dooms one direction of a
// leaf at the δ being solved for, no grid of the other is built first
// (the sweep's tiny-scale Laplace spent 0.15 s a ladder step on a grid
// whose answer was already known).
func TestPLDPrecheckBeforeAnyGrid(t *testing.T) {
	pldMemo.reset()
	a := NewPLD(PLDOptions{MaxPoints: 1 << 16})
	a.stopAt = 2.6e-5
	err := a.Compose(PoissonSampled{Q: 1.76e-5, Event: Laplace{Scale: 1e-6}})
	if !errors.Is(err, ErrGridCap) {
		t.Fatalf("compose: %v, want the grid cap", err)
	}
	if pldMemo.size != 0 || pldMemo.misses != 0 {
		t.Errorf("a doomed leaf built %d grid points (%d memo misses) before stopping", pldMemo.size, pldMemo.misses)
	}
}

// TestPLDTinyDeltaStopsEarly: at δ below 8·TailMass the ladder's attempts
// still stop early on truncated mass when no loss is genuinely infinite;
// only the last attempt (which always runs in full) discretizes its leaf
// (two directions: two memo misses, where every attempt used to build
// both grids: fourteen).
func TestPLDTinyDeltaStopsEarly(t *testing.T) {
	pldMemo.reset()
	_, _, err := PLDEpsilonAdaptive(PoissonSampled{Q: 0.18, Event: Laplace{Scale: 1e-6}}, 1.65e-15, PLDOptions{MaxPoints: 1 << 16})
	if !errors.Is(err, ErrGridCap) {
		t.Fatalf("err %v, want the grid cap", err)
	}
	if pldMemo.misses > 2 {
		t.Errorf("the ladder discretized %d leaf directions, want only the last attempt's 2", pldMemo.misses)
	}
}
