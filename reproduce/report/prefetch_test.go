package report

import (
	"sync/atomic"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
)

// PrefetchAudits computes a paper's audits in the background and Audits
// then writes exactly what it writes without the prefetch: the same tables
// in registration order, each audit computed once. One audit blocks until
// the test releases it, so PrefetchAudits must return before the audits
// finish (they run beside the caller, not in it).
func TestPrefetchAuditsSameAsSequential(t *testing.T) {
	const paper = "prefetch-test"
	release := make(chan struct{})
	var calls [3]atomic.Int32
	for i, id := range []string{"a", "b", "c"} {
		audit.Register(audit.Entry{Paper: paper, ID: id, Title: "audit " + id, Run: func(o audit.Options) (audit.Table, error) {
			calls[i].Add(1)
			if id == "b" && o.Seed == 2 {
				<-release
			}
			return audit.Table{Columns: []string{"x"}, Rows: []audit.Row{{"x": float64(i) + 0.5}}, Verdict: "v" + id}, nil
		}})
	}
	seq := &Doc{}
	want := Audits(seq, paper, audit.Options{Seed: 1}, nil)

	PrefetchAudits(paper, audit.Options{Seed: 2}) // would hang here if it waited for b
	close(release)
	par := &Doc{}
	got := Audits(par, paper, audit.Options{Seed: 2}, nil)

	if seq.String() != par.String() {
		t.Fatalf("prefetched report differs:\n%s\nwant:\n%s", par.String(), seq.String())
	}
	if len(got) != len(want) || len(got) != 3 {
		t.Fatalf("%d tables, want %d (3)", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Verdict != want[i].Verdict {
			t.Fatalf("table %d: %s/%s, want %s/%s", i, got[i].ID, got[i].Verdict, want[i].ID, want[i].Verdict)
		}
	}
	for i := range calls {
		if n := calls[i].Load(); n != 2 {
			t.Fatalf("audit %d ran %d times over the two passes, want 2 (once each)", i, n)
		}
	}
	pendingMu.Lock()
	left := len(pending)
	pendingMu.Unlock()
	if left != 0 {
		t.Fatalf("%d prefetched audits were never collected", left)
	}
}
