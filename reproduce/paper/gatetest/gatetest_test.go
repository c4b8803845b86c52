package gatetest

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// TestMachineFree: an audit value naming the data directory (or the
// checkout's parent) is refused; a value naming only a folder's last
// element passes.
func TestMachineFree(t *testing.T) {
	data := filepath.Join(t.TempDir(), "datasets", "upcycled-synthetic")
	parent := checkoutParent()
	if parent == "" {
		t.Fatal("no go.mod above the working directory")
	}
	for _, c := range []struct {
		value string
		bad   bool
	}{
		{"Data: released Syn(iid) from upcycled-synthetic; 30 clients", false},
		{"Data: released Syn(iid) at " + data + "; 30 clients", true},
		{"read " + filepath.Join(parent, "shared", "datasets", "x"), true},
	} {
		n := gate.Flatten("", map[string]any{"notes": []any{c.value}})
		err := machineFree(n, data)
		if (err != nil) != c.bad {
			t.Errorf("%q: error %v, want refused = %v", c.value, err, c.bad)
		}
		if err != nil && !strings.Contains(err.Error(), "notes/0") {
			t.Errorf("%q: error %q does not name the value", c.value, err)
		}
	}
}

// TestReportAuditOptions pins what makes the paper gates' omission of the
// "claims" entry exact: the options a report runs its audits with give the
// claim engine the options claims' TestGolden audits with (seed
// proofs.DefaultSeed, full size), for every paper with claim files.
func TestReportAuditOptions(t *testing.T) {
	want := claims.EngineOptions(audit.Options{Seed: proofs.DefaultSeed})
	for _, p := range claims.Papers {
		ao := paper.AuditOptions(p, paper.Options{Scale: "smoke"})
		if got := claims.EngineOptions(ao); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the report audits claims with %+v, claims' TestGolden with %+v", p, got, want)
		}
	}
	if _, ok := GatedElsewhere[claims.EntryID]; !ok {
		t.Errorf("GatedElsewhere lacks %q", claims.EntryID)
	}
}

// TestWithoutPrefix: only the values under the prefix are dropped, and
// they are counted.
func TestWithoutPrefix(t *testing.T) {
	n := gate.Flatten("", map[string]any{"claims": map[string]any{"rows": []any{map[string]any{"eps": 1.5, "verdict": "ok"}}},
		"claimsx": 2.0, "fit": map[string]any{"verdict": "gap"}})
	out, dropped := withoutPrefix(n, "claims/")
	if dropped != 2 {
		t.Errorf("dropped %d values, want 2", dropped)
	}
	if _, ok := out.Numbers["claimsx"]; !ok || out.Strings["fit/verdict"] != "gap" || len(out.Numbers)+len(out.Strings) != 2 {
		t.Errorf("kept %+v", out)
	}
}
