package accountant

import (
	"container/list"
	"fmt"
	"math"
	"sync"
)

// The PLD accountant's two costly steps are pure functions of their
// inputs: discretizing a leaf event's loss distribution (one CDF
// evaluation per grid point) and self-composing that grid n times (two
// FFTs). Callers ask for the same ones again and again with different δ
// or around them: a claim audit's readings share a leaf and a step count,
// the PRV accountant bounds its domain with a PLD of the very events the
// PLD accountant composes, PLDEpsilonAdaptive retries, and a calibration
// brackets from an RDP guess the PLD then revisits. In the claims golden
// audit 45% of the discretizations and a third of the self-compositions
// repeated exactly. pldMemo keeps their results for the whole process.
//
// A result depends on the leaf event (its String: %g numbers round-trip,
// so equal strings mean equal parameters), the direction, the
// neighbouring relation, Interval, TailMass and MaxPoints — and on stopAt
// through one early exit only: each step asks doomed once, about one
// truncated mass v computed before the costly part, and stops with
// ErrGridCap when v ≥ stopAt. The memo records v with the result, so a
// hit replays that check against the caller's own stopAt: it returns the
// error an early exit would have, or the result a full run would have.
// When the stored run had stopped early and the caller's stopAt lets it
// through, the step is computed afresh (and stored). Stored grids are
// shared, never written: every composition writes into a fresh slice.
// Hits therefore return the bits of a fresh computation
// (TestPLDMemoReturnsTheComputation). The memo holds at most
// pldMemoMaxFloats grid points, least recently used dropped first.
var pldMemo = newGridMemo(pldMemoMaxFloats)

// pldMemoMaxFloats bounds the grid points pldMemo holds (128 MB).
const pldMemoMaxFloats = 1 << 24

// gridMemoEntry is one stored step.
type gridMemoEntry struct {
	key     string
	p       pmf
	err     error
	full    bool    // p and err are the full run's result
	checked float64 // the mass doomed was asked about; NaN: never asked
}

// gridMemo is a bounded, concurrency-safe LRU map of gridMemoEntry.
type gridMemo struct {
	mu     sync.Mutex
	max    int // grid points
	size   int
	order  *list.List // front: most recently used
	byKey  map[string]*list.Element
	hits   int
	misses int
}

func newGridMemo(max int) *gridMemo {
	return &gridMemo{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (m *gridMemo) get(key string) (gridMemoEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.byKey[key]
	if !ok {
		m.misses++
		return gridMemoEntry{}, false
	}
	m.hits++
	m.order.MoveToFront(el)
	return el.Value.(gridMemoEntry), true
}

func (m *gridMemo) put(e gridMemoEntry) {
	n := len(e.p.p)
	if n > m.max {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[e.key]; ok {
		m.size -= len(el.Value.(gridMemoEntry).p.p)
		m.order.Remove(el)
		delete(m.byKey, e.key)
	}
	for m.size+n > m.max && m.order.Len() > 0 {
		el := m.order.Back()
		old := el.Value.(gridMemoEntry)
		m.size -= len(old.p.p)
		m.order.Remove(el)
		delete(m.byKey, old.key)
	}
	m.byKey[e.key] = m.order.PushFront(e)
	m.size += n
}

func (m *gridMemo) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.order.Init()
	m.byKey = map[string]*list.Element{}
	m.size, m.hits, m.misses = 0, 0, 0
}

// memoStep runs step (which asks check at most once before its costly
// part) through pldMemo under key, replaying the stored check against
// a's stopAt on a hit.
func (a *PLD) memoStep(key string, step func(check func(float64) error) (pmf, error)) (pmf, error) {
	if e, ok := pldMemo.get(key); ok {
		if !math.IsNaN(e.checked) {
			if err := a.doomed(e.checked); err != nil {
				return pmf{}, err
			}
		}
		if e.full {
			return e.p, e.err
		}
	}
	checked, stopped := math.NaN(), false
	p, err := step(func(v float64) error {
		checked = v
		err := a.doomed(v)
		stopped = err != nil
		return err
	})
	pldMemo.put(gridMemoEntry{key: key, p: p, err: err, full: !stopped, checked: checked})
	return p, err
}

// leafKey names the discretization of direction i of leaf event e under
// a's options.
func (a *PLD) leafKey(e Event, i int) string {
	o := a.opts
	return fmt.Sprintf("%v|dir %d|%v|Δ=%v|τ=%v|cap=%d", e, i, o.Neighbouring, o.Interval, o.TailMass, o.MaxPoints)
}
