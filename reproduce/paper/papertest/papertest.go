// Package papertest holds the checks the paper packages' unit tests share
// (the golden-gate harness is gatetest). It imports package testing, so
// only _test.go files may import it: cmd/fedrepro's TestNoTestingInBinary
// keeps it out of the binary.
package papertest

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
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
