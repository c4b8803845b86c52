package normec

import (
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func TestSpecsDecodeAndPlan(t *testing.T) {
	fmnist := func(ds string) bool { return ds == "fashion-mnist" }
	papertest.EachScale(t, specs.Load, (*Spec).Plan, func(t *testing.T, s *Spec, runs []runner.Run) {
		some, _ := s.Plan(fmnist)
		if len(runs) == 0 || 2*len(some) != len(runs) {
			t.Errorf("%d runs with every dataset, %d with Fashion-MNIST only (want half)", len(runs), len(some))
		}
		seeds := map[string]map[uint64]bool{}
		for _, r := range runs {
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
			c := r.Config.(RunConfig)
			if c.Gate {
				if seeds[r.Cell] == nil {
					seeds[r.Cell] = map[uint64]bool{}
				}
				seeds[r.Cell][r.Seed] = true
			}
			if c.Noise == "formula" && !(c.Sigma > 0) || c.Noise == "none" && c.Sigma != 0 {
				t.Errorf("%s: noise %s with σ = %v", r.ID(), c.Noise, c.Sigma)
			}
		}
		if len(seeds) == 0 {
			t.Error("no gated cell")
		}
		for cell, ss := range seeds {
			if len(ss) < gate.MinSeeds {
				t.Errorf("gated cell %s has %d seeds, the review tier wants %d", cell, len(ss), gate.MinSeeds)
			}
		}
	})
}

func TestSpecErrors(t *testing.T) {
	base, err := specFS.ReadFile("specs/smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The first experiment's block, to duplicate under another name.
	block := strings.Split(strings.SplitN(string(base), "experiments:\n", 2)[1], "  - name: fedavg_logreg")[0]
	for _, tc := range []struct{ name, edit, want string }{
		{"unknown key", strings.Replace(string(base), "  rounds: 40", "  rounds: 40\n  roundz: 3", 1), `unknown key "roundz"`},
		{"bad noise", strings.Replace(string(base), "noises: [formula, none, calibrated]", "noises: [formula, loud]", 1), `unknown "loud"`},
		{"fedavg p", strings.Replace(string(base), "    ps: [1]\n", "    ps: [0.5]\n", 1), "p = 1"},
		{"overlap", strings.Replace(string(base), "experiments:\n", "experiments:\n"+strings.Replace(block, "name: normec_logreg", "name: again", 1), 1), "both plan"},
		{"bad memory", strings.Replace(string(base), "    memory: participants\n", "    memory: some\n", 1), `memory "some"`},
		{"fedavg memory", strings.Replace(string(base), "    method: fedavg\n", "    method: fedavg\n    memory: participants\n", 1), "Fed-α-NormEC only"},
		{"bad spec memory", strings.Replace(string(base), "  memory: all\n", "  memory: none\n", 1), `training.memory "none"`},
	} {
		_, err := specs.Decode("smoke.yaml", []byte(tc.edit), "smoke")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	papertest.RejectsOtherScale(t, specs, "smoke", "default")
}

func TestNoiseSigma(t *testing.T) {
	pr := Privacy{Epsilon: 8, Delta: 1e-5}
	s, err := NoiseSigma("formula", 0.5, 0.01, 300, pr)
	if err != nil || !near(s, 7.346213*0.5*0.01, 1e-6) {
		t.Fatalf("formula σ = %v, %v; want 0.5·0.01·7.346213", s, err)
	}
	for _, p := range []float64{0.25, 1} {
		s, err := NoiseSigma("calibrated", p, 0.1, 300, pr)
		if err != nil {
			t.Fatal(err)
		}
		sp := SpentBy(s, p, 300, pr)
		if !(sp.Amplified <= 8 && sp.Amplified > 7.9) {
			t.Errorf("p = %v: calibrated σ = %v buys ε = %v, want just below 8", p, s, sp.Amplified)
		}
		if p < 1 && !(sp.Visible > 8) {
			t.Errorf("p = %v: a server that sees participation should get ε > 8, got %v", p, sp.Visible)
		}
		v, err := NoiseSigma("calibrated-visible", p, 0.1, 300, pr)
		if err != nil || !(SpentBy(v, p, 300, pr).Visible <= 8.0001) {
			t.Errorf("p = %v: calibrated-visible σ = %v (amplified %v), %v", p, v, s, err)
		}
	}
	if sp := SpentBy(0, 1, 300, pr); !(sp.Amplified > 1e300 && sp.Visible > 1e300) {
		t.Errorf("no noise: %+v, want ε = ∞", sp)
	}
	if _, err := NoiseSigma("loud", 1, 1, 300, pr); err == nil {
		t.Error("unknown noise accepted")
	}
}

// TestVariantCells checks that an experiment's memory and local-steps
// overrides reach its runs and label their cells, and leave the other
// experiments' runs on the spec's protocol.
func TestVariantCells(t *testing.T) {
	s, runs := papertest.Plan(t, specs.Load, "smoke", (*Spec).Plan, func(ds string) bool { return ds == "fashion-mnist" })
	seen := map[string]bool{}
	for _, r := range runs {
		c := r.Config.(RunConfig)
		var e *Experiment
		for i := range s.Experiments {
			if s.Experiments[i].Name == r.Experiment {
				e = &s.Experiments[i]
			}
		}
		wantMem, wantT := s.Training.Memory, s.Training.LocalSteps
		if e.Memory != "" {
			wantMem = e.Memory
		}
		if e.LocalSteps > 0 {
			wantT = e.LocalSteps
		}
		if c.Training.Memory != wantMem || c.Training.LocalSteps != wantT {
			t.Errorf("%s: memory %q, %d local steps; want %q, %d", r.ID(), c.Training.Memory, c.Training.LocalSteps, wantMem, wantT)
		}
		v := Variant(c)
		seen[v] = true
		if v != "" && !strings.HasSuffix(r.Cell, "/"+v) || v == "" && strings.Contains(r.Cell, "memory=") {
			t.Errorf("%s: cell %q, variant %q", r.ID(), r.Cell, v)
		}
	}
	for _, v := range []string{"", "memory=participants", "T=3"} {
		if !seen[v] {
			t.Errorf("no smoke run of variant %q", v)
		}
	}
}
