package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/fedrepro/fedrepro/internal/buildinfo"
)

// Run is one unit of work: one configuration and one seed.
type Run struct {
	Paper      string `json:"paper"`
	Scale      string `json:"scale"`
	Experiment string `json:"experiment"`
	// Cell names the configuration within the experiment with
	// slash-separated path-safe labels, e.g. "syn_iid/fedavg/upcycled".
	Cell string `json:"cell"`
	Seed uint64 `json:"seed"`
	// Config is the full configuration of the run (JSON-encodable); its
	// hash decides whether a stored result can be reused.
	Config any `json:"config"`
}

var labelRE = regexp.MustCompile(`^[A-Za-z0-9._=+-]+$`)

// Validate checks that the run's labels can name a file path.
func (r Run) Validate() error {
	for _, l := range []struct{ name, v string }{{"paper", r.Paper}, {"scale", r.Scale}, {"experiment", r.Experiment}} {
		if !labelRE.MatchString(l.v) {
			return fmt.Errorf("run %s: %s %q is not a path-safe label", r.ID(), l.name, l.v)
		}
	}
	for _, part := range strings.Split(r.Cell, "/") {
		if !labelRE.MatchString(part) || part == "." || part == ".." {
			return fmt.Errorf("run %s: cell label %q is not path-safe", r.ID(), part)
		}
	}
	return nil
}

// ID is "<experiment>/<cell>/seed-<n>".
func (r Run) ID() string { return fmt.Sprintf("%s/%s/seed-%d", r.Experiment, r.Cell, r.Seed) }

// Path returns the result file of the run under root.
func (r Run) Path(root string) string {
	return filepath.Join(root, r.Paper, r.Scale, r.Experiment, filepath.FromSlash(r.Cell), fmt.Sprintf("seed-%d.json", r.Seed))
}

// ConfigHash is a digest of the canonical JSON of Config (Canonical), so a
// configuration hashes alike as the paper's Go struct and as the map a
// stored result decodes to.
func (r Run) ConfigHash() (string, error) {
	b, err := Canonical(r.Config)
	if err != nil {
		return "", fmt.Errorf("run %s: config is not JSON-encodable: %w", r.ID(), err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8]), nil
}

// Canonical is the canonical JSON of a value: encoded, decoded with
// numbers kept as written, encoded again — object keys sorted, numbers
// exact — so a struct and its decoded form give the same bytes.
func Canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var back any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&back); err != nil {
		return nil, err
	}
	return json.Marshal(back)
}

// Metrics maps metric names to values. Unlike a plain map it encodes NaN
// and ±Inf (a diverged loss is a result, not an encoding error) as the
// strings "NaN", "+Inf" and "-Inf", and always in sorted key order.
type Metrics map[string]float64

// MarshalJSON implements json.Marshaler.
func (m Metrics) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := make([]byte, 0, 2+len(m)*32)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMarshalString(b, k)
		b = append(b, ':')
		b = appendEncodedFloat(b, m[k])
	}
	return append(b, '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler. A plain object of numbers
// and the strings above is read in one pass (fastMetrics); any other input
// goes through encoding/json, which then decides (a duplicate key: the
// last wins; a value of another kind: an error naming the metric).
func (m *Metrics) UnmarshalJSON(b []byte) error {
	if f, ok := fastMetrics(b); ok {
		*m = f
		return nil
	}
	return m.unmarshalJSON(b)
}

// unmarshalJSON is UnmarshalJSON by encoding/json alone.
func (m *Metrics) unmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Metrics, len(raw))
	for k, v := range raw {
		f, err := decodeFloat(v)
		if err != nil {
			return fmt.Errorf("metric %q: %w", k, err)
		}
		out[k] = f
	}
	*m = out
	return nil
}

// appendEncodedFloat appends a metric's value: the shortest decimal that
// reads back exactly ('g' format), or "NaN", "+Inf", "-Inf" as strings.
func appendEncodedFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func decodeFloat(v json.RawMessage) (float64, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "+Inf", "Inf":
			return math.Inf(1), nil
		case "-Inf":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("unexpected string %q", s)
	}
	var f float64
	err := json.Unmarshal(v, &f)
	return f, err
}

// Counters records the work a run did (SGD steps, uploads, data accesses…).
type Counters map[string]int64

// Outcome is what an experiment function returns for one run.
type Outcome struct {
	// Rounds holds per-round metrics in order (each may include "round").
	Rounds []Metrics
	// Final holds the metrics the tables report.
	Final    Metrics
	Counters Counters
	// Extra carries paper-specific JSON-encodable data (e.g. privacy
	// parameters actually used); keep it small.
	Extra any
}

// Result is the stored record of a finished run.
type Result struct {
	SchemaVersion int `json:"schema_version"`
	Run
	ConfigHash  string    `json:"config_hash"`
	Rounds      []Metrics `json:"rounds"`
	Final       Metrics   `json:"final"`
	Counters    Counters  `json:"counters"`
	Extra       any       `json:"extra,omitempty"`
	WallSeconds float64   `json:"wall_seconds"`
	// CPUSeconds is the CPU time of the run's own thread (Linux; 0 when
	// unavailable): unlike wall time it does not grow when other runs or
	// programs compete for the cores.
	CPUSeconds  float64 `json:"cpu_seconds,omitempty"`
	CodeVersion string  `json:"code_version"`
	// Provenance: code, Go version, platform, spec and data of the run.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Sum is the record's checksum (see Checksum); a result that does not
	// match it is never reused.
	Sum string `json:"checksum"`
}

// TimingFields are the result fields that legitimately differ between two
// executions of the same run (the code's version and provenance may too,
// and the checksum, which covers them).
var TimingFields = []string{"wall_seconds", "cpu_seconds", "code_version", "provenance", "checksum"}

// CodeVersion describes the binary: the VCS commit (12 hex digits, with
// "+dirty" when the tree had uncommitted changes) or the module version.
func CodeVersion() string { return buildinfo.Get().Short() }
