package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Named is a flat set of named values — the numbers and labels behind a
// claim's verdict or an audit table — for the exact tier. Keys are paths
// into the original structure ("rows/3/epsilon", "values/cmax").
type Named struct {
	Numbers runner.Metrics    `json:"numbers" yaml:"numbers,omitempty"`
	Strings map[string]string `json:"strings" yaml:"strings,omitempty"`
}

// Flatten collects the leaves of a JSON-encodable value under prefix:
// numbers (and booleans, as 0/1) into Numbers, strings into Strings. Go
// values are first put through encoding/json (non-finite floats survive),
// so in-memory values and decoded ones flatten alike.
func Flatten(prefix string, x any) Named {
	n := Named{Numbers: runner.Metrics{}, Strings: map[string]string{}}
	n.add(prefix, x)
	return n
}

func (n Named) add(path string, x any) {
	switch t := x.(type) {
	case nil:
	case float64:
		n.Numbers[path] = t
	case float32:
		n.Numbers[path] = float64(t)
	case int:
		n.Numbers[path] = float64(t)
	case int64:
		n.Numbers[path] = float64(t)
	case uint64:
		n.Numbers[path] = float64(t)
	case bool:
		n.Numbers[path] = 0
		if t {
			n.Numbers[path] = 1
		}
	case string:
		n.Strings[path] = t
	case json.Number:
		if f, err := t.Float64(); err == nil {
			n.Numbers[path] = f
		} else {
			n.Strings[path] = t.String()
		}
	case map[string]any:
		for k, e := range t {
			n.add(join(path, k), e)
		}
	case []any:
		for i, e := range t {
			n.add(join(path, strconv.Itoa(i)), e)
		}
	case []float64:
		for i, e := range t {
			n.Numbers[join(path, strconv.Itoa(i))] = e
		}
	case map[string]float64:
		for k, e := range t {
			n.Numbers[join(path, k)] = e
		}
	default:
		// Any other Go value: through JSON, with non-finite floats kept.
		b, err := json.Marshal(sanitize(t))
		if err != nil {
			n.Strings[path] = fmt.Sprint(t)
			return
		}
		var out any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if d.Decode(&out) != nil {
			n.Strings[path] = fmt.Sprint(t)
			return
		}
		n.add(path, out)
	}
}

func sanitize(x any) any {
	if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return fmt.Sprint(f)
	}
	return x
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "/" + k
}

// Merge adds m's values to n (keys must not collide).
func (n Named) Merge(m Named) {
	for k, v := range m.Numbers {
		n.Numbers[k] = v
	}
	for k, v := range m.Strings {
		n.Strings[k] = v
	}
}

// NamedDiff is a named value that differs between golden and fresh.
type NamedDiff struct {
	Key, Golden, Fresh string
	Rel                float64 // relative change of a number; NaN otherwise
}

// CompareNamed returns the values of golden and fresh that differ (numbers
// under Same with relTol, strings exactly), or are on one side only.
func CompareNamed(golden, fresh Named, relTol float64) []NamedDiff {
	var out []NamedDiff
	for _, k := range sortedKeys(golden.Numbers, fresh.Numbers) {
		g, gok := golden.Numbers[k]
		f, fok := fresh.Numbers[k]
		switch {
		case !gok:
			out = append(out, NamedDiff{Key: k, Golden: "—", Fresh: FormatFloat(f), Rel: math.NaN()})
		case !fok:
			out = append(out, NamedDiff{Key: k, Golden: FormatFloat(g), Fresh: "—", Rel: math.NaN()})
		case !Same(g, f, relTol):
			out = append(out, NamedDiff{Key: k, Golden: FormatFloat(g), Fresh: FormatFloat(f), Rel: relDiff(g, f)})
		}
	}
	keys := map[string]bool{}
	for k := range golden.Strings {
		keys[k] = true
	}
	for k := range fresh.Strings {
		keys[k] = true
	}
	var sk []string
	for k := range keys {
		sk = append(sk, k)
	}
	sort.Strings(sk)
	for _, k := range sk {
		g, gok := golden.Strings[k]
		f, fok := fresh.Strings[k]
		if gok && fok && g == f {
			continue
		}
		if !gok {
			g = "—"
		}
		if !fok {
			f = "—"
		}
		out = append(out, NamedDiff{Key: k, Golden: g, Fresh: f, Rel: math.NaN()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// NamedTable renders named differences as one table (at most limit rows).
func NamedTable(diffs []NamedDiff, limit int) string {
	t := tableOf([]string{"value", "golden", "fresh", "rel. change"}, "lrrr")
	n := len(diffs)
	if limit > 0 && n > limit {
		n = limit
	}
	for _, d := range diffs[:n] {
		rel := "—"
		if !math.IsNaN(d.Rel) {
			rel = fmt.Sprintf("%.3g", d.Rel)
		}
		t.Add(d.Key, clip(d.Golden), clip(d.Fresh), rel)
	}
	s := t.String()
	if n < len(diffs) {
		s += fmt.Sprintf("… and %d more differences\n", len(diffs)-n)
	}
	return s
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// AuditSnapshot is golden/<paper>/audits.json: every number and label of
// a paper's audit tables, with the platform they were computed on.
type AuditSnapshot struct {
	SchemaVersion int    `json:"schema_version"`
	Paper         string `json:"paper"`
	Platform      string `json:"platform"`
	Values        Named  `json:"values"`
}

// WriteAudits stores an audit snapshot atomically.
func WriteAudits(path string, s *AuditSnapshot) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return runner.WriteFileAtomic(path, append(b, '\n'))
}

// ReadAudits loads an audit snapshot strictly.
func ReadAudits(path string) (*AuditSnapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s AuditSnapshot
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w (re-record it with `make golden`)", path, err)
	}
	if s.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: golden schema version %d, this code reads %d: re-record it with `make golden`", path, s.SchemaVersion, SchemaVersion)
	}
	return &s, nil
}

// TolFor is Tolerance for a golden recorded on the given platform.
func TolFor(platform string) (float64, string) {
	return Tolerance(&Snapshot{Platform: platform})
}
