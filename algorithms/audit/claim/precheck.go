package claim

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// precheck walks a claim file's YAML tree against the Claim type before
// the strict decoder runs, so that a new user's mistakes get messages
// that name the field: a key that is not valid where it stands names
// the nearest valid key; a value of the wrong kind (a list where a number
// belongs) names its field path and what it wants. It also collects the
// `null` values of cases and readings — the syntax that unsets an
// inherited procedure field — as paths relative to the procedure
// ("clip", "noise.sensitivity", "sampling.visible", "variables.beta"),
// keyed "cases[i]" or "readings[i]". A document the YAML parser rejects
// is left to the strict decoder, whose message names the line.
func precheck(data []byte) (map[string][]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	w := &walker{unsets: map[string][]string{}}
	if err := w.walk(doc.Content[0], reflect.TypeOf(Claim{}), "", ""); err != nil {
		return nil, err
	}
	return w.unsets, nil
}

type walker struct {
	unsets map[string][]string
}

var (
	valueType = reflect.TypeOf(Value{})
	textType  = reflect.TypeOf(Text{})
	procType  = reflect.TypeOf(Procedure{})
)

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return strings.TrimPrefix(n.ShortTag(), "!!")
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// walk checks node n against type t. path names the field for messages;
// owner is "cases[i]"/"readings[i]" while inside a case's or reading's
// procedure fields (rel is then the path relative to the procedure, kept
// in path after owner's prefix).
func (w *walker) walk(n *yaml.Node, t reflect.Type, path, owner string) error {
	if n.Kind == yaml.AliasNode {
		return nil
	}
	if isNull(n) {
		if owner != "" {
			rel := strings.TrimPrefix(path, owner+".")
			w.unsets[owner] = append(w.unsets[owner], rel)
		}
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == valueType:
		if n.Kind != yaml.ScalarNode {
			return lineErr(n.Line, "%s: want a number or a formula string, not %s", path, kindName(n))
		}
		switch n.ShortTag() {
		case "!!int", "!!float", "!!str":
			return nil
		}
		return lineErr(n.Line, "%s: want a number or a formula string, not %s %q", path, kindName(n), n.Value)
	case t == textType || t.Kind() == reflect.String:
		if n.Kind != yaml.ScalarNode {
			return lineErr(n.Line, "%s: want a string, not %s", path, kindName(n))
		}
		return nil
	case t.Kind() == reflect.Int:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			return lineErr(n.Line, "%s: want a whole number, not %s", path, describeNode(n))
		}
		return nil
	case t.Kind() == reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
			return lineErr(n.Line, "%s: want a number, not %s", path, describeNode(n))
		}
		return nil
	case t.Kind() == reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			return lineErr(n.Line, "%s: want true or false, not %s", path, describeNode(n))
		}
		return nil
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return lineErr(n.Line, "%s: want a list, not %s", path, describeNode(n))
		}
		for i, e := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if err := w.walk(e, t.Elem(), p, ""); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			return lineErr(n.Line, "%s: want a mapping, not %s", path, describeNode(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := w.walk(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value, owner); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			what := path
			if what == "" {
				what = "the claim file"
			}
			return lineErr(n.Line, "%s: want a mapping, not %s", what, describeNode(n))
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				where := ""
				if path != "" {
					where = " in " + path
				}
				return lineErr(k.Line, "unknown key %q%s%s", k.Value, where, suggest(k.Value, fields))
			}
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			// Inside a case or a reading, its procedure fields can be unset.
			o := owner
			if (strings.HasPrefix(path, "cases[") || strings.HasPrefix(path, "readings[")) && !strings.Contains(path, ".") {
				o = ""
				if f.inProcedure {
					o = path
				}
			}
			if err := w.walk(v, f.typ, p, o); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

func describeNode(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s %q", kindName(n), n.Value)
	}
	return kindName(n)
}

type fieldInfo struct {
	typ         reflect.Type
	inProcedure bool
}

// yamlFields maps the YAML keys of a struct (inline structs flattened)
// to their types, marking those of an inline Procedure.
func yamlFields(t reflect.Type) map[string]fieldInfo {
	out := map[string]fieldInfo{}
	var add func(t reflect.Type, inProc bool)
	add = func(t reflect.Type, inProc bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			name, opts, _ := strings.Cut(tag, ",")
			if tag == "-" || !f.IsExported() {
				continue
			}
			if opts == "inline" {
				add(f.Type, inProc || f.Type == procType)
				continue
			}
			if name == "" {
				continue
			}
			out[name] = fieldInfo{typ: f.Type, inProcedure: inProc}
		}
	}
	add(t, t == procType)
	return out
}

// suggest names the valid key nearest to k (edit distance at most a
// third of its length, at least 2), or lists the valid keys.
func suggest(k string, fields map[string]fieldInfo) string {
	var names []string
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	best, bd := "", 1<<30
	for _, n := range names {
		if d := editDistance(strings.ToLower(k), n); d < bd {
			best, bd = n, d
		}
	}
	if bd <= max(2, len(k)/3) {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return " (valid keys: " + strings.Join(names, ", ") + ")"
}

// editDistance is the Levenshtein distance of two strings (by runes).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// unsetField clears the field a `null` named (a path relative to the
// procedure) in p, which is a copy the caller owns.
func unsetField(p *Procedure, path string) {
	head, rest, _ := strings.Cut(path, ".")
	switch head {
	case "unit":
		p.Unit = Text{}
	case "neighbouring":
		p.Neighbouring = Text{}
	case "delta":
		p.Delta = Value{}
	case "clip":
		p.Clip = Value{}
	case "mechanism":
		p.Mechanism = Text{}
	case "steps":
		p.Steps = Value{}
	case "phases":
		p.Phases = nil
	case "variables":
		if rest == "" {
			p.Variables = nil
			return
		}
		vars := maps(p.Variables)
		delete(vars, rest)
		p.Variables = vars
	case "noise":
		if rest == "" || p.Noise == nil {
			p.Noise = nil
			return
		}
		n := *p.Noise
		zeroKey(&n, rest)
		p.Noise = &n
	case "sampling":
		if rest == "" || p.Sampling == nil {
			p.Sampling = nil
			return
		}
		s := *p.Sampling
		zeroKey(&s, rest)
		p.Sampling = &s
	case "tree":
		if rest == "" || p.Tree == nil {
			p.Tree = nil
			return
		}
		t := *p.Tree
		zeroKey(&t, rest)
		p.Tree = &t
	}
}

// zeroKey sets the field of *ptr whose YAML key is key to its zero value.
func zeroKey(ptr any, key string) {
	v := reflect.ValueOf(ptr).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == key {
			v.Field(i).Set(reflect.Zero(t.Field(i).Type))
			return
		}
	}
}
