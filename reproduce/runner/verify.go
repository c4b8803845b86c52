package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// ResultSchema is the version of the result file format: 2 added the
// content checksum and the provenance, 3 extended the checksum to the whole
// record (timing, code version and provenance, which reports read too).
const ResultSchema = 3

// legacySchema is the older format still read: its checksum covers the
// content but not the timing and provenance (see Checksum), so a file of
// it is reused as before rather than run again; `--force` rewrites it in
// the current format.
const legacySchema = 2

// Provenance records which code, platform, spec and data produced a result
// (and, in its header, a report).
type Provenance struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Dirty     bool   `json:"dirty,omitempty"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"` // GOOS/GOARCH
	// SpecSHA256 is the SHA-256 of the spec file the plan came from.
	SpecSHA256 string `json:"spec_sha256,omitempty"`
	// Data maps each dataset present to the digest of its pinned files.
	Data map[string]string `json:"data,omitempty"`
}

// Checksum is the SHA-256 of the canonical JSON of the whole record —
// identity, configuration and its hash, curve, final metrics, counters,
// extra data, wall and CPU seconds, code version and provenance — with the
// checksum field itself empty: every byte a report or a table reads, so any
// edit of a stored result is seen. Two executions of one run therefore
// differ in their checksum as in their timing (TimingFields).
//
// A result of the legacy schema 2 is checked by its own definition, which
// covered the content only (everything but timing, code version and
// provenance).
func (res *Result) Checksum() (string, error) {
	var v any
	if res.SchemaVersion == legacySchema {
		v = struct {
			Run
			ConfigHash string    `json:"config_hash"`
			Rounds     []Metrics `json:"rounds"`
			Final      Metrics   `json:"final"`
			Counters   Counters  `json:"counters"`
			Extra      any       `json:"extra,omitempty"`
		}{res.Run, res.ConfigHash, res.Rounds, res.Final, res.Counters, res.Extra}
	} else {
		whole := *res
		whole.Sum = ""
		v = whole
	}
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// Status is what Check found for a run's stored result.
type Status int

const (
	// Valid: the stored result is this run's, unedited; it may be reused.
	Valid Status = iota
	// Absent: no result file.
	Absent
	// Stale: a well-formed result for another configuration of the run
	// (the spec changed since it was written).
	Stale
	// Damaged: the file cannot be trusted (unreadable, truncated, edited,
	// written by an older format, or naming another run).
	Damaged
)

// Check reads the stored result of r under dir and decides whether it can
// be reused: it must decode, carry this run's identity, a configuration
// equal to the planned one (its own hash recomputed from its own config,
// and equal to the run's), and a content checksum that matches. reason
// explains any status but Valid and Absent in a few words.
func Check(r Run, dir string) (res *Result, st Status, reason string) {
	b, err := os.ReadFile(r.Path(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, Absent, ""
	}
	if err != nil {
		return nil, Damaged, "unreadable: " + err.Error()
	}
	return checkBytes(r, b)
}

// checkBytes is Check on the bytes of a result file. A file in the plain
// form WriteResult writes is decoded in one pass (decodeFast); any other
// goes through encoding/json (checkJSON), and both reach the same verdict
// and the same result (TestFastDecodeMatchesJSON, FuzzCheck).
func checkBytes(r Run, b []byte) (*Result, Status, string) {
	f, ok := decodeFast(b)
	if !ok {
		return checkJSON(r, b)
	}
	if st, why := judge(r, f.res, f.ownHash, nil, f.sum, nil); st != Valid {
		return nil, st, why
	}
	return f.res, Valid, ""
}

// checkJSON is checkBytes by encoding/json: the record decoded with exact
// numbers for the integrity checks, then again as readers expect (floats).
func checkJSON(r Run, b []byte) (*Result, Status, string) {
	// Integrity is checked on the file decoded with exact numbers; the
	// result handed back is decoded as usual (floats), as readers expect.
	var got Result
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&got); err != nil || d.More() {
		return nil, Damaged, "not a valid result file (truncated or garbage)"
	}
	var own, sum string
	var ownErr, sumErr error
	if got.SchemaVersion == ResultSchema || got.SchemaVersion == legacySchema {
		own, ownErr = hashOf(got.Config)
		sum, sumErr = got.Checksum()
	}
	if st, why := judge(r, &got, own, ownErr, sum, sumErr); st != Valid {
		return nil, st, why
	}
	var out Result
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, Damaged, "not a valid result file (truncated or garbage)"
	}
	return &out, Valid, ""
}

// judge decides whether a decoded record may be reused for r, given its
// configuration hash recomputed from its own configuration (own) and its
// recomputed checksum (sum): its format, identity, configuration and
// content in that order, each failure with its reason.
func judge(r Run, got *Result, own string, ownErr error, sum string, sumErr error) (Status, string) {
	if got.SchemaVersion != ResultSchema && got.SchemaVersion != legacySchema {
		return Damaged, fmt.Sprintf("written by another result format (schema %d, this code writes %d)", got.SchemaVersion, ResultSchema)
	}
	if got.Paper != r.Paper || got.Scale != r.Scale || got.Experiment != r.Experiment || got.Cell != r.Cell || got.Seed != r.Seed {
		return Damaged, fmt.Sprintf("holds another run (%s/%s/%s)", got.Paper, got.Scale, got.ID())
	}
	if ownErr != nil || own != got.ConfigHash {
		return Damaged, "its configuration does not match its config_hash (edited)"
	}
	if sumErr != nil || sum != got.Sum {
		return Damaged, "its content does not match its checksum (edited)"
	}
	want, err := r.ConfigHash()
	if err != nil {
		return Damaged, err.Error()
	}
	if got.ConfigHash != want {
		return Stale, "stored for another configuration"
	}
	return Valid, ""
}

// hashOf is ConfigHash of a decoded configuration.
func hashOf(cfg any) (string, error) { return Run{Config: cfg}.ConfigHash() }

// Rejections collects why stored results were not reused, to report them
// in one line per reason.
type Rejections struct {
	byReason map[string][]string
}

// Add records that the result of r was not reused for reason.
func (j *Rejections) Add(r Run, dir, reason string) {
	if j.byReason == nil {
		j.byReason = map[string][]string{}
	}
	j.byReason[reason] = append(j.byReason[reason], r.Path(dir))
}

// Count is the number of rejected results.
func (j *Rejections) Count() int {
	n := 0
	for _, ps := range j.byReason {
		n += len(ps)
	}
	return n
}

// Lines returns one line per reason: how many results, the first file.
func (j *Rejections) Lines(verb string) []string {
	reasons := make([]string, 0, len(j.byReason))
	for r := range j.byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	var out []string
	for _, r := range reasons {
		ps := j.byReason[r]
		sort.Strings(ps)
		more := ""
		if len(ps) > 1 {
			more = fmt.Sprintf(" and %d more", len(ps)-1)
		}
		out = append(out, fmt.Sprintf("%s %d stored result(s) — %s: %s%s", verb, len(ps), r, ps[0], more))
	}
	return out
}

// Log writes Lines to w (nothing when w is nil or nothing was rejected).
func (j *Rejections) Log(w io.Writer, verb string) {
	if w == nil {
		return
	}
	for _, l := range j.Lines(verb) {
		fmt.Fprintln(w, l)
	}
}

// String joins Lines.
func (j *Rejections) String() string { return strings.Join(j.Lines("rejected"), "; ") }
