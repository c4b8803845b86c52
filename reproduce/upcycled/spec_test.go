package upcycled

import (
	"testing"

	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
)

// TestSpecErrors: the embedded smoke spec with one plausible mistake is
// refused with an error naming the file and the mistake (strict decoding,
// the header's check, the experiment checks), and a spec of one scale is
// refused as another.
func TestSpecErrors(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"generator_seed: 2024\n", "generator_seed: 2024\ngenerator_sead: 1\n", "generator_sead"},
		{"paper: upcycled", "paper: haar", `paper "haar"`},
		{"seeds: [1, 2, 3, 4]", "seeds: []", "no seeds"},
		{"  - name: table3\n", "  - name: table1\n", `experiment "table1" defined twice`},
		{"privacy: none", "privacy: local", `privacy "local"`},
		{"setting: nonprivate", "setting: private", `no tuning block "private"`},
		{"datasets: [syn_iid, syn_1_1]", "datasets: [syn_iid, mnist]", `unknown dataset "mnist"`},
		{"sources: [released, generated]", "sources: [released, scraped]", `unknown data source "scraped"`},
		{"modes: [upstream]", "modes: [downstream]", `unknown mode "downstream"`},
		{"frac: 0.3", "frac: 1.5", "frac 1.5"},
		{"model: logreg", "model: cnn", `model "cnn"`},
	} {
		papertest.Rejects(t, specs, "smoke", c.from, c.to, c.want)
	}
	papertest.RejectsOtherScale(t, specs, "smoke", "default")
}
