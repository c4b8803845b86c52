// Package gatetest runs a paper's smoke-scale reproduction inside `go test`
// and gates it against golden/<paper>/smoke/results.json, so `make test`
// fails when a change moves a reproduced number. `go test … -update`
// (make golden) rewrites the golden file instead.
package gatetest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/internal/goldenflag"
	"github.com/fedrepro/fedrepro/proofs/prooftest"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/claims"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
)

var (
	update = goldenflag.Update
	scale  = flag.String("gate-scale", "smoke", "scale to gate (smoke in CI; make golden SCALE=default records default)")
)

// Root returns the module root, found by walking up to go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := prooftest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// diffLimit bounds the rows of a failure table.
const diffLimit = 40

// Run executes the exact gate for the named paper: its smoke results value
// for value against golden/<paper>/smoke/results.json, its audit tables
// against golden/<paper>/audits.json, then writes its report from those
// results. With -update (make golden) it re-records both goldens instead and
// logs the review of old against new.
func Run(t *testing.T, name string) {
	t.Helper()
	p, ok := paper.Lookup(name)
	if !ok {
		t.Fatalf("paper %s is not registered", name)
	}
	root := Root(t)
	o := paper.Options{
		Scale:      *scale,
		ResultsDir: t.TempDir(),
		SharedDir:  filepath.Join(root, "..", "shared"),
		CacheDir:   filepath.Join(root, ".cache"),
	}
	golden := filepath.Join(root, "golden")
	ctx := context.Background()
	if *update {
		path, review, err := p.UpdateGolden(ctx, o, golden)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		if review != nil {
			t.Logf("review of the old golden against the new one (%s):\n%s", gate.ReviewCounts(review), gate.ReviewTable(review))
		}
		if err := updateAudits(p, o, golden); err != nil {
			t.Fatal(err)
		}
		return
	}
	requireData(t, p, o, golden)
	cmp, err := p.Compare(ctx, o, golden, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Diffs) > 0 {
		t.Errorf("%s/%s exact gate (%s): %s\n%s\nIf the change is meant to move these numbers, re-record with `make golden PAPER=%s` and review the table it prints.",
			name, o.Scale, cmp.TolNote, gate.Summary(cmp.Diffs, cmp.Golden), gate.Table(cmp.Diffs, diffLimit), name)
	} else {
		t.Logf("%s/%s: %d runs, every value equal to the golden (%s)", name, o.Scale, len(cmp.Golden.Runs), cmp.TolNote)
	}
	checkAudits(t, p, o, golden)
	checkReport(t, ctx, p, o)
}

// Coverage fails when a component the paper registers (a method, mode,
// mechanism or optimizer) has no run in the gated scale, or when a run uses
// a component the paper does not declare.
func Coverage(t *testing.T, name string) {
	t.Helper()
	p, ok := paper.Lookup(name)
	if !ok {
		t.Fatalf("paper %s is not registered", name)
	}
	root := Root(t)
	o := paper.Options{Scale: *scale, SharedDir: filepath.Join(root, "..", "shared"), CacheDir: filepath.Join(root, ".cache")}
	requireData(t, p, o, filepath.Join(root, "golden"))
	missing, err := p.Uncovered(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("%s/%s exercises no run of %d registered components: %v (add smoke cells for them)", name, o.Scale, len(missing), missing)
	}
	known := map[string]bool{}
	for _, c := range p.Components() {
		known[c] = true
	}
	o, _ = p.Normalize(o)
	pl, err := p.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pl.Runs {
		for _, c := range p.Uses(r) {
			if !known[c] {
				t.Fatalf("run %s uses %q, which %s does not declare among its components", r.ID(), c, name)
			}
		}
	}
}

// RequireData skips the calling test — or fails it under CI=true — with one
// line when runs of the paper's smoke golden cannot be planned here for
// missing data (see requireData).
func RequireData(t *testing.T, name string) {
	t.Helper()
	p, ok := paper.Lookup(name)
	if !ok {
		t.Fatalf("paper %s is not registered", name)
	}
	root := Root(t)
	o := paper.Options{Scale: *scale, SharedDir: filepath.Join(root, "..", "shared"), CacheDir: filepath.Join(root, ".cache")}
	requireData(t, p, o, filepath.Join(root, "golden"))
}

// requireData skips the gate — or fails it under CI=true — with one line
// naming the missing dataset and the command that obtains it, when runs of
// the golden cannot be planned here because their data is absent (a fresh
// clone without ../shared, a machine without Fashion-MNIST).
func requireData(t *testing.T, p *paper.Paper, o paper.Options, golden string) {
	t.Helper()
	g, err := p.ReadGolden(golden, o.Scale)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	planned := map[string]bool{}
	for _, r := range pl.Runs {
		planned[r.ID()] = true
	}
	absent := 0
	for _, r := range g.Runs {
		if !planned[r.ID()] {
			absent++
		}
	}
	if absent == 0 {
		return
	}
	var why []string
	for _, e := range []datasets.Entry{datasets.Upcycled(o.SharedDir, o.CacheDir), datasets.FashionMNIST("")} {
		if e.Status != datasets.OK && slices.Contains(e.Papers, p.Name) {
			why = append(why, e.Line())
		}
	}
	if len(why) == 0 && len(pl.Notes) > 0 {
		why = append(why, strings.TrimSpace(pl.Notes[0]))
	}
	msg := fmt.Sprintf("%s/%s: %d of %d golden runs need data this machine lacks: %s", p.Name, o.Scale, absent, len(g.Runs), strings.Join(why, "; "))
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// AuditsPath is golden/<paper>/audits.json under root.
func AuditsPath(root, name string) string { return filepath.Join(root, name, "audits.json") }

// AuditValues runs every audit of a paper with the options its report uses
// and flattens the tables (rows, verdict, notes) into named values.
func AuditValues(p *paper.Paper, o paper.Options) (gate.Named, int, error) {
	return auditValues(p, o, nil)
}

// FlattenTable is the named values of one audit table in
// golden/<paper>/audits.json: its rows, verdict and notes under its ID.
func FlattenTable(id string, tab audit.Table) gate.Named {
	rows := make([]any, len(tab.Rows))
	for i, r := range tab.Rows {
		rows[i] = map[string]any(r)
	}
	notes := make([]any, len(tab.Notes))
	for i, n := range tab.Notes {
		notes[i] = n
	}
	return gate.Flatten(id, map[string]any{"rows": rows, "verdict": tab.Verdict, "notes": notes})
}

// GatedElsewhere names the audit entries the paper gate does not compute,
// with the test that gates their part of golden/<paper>/audits.json
// instead. The claim-engine table (claims.AuditEntry) is a pure function of
// the paper's claim files and of (seed, quick); claims' TestGolden audits
// every claim file with the options a report uses and compares each
// paper's table with the "claims/…" values of its audits.json
// (TestPaperAuditsGatedHere), so computing it again in each paper gate
// would gate the same numbers twice. `make golden PAPER=…` still records
// it (AuditValues computes every entry).
var GatedElsewhere = map[string]string{claims.EntryID: "claims' TestPaperAuditsGatedHere"}

// auditValues is AuditValues without the entries in skip.
func auditValues(p *paper.Paper, o paper.Options, skip map[string]string) (gate.Named, int, error) {
	all := gate.Flatten("", nil)
	es := audit.Entries(p.Name)
	ao := paper.AuditOptions(p.Name, o)
	n := 0
	for _, e := range es {
		if _, ok := skip[e.ID]; ok {
			continue
		}
		tab, err := audit.Run(e, ao)
		if err != nil {
			return all, 0, fmt.Errorf("audit %s/%s: %w", p.Name, e.ID, err)
		}
		all.Merge(FlattenTable(e.ID, tab))
		n++
	}
	if err := machineFree(all, ao.DataDir); err != nil {
		return all, 0, fmt.Errorf("audits of %s: %w", p.Name, err)
	}
	return all, n, nil
}

// machineFree refuses audit values that name the machine's data directory:
// a golden holding /home/me/data would fail on every other checkout.
func machineFree(n gate.Named, dataDir string) error {
	var dirs []string
	for _, d := range []string{dataDir, os.Getenv("FEDREPRO_SHARED"), checkoutParent()} {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			dirs = append(dirs, abs)
		}
	}
	keys := make([]string, 0, len(n.Strings))
	for k := range n.Strings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, d := range dirs {
			if strings.Contains(n.Strings[k], d) {
				return fmt.Errorf("%s names the machine path %s; a golden must not depend on where data lives", k, d)
			}
		}
	}
	return nil
}

// checkoutParent is the directory holding this checkout (where ../shared
// sits): the go.mod directory's parent, found from the working directory.
func checkoutParent() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Dir(dir)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

func updateAudits(p *paper.Paper, o paper.Options, golden string) error {
	vals, n, err := AuditValues(p, o)
	if err != nil || n == 0 {
		return err
	}
	return gate.WriteAudits(AuditsPath(golden, p.Name), &gate.AuditSnapshot{
		SchemaVersion: gate.SchemaVersion, Paper: p.Name, Platform: gate.Platform(), Values: vals,
	})
}

// checkAudits compares every number and label of the paper's audit tables
// with golden/<paper>/audits.json, under the exact tier's tolerance.
// The entries in GatedElsewhere are left out on both sides (their golden
// values must be present; the test named there compares them).
func checkAudits(t *testing.T, p *paper.Paper, o paper.Options, golden string) {
	t.Helper()
	vals, n, err := auditValues(p, o, GatedElsewhere)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 && len(audit.Entries(p.Name)) == 0 {
		return
	}
	path := AuditsPath(golden, p.Name)
	g, err := gate.ReadAudits(path)
	if err != nil {
		t.Fatalf("%v (record it with `make golden PAPER=%s`)", err, p.Name)
	}
	want := g.Values
	for _, e := range audit.Entries(p.Name) {
		if by, ok := GatedElsewhere[e.ID]; ok {
			var held int
			want, held = withoutPrefix(want, e.ID+"/")
			if held == 0 {
				t.Errorf("%s holds no values of audit %s, which %s gates: re-record with `make golden PAPER=%s`", path, e.ID, by, p.Name)
			}
		}
	}
	tol, note := gate.TolFor(g.Platform)
	if diffs := gate.CompareNamed(want, vals, tol); len(diffs) > 0 {
		t.Errorf("%s audits (%s): %d values differ from %s:\n%s\nIf intended, re-record with `make golden PAPER=%s`.",
			p.Name, note, len(diffs), path, gate.NamedTable(diffs, diffLimit), p.Name)
	}
}

// withoutPrefix returns n without the values whose names start with
// prefix, and how many it dropped.
func withoutPrefix(n gate.Named, prefix string) (gate.Named, int) {
	out := gate.Flatten("", nil)
	dropped := 0
	for k, v := range n.Numbers {
		if strings.HasPrefix(k, prefix) {
			dropped++
			continue
		}
		out.Numbers[k] = v
	}
	for k, v := range n.Strings {
		if strings.HasPrefix(k, prefix) {
			dropped++
			continue
		}
		out.Strings[k] = v
	}
	return out, dropped
}

// presetGatedElsewhere makes the report writer's Run of each entry in
// GatedElsewhere return a placeholder table (no rows, one note naming the
// test that gates it) instead of computing it: the gate's report is checked
// for its form, and the entry's numbers are gated by that test.
func presetGatedElsewhere(p *paper.Paper, o paper.Options) {
	ao := paper.AuditOptions(p.Name, o)
	for _, e := range audit.Entries(p.Name) {
		if by, ok := GatedElsewhere[e.ID]; ok {
			audit.Preset(p.Name, e.ID, ao, audit.Table{ID: e.ID, Title: e.Title, Columns: claim.TableColumns,
				Notes: []string{"Not recomputed by the paper gate: " + by + " gates this table (same function and options)."}})
		}
	}
}

// checkReport writes the paper's report from the results the gate just
// made (every run is reused, so only the report is computed) and checks
// that README.md and a decodable summary.json with cells appear: the
// report writer runs in CI at smoke scale, claims and audits included.
func checkReport(t *testing.T, ctx context.Context, p *paper.Paper, o paper.Options) {
	t.Helper()
	o.ReportsDir = t.TempDir()
	presetGatedElsewhere(p, o)
	sum, err := p.Reproduce(ctx, o)
	if err != nil {
		t.Fatalf("writing the %s report: %v", p.Name, err)
	}
	if sum.Ran != 0 {
		t.Errorf("the report ran %d runs again; the gate's results should have been reused", sum.Ran)
	}
	dir := paper.ReportDir(o, p.Name)
	md, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || len(md) == 0 {
		t.Fatalf("report README.md missing or empty: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if s.Paper != p.Name || s.Scale != o.Scale || len(s.Cells) == 0 {
		t.Errorf("summary.json: paper %q scale %q with %d cells", s.Paper, s.Scale, len(s.Cells))
	}
	// The first screen (title, findings, contents), no private paths, no
	// dangling claim ids, and a filled headline for the cross-paper index.
	for _, pr := range report.LintReport(p.Name, string(md)) {
		t.Errorf("%s report: %s", p.Name, pr)
	}
	for _, pr := range report.LintHeadline(&s, len(proofs.Claims(p.Name)), sum.Total) {
		t.Errorf("%s summary.json: %s", p.Name, pr)
	}
}
