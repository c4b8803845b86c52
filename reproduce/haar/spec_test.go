package haar

import (
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/dpfl"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func TestSpecsPlan(t *testing.T) {
	papertest.EachScale(t, specs.Load, (*Spec).Plan, func(t *testing.T, s *Spec, runs []runner.Run) {
		if len(runs) == 0 {
			t.Fatal("no run planned")
		}
		cells := map[string]int{}
		for _, r := range runs {
			if err := r.Validate(); err != nil {
				t.Error(err)
			}
			if _, err := r.ConfigHash(); err != nil {
				t.Error(err)
			}
			cells[r.Experiment+"/"+r.Cell]++
		}
		for c, n := range cells {
			if n < 4 {
				t.Errorf("cell %s has %d seeds; the gate's U test needs ≥ 4", c, n)
			}
		}
		// Missing datasets drop their runs instead of failing.
		only, _ := s.Plan(func(ds string) bool { return ds == "fashion_mnist" })
		for _, r := range only {
			if !strings.HasPrefix(r.Cell, "fashion_mnist/") {
				t.Errorf("run %s planned without its data", r.ID())
			}
		}
	})
}

func TestSpecStrict(t *testing.T) {
	b, _ := specFS.ReadFile("specs/smoke.yaml")
	for _, c := range []struct{ from, to, want string }{
		{"    rounds: 5\n", "    rounds: 5\n    roundz: 5\n", "roundz"},
		{"methods: [nonprivate, vanilla, dyn", "methods: [nonprivate, vanila, dyn", "unknown method"},
		{"level: user", "level: client", "level"},
		{"wav_domain: coefficient", "wav_domain: pixel", "clip domain"},
		{"rho_sigma: 2", "rho_sigma: 0.5", "rho_sigma"},
		{"delta: 1.0e-5\n", "delta: 1.0e-5\naudit_size: tiny\n", "audit_size"},
	} {
		papertest.Rejects(t, specs, "smoke", c.from, c.to, c.want)
	}
	if s, err := specs.Decode("smoke.yaml", []byte(strings.Replace(string(b), "delta: 1.0e-5\n", "delta: 1.0e-5\naudit_size: quick\n", 1)), "smoke"); err != nil || s.AuditSize != "quick" {
		t.Errorf("audit_size: quick: %v", err)
	}
	papertest.RejectsOtherScale(t, specs, "smoke", "default")
}

// TestSmokeReachesHighRDPOrders keeps a smoke cell whose ε the RDP
// accountant takes at a high order (above 32, inside Opacus' grid that
// ends at 63): at the other cells' σ the optimum lies below 20, so a
// change to the upper part of the order grid would move no gated number.
// The ledger is rebuilt from the run's configuration as the DP-SGD client
// fills it: Rounds·Epochs·⌈n/L⌉ releases at q = L/n.
func TestSmokeReachesHighRDPOrders(t *testing.T) {
	_, runs := papertest.Plan(t, specs.Load, "smoke", (*Spec).Plan, papertest.Everything)
	best := 0.0
	for _, r := range runs {
		c := r.Config.(RunConfig)
		if c.Level != "sample" || c.Method != "vanilla" {
			continue
		}
		n := float64(c.Data.ClientSize)
		l := &dpfl.Ledger{}
		l.Add(dpfl.Entry{Q: min(1, c.Lot/n), Sigma: c.Sigma, Multiplier: c.Sigma, Steps: c.Rounds * c.Epochs * dpfl.StepsPerEpoch(c.Data.ClientSize, c.Lot)})
		_, order, err := accountant.RDPEpsilon(l.Event(false), c.Delta)
		if err != nil {
			t.Fatal(err)
		}
		best = max(best, order)
	}
	if !(best > 32) {
		t.Errorf("the highest optimal RDP order of a smoke DP-SGD cell is %g; keep a cell above 32 (a large σ) so the gate sees the upper orders", best)
	}
}
