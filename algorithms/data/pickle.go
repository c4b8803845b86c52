package data

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file is a minimal pickle virtual machine: enough of protocols 0–4
// to read what torch.save writes for tensors and TensorDatasets, and
// nothing that executes code. Globals are recorded by name; the only
// callables given meaning are torch._utils._rebuild_tensor_v2 (a tensor
// view of a storage) and collections.OrderedDict (a dict). Every other
// call or object construction becomes an inert pyObject, so arbitrary
// pickles decode into a value graph without side effects.

// pyGlobal is a reference to module.name (GLOBAL / STACK_GLOBAL).
type pyGlobal struct{ Module, Name string }

// pyTuple, pyList and pyDict are pointers so that the graph walk can detect
// shared and cyclic references.
type pyTuple struct{ items []any }
type pyList struct{ items []any }
type pyDict struct {
	keys, vals []any
	index      map[any]int // position of each comparable key
}

// pyObject is the inert result of NEWOBJ or of REDUCE on an unknown
// callable; BUILD stores its state.
type pyObject struct {
	class any
	args  []any
	state any
}

// pyBytes is a bytes/str8 value (BINBYTES, BINSTRING).
type pyBytes []byte

// torchStorage is what the persistent id ('storage', <T>Storage, key,
// location, numel) of torch.save stands for.
type torchStorage struct {
	dtype    string // "float64", "float32", "int64", …
	elemSize int
	key      string
	location string
	numel    int64
}

// torchTensor is the result of _rebuild_tensor_v2(storage, offset, size,
// stride, …).
type torchTensor struct {
	storage *torchStorage
	offset  int64
	size    []int64
	stride  []int64
}

// storageTypes maps torch's legacy typed-storage class names to element
// types this package can convert to float64.
var storageTypes = map[string]struct {
	dtype string
	size  int
}{
	"DoubleStorage": {"float64", 8},
	"FloatStorage":  {"float32", 4},
	"LongStorage":   {"int64", 8},
	"IntStorage":    {"int32", 4},
	"ShortStorage":  {"int16", 2},
	"CharStorage":   {"int8", 1},
	"ByteStorage":   {"uint8", 1},
	"BoolStorage":   {"bool", 1},
}

// maxPickleDims caps the rank of a tensor shape.
const maxPickleDims = 32

// unpickle runs the pickle program p and returns the value left by STOP.
// Errors start with name and give the byte offset of the failing opcode.
func unpickle(p []byte, name string) (any, error) {
	u := unpickler{p: p, name: name, memo: map[uint64]any{}}
	return u.run()
}

type unpickler struct {
	p     []byte
	pos   int
	name  string
	stack []any
	marks []int
	memo  map[uint64]any
	op    int // offset of the current opcode, for errors
}

func (u *unpickler) errf(format string, a ...any) error {
	return fmt.Errorf("%s: pickle opcode at offset %d: %s", u.name, u.op, fmt.Sprintf(format, a...))
}

func (u *unpickler) need(n int) ([]byte, error) {
	if n < 0 || n > len(u.p)-u.pos {
		return nil, u.errf("needs %d more bytes, only %d left", n, len(u.p)-u.pos)
	}
	b := u.p[u.pos : u.pos+n]
	u.pos += n
	return b, nil
}

func (u *unpickler) line() (string, error) {
	i := bytes.IndexByte(u.p[u.pos:], '\n')
	if i < 0 {
		return "", u.errf("unterminated text argument")
	}
	s := string(u.p[u.pos : u.pos+i])
	u.pos += i + 1
	return s, nil
}

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *unpickler) pop() (any, error) {
	floor := 0
	if len(u.marks) > 0 {
		floor = u.marks[len(u.marks)-1]
	}
	if len(u.stack) <= floor {
		return nil, u.errf("stack underflow")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	floor := 0
	if len(u.marks) > 0 {
		floor = u.marks[len(u.marks)-1]
	}
	if len(u.stack) <= floor {
		return nil, u.errf("stack underflow")
	}
	return u.stack[len(u.stack)-1], nil
}

// popMark pops everything above the innermost mark, and the mark.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, u.errf("no MARK on the stack")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

func (u *unpickler) memoPut(i uint64) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	u.memo[i] = v
	return nil
}

func (u *unpickler) memoGet(i uint64) error {
	v, ok := u.memo[i]
	if !ok {
		return u.errf("memo key %d was never stored", i)
	}
	u.push(v)
	return nil
}

func (u *unpickler) run() (any, error) {
	for u.pos < len(u.p) {
		u.op = u.pos
		code := u.p[u.pos]
		u.pos++
		if err := u.step(code); err != nil {
			return nil, err
		}
		if code == '.' {
			if len(u.marks) != 0 {
				return nil, u.errf("STOP with an open MARK")
			}
			if len(u.stack) != 1 {
				return nil, u.errf("STOP with %d values on the stack, want 1", len(u.stack))
			}
			return u.stack[0], nil
		}
	}
	return nil, fmt.Errorf("%s: pickle ends at offset %d without STOP", u.name, len(u.p))
}

func (u *unpickler) step(code byte) error {
	switch code {
	case 0x80: // PROTO
		b, err := u.need(1)
		if err != nil {
			return err
		}
		if b[0] > 5 {
			return u.errf("unsupported pickle protocol %d", b[0])
		}
	case 0x95: // FRAME (protocol 4): the length is advisory
		if _, err := u.need(8); err != nil {
			return err
		}
	case '.': // STOP: handled by run
	case '(': // MARK
		u.marks = append(u.marks, len(u.stack))
	case '0': // POP
		_, err := u.pop()
		return err
	case '1': // POP_MARK
		_, err := u.popMark()
		return err
	case '2': // DUP
		v, err := u.top()
		if err != nil {
			return err
		}
		u.push(v)
	case 'N':
		u.push(nil)
	case 0x88:
		u.push(true)
	case 0x89:
		u.push(false)
	case 'I': // INT (text); "01"/"00" are booleans
		s, err := u.line()
		if err != nil {
			return err
		}
		switch s {
		case "01":
			u.push(true)
		case "00":
			u.push(false)
		default:
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return u.errf("INT %q: %v", s, err)
			}
			u.push(v)
		}
	case 'L': // LONG (text)
		s, err := u.line()
		if err != nil {
			return err
		}
		v, err := strconv.ParseInt(strings.TrimSuffix(s, "L"), 10, 64)
		if err != nil {
			return u.errf("LONG %q does not fit in 64 bits", s)
		}
		u.push(v)
	case 'J': // BININT
		b, err := u.need(4)
		if err != nil {
			return err
		}
		u.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case 'K': // BININT1
		b, err := u.need(1)
		if err != nil {
			return err
		}
		u.push(int64(b[0]))
	case 'M': // BININT2
		b, err := u.need(2)
		if err != nil {
			return err
		}
		u.push(int64(binary.LittleEndian.Uint16(b)))
	case 0x8a, 0x8b: // LONG1, LONG4
		var n int
		if code == 0x8a {
			b, err := u.need(1)
			if err != nil {
				return err
			}
			n = int(b[0])
		} else {
			b, err := u.need(4)
			if err != nil {
				return err
			}
			n64 := int64(int32(binary.LittleEndian.Uint32(b)))
			if n64 < 0 || n64 > 8 {
				return u.errf("LONG4 of %d bytes does not fit in 64 bits", n64)
			}
			n = int(n64)
		}
		if n > 8 {
			return u.errf("LONG1 of %d bytes does not fit in 64 bits", n)
		}
		b, err := u.need(n)
		if err != nil {
			return err
		}
		var v uint64
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		if n > 0 && n < 8 && b[n-1]&0x80 != 0 { // sign-extend
			v |= ^uint64(0) << (8 * uint(n))
		}
		u.push(int64(v))
	case 'G': // BINFLOAT, big-endian
		b, err := u.need(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 'F': // FLOAT (text)
		s, err := u.line()
		if err != nil {
			return err
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return u.errf("FLOAT %q: %v", s, err)
		}
		u.push(v)
	case 'X', 0x8c, 0x8d: // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
		b, err := u.lenPrefixed(code)
		if err != nil {
			return err
		}
		u.push(string(b))
	case 'T', 'U', 'B', 'C', 0x8e: // BINSTRING, SHORT_BINSTRING, BINBYTES, SHORT_BINBYTES, BINBYTES8
		b, err := u.lenPrefixed(code)
		if err != nil {
			return err
		}
		u.push(pyBytes(append([]byte(nil), b...)))
	case 'V': // UNICODE (text, raw-unicode-escape; ASCII suffices here)
		s, err := u.line()
		if err != nil {
			return err
		}
		u.push(s)
	case ')':
		u.push(&pyTuple{})
	case 't':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(&pyTuple{items: items})
	case 0x85, 0x86, 0x87: // TUPLE1..3
		n := int(code - 0x84)
		items := make([]any, n)
		for i := n - 1; i >= 0; i-- {
			v, err := u.pop()
			if err != nil {
				return err
			}
			items[i] = v
		}
		u.push(&pyTuple{items: items})
	case ']':
		u.push(&pyList{})
	case 'l':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(&pyList{items: items})
	case 'a': // APPEND
		v, err := u.pop()
		if err != nil {
			return err
		}
		l, err := u.topList()
		if err != nil {
			return err
		}
		l.items = append(l.items, v)
	case 'e': // APPENDS
		items, err := u.popMark()
		if err != nil {
			return err
		}
		l, err := u.topList()
		if err != nil {
			return err
		}
		l.items = append(l.items, items...)
	case '}':
		u.push(&pyDict{})
	case 'd':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		d := &pyDict{}
		if err := u.setItems(d, items); err != nil {
			return err
		}
		u.push(d)
	case 's': // SETITEM
		v, err := u.pop()
		if err != nil {
			return err
		}
		k, err := u.pop()
		if err != nil {
			return err
		}
		d, err := u.topDict()
		if err != nil {
			return err
		}
		d.set(k, v)
	case 'u': // SETITEMS
		items, err := u.popMark()
		if err != nil {
			return err
		}
		d, err := u.topDict()
		if err != nil {
			return err
		}
		return u.setItems(d, items)
	case 'c': // GLOBAL
		mod, err := u.line()
		if err != nil {
			return err
		}
		nm, err := u.line()
		if err != nil {
			return err
		}
		u.push(pyGlobal{mod, nm})
	case 0x93: // STACK_GLOBAL
		nm, err := u.pop()
		if err != nil {
			return err
		}
		mod, err := u.pop()
		if err != nil {
			return err
		}
		ms, ok1 := mod.(string)
		ns, ok2 := nm.(string)
		if !ok1 || !ok2 {
			return u.errf("STACK_GLOBAL needs two strings, got %s and %s", typeName(mod), typeName(nm))
		}
		u.push(pyGlobal{ms, ns})
	case 'p': // PUT (text)
		s, err := u.line()
		if err != nil {
			return err
		}
		i, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return u.errf("PUT %q: %v", s, err)
		}
		return u.memoPut(i)
	case 'q': // BINPUT
		b, err := u.need(1)
		if err != nil {
			return err
		}
		return u.memoPut(uint64(b[0]))
	case 'r': // LONG_BINPUT
		b, err := u.need(4)
		if err != nil {
			return err
		}
		return u.memoPut(uint64(binary.LittleEndian.Uint32(b)))
	case 0x94: // MEMOIZE
		return u.memoPut(uint64(len(u.memo)))
	case 'g': // GET (text)
		s, err := u.line()
		if err != nil {
			return err
		}
		i, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return u.errf("GET %q: %v", s, err)
		}
		return u.memoGet(i)
	case 'h': // BINGET
		b, err := u.need(1)
		if err != nil {
			return err
		}
		return u.memoGet(uint64(b[0]))
	case 'j': // LONG_BINGET
		b, err := u.need(4)
		if err != nil {
			return err
		}
		return u.memoGet(uint64(binary.LittleEndian.Uint32(b)))
	case 'Q': // BINPERSID
		pid, err := u.pop()
		if err != nil {
			return err
		}
		s, err := u.persistent(pid)
		if err != nil {
			return err
		}
		u.push(s)
	case 'R': // REDUCE
		args, err := u.pop()
		if err != nil {
			return err
		}
		fn, err := u.pop()
		if err != nil {
			return err
		}
		at, ok := args.(*pyTuple)
		if !ok {
			return u.errf("REDUCE arguments are a %s, want a tuple", typeName(args))
		}
		v, err := u.reduce(fn, at.items)
		if err != nil {
			return err
		}
		u.push(v)
	case 0x81: // NEWOBJ
		args, err := u.pop()
		if err != nil {
			return err
		}
		cls, err := u.pop()
		if err != nil {
			return err
		}
		at, ok := args.(*pyTuple)
		if !ok {
			return u.errf("NEWOBJ arguments are a %s, want a tuple", typeName(args))
		}
		u.push(&pyObject{class: cls, args: at.items})
	case 'b': // BUILD
		state, err := u.pop()
		if err != nil {
			return err
		}
		obj, err := u.top()
		if err != nil {
			return err
		}
		switch o := obj.(type) {
		case *pyObject:
			o.state = state
		case *pyDict:
			sd, ok := state.(*pyDict)
			if !ok {
				return u.errf("BUILD of a dict with a %s state", typeName(state))
			}
			for i := range sd.keys {
				o.set(sd.keys[i], sd.vals[i])
			}
		case *torchTensor:
			// Tensors carry no state we use (requires_grad, hooks).
		default:
			return u.errf("BUILD on a %s", typeName(obj))
		}
	default:
		return u.errf("unsupported opcode 0x%02x", code)
	}
	return nil
}

// lenPrefixed reads the length-prefixed payload of a string/bytes opcode.
func (u *unpickler) lenPrefixed(code byte) ([]byte, error) {
	var n uint64
	switch code {
	case 'X', 'T', 'B':
		b, err := u.need(4)
		if err != nil {
			return nil, err
		}
		n = uint64(binary.LittleEndian.Uint32(b))
		if code == 'T' && int32(n) < 0 {
			return nil, u.errf("negative string length %d", int32(n))
		}
	case 0x8c, 'U', 'C':
		b, err := u.need(1)
		if err != nil {
			return nil, err
		}
		n = uint64(b[0])
	default: // 8-byte lengths
		b, err := u.need(8)
		if err != nil {
			return nil, err
		}
		n = binary.LittleEndian.Uint64(b)
	}
	if n > uint64(len(u.p)-u.pos) {
		return nil, u.errf("string of %d bytes, only %d left", n, len(u.p)-u.pos)
	}
	return u.need(int(n))
}

func (u *unpickler) topList() (*pyList, error) {
	v, err := u.top()
	if err != nil {
		return nil, err
	}
	l, ok := v.(*pyList)
	if !ok {
		return nil, u.errf("APPEND to a %s", typeName(v))
	}
	return l, nil
}

func (u *unpickler) topDict() (*pyDict, error) {
	v, err := u.top()
	if err != nil {
		return nil, err
	}
	d, ok := v.(*pyDict)
	if !ok {
		return nil, u.errf("SETITEM on a %s", typeName(v))
	}
	return d, nil
}

func (u *unpickler) setItems(d *pyDict, items []any) error {
	if len(items)%2 != 0 {
		return u.errf("odd number (%d) of dict items", len(items))
	}
	for i := 0; i < len(items); i += 2 {
		d.set(items[i], items[i+1])
	}
	return nil
}

// set inserts or replaces k; comparable keys (strings, ints) replace, other
// keys are appended.
func (d *pyDict) set(k, v any) {
	switch k.(type) {
	case string, int64, bool, float64, nil:
		if i, ok := d.index[k]; ok {
			d.vals[i] = v
			return
		}
		if d.index == nil {
			d.index = map[any]int{}
		}
		d.index[k] = len(d.keys)
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
}

// persistent interprets torch.save's persistent id
// ('storage', <T>Storage, key, location, numel).
func (u *unpickler) persistent(pid any) (*torchStorage, error) {
	t, ok := pid.(*pyTuple)
	if !ok || len(t.items) < 5 {
		return nil, u.errf("persistent id is a %s, want the 5-tuple ('storage', type, key, location, numel)", typeName(pid))
	}
	if s, _ := t.items[0].(string); s != "storage" {
		return nil, u.errf("persistent id kind %v, want 'storage'", t.items[0])
	}
	g, ok := t.items[1].(pyGlobal)
	if !ok {
		return nil, u.errf("storage type is a %s, want a torch global", typeName(t.items[1]))
	}
	st, ok := storageTypes[g.Name]
	if !ok || g.Module != "torch" {
		return nil, u.errf("unsupported storage type %s.%s", g.Module, g.Name)
	}
	key, ok := t.items[2].(string)
	if !ok {
		return nil, u.errf("storage key is a %s, want a string", typeName(t.items[2]))
	}
	loc, _ := t.items[3].(string)
	numel, ok := t.items[4].(int64)
	if !ok || numel < 0 {
		return nil, u.errf("storage %q size %v is not a non-negative integer", key, t.items[4])
	}
	return &torchStorage{dtype: st.dtype, elemSize: st.size, key: key, location: loc, numel: numel}, nil
}

// reduce applies a callable; only a few torch helpers have meaning.
func (u *unpickler) reduce(fn any, args []any) (any, error) {
	g, ok := fn.(pyGlobal)
	if !ok {
		return &pyObject{class: fn, args: args}, nil
	}
	switch g.Module + "." + g.Name {
	case "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor":
		return u.rebuildTensor(args)
	case "collections.OrderedDict":
		return &pyDict{}, nil
	}
	return &pyObject{class: g, args: args}, nil
}

func (u *unpickler) rebuildTensor(args []any) (*torchTensor, error) {
	if len(args) < 4 {
		return nil, u.errf("_rebuild_tensor_v2 with %d arguments, want ≥ 4 (storage, offset, size, stride)", len(args))
	}
	st, ok := args[0].(*torchStorage)
	if !ok {
		return nil, u.errf("_rebuild_tensor_v2 storage is a %s", typeName(args[0]))
	}
	off, ok := args[1].(int64)
	if !ok || off < 0 {
		return nil, u.errf("_rebuild_tensor_v2 storage offset %v is not a non-negative integer", args[1])
	}
	size, err := u.intTuple(args[2], "size")
	if err != nil {
		return nil, err
	}
	stride, err := u.intTuple(args[3], "stride")
	if err != nil {
		return nil, err
	}
	if len(size) != len(stride) {
		return nil, u.errf("tensor size %v and stride %v have different ranks", size, stride)
	}
	return &torchTensor{storage: st, offset: off, size: size, stride: stride}, nil
}

func (u *unpickler) intTuple(v any, what string) ([]int64, error) {
	t, ok := v.(*pyTuple)
	if !ok {
		return nil, u.errf("tensor %s is a %s, want a tuple", what, typeName(v))
	}
	if len(t.items) > maxPickleDims {
		return nil, u.errf("tensor %s has rank %d (max %d)", what, len(t.items), maxPickleDims)
	}
	out := make([]int64, len(t.items))
	for i, x := range t.items {
		n, ok := x.(int64)
		if !ok || n < 0 {
			return nil, u.errf("tensor %s[%d] = %v is not a non-negative integer", what, i, x)
		}
		out[i] = n
	}
	return out, nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case string:
		return "str"
	case pyBytes:
		return "bytes"
	case *pyTuple:
		return "tuple"
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case pyGlobal:
		return "global"
	case *pyObject:
		return "object"
	case *torchStorage:
		return "storage"
	case *torchTensor:
		return "tensor"
	}
	return fmt.Sprintf("%T", v)
}

// collectTensors returns the tensors reachable from root in depth-first
// order, each once, guarding against cycles and very deep graphs.
func collectTensors(root any) []*torchTensor {
	var out []*torchTensor
	seen := map[any]bool{}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 200 {
			return
		}
		switch x := v.(type) {
		case *torchTensor, *pyTuple, *pyList, *pyDict, *pyObject:
			if seen[x] {
				return
			}
			seen[x] = true
		}
		switch x := v.(type) {
		case *torchTensor:
			out = append(out, x)
		case *pyTuple:
			for _, it := range x.items {
				walk(it, depth+1)
			}
		case *pyList:
			for _, it := range x.items {
				walk(it, depth+1)
			}
		case *pyDict:
			for i := range x.keys {
				walk(x.keys[i], depth+1)
				walk(x.vals[i], depth+1)
			}
		case *pyObject:
			for _, it := range x.args {
				walk(it, depth+1)
			}
			walk(x.state, depth+1)
		}
	}
	walk(root, 0)
	return out
}
