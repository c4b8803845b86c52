package paper

import (
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
)

// TestRegisterAudits checks that a paper's audits are registered under its
// name in the order given, and that an entry naming another paper is
// refused.
func TestRegisterAudits(t *testing.T) {
	run := func(audit.Options) (audit.Table, error) { return audit.Table{}, nil }
	RegisterAudits("audits-test", []audit.Entry{
		{ID: "second", Title: "listed first", Run: run},
		{ID: "first", Title: "listed second", Run: run},
	})
	got := audit.Entries("audits-test")
	if len(got) != 2 || got[0].ID != "second" || got[1].ID != "first" || got[0].Paper != "audits-test" || got[1].Title != "listed second" {
		t.Errorf("registered %+v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("an entry of another paper was registered")
		}
	}()
	RegisterAudits("audits-test", []audit.Entry{{Paper: "other", ID: "x", Run: run}})
}
