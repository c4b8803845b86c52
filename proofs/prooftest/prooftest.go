// Package prooftest runs a paper's registered claims inside `go test` and
// compares their verdicts with golden/<paper>/claims.yaml.
//
// A refuted claim is a finding, not a failure: the test fails only when a
// verdict differs from the recorded one, when a claim has no recorded
// verdict, or when the file names a claim that no longer exists. Record new
// verdicts with `go test ./proofs/<paper> -update` (or `make golden`) and
// review the diff.
package prooftest

import (
	"bytes"
	"fmt"
	"github.com/fedrepro/fedrepro/internal/goldenflag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/fedrepro/fedrepro/proofs"
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

// Run checks every registered claim of paper, each as a subtest, in quick
// mode under -short and full mode otherwise.
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
	got := map[string]proofs.Verdict{}
	cfg := proofs.Config{Seed: Seed, Quick: testing.Short()}
	for _, c := range claims {
		c := c
		t.Run(c.ID, func(t *testing.T) {
			res := proofs.Run(c, cfg)
			got[c.ID] = res.Verdict
			t.Logf("%s: %s — %s", c.ID, res.Verdict, res.Evidence)
			if *update {
				return
			}
			w, ok := want[c.ID]
			switch {
			case !ok:
				t.Errorf("claim %s has no recorded verdict in %s (computed %s)", c.ID, path, res.Verdict)
			case w != res.Verdict:
				t.Errorf("claim %s: verdict changed from %s to %s\nevidence: %s\nreplay: seed %d, quick=%v", c.ID, w, res.Verdict, res.Evidence, cfg.Seed, cfg.Quick)
			}
		})
	}
	if *update {
		if err := WriteExpected(path, paper, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	for id := range want {
		if _, ok := got[id]; !ok {
			t.Errorf("%s records claim %s, which is no longer registered", path, id)
		}
	}
}

// ReadExpected reads a claims.yaml (claim ID → verdict).
func ReadExpected(path string) (map[string]proofs.Verdict, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expected verdicts: %w", err)
	}
	var raw map[string]string
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make(map[string]proofs.Verdict, len(raw))
	for id, v := range raw {
		vd := proofs.Verdict(v)
		if !vd.Valid() {
			return nil, fmt.Errorf("%s: claim %s has unknown verdict %q", path, id, v)
		}
		out[id] = vd
	}
	return out, nil
}

// WriteExpected writes verdicts sorted by claim ID.
func WriteExpected(path, paper string, v map[string]proofs.Verdict) error {
	ids := make([]string, 0, len(v))
	for id := range v {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Expected verdicts of the %s claims (proofs/%s).\n", paper, paper)
	fmt.Fprintf(&buf, "# Written by `go test ./proofs/%s -update` (make golden); review diffs like code.\n", paper)
	for _, id := range ids {
		fmt.Fprintf(&buf, "%s: %s\n", id, v[id])
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
