package memo

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// Sixteen concurrent callers of one key share one computation; another key
// computes its own; an error is remembered, not retried.
func TestMemo(t *testing.T) {
	var m Memo[int]
	var calls atomic.Int64
	var wg sync.WaitGroup
	got := make([]int, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = m.Get("a", func() (int, error) { calls.Add(1); return 7, nil })
		}()
	}
	wg.Wait()
	for i, v := range got {
		if v != 7 {
			t.Fatalf("caller %d got %d", i, v)
		}
	}
	if v, _ := m.Get("b", func() (int, error) { calls.Add(1); return 8, nil }); v != 8 || calls.Load() != 2 {
		t.Fatalf("b = %d after %d computations, want 8 after 2", v, calls.Load())
	}
	bad := errors.New("absent")
	for range 2 {
		if _, err := m.Get("c", func() (int, error) { calls.Add(1); return 0, bad }); err != bad {
			t.Fatalf("err = %v", err)
		}
	}
	if calls.Load() != 3 {
		t.Fatalf("%d computations, want 3 (the error is remembered)", calls.Load())
	}
}
