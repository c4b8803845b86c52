package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"sync"
	"unsafe"
)

// This file is the fast path of Check: one pass over a result file that
// yields what the encoding/json path of Check computes from three
// decodings and two canonical round trips — the record decoded with exact
// numbers (for the configuration hash and the checksum), its canonical
// JSON, and the record decoded as readers expect (floats) — at a fraction
// of the cost (decoding 2,680 Upcycled-FL results took 13 s of CPU).
//
// It accepts only the plain form WriteResult writes: a syntactically
// valid JSON object whose keys are the result's own fields spelled
// exactly, each once, holding values of their own types, with no
// duplicate key anywhere. On anything else — invalid JSON, an unknown or
// differently cased key, a duplicate, a number out of range or of the
// wrong kind, schema 2 — it gives up (ok = false) and Check takes the
// encoding/json path, whose verdict stands. So whatever the fast path
// accepts it must decode exactly as encoding/json does; what it refuses
// costs only time. TestFastDecodeMatchesJSON and FuzzCheck hold it to
// that against the encoding/json path on every stored result, on random
// results and on garbled files.
//
// Canonical JSON (see Canonical) is the record marshalled, decoded with
// json.Number and marshalled again: object keys sorted as Go strings,
// numbers as the first marshalling wrote them — a metric as appendEncodedFloat
// writes it, wall and CPU seconds as encoding/json formats a float64,
// configuration and extra numbers as written in the file — strings as
// encoding/json escapes them, and the fields the struct omits when empty
// left out. appendCanonResult writes those bytes directly.

// giveUp is the panic value by which the fast decoder abandons a file.
type giveUp struct{}

// fastParser reads one JSON document from b; any unexpected byte panics
// with giveUp.
type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) fail() { panic(giveUp{}) }

// ws skips JSON whitespace (RFC 8259: space, tab, newline, return).
func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it.
func (p *fastParser) peek() byte {
	p.ws()
	if p.i >= len(p.b) {
		p.fail()
	}
	return p.b[p.i]
}

// expect consumes the byte c after optional whitespace.
func (p *fastParser) expect(c byte) {
	if p.peek() != c {
		p.fail()
	}
	p.i++
}

// more consumes the separator after an element of an object (end '}') or
// array (end ']') and reports whether another element follows.
func (p *fastParser) more(end byte) bool {
	c := p.peek()
	p.i++
	switch c {
	case ',':
		return true
	case end:
		return false
	}
	p.fail()
	return false
}

// str reads a JSON string. Plain ASCII without escapes is sliced out; a
// string with an escape, a byte ≥ 0x80 or a control character is left to
// encoding/json (escapes, UTF-8 validation and U+FFFD replacement as it
// does them).
func (p *fastParser) str() string {
	p.expect('"')
	start := p.i
	b := p.b
	for i := start; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			p.i = i + 1
			return string(b[start:i])
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return p.slowStr(start - 1)
		}
	}
	p.fail()
	return ""
}

// slowStr decodes the string token opening at b[open] with encoding/json.
func (p *fastParser) slowStr(open int) string {
	b := p.b
	for i := open + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			i++
		case c == '"':
			var s string
			if json.Unmarshal(b[open:i+1], &s) != nil {
				p.fail()
			}
			p.i = i + 1
			return s
		case c < 0x20:
			p.fail()
		}
	}
	p.fail()
	return ""
}

// num reads a JSON number token (RFC 8259 grammar) and returns its text.
func (p *fastParser) num() []byte {
	p.ws()
	b, i := p.b, p.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		p.fail()
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			p.fail()
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			p.fail()
		}
	}
	p.i = i
	return b[start:i]
}

// view is a number token as a string without copying; strconv copies the
// text into any error it returns, and errors are dropped here anyway.
func view(tok []byte) string { return unsafe.String(unsafe.SliceData(tok), len(tok)) }

// float reads a number into a float64 as encoding/json does
// (strconv.ParseFloat; out of range is an error there, so a give-up here).
func (p *fastParser) float() float64 {
	f, err := strconv.ParseFloat(view(p.num()), 64)
	if err != nil {
		p.fail()
	}
	return f
}

// int64 reads an integer as encoding/json decodes it into an int64 field.
func (p *fastParser) int64() int64 {
	n, err := strconv.ParseInt(view(p.num()), 10, 64)
	if err != nil {
		p.fail()
	}
	return n
}

func (p *fastParser) uint64() uint64 {
	n, err := strconv.ParseUint(view(p.num()), 10, 64)
	if err != nil {
		p.fail()
	}
	return n
}

// lit consumes the literal word (true, false, null).
func (p *fastParser) lit(word string) {
	p.ws()
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		p.fail()
	}
	p.i += len(word)
}

func (p *fastParser) boolean() bool {
	if p.peek() == 't' {
		p.lit("true")
		return true
	}
	p.lit("false")
	return false
}

// null consumes a null literal if one comes next.
func (p *fastParser) null() bool {
	if p.peek() == 'n' {
		p.lit("null")
		return true
	}
	return false
}

// maxFastDepth bounds the nesting the fast path follows; deeper documents
// go to encoding/json (whose own limit is 10,000).
const maxFastDepth = 200

// value reads any JSON value as encoding/json decodes it into an `any`
// with UseNumber: map[string]any, []any (never nil), json.Number, string,
// bool, nil. A duplicate key gives up (encoding/json keeps the last).
func (p *fastParser) value(depth int) any {
	if depth > maxFastDepth {
		p.fail()
	}
	switch p.peek() {
	case '{':
		p.i++
		m := map[string]any{}
		if p.peek() == '}' {
			p.i++
			return m
		}
		for {
			k := p.str()
			p.expect(':')
			v := p.value(depth + 1)
			if _, dup := m[k]; dup {
				p.fail()
			}
			m[k] = v
			if !p.more('}') {
				return m
			}
		}
	case '[':
		p.i++
		a := make([]any, 0)
		if p.peek() == ']' {
			p.i++
			return a
		}
		for {
			a = append(a, p.value(depth+1))
			if !p.more(']') {
				return a
			}
		}
	case '"':
		return p.str()
	case 't', 'f':
		return p.boolean()
	case 'n':
		p.lit("null")
		return nil
	}
	return json.Number(p.num())
}

// metrics reads a Metrics object as Metrics.UnmarshalJSON decodes it:
// numbers, or the strings "NaN", "+Inf", "Inf", "-Inf".
func (p *fastParser) metrics(size int) Metrics {
	p.expect('{')
	m := make(Metrics, size)
	if p.peek() == '}' {
		p.i++
		return m
	}
	for {
		k := p.str()
		p.expect(':')
		var f float64
		if p.peek() == '"' {
			switch p.str() {
			case "NaN":
				f = math.NaN()
			case "+Inf", "Inf":
				f = math.Inf(1)
			case "-Inf":
				f = math.Inf(-1)
			default:
				p.fail()
			}
		} else {
			f = p.float()
		}
		if _, dup := m[k]; dup {
			p.fail()
		}
		m[k] = f
		if !p.more('}') {
			return m
		}
	}
}

// fastMetrics decodes b, a whole JSON document, as a Metrics object in
// one pass; ok is false when it is not a plain one.
func fastMetrics(b []byte) (m Metrics, ok bool) {
	return parseWhole(b, func(p *fastParser) Metrics { return p.metrics(8) })
}

// stringMap reads a JSON object of strings (Provenance.Data).
func (p *fastParser) stringMap() map[string]string {
	p.expect('{')
	m := map[string]string{}
	if p.peek() == '}' {
		p.i++
		return m
	}
	for {
		k := p.str()
		p.expect(':')
		v := p.str()
		if _, dup := m[k]; dup {
			p.fail()
		}
		m[k] = v
		if !p.more('}') {
			return m
		}
	}
}

func (p *fastParser) provenance() *Provenance {
	if p.null() {
		return nil
	}
	pv := &Provenance{}
	p.expect('{')
	if p.peek() == '}' {
		p.i++
		return pv
	}
	var seen uint
	for {
		k := p.str()
		p.expect(':')
		bit := uint(0)
		switch k {
		case "module":
			bit, pv.Module = 1, p.str()
		case "version":
			bit, pv.Version = 2, p.str()
		case "commit":
			bit, pv.Commit = 4, p.str()
		case "dirty":
			bit, pv.Dirty = 8, p.boolean()
		case "go_version":
			bit, pv.GoVersion = 16, p.str()
		case "platform":
			bit, pv.Platform = 32, p.str()
		case "spec_sha256":
			bit, pv.SpecSHA256 = 64, p.str()
		case "data":
			bit = 128
			if !p.null() {
				pv.Data = p.stringMap()
			}
		default:
			p.fail()
		}
		if seen&bit != 0 {
			p.fail()
		}
		seen |= bit
		if !p.more('}') {
			return pv
		}
	}
}

// fast is the outcome of decodeFast.
type fast struct {
	// res is the record as json.Unmarshal decodes it (configuration and
	// extra numbers as float64), the result Check hands back.
	res *Result
	// ownHash is the configuration hash recomputed from the stored
	// configuration (hashOf), sum the record's checksum (Checksum).
	ownHash, sum string
}

// Top-level fields of a result file, one bit each, to refuse duplicates.
const (
	fSchema = 1 << iota
	fPaper
	fScale
	fExperiment
	fCell
	fSeed
	fConfig
	fConfigHash
	fRounds
	fFinal
	fCounters
	fExtra
	fWall
	fCPU
	fCodeVersion
	fProvenance
	fChecksum
)

// decodeFast decodes a current-schema result file in one pass; ok is false
// when b is not in the plain form described above (the caller then
// decodes with encoding/json).
func decodeFast(b []byte) (out fast, ok bool) {
	defer onGiveUp(&out, &ok)
	p := &fastParser{b: b}
	var res Result
	var config, extra any // as decoded with UseNumber
	var seen uint
	p.expect('{')
	if p.peek() == '}' {
		p.fail() // not a result; encoding/json's path says why
	}
	for {
		k := p.str()
		p.expect(':')
		var bit uint
		switch k {
		case "schema_version":
			bit = fSchema
			n := p.int64()
			if int64(int(n)) != n {
				p.fail()
			}
			res.SchemaVersion = int(n)
		case "paper":
			bit, res.Paper = fPaper, p.str()
		case "scale":
			bit, res.Scale = fScale, p.str()
		case "experiment":
			bit, res.Experiment = fExperiment, p.str()
		case "cell":
			bit, res.Cell = fCell, p.str()
		case "seed":
			bit, res.Seed = fSeed, p.uint64()
		case "config":
			bit, config = fConfig, p.value(0)
		case "config_hash":
			bit, res.ConfigHash = fConfigHash, p.str()
		case "rounds":
			bit = fRounds
			if p.null() {
				break
			}
			p.expect('[')
			res.Rounds = make([]Metrics, 0, 8)
			if p.peek() == ']' {
				p.i++
				break
			}
			size := 8
			for {
				m := p.metrics(size)
				size = len(m)
				res.Rounds = append(res.Rounds, m)
				if !p.more(']') {
					break
				}
			}
		case "final":
			bit, res.Final = fFinal, p.metrics(8)
		case "counters":
			bit = fCounters
			if p.null() {
				break
			}
			p.expect('{')
			res.Counters = Counters{}
			if p.peek() == '}' {
				p.i++
				break
			}
			for {
				k := p.str()
				p.expect(':')
				v := p.int64()
				if _, dup := res.Counters[k]; dup {
					p.fail()
				}
				res.Counters[k] = v
				if !p.more('}') {
					break
				}
			}
		case "extra":
			bit, extra = fExtra, p.value(0)
		case "wall_seconds":
			bit, res.WallSeconds = fWall, p.float()
		case "cpu_seconds":
			bit, res.CPUSeconds = fCPU, p.float()
		case "code_version":
			bit, res.CodeVersion = fCodeVersion, p.str()
		case "provenance":
			bit, res.Provenance = fProvenance, p.provenance()
		case "checksum":
			bit, res.Sum = fChecksum, p.str()
		default:
			p.fail()
		}
		if seen&bit != 0 {
			p.fail()
		}
		seen |= bit
		if !p.more('}') {
			break
		}
	}
	p.ws()
	if p.i != len(b) || res.SchemaVersion != ResultSchema {
		p.fail()
	}

	buf := canonPool.Get().(*[]byte)
	defer canonPool.Put(buf)
	c := appendCanon((*buf)[:0], config)
	cfgHash := sha256.Sum256(c)
	out.ownHash = hex.EncodeToString(cfgHash[:8])
	c = appendCanonResult(c[:0], &res, config, extra, extra != nil)
	sum := sha256.Sum256(c)
	out.sum = hex.EncodeToString(sum[:])
	*buf = c

	res.Config = p.floats(config)
	res.Extra = p.floats(extra)
	out.res = &res
	return out, true
}

var canonPool = sync.Pool{New: func() any { b := make([]byte, 0, 1<<16); return &b }}

// floats turns a UseNumber tree into the tree json.Unmarshal gives an
// `any` (numbers as float64; out of range is an error there).
func (p *fastParser) floats(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			p.fail()
		}
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = p.floats(e)
		}
	case []any:
		for i, e := range v {
			v[i] = p.floats(e)
		}
	}
	return v
}

// appendCanon appends the canonical JSON of a UseNumber tree — what
// json.Marshal writes for it (keys sorted, numbers verbatim).
func appendCanon(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return appendCanonString(b, v)
	case json.Number:
		return append(b, v...)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanon(b, e)
		}
		return append(b, ']')
	case map[string]any:
		b, _ = appendSortedObject(b, v, make([]string, 0, len(v)), appendCanon)
		return b
	}
	panic("runner: appendCanon: unexpected type in a decoded tree")
}

// appendCanonString appends s as the canonical JSON holds it: a string
// of printable ASCII that encoding/json does not escape is quoted as is;
// any other goes through encoding/json twice, as Canonical takes it
// (marshalled, decoded, marshalled).
func appendCanonString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			m, _ := json.Marshal(s)
			var back string
			_ = json.Unmarshal(m, &back)
			m, _ = json.Marshal(back)
			return append(b, m...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json formats a float64: the
// shortest representation, %f between 1e-6 and 1e21, otherwise %e with a
// one-digit negative exponent unpadded ("1e-7", not "1e-07").
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendCanonMetrics appends the canonical JSON of m: Metrics.MarshalJSON's
// output (appendEncodedFloat, sorted keys; "{}" for a nil map) decoded and
// marshalled again, which leaves it as it is but for the keys' escaping.
func appendCanonMetrics(b []byte, m Metrics, keys []string) ([]byte, []string) {
	return appendSortedObject(b, m, keys, appendEncodedFloat)
}

// appendSortedObject appends m as a JSON object with its keys in sorted
// order (canonical strings), each value written by val; keys is scratch
// for the sorted keys, returned for reuse.
func appendSortedObject[V any](b []byte, m map[string]V, keys []string, val func([]byte, V) []byte) ([]byte, []string) {
	keys = keys[:0]
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCanonString(b, k)
		b = append(b, ':')
		b = val(b, m[k])
	}
	return append(b, '}'), keys
}

// appendCanonResult appends the canonical JSON of a current-schema record
// with its checksum field emptied — the bytes Checksum hashes — given its
// configuration and extra data as UseNumber trees (hasExtra: the record's
// Extra is not a nil interface, so encoding/json writes it, if only as
// null). The keys are written in sorted order; cpu_seconds, extra and
// provenance (and provenance's dirty, spec_sha256 and data) are left out
// when empty, as their omitempty tags make encoding/json do.
func appendCanonResult(b []byte, r *Result, config, extra any, hasExtra bool) []byte {
	str := func(k, v string) {
		b = append(b, k...)
		b = appendCanonString(b, v)
	}
	b = append(b, '{')
	str(`"cell":`, r.Cell)
	b = append(b, `,"checksum":""`...)
	str(`,"code_version":`, r.CodeVersion)
	b = append(b, `,"config":`...)
	b = appendCanon(b, config)
	str(`,"config_hash":`, r.ConfigHash)
	b = append(b, `,"counters":`...)
	if r.Counters == nil {
		b = append(b, "null"...)
	} else {
		keys := make([]string, 0, len(r.Counters))
		for k := range r.Counters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonString(b, k)
			b = append(b, ':')
			b = strconv.AppendInt(b, r.Counters[k], 10)
		}
		b = append(b, '}')
	}
	if r.CPUSeconds != 0 {
		b = append(b, `,"cpu_seconds":`...)
		b = appendJSONFloat(b, r.CPUSeconds)
	}
	str(`,"experiment":`, r.Experiment)
	if hasExtra {
		b = append(b, `,"extra":`...)
		b = appendCanon(b, extra)
	}
	var keys []string
	b = append(b, `,"final":`...)
	b, keys = appendCanonMetrics(b, r.Final, keys)
	str(`,"paper":`, r.Paper)
	if pv := r.Provenance; pv != nil {
		str(`,"provenance":{"commit":`, pv.Commit)
		if len(pv.Data) > 0 {
			dk := make([]string, 0, len(pv.Data))
			for k := range pv.Data {
				dk = append(dk, k)
			}
			sort.Strings(dk)
			b = append(b, `,"data":{`...)
			for i, k := range dk {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendCanonString(b, k)
				b = append(b, ':')
				b = appendCanonString(b, pv.Data[k])
			}
			b = append(b, '}')
		}
		if pv.Dirty {
			b = append(b, `,"dirty":true`...)
		}
		str(`,"go_version":`, pv.GoVersion)
		str(`,"module":`, pv.Module)
		str(`,"platform":`, pv.Platform)
		if pv.SpecSHA256 != "" {
			str(`,"spec_sha256":`, pv.SpecSHA256)
		}
		str(`,"version":`, pv.Version)
		b = append(b, '}')
	}
	b = append(b, `,"rounds":`...)
	if r.Rounds == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range r.Rounds {
			if i > 0 {
				b = append(b, ',')
			}
			b, keys = appendCanonMetrics(b, m, keys)
		}
		b = append(b, ']')
	}
	str(`,"scale":`, r.Scale)
	b = append(b, `,"schema_version":`...)
	b = strconv.AppendInt(b, int64(r.SchemaVersion), 10)
	b = append(b, `,"seed":`...)
	b = strconv.AppendUint(b, r.Seed, 10)
	b = append(b, `,"wall_seconds":`...)
	b = appendJSONFloat(b, r.WallSeconds)
	return append(b, '}')
}

// numberTree is v as Canonical reads it back: encoded by encoding/json and
// decoded with json.Number (by the one-pass parser when it can).
func numberTree(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if t, ok := fastValue(b); ok {
		return t, nil
	}
	var t any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	err = d.Decode(&t)
	return t, err
}

// fastValue parses b, one whole JSON document, as encoding/json decodes
// it into an `any` with UseNumber; ok is false when the one-pass parser
// gives up (a duplicate key, deep nesting, invalid input).
func fastValue(b []byte) (v any, ok bool) {
	return parseWhole(b, func(p *fastParser) any { return p.value(0) })
}

// parseWhole runs parse over b, which must hold one whole JSON document
// (white space after it only); ok is false, and v the zero value, when the
// parser gives up.
func parseWhole[T any](b []byte, parse func(*fastParser) T) (v T, ok bool) {
	defer onGiveUp(&v, &ok)
	p := &fastParser{b: b}
	v = parse(p)
	p.ws()
	if p.i != len(b) {
		p.fail()
	}
	return v, true
}

// onGiveUp, deferred by a one-pass decoder, turns the parser's giveUp
// panic into (zero value, false); any other panic goes on.
func onGiveUp[T any](v *T, ok *bool) {
	if e := recover(); e != nil {
		if _, is := e.(giveUp); !is {
			panic(e)
		}
		var zero T
		*v, *ok = zero, false
	}
}

// sum is Checksum computed without its canonical round trip: the record
// is written straight in canonical form (appendCanonResult) from its
// configuration and extra data as Canonical reads them back (numberTree).
// A legacy record, or one that encoding/json cannot encode (a NaN outside
// Metrics), takes Checksum itself, which decides.
func (res *Result) sum() (string, error) {
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	if res.SchemaVersion != ResultSchema || !finite(res.WallSeconds) || !finite(res.CPUSeconds) {
		return res.Checksum()
	}
	config, err := numberTree(res.Config)
	if err != nil {
		return res.Checksum()
	}
	var extra any
	if res.Extra != nil {
		if extra, err = numberTree(res.Extra); err != nil {
			return res.Checksum()
		}
	}
	buf := canonPool.Get().(*[]byte)
	defer canonPool.Put(buf)
	*buf = appendCanonResult((*buf)[:0], res, config, extra, res.Extra != nil)
	h := sha256.Sum256(*buf)
	return hex.EncodeToString(h[:]), nil
}

// appendMarshalString appends json.Marshal(s): quoted as is when s is
// printable ASCII that encoding/json does not escape, else by encoding/json.
func appendMarshalString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			m, _ := json.Marshal(s)
			return append(b, m...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
