package fedddpm

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
)

// TestGate runs the smoke scale and compares it with
// golden/fedddpm/smoke/results.json (make golden PAPER=fedddpm rewrites it).
func TestGate(t *testing.T) { gatetest.Run(t, "fedddpm") }

// TestClaims runs every fedddpm claim and compares its verdict and named values
// with golden/fedddpm/claims.yaml (verdicts only under -short; `make golden
// PAPER=fedddpm` re-records it).
func TestClaims(t *testing.T) { gatetest.Claims(t, "fedddpm") }

// TestCoverage fails when a method, experiment kind, data or partition
// kind, optimizer, optimizer-state choice, weighting, sampler variance,
// never-fired policy, aux sizing or measurement the reproduction
// registers has no run in the smoke scale (the gate above could not see a
// change to it).
func TestCoverage(t *testing.T) { gatetest.Coverage(t, "fedddpm") }

// TestQuickTestOutcomes covers what a configuration cannot name: whether
// QuickTest fires is an outcome of the run. The smoke golden (which
// TestGate holds equal to the smoke runs) must contain a FedDDPM+ run in
// which QuickTest fired, and for each never-fired policy one in which it
// did not — else that policy's code never ran. A never-fired run under
// no-correction returns w_T, FedAvg's model after the same rounds and
// draws, so its every final score must equal its FedAvg twin's.
func TestQuickTestOutcomes(t *testing.T) {
	gatetest.RequireData(t, "fedddpm")
	s, err := specs.Load("smoke")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Plan(newSources("").Available)
	if err != nil {
		t.Fatal(err)
	}
	cfgs := map[string]RunConfig{}
	for _, r := range runs {
		cfgs[r.ID()] = r.Config.(RunConfig)
	}
	g, err := gate.Read(filepath.Join(gatetest.Root(t), "golden", "fedddpm", "smoke", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]gate.RunValues{}
	for _, r := range g.Runs {
		byID[r.ID()] = r
	}
	fired := 0
	unfired := map[string]int{}
	for _, r := range g.Runs {
		c, ok := cfgs[r.ID()]
		if !ok || c.Method != "fedddpm+" {
			continue
		}
		if r.Values["final/fired"] == 1 {
			fired++
			continue
		}
		nf, err := neverFired(c.Setting.QuickTest.NeverFired)
		if err != nil {
			t.Fatal(err)
		}
		unfired[nf.String()]++
		if nf != neverFiredRules[1] { // no-correction
			continue
		}
		twin := strings.TrimSuffix(r.Cell, "/fedddpm+") + "/fedavg"
		fa, ok := byID[gate.RunValues{Experiment: r.Experiment, Cell: twin, Seed: r.Seed}.ID()]
		if !ok {
			t.Errorf("%s: QuickTest never fired under no-correction, but experiment %s has no FedAvg run of the cell to compare with", r.ID(), r.Experiment)
			continue
		}
		for _, k := range []string{"final/fd", "final/mmd2", "final/mode_tv", "final/class_tv"} {
			a, okA := r.Values[k]
			b, okB := fa.Values[k]
			if okA != okB || a != b {
				t.Errorf("%s: %s = %v, its FedAvg twin's %v; an uncorrected FedDDPM+ must return FedAvg's model", r.ID(), k, a, b)
			}
		}
	}
	if fired == 0 {
		t.Error("no smoke FedDDPM+ run in which QuickTest fires: the stopping path is not gated")
	}
	for _, nf := range neverFiredRules {
		if unfired[nf.String()] == 0 {
			t.Errorf("no smoke FedDDPM+ run under never_fired %s in which QuickTest did not fire: that policy's path is not gated", nf)
		}
	}
	t.Logf("FedDDPM+ smoke runs: QuickTest fired in %d; did not fire in %v", fired, unfired)
}
