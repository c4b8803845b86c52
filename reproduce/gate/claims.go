package gate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fedrepro/fedrepro/proofs"
	"go.yaml.in/yaml/v3"
)

// ClaimsPath is golden/<paper>/claims.yaml under the golden root.
func ClaimsPath(root, paper string) string { return filepath.Join(root, paper, "claims.yaml") }

// Expected is a claim's recorded outcome: its verdict and the flattened
// named values of a full-mode run.
type Expected struct {
	Verdict proofs.Verdict     `yaml:"verdict"`
	Numbers map[string]float64 `yaml:"numbers,omitempty"`
	Strings map[string]string  `yaml:"strings,omitempty"`
}

// ClaimsFile is golden/<paper>/claims.yaml: the recorded outcome of every
// claim of a paper.
type ClaimsFile struct {
	SchemaVersion int    `yaml:"schema_version"`
	Paper         string `yaml:"paper"`
	// Platform is where the values were computed (Platform).
	Platform string              `yaml:"platform"`
	Claims   map[string]Expected `yaml:"claims"`
}

// Outcome flattens a check's result for recording.
func Outcome(res proofs.Result) Expected {
	n := Flatten("", map[string]any(res.Values))
	e := Expected{Verdict: res.Verdict}
	if len(n.Numbers) > 0 {
		e.Numbers = map[string]float64(n.Numbers)
	}
	if len(n.Strings) > 0 {
		e.Strings = n.Strings
	}
	return e
}

// Named returns the recorded values as a Named set (for CompareNamed).
func (e Expected) Named() Named {
	n := Flatten("", nil)
	for k, v := range e.Numbers {
		n.Numbers[k] = v
	}
	for k, v := range e.Strings {
		n.Strings[k] = v
	}
	return n
}

// ReadClaims reads a claims.yaml strictly.
func ReadClaims(path string) (*ClaimsFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expected verdicts: %w", err)
	}
	var f ClaimsFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w (re-record it with `make golden`)", path, err)
	}
	if f.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema version %d, this code reads %d: re-record it with `make golden`", path, f.SchemaVersion, SchemaVersion)
	}
	for id, e := range f.Claims {
		if !e.Verdict.Valid() {
			return nil, fmt.Errorf("%s: claim %s has unknown verdict %q", path, id, e.Verdict)
		}
	}
	return &f, nil
}

// Verdicts returns the recorded verdict of every claim (none for a nil file).
func (f *ClaimsFile) Verdicts() map[string]proofs.Verdict {
	out := map[string]proofs.Verdict{}
	if f == nil {
		return out
	}
	for id, e := range f.Claims {
		out[id] = e.Verdict
	}
	return out
}

// WriteClaims writes the outcomes (sorted by claim ID, as yaml.v3 sorts
// map keys; floats in their shortest exact form) atomically.
func WriteClaims(path, paper string, v map[string]Expected) error {
	f := ClaimsFile{SchemaVersion: SchemaVersion, Paper: paper, Platform: Platform(), Claims: v}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Recorded outcomes of the %s claims (proofs/%s): verdict and named values.\n", paper, paper)
	fmt.Fprintf(&buf, "# Written by `go test ./reproduce/%s -run TestClaims -update` (make golden); review diffs like code.\n", paper)
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
