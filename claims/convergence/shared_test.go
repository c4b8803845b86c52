package convergence

import (
	"encoding/json"
	"testing"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
)

// TestAuditShared: the shared audit of a file is the audit itself (same
// JSON as a fresh conv.Audit), computed once per (id, seed) — a second
// call returns the same report — and another seed is another audit; an
// unknown id is an error, not a shared empty report.
func TestAuditShared(t *testing.T) {
	const id = "upcycled-lemma5.5"
	a, err := AuditShared(id, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := AuditShared(id, 3)
	if a != b {
		t.Error("a second call audited again")
	}
	if c, _ := AuditShared(id, 4); c == a {
		t.Error("another seed returned the first seed's report")
	}
	cl, err := Load(id)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := conv.Audit(cl, conv.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jf, _ := json.Marshal(fresh)
	if string(ja) != string(jf) {
		t.Errorf("shared report differs from a fresh audit:\n%s\n%s", ja, jf)
	}
	if _, err := AuditShared("no-such-claim", 3); err == nil {
		t.Error("an unknown claim file was audited")
	}
}
