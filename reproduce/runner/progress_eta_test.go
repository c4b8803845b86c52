package runner

import (
	"strings"
	"testing"
	"time"
)

// TestProgressETAByCost: with costs the ETA extrapolates the elapsed time
// by the cost left over the cost done, without them (or with a cost that
// is not a positive number) by runs left over runs done.
func TestProgressETAByCost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		costs []float64
		done  float64 // cost of the first run, passed to step
		want  string
	}{
		{"by cost", []float64{3, 1}, 3, "eta 3s"},      // 10 s × 1/3
		{"by count", nil, 0, "eta 10s"},                // 10 s × 1/1
		{"a zero cost", []float64{3, 0}, 3, "eta 10s"}, // the costs cannot weigh: by count
		{"short first", []float64{1, 4}, 1, "eta 40s"}, // 10 s × 4/1
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			p := newProgress(&sb, false, 2, 0, tc.costs)
			t0 := p.start
			p.now = func() time.Time { return t0.Add(10 * time.Second) }
			p.step(false, tc.done)
			if got := p.status(p.now()); !strings.Contains(got, tc.want) {
				t.Errorf("status %q, want %q", got, tc.want)
			}
		})
	}
}
