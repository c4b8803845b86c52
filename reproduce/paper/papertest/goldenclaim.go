package papertest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
	"github.com/fedrepro/fedrepro/proofs/prooftest"
	"github.com/fedrepro/fedrepro/reproduce/gate"
)

// GoldenClaimReport returns the claim engine's report on claims/<id>.yaml
// as claims' TestGolden pins it (golden/claims/<id>.json, which that test
// recomputes at full size with seed proofs.DefaultSeed and compares value
// by value), together with the relative tolerance its platform allows
// against this one (0 on the platform it was recorded on).
//
// A paper's equivalence test (its own audit table = the claim engine's
// numbers) reads the report from here instead of re-auditing the claim:
// engine = golden is TestGolden's check, audit = golden is the paper's, so
// audit = engine follows without computing the engine twice in one
// `make test`. Only the keys the golden holds come back — every number and
// label of the report's JSON form; what JSON drops (non-finite floats) is
// absent here as it is in the --json output.
func GoldenClaimReport(t testing.TB, id string) (*claim.Report, float64) {
	t.Helper()
	root, err := prooftest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "golden", "claims", id+".json")
	g, err := gate.ReadAudits(path)
	if err != nil {
		t.Fatalf("%v (record it with `make golden-claims`)", err)
	}
	var rep claim.Report
	if err := Unflatten(g.Values, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tol, _ := gate.TolFor(g.Platform)
	return &rep, tol
}

// Unflatten is gate.Flatten's inverse: it rebuilds the JSON tree the
// flat paths came from ("cases/0/readings/2/upper/epsilon"), guided by
// v's type so that list indices become arrays and the 0/1 Flatten wrote
// for a boolean becomes false/true again, then decodes it into v with
// encoding/json. A path naming no field of v's type is an error: a golden
// this code cannot read back is refused, not half read.
func Unflatten(n gate.Named, v any) error {
	root := map[string]any{}
	put := func(path string, x any) error {
		node := root
		parts := strings.Split(path, "/")
		for _, p := range parts[:len(parts)-1] {
			next, ok := node[p].(map[string]any)
			if !ok {
				if _, leaf := node[p]; leaf {
					return fmt.Errorf("path %s runs through a value", path)
				}
				next = map[string]any{}
				node[p] = next
			}
			node = next
		}
		node[parts[len(parts)-1]] = x
		return nil
	}
	for k, x := range n.Numbers {
		if err := put(k, x); err != nil {
			return err
		}
	}
	for k, s := range n.Strings {
		if err := put(k, s); err != nil {
			return err
		}
	}
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer {
		return fmt.Errorf("unflatten into a %s, want a pointer", t)
	}
	tree, err := shape(root, t.Elem(), "")
	if err != nil {
		return err
	}
	b, err := json.Marshal(tree)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// shape turns a node of the flat tree into the JSON value type t expects.
func shape(node any, t reflect.Type, at string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	m, isMap := node.(map[string]any)
	switch t.Kind() {
	case reflect.Struct:
		if !isMap {
			return nil, fmt.Errorf("%s: a value where %s wants an object", at, t)
		}
		fields := jsonFields(t)
		out := make(map[string]any, len(m))
		for k, x := range m {
			ft, ok := fields[k]
			if !ok {
				if reflect.PointerTo(t).Implements(marshaler) || t.Implements(marshaler) {
					// A type with its own JSON form may write keys that
					// are not fields (Bound's "unbounded"); its decoder
					// sees them as written.
					out[k] = x
					continue
				}
				return nil, fmt.Errorf("%s: %s has no field %q", at, t, k)
			}
			y, err := shape(x, ft, at+"/"+k)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	case reflect.Slice, reflect.Array:
		if !isMap {
			return nil, fmt.Errorf("%s: a value where %s wants a list", at, t)
		}
		idx := make([]int, 0, len(m))
		for k := range m {
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 {
				return nil, fmt.Errorf("%s: index %q in a list", at, k)
			}
			idx = append(idx, i)
		}
		sort.Ints(idx)
		out := make([]any, 0, len(m))
		if len(idx) > 0 {
			out = make([]any, idx[len(idx)-1]+1)
		}
		for _, i := range idx {
			k := strconv.Itoa(i)
			y, err := shape(m[k], t.Elem(), at+"/"+k)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	case reflect.Map:
		if !isMap {
			return nil, fmt.Errorf("%s: a value where %s wants an object", at, t)
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			y, err := shape(x, t.Elem(), at+"/"+k)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	case reflect.Bool:
		f, ok := node.(float64)
		if !ok {
			return nil, fmt.Errorf("%s: %v where a boolean (0/1) was written", at, node)
		}
		return f != 0, nil
	}
	if isMap {
		return nil, fmt.Errorf("%s: an object where %s wants a value", at, t)
	}
	return node, nil
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// jsonFields maps the JSON names of t's fields (embedded structs without
// a tag contribute theirs, as encoding/json does) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
