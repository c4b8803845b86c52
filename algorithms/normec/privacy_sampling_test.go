package normec

import (
	"errors"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// TestClientEventIsTheValidEvent: ClientEvent, now derived from the
// sampler's description (accountant.ValidEvent of Participation), is the
// event the package always accounted — Poisson(p) for p < 1, plain
// composition at p = 1 — so no reported ε moves; and accounting it for a
// visible-participation run is refused, never amplified.
func TestClientEventIsTheValidEvent(t *testing.T) {
	for _, p := range []float64{0.01, 0.25, 0.5, 0.999, 1} {
		for _, rounds := range []int{1, 300} {
			var m accountant.Event = accountant.Gaussian{Sigma: 0.7}
			if p < 1 {
				m = accountant.PoissonSampled{Q: p, Event: m}
			}
			want := accountant.SelfComposed{Event: m, Count: rounds}
			got := ClientEvent(0.7, p, rounds)
			if got.String() != want.String() {
				t.Errorf("p = %g, %d rounds: ClientEvent = %v, want %v", p, rounds, got, want)
			}
			for _, nb := range []accountant.Neighbouring{accountant.AddRemove, accountant.ReplaceOne} {
				if err := accountant.CheckRun(Participation(p, rounds, nb, false), got, nb); err != nil {
					t.Errorf("p = %g: the paper's hidden reading refused: %v", p, err)
				}
				err := accountant.CheckRun(Participation(p, rounds, nb, true), got, nb)
				if (p < 1) != errors.Is(err, accountant.ErrSamplingMismatch) {
					t.Errorf("p = %g, visible participation: CheckRun = %v", p, err)
				}
			}
		}
	}
}
