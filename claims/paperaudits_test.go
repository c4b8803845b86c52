package claims_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper/gatetest"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
)

// TestPaperAuditsGatedHere gates the "claims" audit table of every
// reproduced paper (claims.AuditEntry) against golden/<paper>/audits.json,
// from the reports TestGolden computes. The paper gates leave that entry
// out (gatetest.GatedElsewhere); this test is what replaces them, so it
// checks the three things that make the replacement exact:
//   - the options are the same: TestGolden's equal the entry's engine
//     options at the report's audit options (seed proofs.DefaultSeed, full
//     size; gatetest's TestReportAuditOptions pins paper.AuditOptions);
//   - the function is the same: the table is claims.PaperTable over the
//     paper's claim files in ForPaper order, which is what the entry runs;
//   - the numbers are the same: every value of the golden's claims/…
//     section, flattened as the paper gate flattens it
//     (gatetest.FlattenTable), under the exact tier's tolerance;
//   - the row contract the paper packages' audit tests check on their other
//     tables (papertest.AuditTableExact: every column in every row, no
//     extra field, finite numbers).
func TestPaperAuditsGatedHere(t *testing.T) {
	if want := claims.EngineOptions(audit.Options{Seed: proofs.DefaultSeed}); !reflect.DeepEqual(claims.GoldenOptions, want) {
		t.Fatalf("TestGolden audits with %+v, the paper reports' claims entry with %+v", claims.GoldenOptions, want)
	}
	if _, ok := gatetest.GatedElsewhere[claims.EntryID]; !ok {
		t.Errorf("the paper gates compute the %q entry themselves: this test gates it twice", claims.EntryID)
	}
	reps := claims.SharedReports(t)
	for _, p := range claims.Papers {
		var rs []*claim.Report
		for _, id := range claims.ForPaper(p) {
			rs = append(rs, reps[id])
		}
		tab := claims.PaperTable("", rs)
		papertest.AuditTableExact(t, tab)
		fresh := gatetest.FlattenTable(claims.EntryID, tab)
		path := filepath.Join("..", "golden", p, "audits.json")
		g, err := gate.ReadAudits(path)
		if err != nil {
			t.Errorf("%v (record it with `make golden PAPER=%s`)", err, p)
			continue
		}
		want := gate.Flatten("", nil)
		for k, v := range g.Values.Numbers {
			if strings.HasPrefix(k, claims.EntryID+"/") {
				want.Numbers[k] = v
			}
		}
		for k, v := range g.Values.Strings {
			if strings.HasPrefix(k, claims.EntryID+"/") {
				want.Strings[k] = v
			}
		}
		if len(want.Numbers)+len(want.Strings) == 0 {
			t.Errorf("%s has no %s/… values: re-record with `make golden PAPER=%s`", path, claims.EntryID, p)
			continue
		}
		tol, note := gate.TolFor(g.Platform)
		if diffs := gate.CompareNamed(want, fresh, tol); len(diffs) > 0 {
			t.Errorf("%s's %s audit (%s): %d values differ from %s:\n%s\nIf intended, re-record with `make golden PAPER=%s` (the claim files' goldens with `make golden-claims`).",
				p, claims.EntryID, note, len(diffs), path, gate.NamedTable(diffs, 40), p)
		}
	}
}
