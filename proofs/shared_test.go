package proofs

import (
	"sync/atomic"
	"testing"
)

// TestRunShared: a registered claim's check runs once per Config however
// often and from however many goroutines it is asked for, and gives Run's
// result; another Config, a data-reading claim and an unregistered claim
// run afresh.
func TestRunShared(t *testing.T) {
	var calls atomic.Int64
	check := func(cfg Config) Result {
		calls.Add(1)
		return Result{Verdict: Holds, Evidence: "ok", Values: map[string]any{"seed": cfg.Seed}}
	}
	Register(Claim{ID: "sharedtest/once", Paper: "sharedtest", Statement: "s", Source: "test", Check: check})
	c := Claims("sharedtest")[0]
	done := make(chan Result)
	for range 8 {
		go func() { done <- RunShared(c, Config{Seed: 7}) }()
	}
	for range 8 {
		if r := <-done; r.Verdict != Holds || r.Values["seed"] != uint64(7) {
			t.Fatalf("shared result %+v", r)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("check ran %d times for one Config, want 1", n)
	}
	RunShared(c, Config{Seed: 8})
	RunShared(c, Config{Seed: 7, Quick: true})
	if n := calls.Load(); n != 3 {
		t.Fatalf("check ran %d times for three Configs, want 3", n)
	}
	data := c
	data.Needs = []string{"some-dataset"}
	RunShared(data, Config{Seed: 7})
	RunShared(data, Config{Seed: 7})
	own := Claim{ID: "sharedtest/unregistered", Paper: "sharedtest", Check: check}
	RunShared(own, Config{Seed: 7})
	RunShared(own, Config{Seed: 7})
	if n := calls.Load(); n != 7 {
		t.Fatalf("check ran %d times, want 7 (data-reading and unregistered claims are not shared)", n)
	}
}
