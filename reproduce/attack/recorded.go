package attack

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"reflect"
	"strings"

	"github.com/fedrepro/fedrepro/golden"
)

// Recording is a `fedrepro attack --json` document: the rows of one paper
// at one scale and the seed they were drawn from.
type Recording struct {
	Paper string `json:"paper"`
	Scale string `json:"scale"`
	Seed  uint64 `json:"seed"`
	Rows  []Row  `json:"attacks"`
}

// RecordCommand is the command that remakes the recording of paper at scale.
func RecordCommand(paper, scale string) string {
	return fmt.Sprintf("fedrepro attack --paper %s --scale %s --json > golden/attack/%s/%s.json", paper, scale, scale, paper)
}

// Recorded reads the recording of paper at scale from golden/attack
// (embedded in the binary). ok is false when none was recorded.
func Recorded(paper, scale string) (rec Recording, ok bool, err error) {
	b, err := fs.ReadFile(golden.Attacks, "attack/"+scale+"/"+paper+".json")
	if errors.Is(err, fs.ErrNotExist) {
		return Recording{}, false, nil
	}
	if err != nil {
		return Recording{}, false, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return Recording{}, false, fmt.Errorf("golden/attack/%s/%s.json: %v", scale, paper, err)
	}
	if rec.Paper != paper || rec.Scale != scale {
		return Recording{}, false, fmt.Errorf("golden/attack/%s/%s.json records paper %q at scale %q", scale, paper, rec.Paper, rec.Scale)
	}
	return rec, true, nil
}

// UnmarshalJSON reads what MarshalJSON writes: "+Inf"/"-Inf" strings and
// null (NaN) in number fields; unknown keys are refused, so a recording
// written by another version of the row says so instead of losing a field.
func (r *Row) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	v := reflect.ValueOf(r).Elem()
	t := v.Type()
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		seen[name] = true
		raw, have := m[name]
		f := v.Field(i)
		if !have {
			if f.Kind() == reflect.Float64 {
				f.SetFloat(math.NaN())
			}
			continue
		}
		if f.Kind() == reflect.Float64 {
			switch s := strings.TrimSpace(string(raw)); s {
			case "null":
				f.SetFloat(math.NaN())
				continue
			case `"+Inf"`:
				f.SetFloat(math.Inf(1))
				continue
			case `"-Inf"`:
				f.SetFloat(math.Inf(-1))
				continue
			}
		}
		if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
			return fmt.Errorf("attack row key %q: %v", name, err)
		}
	}
	for k := range m {
		if !seen[k] {
			return fmt.Errorf("attack row: unknown key %q", k)
		}
	}
	return nil
}
