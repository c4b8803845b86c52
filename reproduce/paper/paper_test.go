package paper

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

type toySpec struct {
	Scale string  `yaml:"scale"`
	Rate  float64 `yaml:"rate"`
}

func validToy(s *toySpec) error {
	if s.Rate <= 0 {
		return errors.New("rate must be > 0")
	}
	return nil
}

func toyScale(s *toySpec) string { return s.Scale }

func TestLoadSpec(t *testing.T) {
	fsys := fstest.MapFS{"specs/smoke.yaml": {Data: []byte("scale: smoke\nrate: 0.5\n")}}
	s, err := LoadSpec(fsys, "reproduce/toy", Options{Scale: "smoke"}, validToy, toyScale)
	if err != nil || s.Rate != 0.5 {
		t.Fatalf("embedded spec: %v %+v", err, s)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"no such scale", Options{Scale: "huge"}, `reproduce/toy: no spec for scale "huge"`},
		{"unknown key", Options{Scale: "smoke", SpecFile: write("a.yaml", "scale: smoke\nrate: 1\nrat: 2\n")}, `a.yaml:3: unknown key "rat"`},
		{"invalid", Options{Scale: "smoke", SpecFile: write("b.yaml", "scale: smoke\nrate: -1\n")}, "b.yaml: rate must be > 0"},
		{"scale mismatch", Options{Scale: "default", SpecFile: write("c.yaml", "scale: smoke\nrate: 1\n")}, `scale "smoke", but --scale is "default"`},
	}
	for _, c := range cases {
		_, err := LoadSpec(fsys, "reproduce/toy", c.o, validToy, toyScale)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestFilterAndCount(t *testing.T) {
	runs := []runner.Run{{Experiment: "a"}, {Experiment: "b"}, {Experiment: "a"}}
	got, err := filterExperiments(runs, []string{"a"})
	if err != nil || len(got) != 2 {
		t.Fatalf("filter: %v %v", got, err)
	}
	if _, err := filterExperiments(runs, []string{"z"}); err == nil || !strings.Contains(err.Error(), "[a b]") {
		t.Fatalf("unknown experiment: %v", err)
	}
	exps := CountRuns([]Experiment{{Name: "a"}, {Name: "b"}, {Name: "c"}}, runs)
	if exps[0].Runs != 2 || exps[1].Runs != 1 || exps[2].Runs != 0 {
		t.Fatalf("counts %+v", exps)
	}
}

func TestConfigOf(t *testing.T) {
	live := &runner.Result{Run: runner.Run{Config: toySpec{Scale: "x", Rate: 2}}}
	stored := &runner.Result{Run: runner.Run{Config: map[string]any{"Scale": "y", "Rate": 3.0}}}
	a, err := ConfigOf[toySpec](live)
	b, err2 := ConfigOf[toySpec](stored)
	if err != nil || err2 != nil || a.Rate != 2 || b.Rate != 3 || b.Scale != "y" {
		t.Fatalf("%+v %v %+v %v", a, err, b, err2)
	}
}

func TestSpecsAndDescribe(t *testing.T) {
	specs := Specs[toySpec]{
		FS:       fstest.MapFS{"specs/smoke.yaml": {Data: []byte("scale: smoke\nrate: 0.5\n")}},
		Dir:      "reproduce/toy",
		Validate: validToy,
		ScaleOf:  toyScale,
	}
	if s, err := specs.Load("smoke"); err != nil || s.Rate != 0.5 {
		t.Fatalf("Load: %v %+v", err, s)
	}
	if _, err := specs.Decode("x.yaml", []byte("scale: smoke\nrate: 0\n"), "smoke"); err == nil || !strings.Contains(err.Error(), "x.yaml: rate must be > 0") {
		t.Errorf("Decode of an invalid spec: %v", err)
	}
	runs := []runner.Run{{Experiment: "b"}, {Experiment: "b"}}
	got := CountRuns([]Experiment{{Name: "a", Description: "first"}, {Name: "b", Description: "second"}}, runs)
	if len(got) != 2 || got[0] != (Experiment{Name: "a", Description: "first"}) || got[1] != (Experiment{Name: "b", Description: "second", Runs: 2}) {
		t.Errorf("CountRuns: %+v", got)
	}
}

// TestSpecHeaderCheck checks the header validation every paper's spec
// runs first: another paper's spec and a spec without seeds are refused
// with the messages the papers gave before they shared it.
func TestSpecHeaderCheck(t *testing.T) {
	for _, tc := range []struct {
		h    SpecHeader
		want string
	}{
		{SpecHeader{Paper: "toy", Seeds: []uint64{1}}, ""},
		{SpecHeader{Paper: "haar", Seeds: []uint64{1}}, `paper "haar", want toy`},
		{SpecHeader{Paper: "", Seeds: []uint64{1}}, `paper "", want toy`},
		{SpecHeader{Paper: "toy"}, "no seeds"},
	} {
		err := tc.h.Check("toy")
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%+v: %v, want %q", tc.h, err, tc.want)
		}
	}
}
