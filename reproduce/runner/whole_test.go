package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// fullFunc returns an outcome with every part a result can carry: a curve,
// final metrics, counters and nested extra data.
func fullFunc(_ context.Context, r Run) (*Outcome, error) {
	return &Outcome{
		Rounds:   []Metrics{{"round": 1, "acc": 0.25}, {"round": 2, "acc": 0.5}},
		Final:    Metrics{"acc": 0.5 + float64(r.Seed)/10, "loss": 1.25},
		Counters: Counters{"steps": 10, "uploads": 4},
		Extra:    map[string]any{"sigma": 1.5, "eps": []any{0.5, 2.0}, "mode": "paper", "ok": true},
	}, nil
}

// leaves lists the JSON path of every scalar in v, and of every object key
// (to delete it), sorted.
func leaves(prefix string, v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := prefix + "/" + k
			*out = append(*out, "del:"+p)
			leaves(p, c, out)
		}
	case []any:
		for i, c := range x {
			leaves(fmt.Sprintf("%s/%d", prefix, i), c, out)
		}
	default:
		*out = append(*out, "set:"+prefix)
	}
}

// edit applies one edit (set: change the scalar; del: remove the key) at
// path in the decoded document.
func edit(doc any, op string) error {
	kind, path, _ := strings.Cut(op, ":")
	parts := strings.Split(path, "/")[1:]
	cur := doc
	for i, p := range parts {
		last := i == len(parts)-1
		switch x := cur.(type) {
		case map[string]any:
			if last {
				if kind == "del" {
					delete(x, p)
					return nil
				}
				x[p] = changed(x[p])
				return nil
			}
			cur = x[p]
		case []any:
			k, _ := strconv.Atoi(p)
			if last {
				x[k] = changed(x[k])
				return nil
			}
			cur = x[k]
		}
	}
	return fmt.Errorf("no %s", path)
}

// changed returns another value of the same kind: an integer plus one
// (exactly, at any size), a float scaled, a string and a bool altered.
func changed(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return json.Number(b.Add(b, big.NewInt(1)).String())
		}
		f, _ := x.Float64()
		return json.Number(strconv.FormatFloat(f*1.5+1, 'g', -1, 64))
	case string:
		return x + "x"
	case bool:
		return !x
	case nil:
		return json.Number("1")
	}
	panic(fmt.Sprintf("unexpected %T", v))
}

// TestEveryPartIsChecked edits each part of a stored result in turn —
// every scalar (identity, configuration, curve, metrics, counters, extra
// data, timing, code version, provenance, the checksum itself) and every
// key removed — and expects the result to be refused, for a reason other
// than a broken file: the checksum covers every byte a report reads.
func TestEveryPartIsChecked(t *testing.T) {
	dir := t.TempDir()
	runs := vRuns()
	prov := &Provenance{Module: "m", Version: "v1", Commit: "abc", GoVersion: "go1.26", Platform: "linux/amd64", SpecSHA256: "00ff", Data: map[string]string{"d": "11"}}
	if _, err := Execute(context.Background(), runs, fullFunc, Options{Dir: dir, Workers: 1, Provenance: prov}); err != nil {
		t.Fatal(err)
	}
	victim := runs[1]
	path := victim.Path(dir)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, st, why := Check(victim, dir); st != Valid {
		t.Fatalf("unedited result refused: %s", why)
	}
	decode := func() any {
		d := json.NewDecoder(bytes.NewReader(orig))
		d.UseNumber()
		var doc any
		if err := d.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	var ops []string
	leaves("", decode(), &ops)
	sort.Strings(ops)
	for _, want := range []string{"set:/extra/sigma", "set:/extra/eps/1", "set:/wall_seconds", "set:/code_version", "set:/provenance/commit", "set:/provenance/data/d", "set:/rounds/1/acc", "del:/extra", "del:/provenance"} {
		if !contains(ops, want) {
			t.Fatalf("the stored result lacks %s: %s", want, orig)
		}
	}
	for _, op := range ops {
		t.Run(op, func(t *testing.T) {
			doc := decode()
			if err := edit(doc, op); err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(doc, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, orig, 0o644)
			_, st, why := Check(victim, dir)
			if st == Valid {
				t.Fatalf("an edited result (%s) is reused", op)
			}
			if strings.Contains(why, "truncated or garbage") {
				t.Fatalf("%s: refused as a broken file (%s), not as an edit", op, why)
			}
		})
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// A result of the legacy schema 2 (content checksum) is still reused, and
// an edit of its content still refused.
func TestLegacySchemaStillRead(t *testing.T) {
	dir := t.TempDir()
	runs := vRuns()
	if _, err := Execute(context.Background(), runs, fullFunc, Options{Dir: dir, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	b0, err := os.ReadFile(r.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	res := new(Result)
	d := json.NewDecoder(bytes.NewReader(b0))
	d.UseNumber() // the configuration's large integer stays exact
	if err := d.Decode(res); err != nil {
		t.Fatal(err)
	}
	res.SchemaVersion = legacySchema
	if err := res.seal(); err != nil {
		t.Fatal(err)
	}
	if err := WriteResult(r.Path(dir), res); err != nil {
		t.Fatal(err)
	}
	if _, st, why := Check(r, dir); st != Valid {
		t.Fatalf("legacy result refused: %s", why)
	}
	b, _ := os.ReadFile(r.Path(dir))
	os.WriteFile(r.Path(dir), bytes.Replace(b, []byte(`"sigma": 1.5`), []byte(`"sigma": 1.6`), 1), 0o644)
	if _, st, _ := Check(r, dir); st == Valid {
		t.Fatal("an edited legacy result is reused")
	}
}
