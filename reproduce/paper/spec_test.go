package paper

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

type headedExp struct {
	ExperimentHeader `yaml:",inline"`
	Bad              bool
}

// TestCheckExperiments: the experiment half of every paper's validation
// refuses a repeated name before checking the repeat, and prefixes the
// paper's own error with the experiment's name; a clean list passes.
func TestCheckExperiments(t *testing.T) {
	exp := func(name string, bad bool) headedExp {
		return headedExp{ExperimentHeader: ExperimentHeader{Name: name}, Bad: bad}
	}
	check := func(e *headedExp) error {
		if e.Bad {
			return errors.New("bad")
		}
		return nil
	}
	for _, c := range []struct {
		name string
		exps []headedExp
		want string // "" for no error
	}{
		{"clean", []headedExp{exp("a", false), exp("b", false)}, ""},
		{"empty", nil, ""},
		{"twice", []headedExp{exp("a", false), exp("a", true)}, `experiment "a" defined twice`},
		{"own error", []headedExp{exp("a", false), exp("b", true)}, "experiment b: bad"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckExperiments(c.exps, check)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("error %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestSeedsOf: an experiment's own seeds replace the spec's; none, the
// spec's.
func TestSeedsOf(t *testing.T) {
	h := SpecHeader{Seeds: []uint64{1, 2}}
	if got := h.SeedsOf(&ExperimentHeader{}); !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("no own seeds: %v, want the spec's", got)
	}
	if got := h.SeedsOf(&ExperimentHeader{Seeds: []uint64{7}}); !slices.Equal(got, []uint64{7}) {
		t.Errorf("own seeds: %v, want [7]", got)
	}
}
