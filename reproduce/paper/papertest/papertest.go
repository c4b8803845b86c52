// Package papertest holds the checks the paper packages' unit tests share
// (the golden-gate harness is gatetest). It imports package testing, so
// only _test.go files may import it: cmd/fedrepro's TestNoTestingInBinary
// keeps it out of the binary.
package papertest

import (
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// AuditTable checks the row contract every audit table keeps, whatever the
// paper: each row holds every one of the table's columns and every float64
// cell is finite. NaN or ±Inf in a committed audit would reach the report
// as text and compare unequal to itself in the gate, so an audit says "not
// computed" another way. The table's own invariants (rows present,
// verdict, notes) differ per paper and stay with the caller.
func AuditTable(t testing.TB, tab audit.Table) {
	t.Helper()
	for i, r := range tab.Rows {
		for _, c := range tab.Columns {
			v, ok := r[c]
			if !ok {
				t.Errorf("%s row %d: missing column %s", tab.ID, i, c)
				continue
			}
			if f, isF := v.(float64); isF && (math.IsNaN(f) || math.IsInf(f, 0)) {
				t.Errorf("%s row %d: %s = %v", tab.ID, i, c, f)
			}
		}
	}
}

// AuditTableExact is AuditTable for papers whose rows hold nothing beyond
// their columns (haar, normec): a field no column shows is a value the
// report and audits.json would drop silently. (Upcycled's op-constants and
// op-empirical rows carry extra fields, so its test uses AuditTable.)
func AuditTableExact(t testing.TB, tab audit.Table) {
	t.Helper()
	AuditTable(t, tab)
	for i, r := range tab.Rows {
		if len(r) != len(tab.Columns) {
			t.Errorf("%s row %d has %d fields for %d columns", tab.ID, i, len(r), len(tab.Columns))
		}
	}
}

// Spec is the embedded spec of a scale, read with load (the paper's
// specs.Load); an error fails the test (every embedded spec must decode
// and validate).
func Spec[S any](t testing.TB, load func(scale string) (*S, error), scale string) *S {
	t.Helper()
	s, err := load(scale)
	if err != nil {
		t.Fatalf("spec %s: %v", scale, err)
	}
	return s
}

// Plan is Spec, expanded by the paper's plan over the datasets (or
// sources) present names; an error of either fails the test. Everything
// plans as if every dataset were on the machine.
func Plan[S any](t testing.TB, load func(scale string) (*S, error), scale string, plan func(*S, func(name string) bool) ([]runner.Run, error), present func(name string) bool) (*S, []runner.Run) {
	t.Helper()
	s := Spec(t, load, scale)
	runs, err := plan(s, present)
	if err != nil {
		t.Fatalf("plan of %s: %v", scale, err)
	}
	return s, runs
}

// Everything is the availability test under which every dataset is
// present (what `fedrepro list` counts and the golden scales plan).
func Everything(string) bool { return true }

// EachScale runs check as a subtest for each scale of paper.DefaultScales
// with that scale's embedded spec and, when plan is not nil, the runs plan
// makes of it with every dataset present (Plan with Everything).
func EachScale[S any](t *testing.T, load func(scale string) (*S, error), plan func(*S, func(name string) bool) ([]runner.Run, error), check func(t *testing.T, s *S, runs []runner.Run)) {
	for _, scale := range paper.DefaultScales {
		t.Run(scale, func(t *testing.T) {
			if plan == nil {
				check(t, Spec(t, load, scale), nil)
				return
			}
			s, runs := Plan(t, load, scale, plan, Everything)
			check(t, s, runs)
		})
	}
}

// Rejects checks that a paper's spec refuses one mistake: the embedded
// specs/<scale>.yaml with its first from replaced by to must fail to
// decode, with an error that names the file and mentions want. The test
// fails at once when from is not in the file (an edit that changes
// nothing would pass vacuously). It returns the error for further checks.
func Rejects[S any](t testing.TB, specs paper.Specs[S], scale, from, to, want string) error {
	t.Helper()
	name, base, err := specs.Source(paper.Options{Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(base), from) {
		t.Fatalf("%q is not in %s", from, name)
	}
	_, err = specs.Decode(name, []byte(strings.Replace(string(base), from, to, 1)), scale)
	if err == nil || !strings.Contains(err.Error(), name+":") || !strings.Contains(err.Error(), want) {
		t.Errorf("%s with %q → %q: error %v, want one naming the file and mentioning %s", name, from, to, err, want)
	}
	return err
}

// RejectsOtherScale checks that a paper's embedded spec of one scale is
// refused as another (results are stored per scale).
func RejectsOtherScale[S any](t testing.TB, specs paper.Specs[S], scale, other string) {
	t.Helper()
	name, base, err := specs.Source(paper.Options{Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := specs.Decode(name, base, other); err == nil || !strings.Contains(err.Error(), "--scale") {
		t.Errorf("%s decoded as scale %s: error %v, want a scale mismatch", name, other, err)
	}
}
