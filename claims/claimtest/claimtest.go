// Package claimtest holds the test helpers both claim folders (claims and
// claims/convergence) check their files with: the folder's schema.json
// compiled, a YAML claim as the value a JSON decoder would produce (so
// that one JSON Schema validates the YAML files), a claim file with one
// plausible mistake, and every claim audited two at a time. Only tests
// import it.
package claimtest

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// JSONValue turns YAML into the value a JSON decoder would produce (name
// labels errors).
func JSONValue(t *testing.T, name string, src []byte) any {
	t.Helper()
	var y any
	if err := yaml.Unmarshal(src, &y); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := json.Marshal(y)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// Schema compiles the test's folder's schema.json.
func Schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("schema.json does not compile: %v", err)
	}
	return s
}

// Mutated returns base with its first from replaced by to (a plausible
// mistake, named name); the test fails at once when from is not in base (a
// mutation that changes nothing would pass vacuously).
func Mutated(t *testing.T, base []byte, name, from, to string) []byte {
	t.Helper()
	bad := bytes.Replace(base, []byte(from), []byte(to), 1)
	if bytes.Equal(bad, base) {
		t.Fatalf("%s: mutation %q not applied", name, from)
	}
	return bad
}

// AuditAll runs audit on every id, two at a time (the machine's two
// cores), and returns the reports by id with the first error met; an id
// whose audit failed maps to audit's result as returned.
func AuditAll[R any](ids []string, audit func(id string) (R, error)) (map[string]R, error) {
	out := map[string]R{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var first error
	sem := make(chan struct{}, 2)
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := audit(id)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil {
				first = err
			}
			out[id] = r
		}()
	}
	wg.Wait()
	return out, first
}
