// Package prooftest runs a paper's registered claims inside `go test` and
// compares them with golden/<paper>/claims.yaml: the verdict of every claim
// and, in full mode, every named value behind it (Result.Values), exactly —
// bit for bit on the platform the file was recorded on, within the gate's
// foreign-platform tolerance elsewhere (see reproduce/gate).
//
// A refuted claim is a finding, not a failure: the test fails only when a
// verdict or a value differs from the recorded one, when a claim has no
// record, or when the file names a claim that no longer exists. Record new
// outcomes with `go test ./proofs/<paper> -update` (or `make golden`) and
// review the diff.
package prooftest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/fedrepro/fedrepro/internal/goldenflag"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"go.yaml.in/yaml/v3"
)

var update = goldenflag.Update

// Seed is the seed every claim test uses, so verdicts are reproducible.
const Seed = proofs.DefaultSeed

// GoldenPath returns golden/<paper>/claims.yaml relative to a package two
// levels below the module root (proofs/<paper>).
func GoldenPath(paper string) string {
	return filepath.Join("..", "..", "golden", paper, "claims.yaml")
}

// Expected is a claim's recorded outcome: its verdict and the flattened
// named values of a full-mode run.
type Expected struct {
	Verdict proofs.Verdict     `yaml:"verdict"`
	Numbers map[string]float64 `yaml:"numbers,omitempty"`
	Strings map[string]string  `yaml:"strings,omitempty"`
}

// File is golden/<paper>/claims.yaml.
type File struct {
	SchemaVersion int    `yaml:"schema_version"`
	Paper         string `yaml:"paper"`
	// Platform is where the values were computed (gate.Platform).
	Platform string              `yaml:"platform"`
	Claims   map[string]Expected `yaml:"claims"`
}

// Outcome flattens a check's result for recording.
func Outcome(res proofs.Result) Expected {
	n := gate.Flatten("", map[string]any(res.Values))
	e := Expected{Verdict: res.Verdict}
	if len(n.Numbers) > 0 {
		e.Numbers = map[string]float64(n.Numbers)
	}
	if len(n.Strings) > 0 {
		e.Strings = n.Strings
	}
	return e
}

func named(e Expected) gate.Named {
	n := gate.Flatten("", nil)
	for k, v := range e.Numbers {
		n.Numbers[k] = v
	}
	for k, v := range e.Strings {
		n.Strings[k] = v
	}
	return n
}

// Run checks every registered claim of paper, each as a subtest, in quick
// mode under -short (verdicts only) and full mode otherwise (verdicts and
// values).
func Run(t *testing.T, paper string) {
	t.Helper()
	claims := proofs.Claims(paper)
	if len(claims) == 0 {
		t.Fatalf("no claims registered for paper %q", paper)
	}
	path := GoldenPath(paper)
	want, err := ReadExpected(path)
	if err != nil && !*update {
		t.Fatalf("%v (run `go test ./proofs/%s -update` to record verdicts)", err, paper)
	}
	got := map[string]Expected{}
	cfg := proofs.Config{Seed: Seed, Quick: testing.Short()}
	tol, note := 0.0, ""
	if want != nil {
		tol, note = gate.TolFor(want.Platform)
	}
	missing := missingData()
	for _, c := range claims {
		c := c
		t.Run(c.ID, func(t *testing.T) {
			for _, d := range c.Needs {
				if why, ok := missing[d]; ok {
					got[c.ID] = want.Claims[c.ID] // keep the record on -update
					msg := fmt.Sprintf("%s reads %s, which this machine lacks: %s", c.ID, d, why)
					if os.Getenv("CI") == "true" {
						t.Fatal(msg)
					}
					t.Skip(msg)
				}
			}
			res := proofs.Run(c, cfg)
			out := Outcome(res)
			got[c.ID] = out
			if *update {
				return
			}
			t.Logf("%s: %s — %s", c.ID, res.Verdict, res.Evidence)
			w, ok := want.Claims[c.ID]
			switch {
			case !ok:
				t.Errorf("claim %s has no record in %s (computed %s)", c.ID, path, res.Verdict)
				return
			case w.Verdict != res.Verdict:
				t.Errorf("claim %s: verdict changed from %s to %s\nevidence: %s\nreplay: seed %d, quick=%v", c.ID, w.Verdict, res.Verdict, res.Evidence, cfg.Seed, cfg.Quick)
			}
			if cfg.Quick {
				return // the recorded values are those of a full run
			}
			if d := gate.CompareNamed(named(w), named(out), tol); len(d) > 0 {
				t.Errorf("claim %s: %d named values differ from %s (%s):\n%s", c.ID, len(d), path, note, gate.NamedTable(d, 30))
			}
		})
	}
	if *update {
		if cfg.Quick {
			t.Fatal("record claims from a full run: drop -short")
		}
		if err := WriteExpected(path, paper, got); err != nil {
			t.Fatal(err)
		}
		if want != nil {
			logChanges(t, want.Claims, got)
		}
		return
	}
	for id := range want.Claims {
		if _, ok := got[id]; !ok {
			t.Errorf("%s records claim %s, which is no longer registered", path, id)
		}
	}
}

// missingData maps each dataset claims may read that is not available here
// to the one line that names it and the fix (reproduce/datasets), looking
// where `go test ./proofs/<paper>` runs: ../../../shared and ../../.cache.
func missingData() map[string]string {
	out := map[string]string{}
	for _, e := range []datasets.Entry{
		datasets.Upcycled(filepath.Join("..", "..", "..", "shared"), filepath.Join("..", "..", ".cache")),
		datasets.FashionMNIST(""),
	} {
		if e.Status != datasets.OK {
			out[e.Name] = e.Line()
		}
	}
	return out
}

// logChanges reports, for the reviewer of `make golden`, which claims
// changed verdict or values.
func logChanges(t *testing.T, old, now map[string]Expected) {
	var ids []string
	for id := range now {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	changed := 0
	for _, id := range ids {
		o, ok := old[id]
		switch {
		case !ok:
			t.Logf("new claim %s: %s", id, now[id].Verdict)
			changed++
		case o.Verdict != now[id].Verdict:
			t.Logf("claim %s: verdict %s → %s", id, o.Verdict, now[id].Verdict)
			changed++
		default:
			if d := gate.CompareNamed(named(o), named(now[id]), 0); len(d) > 0 {
				t.Logf("claim %s: %d values changed:\n%s", id, len(d), gate.NamedTable(d, 20))
				changed++
			}
		}
	}
	t.Logf("%d of %d claims changed", changed, len(ids))
}

// ReadExpected reads a claims.yaml strictly.
func ReadExpected(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expected verdicts: %w", err)
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w (re-record it with `make golden`)", path, err)
	}
	if f.SchemaVersion != gate.SchemaVersion {
		return nil, fmt.Errorf("%s: schema version %d, this code reads %d: re-record it with `make golden`", path, f.SchemaVersion, gate.SchemaVersion)
	}
	for id, e := range f.Claims {
		if !e.Verdict.Valid() {
			return nil, fmt.Errorf("%s: claim %s has unknown verdict %q", path, id, e.Verdict)
		}
	}
	return &f, nil
}

// Verdicts returns the recorded verdict of every claim.
func (f *File) Verdicts() map[string]proofs.Verdict {
	out := map[string]proofs.Verdict{}
	if f == nil {
		return out
	}
	for id, e := range f.Claims {
		out[id] = e.Verdict
	}
	return out
}

// WriteExpected writes the outcomes (sorted by claim ID, as yaml.v3 sorts
// map keys; floats in their shortest exact form) atomically.
func WriteExpected(path, paper string, v map[string]Expected) error {
	f := File{SchemaVersion: gate.SchemaVersion, Paper: paper, Platform: gate.Platform(), Claims: v}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Recorded outcomes of the %s claims (proofs/%s): verdict and named values.\n", paper, paper)
	fmt.Fprintf(&buf, "# Written by `go test ./proofs/%s -update` (make golden); review diffs like code.\n", paper)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
