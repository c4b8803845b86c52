package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// sameValue is reflect.DeepEqual with NaN equal to NaN (a diverged metric
// is a value a result carries): same types, same nil-ness of maps, slices,
// pointers and interfaces, same elements.
func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y && math.Signbit(x) == math.Signbit(y) || math.IsNaN(x) && math.IsNaN(y)
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); !bv.IsValid() || !sameValue(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return a.Interface() == b.Interface()
}

// agree checks that checkBytes (fast path when it applies) and checkJSON
// (encoding/json) reach the same status, reason and result for b.
func agree(r Run, b []byte) error {
	res, st, why := checkBytes(r, b)
	wres, wst, wwhy := checkJSON(r, b)
	if st != wst || why != wwhy {
		return fmt.Errorf("fast path: status %d %q; encoding/json: status %d %q", st, why, wst, wwhy)
	}
	if !sameValue(reflect.ValueOf(res), reflect.ValueOf(wres)) {
		return fmt.Errorf("fast path and encoding/json decode different results:\n%#v\n%#v", res, wres)
	}
	return nil
}

// runOf is the run a stored file claims to be, planned with the stored
// configuration (which hashes as the paper's own struct does).
func runOf(t testing.TB, b []byte) Run {
	t.Helper()
	var got Result
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&got); err != nil {
		t.Fatal(err)
	}
	return got.Run
}

// storedResults lists the result files of the repository's results/
// folder, or of $FEDREPRO_RESULTS, when there is one.
func storedResults(t *testing.T) []string {
	dir := os.Getenv("FEDREPRO_RESULTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "results")
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") && !strings.HasPrefix(d.Name(), ".") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("no stored results under %s (%v); set FEDREPRO_RESULTS to a results folder", dir, err)
	}
	return files
}

// Every stored result takes the fast path (it is in the form WriteResult
// writes), is valid — its recomputed checksum reproduces the stored one,
// which encoding/json's canonical form produced, so one byte of difference
// in the canonical JSON would show — and decodes to the record
// json.Unmarshal gives. Every tenth file is also checked against the whole
// encoding/json path planned as itself, and every hundredth as a run of
// another configuration (stale) and of another seed (damaged) too: all of
// them would cost a minute of CPU for what the random tests cover.
func TestFastDecodeMatchesJSON(t *testing.T) {
	files := storedResults(t)
	var mu sync.Mutex
	var errs []string
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				b, err := os.ReadFile(files[i])
				if err == nil {
					err = checkStored(t, b, i%10 == 0, i%100 == 0)
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, files[i]+": "+err.Error())
					mu.Unlock()
				}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d stored results differ; first: %s", len(errs), len(files), errs[0])
	}
	t.Logf("%d stored results: fast path equals encoding/json", len(files))
}

func checkStored(t *testing.T, b []byte, whole, others bool) error {
	if _, ok := decodeFast(b); !ok {
		return fmt.Errorf("the fast path refused a stored result")
	}
	r := runOf(t, b)
	res, st, why := checkBytes(r, b)
	if st != Valid {
		return fmt.Errorf("not valid: %s", why)
	}
	var want Result
	if err := json.Unmarshal(b, &want); err != nil {
		return err
	}
	if !sameValue(reflect.ValueOf(res), reflect.ValueOf(&want)) {
		return fmt.Errorf("fast path and json.Unmarshal decode different results:\n%#v\n%#v", res, &want)
	}
	if !whole {
		return nil
	}
	runs := []Run{r}
	if others {
		other := r
		other.Config = map[string]any{"other": 1}
		seed := r
		seed.Seed++
		runs = append(runs, other, seed)
	}
	for _, run := range runs {
		if err := agree(run, b); err != nil {
			return err
		}
	}
	return nil
}

// genTree draws a JSON-encodable value: nested objects and arrays of
// strings (HTML characters, escapes, non-ASCII, U+2028),
// integers beyond 2^53, floats across magnitudes, booleans, nulls.
func genTree(rng *rand.Rand, depth int) any {
	k := rng.IntN(9)
	if depth > 3 {
		k = 2 + rng.IntN(7)
	}
	switch k {
	case 0:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[genString(rng)] = genTree(rng, depth+1)
		}
		return m
	case 1:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = genTree(rng, depth+1)
		}
		return a
	case 2, 3:
		return genString(rng)
	case 4:
		return genFloat(rng)
	case 5:
		return rng.Uint64() >> rng.IntN(64)
	case 6:
		return -rng.Int64N(1 << 62)
	case 7:
		return rng.IntN(2) == 0
	}
	return nil
}

// strPieces build the strings of random results: HTML characters,
// characters JSON escapes, non-ASCII, U+FFFD; valid UTF-8, as every string
// a decoder hands back is (invalid bytes in a file are garbling's part).
var strPieces = []string{"a", "lr", "acc", "<", ">", "&", `"`, `\`, "\n", "\t", "\x01", "\x7f", "é", "λ",
	"\u2028", "\u2029", "\ufffd", "😀", " ", ".", "0", "_", "Z"}

func genString(rng *rand.Rand) string {
	var sb strings.Builder
	for range rng.IntN(6) {
		sb.WriteString(strPieces[rng.IntN(len(strPieces))])
	}
	return sb.String()
}

func genFloat(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.Float64frombits(rng.Uint64()) // any bit pattern, NaN and Inf included
	case 3:
		return float64(rng.IntN(1000))
	case 4:
		return math.Ldexp(rng.Float64(), rng.IntN(160)-80)
	case 5:
		return math.SmallestNonzeroFloat64 * float64(rng.IntN(4))
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25))
}

// finite replaces NaN and ±Inf, which JSON numbers cannot hold outside
// Metrics.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 1.5
	}
	return f
}

func finiteTree(v any) any {
	switch x := v.(type) {
	case float64:
		return finite(x)
	case map[string]any:
		for k, e := range x {
			x[k] = finiteTree(e)
		}
	case []any:
		for i, e := range x {
			x[i] = finiteTree(e)
		}
	}
	return v
}

func genMetrics(rng *rand.Rand) Metrics {
	if rng.IntN(10) == 0 {
		return nil
	}
	m := Metrics{}
	for range rng.IntN(6) {
		m[genString(rng)] = genFloat(rng)
	}
	return m
}

// genResult draws a sealed result with every optional part present or
// absent, as WriteResult stores it.
func genResult(rng *rand.Rand) []byte {
	res := Result{
		SchemaVersion: ResultSchema,
		Run: Run{Paper: "p" + genString(rng), Scale: "smoke", Experiment: genString(rng), Cell: "c/" + genString(rng),
			Seed: rng.Uint64() >> rng.IntN(64), Config: finiteTree(genTree(rng, 0))},
		Final:       genMetrics(rng),
		WallSeconds: finite(genFloat(rng)),
		CPUSeconds:  finite(genFloat(rng)),
		CodeVersion: genString(rng),
	}
	if rng.IntN(3) == 0 {
		res.CPUSeconds = 0
	}
	if rng.IntN(5) > 0 {
		res.Rounds = make([]Metrics, rng.IntN(4))
		for i := range res.Rounds {
			res.Rounds[i] = genMetrics(rng)
			if res.Rounds[i] == nil {
				res.Rounds[i] = Metrics{}
			}
		}
	}
	if rng.IntN(5) > 0 {
		res.Counters = Counters{}
		for range rng.IntN(4) {
			res.Counters[genString(rng)] = rng.Int64() >> rng.IntN(64)
		}
	}
	if rng.IntN(2) == 0 {
		res.Extra = finiteTree(genTree(rng, 0))
	}
	if rng.IntN(4) > 0 {
		pv := &Provenance{Module: genString(rng), Version: genString(rng), Commit: genString(rng),
			Dirty: rng.IntN(2) == 0, GoVersion: "go1.26", Platform: genString(rng)}
		if rng.IntN(2) == 0 {
			pv.SpecSHA256 = genString(rng)
		}
		if rng.IntN(2) == 0 {
			pv.Data = map[string]string{}
			for range rng.IntN(3) {
				pv.Data[genString(rng)] = genString(rng)
			}
		}
		res.Provenance = pv
	}
	var err error
	if res.ConfigHash, err = res.Run.ConfigHash(); err != nil {
		panic(err)
	}
	if err := res.seal(); err != nil {
		panic(err)
	}
	b, err := json.MarshalIndent(&res, "", " ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// garble applies one of the edits a damaged, hand-edited or foreign file
// shows: a byte changed, removed or inserted, a cut, a duplicated line, a
// key recased, a number pushed out of range, a value replaced by another
// kind.
func garble(rng *rand.Rand, b []byte) []byte {
	b = bytes.Clone(b)
	if len(b) == 0 {
		return b
	}
	i := rng.IntN(len(b))
	const alphabet = "{}[],:\" \\\n0123456789.eE+-tfnulrasNIn\x00\xff<"
	switch rng.IntN(9) {
	case 0:
		b[i] = alphabet[rng.IntN(len(alphabet))]
	case 1:
		return append(b[:i], b[i+1:]...)
	case 2:
		return append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
	case 3:
		return b[:i]
	case 4:
		lines := bytes.SplitAfter(b, []byte("\n"))
		j := rng.IntN(len(lines))
		lines = append(lines[:j+1], lines[j:]...)
		return bytes.Join(lines, nil)
	case 5:
		return bytes.Replace(b, []byte(`"paper"`), []byte(`"Paper"`), 1)
	case 6:
		return bytes.Replace(b, []byte(`: 0`), []byte(`: 1e999`), 1)
	case 7:
		kinds := []string{`null`, `"x"`, `true`, `[]`, `{}`, `-1`, `1.5`, `"NaN"`, `"Inf"`, `18446744073709551616`}
		lines := bytes.SplitAfter(b, []byte("\n"))
		j := rng.IntN(len(lines))
		if k := bytes.IndexByte(lines[j], ':'); k > 0 {
			end := bytes.TrimRight(lines[j][k+1:], ",\n")
			tail := lines[j][k+1+len(end):]
			lines[j] = append(append(append([]byte{}, lines[j][:k+1]...), kinds[rng.IntN(len(kinds))]...), tail...)
		}
		return bytes.Join(lines, nil)
	}
	return append(b, alphabet[rng.IntN(len(alphabet))])
}

// Random results, intact and garbled, decode alike on both paths; the
// intact ones are valid and take the fast path.
func TestFastDecodeRandom(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 400
	props := gopter.NewProperties(params)
	props.Property("intact results: fast path, valid, equal to encoding/json", prop.ForAll(func(seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 1))
		b := genResult(rng)
		if _, ok := decodeFast(b); !ok {
			return "fast path refused a result WriteResult wrote:\n" + string(b)
		}
		r := runOf(t, b)
		if _, st, why := checkBytes(r, b); st != Valid {
			return "not valid: " + why + "\n" + string(b)
		}
		if err := agree(r, b); err != nil {
			return err.Error() + "\n" + string(b)
		}
		return ""
	}, gen.UInt64()))
	props.Property("garbled results: same verdict and record", prop.ForAll(func(seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 2))
		b := genResult(rng)
		r := runOf(t, b)
		for range 1 + rng.IntN(3) {
			b = garble(rng, b)
		}
		if err := agree(r, b); err != nil {
			return err.Error() + "\n" + string(b)
		}
		return ""
	}, gen.UInt64()))
	props.TestingRun(t)
}

// Cut anywhere, a result is damaged alike on both paths.
func TestFastDecodeTruncated(t *testing.T) {
	b := genResult(rand.New(rand.NewPCG(7, 7)))
	r := runOf(t, b)
	for n := range len(b) {
		if err := agree(r, b[:n]); err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
}

// Hand edits go to encoding/json or decode alike: keys recased,
// duplicated, unknown or escaped, other schemas, numbers of the wrong kind,
// trailing data; and, on random results, every scalar changed, every key
// removed, every value set to null (each a valid JSON document).
func TestFastDecodeEdits(t *testing.T) {
	b := genResult(rand.New(rand.NewPCG(3, 3)))
	base := string(b)
	sub := func(old, new string) string { return strings.Replace(base, old, new, 1) }
	cases := map[string]string{
		"recased key":         sub(`"paper"`, `"PAPER"`),
		"duplicate key":       sub(`"scale": "smoke",`, `"scale": "smoke", "scale": "smoke",`),
		"unknown key":         sub(`"scale"`, `"scale2": 1, "scale"`),
		"schema 2":            sub(`"schema_version": 3`, `"schema_version": 2`),
		"schema as float":     sub(`"schema_version": 3`, `"schema_version": 3.0`),
		"negative seed":       strings.Replace(base, `"seed": `, `"seed": -`, 1),
		"escaped key":         sub(`"paper"`, `"p\u0061per"`),
		"trailing brace":      base + "}",
		"trailing value":      base + "{}",
		"second document":     base + base,
		"leading BOM":         "\ufeff" + base,
		"empty object":        "{}",
		"array":               "[]",
		"big counter":         sub(`"counters": {`, `"counters": {"big": 9223372036854775808,`),
		"metric as string":    sub(`"final": {`, `"final": {"x": "1",`),
		"metric NaN spelling": sub(`"final": {`, `"final": {"x": "nan",`),
		"metric null":         sub(`"final": {`, `"final": {"x": null,`),
		"invalid UTF-8":       sub(`"scale": "smoke"`, `"scale": "smo\xffke"`),
		"invalid UTF-8 key":   sub(`"final": {`, `"final": {"\xc3": 1, "\xff": 2,`),
		"raw control char":    sub(`"scale": "smoke"`, `"scale": "smo\x01ke"`),
		"bad escape":          sub(`"scale": "smoke"`, `"scale": "smo\\qke"`),
		"deep extra":          sub(`"code_version"`, `"extra": `+strings.Repeat("[", 300)+strings.Repeat("]", 300)+`, "code_version"`),
	}
	r := runOf(t, b)
	for name, edited := range cases {
		t.Run(name, func(t *testing.T) {
			if edited == base {
				t.Fatal("the edit changed nothing")
			}
			if err := agree(r, []byte(edited)); err != nil {
				t.Fatal(err)
			}
		})
	}
	for seed := range uint64(6) {
		b := genResult(rand.New(rand.NewPCG(seed, 4)))
		r := runOf(t, b)
		decode := func() any {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			var doc any
			if err := d.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			return doc
		}
		var ops []string
		leaves("", decode(), &ops)
		for _, op := range ops {
			if path, ok := strings.CutPrefix(op, "del:"); ok {
				ops = append(ops, "null:"+path)
			}
		}
		for _, op := range ops {
			doc := decode()
			var err error
			if path, ok := strings.CutPrefix(op, "null:"); ok {
				err = edit(doc, "del:"+path)
				setNull(doc, path)
			} else {
				err = edit(doc, op)
			}
			if err != nil {
				t.Fatal(err)
			}
			edited, err := json.MarshalIndent(doc, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if err := agree(r, edited); err != nil {
				t.Fatalf("seed %d, %s: %v\n%s", seed, op, err, edited)
			}
		}
	}
}

// setNull sets the object key at path (whose last step names a key) to null.
func setNull(doc any, path string) {
	parts := strings.Split(path, "/")[1:]
	cur := doc
	for _, p := range parts[:len(parts)-1] {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[p]
		case []any:
			k, _ := strconv.Atoi(p)
			cur = x[k]
		}
	}
	cur.(map[string]any)[parts[len(parts)-1]] = nil
}

// FuzzCheck: for any bytes, both paths agree (seeded with random results
// and garbled ones; `go test -fuzz FuzzCheck` explores further).
func FuzzCheck(f *testing.F) {
	rng := rand.New(rand.NewPCG(11, 11))
	for range 8 {
		b := genResult(rng)
		f.Add(b)
		f.Add(garble(rng, b))
	}
	run := runOf(f, genResult(rand.New(rand.NewPCG(11, 11))))
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := agree(run, b); err != nil {
			t.Fatal(err)
		}
	})
}

// appendJSONFloat writes what encoding/json writes for a float64.
func TestAppendJSONFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	vals := []float64{0, math.Copysign(0, -1), 1e-6, math.Nextafter(1e-6, 0), 1e21, math.Nextafter(1e21, 0), 1e-7, 1e-10,
		1e-100, 1e100, 5e-324, math.MaxFloat64, 0.1, 100, 123456789012345680000}
	for range 20000 {
		f := genFloat(rng)
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			vals = append(vals, f, -f)
		}
	}
	for _, f := range vals {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Fatalf("%v: appendJSONFloat %s, encoding/json %s", f, got, want)
		}
	}
}

// appendCanon writes what Canonical writes for a tree decoded with
// UseNumber, strings of every kind included.
func TestAppendCanon(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for range 3000 {
		tree := numbersAsJSON(finiteTree(genTree(rng, 0)))
		want, err := Canonical(tree)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendCanon(nil, tree); string(got) != string(want) {
			t.Fatalf("appendCanon %s\nCanonical   %s", got, want)
		}
	}
}

// numbersAsJSON replaces each number of a tree by its JSON text, as a
// UseNumber decoding holds it.
func numbersAsJSON(v any) any {
	switch x := v.(type) {
	case float64, uint64, int64:
		b, _ := json.Marshal(x)
		return json.Number(b)
	case map[string]any:
		for k, e := range x {
			x[k] = numbersAsJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbersAsJSON(e)
		}
	}
	return v
}

// Metrics.UnmarshalJSON's one-pass reading equals encoding/json's (the
// value, or an error) on random objects, intact and garbled.
func TestMetricsUnmarshalFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 20000 {
		m := genMetrics(rng)
		b, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			for range 1 + rng.IntN(2) {
				b = garble(rng, b)
			}
		} else if _, ok := fastMetrics(b); !ok {
			t.Fatalf("fast reading refused %s", b)
		}
		var fast, slow Metrics
		ferr := fast.UnmarshalJSON(b)
		serr := slow.unmarshalJSON(b)
		// (which metric an error names depends on map order in
		// encoding/json's reading: only whether there is one is compared)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("%q: errors %v and %v", b, ferr, serr)
		}
		if !sameValue(reflect.ValueOf(fast), reflect.ValueOf(slow)) {
			t.Fatalf("%q: %v and %v", b, fast, slow)
		}
	}
}

// marshalMetricsRef is Metrics.MarshalJSON as it was written first, by
// encoding/json and strconv: the reference of the faster one.
func marshalMetricsRef(m Metrics) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		f := m[k]
		switch {
		case math.IsNaN(f):
			buf.WriteString(`"NaN"`)
		case math.IsInf(f, 1):
			buf.WriteString(`"+Inf"`)
		case math.IsInf(f, -1):
			buf.WriteString(`"-Inf"`)
		default:
			buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// Metrics.MarshalJSON writes the bytes of its reference on random
// metrics (keys with characters encoding/json escapes, invalid UTF-8 too).
func TestMetricsMarshalJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 20000 {
		m := genMetrics(rng)
		if rng.IntN(4) == 0 && m != nil {
			m["\xff"+genString(rng)] = genFloat(rng)
		}
		got, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalMetricsRef(m); !bytes.Equal(got, want) {
			t.Fatalf("MarshalJSON %s\nreference   %s", got, want)
		}
	}
}

// The checksum a run is sealed with (sum: canonical JSON written
// directly) equals Checksum (encoding/json's round trip) on random
// records held as a run holds them: configurations as Go structs, extra
// data as maps, slices, typed nils, a nil interface.
func TestSealMatchesChecksum(t *testing.T) {
	type inner struct {
		A float64 `json:"a"`
		B []int   `json:"b,omitempty"`
		S string  `json:"s"`
	}
	type config struct {
		Name string            `json:"name"`
		Seed uint64            `json:"seed"`
		LR   float64           `json:"lr"`
		In   inner             `json:"in"`
		Ptr  *inner            `json:"ptr"`
		M    map[string]string `json:"m,omitempty"`
		Any  any               `json:"any"`
		Omit int               `json:"omit,omitempty"`
	}
	rng := rand.New(rand.NewPCG(10, 10))
	for i := range 3000 {
		b := genResult(rng)
		var res Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		switch i % 4 {
		case 0:
			res.Config = config{Name: genString(rng), Seed: rng.Uint64(), LR: finite(genFloat(rng)),
				In: inner{A: finite(genFloat(rng)), S: genString(rng)}, Any: finiteTree(genTree(rng, 0))}
		case 1:
			res.Config = &config{Ptr: &inner{B: []int{1, 2}}, M: map[string]string{genString(rng): genString(rng)}}
		}
		switch i % 5 {
		case 0:
			res.Extra = nil
		case 1:
			res.Extra = map[string]any(nil)
		case 2:
			res.Extra = (*inner)(nil)
		case 3:
			res.Extra = []inner{{A: finite(genFloat(rng))}}
		}
		want, err := res.Checksum()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := res.sum(); err != nil || got != want {
			t.Fatalf("sum %s (%v), Checksum %s\n%s", got, err, want, b)
		}
	}
}
