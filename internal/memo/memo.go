// Package memo computes a value once per process for each key.
package memo

import "sync"

// Memo computes the value of each key once per process and shares it:
// concurrent callers of one key wait for the first, and an error is
// remembered like a value. Papers keep their loaded and prepared data in
// one (reproduce/datasets), the proofs registry its shared claim checks
// and claims/convergence its shared audits: every cached value is a
// deterministic function of its key, so caching changes no result. The
// zero value is ready to use.
type Memo[V any] struct {
	mu sync.Mutex
	m  map[string]*memoEntry[V]
}

type memoEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

// Get returns the value of key, computing it with f the first time.
func (c *Memo[V]) Get(key string, f func() (V, error)) (V, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*memoEntry[V]{}
	}
	e, ok := c.m[key]
	if !ok {
		e = &memoEntry[V]{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	return e.v, e.err
}
