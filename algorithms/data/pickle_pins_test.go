package data

// Opcode-level pins for the pickle virtual machine: one small program per
// opcode (and per error condition) with the value it must leave, written
// in Python's notation by show(). The expected values follow the pickle
// format's definition (Python's pickletools documentation), not the code.

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// show renders a decoded value in Python-like notation.
func show(v any) string { return showDepth(v, 0) }

func showDepth(v any, depth int) string {
	if depth > 20 {
		return "…"
	}
	join := func(xs []any) string {
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = showDepth(x, depth+1)
		}
		return strings.Join(parts, ", ")
	}
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	case pyBytes:
		return "b" + strconv.Quote(string(x))
	case *pyTuple:
		if len(x.items) == 1 {
			return "(" + join(x.items) + ",)"
		}
		return "(" + join(x.items) + ")"
	case *pyList:
		return "[" + join(x.items) + "]"
	case *pyDict:
		parts := make([]string, len(x.keys))
		for i := range x.keys {
			parts[i] = showDepth(x.keys[i], depth+1) + ": " + showDepth(x.vals[i], depth+1)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case pyGlobal:
		return x.Module + "." + x.Name
	case *pyObject:
		return "obj(" + showDepth(x.class, depth+1) + "; " + join(x.args) + "; " + showDepth(x.state, depth+1) + ")"
	case *torchStorage:
		return fmt.Sprintf("storage(%s/%d %q %q %d)", x.dtype, x.elemSize, x.key, x.location, x.numel)
	case *torchTensor:
		return fmt.Sprintf("tensor(%s @%d %v %v)", showDepth(x.storage, depth+1), x.offset, x.size, x.stride)
	}
	return fmt.Sprintf("%T", v)
}

func le32(v int32) []byte {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(v))
	return b[:]
}

func le64(v uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return b[:]
}

// prog concatenates opcodes, bytes and strings into a program.
func prog(parts ...any) []byte {
	var out []byte
	for _, p := range parts {
		switch x := p.(type) {
		case byte:
			out = append(out, x)
		case int:
			out = append(out, byte(x))
		case rune:
			out = append(out, byte(x))
		case string:
			out = append(out, x...)
		case []byte:
			out = append(out, x...)
		default:
			panic(fmt.Sprintf("prog: %T", p))
		}
	}
	return out
}

// ustr is a BINUNICODE string.
func ustr(s string) []byte { return prog('X', le32(int32(len(s))), s) }

func TestPinPickleOpcodes(t *testing.T) {
	f15 := make([]byte, 8)
	binary.BigEndian.PutUint64(f15, math.Float64bits(1.5))
	storage := prog('(', ustr("storage"), "ctorch\nFloatStorage\n", ustr("k0"), ustr("cpu"), 'K', 6, 't', 'Q')
	rebuild := "ctorch._utils\n_rebuild_tensor_v2\n"
	for _, tc := range []struct {
		name string
		p    []byte
		want string
	}{
		{"PROTO 2", prog(0x80, 2, 'K', 5, '.'), "5"},
		{"PROTO 5", prog(0x80, 5, 'N', '.'), "None"},
		{"FRAME", prog(0x95, le64(3), 'N', '.'), "None"},
		{"MARK POP_MARK", prog('(', 'K', 1, 'K', 2, '1', 'N', '.'), "None"},
		{"POP", prog('K', 1, 'K', 2, '0', '.'), "1"},
		{"DUP", prog('K', 7, '2', 0x86, '.'), "(7, 7)"},
		{"NEWTRUE NEWFALSE", prog(0x88, 0x89, 0x86, '.'), "(True, False)"},
		{"INT true", prog("I01\n", '.'), "True"},
		{"INT false", prog("I00\n", '.'), "False"},
		{"INT", prog("I-12\n", '.'), "-12"},
		{"LONG", prog("L123L\n", '.'), "123"},
		{"BININT", prog('J', le32(-2), '.'), "-2"},
		{"BININT1", prog('K', 255, '.'), "255"},
		{"BININT2", prog('M', 0x34, 0x12, '.'), "4660"},
		{"LONG1 empty", prog(0x8a, 0, '.'), "0"},
		{"LONG1 -1", prog(0x8a, 1, 0xff, '.'), "-1"},
		{"LONG1 255", prog(0x8a, 2, 0xff, 0x00, '.'), "255"},
		{"LONG1 3 bytes negative", prog(0x8a, 3, 0x00, 0x00, 0x80, '.'), "-8388608"},
		{"LONG1 7 bytes negative", prog(0x8a, 7, 0, 0, 0, 0, 0, 0, 0x80, '.'), strconv.FormatInt(-1<<55, 10)},
		{"LONG1 8 bytes", prog(0x8a, 8, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '.'), "-2"},
		{"LONG1 8 bytes positive", prog(0x8a, 8, 1, 0, 0, 0, 0, 0, 0, 0x40, '.'), strconv.FormatInt(1<<62+1, 10)},
		{"LONG4", prog(0x8b, le32(2), 0x01, 0x02, '.'), "513"},
		{"LONG4 8 bytes", prog(0x8b, le32(8), 5, 0, 0, 0, 0, 0, 0, 0, '.'), "5"},
		{"BINFLOAT", prog('G', f15, '.'), "1.5"},
		{"FLOAT", prog("F2.25\n", '.'), "2.25"},
		{"BINUNICODE", prog(ustr("hi"), '.'), `"hi"`},
		{"SHORT_BINUNICODE", prog(0x8c, 1, "a", '.'), `"a"`},
		{"BINUNICODE8", prog(0x8d, le64(3), "abc", '.'), `"abc"`},
		{"BINSTRING", prog('T', le32(2), "ab", '.'), `b"ab"`},
		{"SHORT_BINSTRING", prog('U', 1, "z", '.'), `b"z"`},
		{"BINBYTES", prog('B', le32(3), "xyz", '.'), `b"xyz"`},
		{"SHORT_BINBYTES", prog('C', 0, '.'), `b""`},
		{"BINBYTES8", prog(0x8e, le64(1), "q", '.'), `b"q"`},
		{"UNICODE", prog("Vhello\n", '.'), `"hello"`},
		{"EMPTY_TUPLE", prog(')', '.'), "()"},
		{"TUPLE", prog('(', 'K', 1, ustr("s"), 't', '.'), `(1, "s")`},
		{"TUPLE1", prog('K', 1, 0x85, '.'), "(1,)"},
		{"TUPLE3", prog('K', 1, 'K', 2, 'K', 3, 0x87, '.'), "(1, 2, 3)"},
		{"EMPTY_LIST", prog(']', '.'), "[]"},
		{"LIST", prog('(', 'K', 1, 'K', 2, 'l', '.'), "[1, 2]"},
		{"APPEND", prog(']', 'K', 1, 'a', 'K', 2, 'a', '.'), "[1, 2]"},
		{"APPENDS", prog(']', '(', 'K', 1, 'K', 2, 'e', '.'), "[1, 2]"},
		{"EMPTY_DICT", prog('}', '.'), "{}"},
		{"DICT", prog('(', ustr("a"), 'K', 1, 'd', '.'), `{"a": 1}`},
		{"SETITEM", prog('}', ustr("k"), 'K', 2, 's', '.'), `{"k": 2}`},
		{"SETITEMS replace", prog('}', '(', ustr("a"), 'K', 1, ustr("b"), 'K', 2, ustr("a"), 'K', 3, 'u', '.'), `{"a": 3, "b": 2}`},
		{"dict int and None keys", prog('}', '(', 'K', 1, 'K', 2, 'N', 'K', 3, 'K', 1, 'K', 4, 'u', '.'), `{1: 4, None: 3}`},
		{"dict tuple keys append", prog('}', '(', ')', 'K', 1, ')', 'K', 2, 'u', '.'), `{(): 1, (): 2}`},
		{"GLOBAL", prog("cmod.sub\nName\n", '.'), "mod.sub.Name"},
		{"STACK_GLOBAL", prog(ustr("m"), ustr("n"), 0x93, '.'), "m.n"},
		{"PUT GET", prog('K', 5, "p0\n", '0', "g0\n", '.'), "5"},
		{"BINPUT BINGET", prog('K', 6, 'q', 1, '0', 'h', 1, '.'), "6"},
		{"LONG_BINPUT LONG_BINGET", prog('K', 7, 'r', le32(300), '0', 'j', le32(300), '.'), "7"},
		{"MEMOIZE", prog('K', 8, 0x94, 'K', 9, 0x94, '0', '0', 'h', 1, '.'), "9"},
		{"REDUCE unknown", prog("cm\nf\n", 'K', 1, 0x85, 'R', '.'), "obj(m.f; 1; None)"},
		{"REDUCE non-global", prog('K', 3, ')', 'R', '.'), "obj(3; ; None)"},
		{"OrderedDict", prog("ccollections\nOrderedDict\n", ')', 'R', '.'), "{}"},
		{"NEWOBJ BUILD", prog("cm\nC\n", 'K', 1, 0x85, 0x81, 'K', 4, 'b', '.'), "obj(m.C; 1; 4)"},
		{"BUILD dict", prog('}', '}', ustr("x"), 'K', 1, 's', 'b', '.'), `{"x": 1}`},
		{"storage", prog(storage, '.'), `storage(float32/4 "k0" "cpu" 6)`},
		{"tensor", prog(rebuild, '(', storage, 'K', 1, '(', 'K', 2, 'K', 3, 't', '(', 'K', 3, 'K', 1, 't', 't', 'R', '.'),
			`tensor(storage(float32/4 "k0" "cpu" 6) @1 [2 3] [3 1])`},
		{"tensor BUILD ignored", prog(rebuild, '(', storage, 'K', 0, ')', ')', 't', 'R', '}', 'b', '.'),
			`tensor(storage(float32/4 "k0" "cpu" 6) @0 [] [])`},
	} {
		v, err := unpickle(tc.p, "pin")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := show(v); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestPinPickleErrors(t *testing.T) {
	storageOf := func(kind, typ, key string, numel []byte) []byte {
		return prog('(', ustr(kind), "ctorch\n"+typ+"\n", key, ustr("cpu"), numel, 't', 'Q', '.')
	}
	rebuild := "ctorch._utils\n_rebuild_tensor_v2\n"
	st := prog('(', ustr("storage"), "ctorch\nDoubleStorage\n", ustr("k"), ustr("cpu"), 'K', 1, 't', 'Q')
	for _, tc := range []struct {
		name string
		p    []byte
		want string
	}{
		{"PROTO 6", prog(0x80, 6, 'N', '.'), "unsupported pickle protocol 6"},
		{"PROTO truncated", prog(0x80), "needs 1 more bytes, only 0 left"},
		{"FRAME truncated", prog(0x95, 1, 2, 3, 4, 5, 6, 7), "needs 8 more bytes, only 7 left"},
		{"no STOP", prog('N'), "pickle ends at offset 1 without STOP"},
		{"empty", nil, "pickle ends at offset 0 without STOP"},
		{"STOP with MARK", prog('(', 'N', '.'), "STOP with an open MARK"},
		{"STOP with 2 values", prog('N', 'N', '.'), "STOP with 2 values on the stack, want 1"},
		{"STOP with none", prog('.'), "STOP with 0 values"},
		{"POP underflow", prog('0', '.'), "offset 0: stack underflow"},
		{"POP below MARK", prog('N', '(', '0', '.'), "offset 2: stack underflow"},
		{"DUP underflow", prog('N', '(', '2', '.'), "stack underflow"},
		{"POP_MARK without MARK", prog('1', '.'), "no MARK on the stack"},
		{"INT bad", prog("Ixyz\n", '.'), `INT "xyz"`},
		{"INT unterminated", prog("I5"), "unterminated text argument"},
		{"LONG too big", prog("L99999999999999999999L\n", '.'), "does not fit in 64 bits"},
		{"LONG1 9 bytes", prog(0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, '.'), "LONG1 of 9 bytes"},
		{"LONG1 truncated", prog(0x8a, 2, 1), "needs 2 more bytes, only 1 left"},
		{"LONG4 negative", prog(0x8b, le32(-1), '.'), "LONG4 of -1 bytes"},
		{"LONG4 9", prog(0x8b, le32(9), '.'), "LONG4 of 9 bytes"},
		{"FLOAT bad", prog("Fab\n", '.'), `FLOAT "ab"`},
		{"BINSTRING negative", prog('T', le32(-1), '.'), "negative string length -1"},
		{"string too long", prog('X', le32(5), "ab"), "string of 5 bytes, only 2 left"},
		{"string8 too long", prog(0x8d, le64(1<<62), "ab"), "only 2 left"},
		{"string exactly", prog('X', le32(2), "ab"), "pickle ends at offset 7 without STOP"},
		{"TUPLE2 underflow", prog('K', 1, 0x86, '.'), "stack underflow"},
		{"APPEND to int", prog('K', 1, 'K', 2, 'a', '.'), "APPEND to a int"},
		{"APPENDS to dict", prog('}', '(', 'K', 2, 'e', '.'), "APPEND to a dict"},
		{"SETITEM on list", prog(']', 'K', 1, 'K', 2, 's', '.'), "SETITEM on a list"},
		{"SETITEMS on tuple", prog(')', '(', 'K', 1, 'K', 2, 'u', '.'), "SETITEM on a tuple"},
		{"DICT odd", prog('(', 'K', 1, 'd', '.'), "odd number (1) of dict items"},
		{"SETITEMS odd", prog('}', '(', 'K', 1, 'K', 2, 'K', 3, 'u', '.'), "odd number (3)"},
		{"STACK_GLOBAL ints", prog('K', 1, 'K', 2, 0x93, '.'), "STACK_GLOBAL needs two strings, got int and int"},
		{"GLOBAL unterminated", prog("cmod\nname"), "unterminated"},
		{"PUT bad", prog('K', 1, "px\n", '.'), `PUT "x"`},
		{"GET bad", prog("g-1\n", '.'), `GET "-1"`},
		{"GET missing", prog("g3\n", '.'), "memo key 3 was never stored"},
		{"BINGET missing", prog('h', 2, '.'), "memo key 2 was never stored"},
		{"PUT empty stack", prog('q', 0, '.'), "stack underflow"},
		{"REDUCE args", prog("cm\nf\n", 'K', 1, 'R', '.'), "REDUCE arguments are a int, want a tuple"},
		{"NEWOBJ args", prog("cm\nC\n", 'N', 0x81, '.'), "NEWOBJ arguments are a None, want a tuple"},
		{"BUILD dict state", prog('}', 'K', 1, 'b', '.'), "BUILD of a dict with a int state"},
		{"BUILD on int", prog('K', 1, '}', 'b', '.'), "BUILD on a int"},
		{"opcode", prog(0xff), "unsupported opcode 0xff"},
		{"persid not tuple", prog('K', 1, 'Q', '.'), "persistent id is a int"},
		{"persid short", prog('(', ustr("storage"), 't', 'Q', '.'), "want the 5-tuple"},
		{"persid kind", storageOf("blob", "FloatStorage", string(ustr("k")), prog('K', 1)), "persistent id kind blob"},
		{"persid type", prog('(', ustr("storage"), 'K', 1, ustr("k"), ustr("cpu"), 'K', 1, 't', 'Q', '.'), "storage type is a int"},
		{"persid unknown storage", storageOf("storage", "HalfStorage", string(ustr("k")), prog('K', 1)), "unsupported storage type torch.HalfStorage"},
		{"persid module", prog('(', ustr("storage"), "cnumpy\nFloatStorage\n", ustr("k"), ustr("cpu"), 'K', 1, 't', 'Q', '.'), "unsupported storage type numpy.FloatStorage"},
		{"persid key", storageOf("storage", "FloatStorage", "K\x01", prog('K', 1)), "storage key is a int"},
		{"persid numel", storageOf("storage", "FloatStorage", string(ustr("k")), prog('J', le32(-1))), `storage "k" size -1`},
		{"rebuild args", prog(rebuild, '(', st, 'K', 0, ')', 't', 'R', '.'), "with 3 arguments, want ≥ 4"},
		{"rebuild storage", prog(rebuild, '(', 'K', 1, 'K', 0, ')', ')', 't', 'R', '.'), "storage is a int"},
		{"rebuild offset", prog(rebuild, '(', st, 'J', le32(-1), ')', ')', 't', 'R', '.'), "storage offset -1"},
		{"rebuild size", prog(rebuild, '(', st, 'K', 0, 'K', 1, ')', 't', 'R', '.'), "tensor size is a int, want a tuple"},
		{"rebuild stride", prog(rebuild, '(', st, 'K', 0, ')', 'N', 't', 'R', '.'), "tensor stride is a None"},
		{"rebuild ranks", prog(rebuild, '(', st, 'K', 0, 'K', 1, 0x85, ')', 't', 'R', '.'), "different ranks"},
		{"rebuild negative size", prog(rebuild, '(', st, 'K', 0, 'J', le32(-2), 0x85, 'K', 1, 0x85, 't', 'R', '.'), "tensor size[0] = -2"},
	} {
		_, err := unpickle(tc.p, "pin")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pin: ") {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// Rank 32 is allowed, 33 is not.
	tuple := func(n int) []byte {
		p := prog('(')
		for range n {
			p = append(p, 'K', 1)
		}
		return append(p, 't')
	}
	for _, n := range []int{32, 33} {
		p := prog(rebuild, '(', st, 'K', 0, tuple(n), tuple(n), 't', 'R', '.')
		_, err := unpickle(p, "pin")
		if (err == nil) != (n == 32) {
			t.Errorf("rank %d: %v", n, err)
		}
	}
}

// TestPinCollectTensors: tensors are found through tuples, lists, dict keys
// and values, object arguments and state, each once, in depth-first order.
func TestPinCollectTensors(t *testing.T) {
	st := &torchStorage{dtype: "float64", elemSize: 8, key: "0"}
	a, b, c, d := &torchTensor{storage: st}, &torchTensor{storage: st, offset: 1}, &torchTensor{storage: st, offset: 2}, &torchTensor{storage: st, offset: 3}
	l := &pyList{items: []any{a}}
	l.items = append(l.items, l) // a cycle
	dict := &pyDict{}
	dict.set("k", b)
	obj := &pyObject{class: pyGlobal{"m", "C"}, args: []any{c}, state: &pyTuple{items: []any{d, a}}}
	root := &pyTuple{items: []any{l, dict, obj, a}}
	got := collectTensors(root)
	if len(got) != 4 || got[0] != a || got[1] != b || got[2] != c || got[3] != d {
		t.Errorf("collectTensors found %d tensors: %v", len(got), got)
	}
	// A chain deeper than 200 levels is cut off.
	var deep any = a
	for range 250 {
		deep = &pyList{items: []any{deep}}
	}
	if got := collectTensors(deep); len(got) != 0 {
		t.Errorf("found %d tensors below depth 200", len(got))
	}
	var shallow any = b
	for range 199 {
		shallow = &pyList{items: []any{shallow}}
	}
	if got := collectTensors(shallow); len(got) != 1 {
		t.Errorf("found %d tensors at depth 199, want 1", len(got))
	}
	for v, want := range map[any]string{nil: "None", int64(1): "int", 1.5: "float", true: "bool", "s": "str", st: "storage", a: "tensor", pyGlobal{}: "global", obj: "object", dict: "dict", l: "list", root: "tuple", 'x': "int32"} {
		if got := typeName(v); got != want {
			t.Errorf("typeName(%T) = %q, want %q", v, got, want)
		}
	}
	if typeName(pyBytes("x")) != "bytes" {
		t.Error("typeName(bytes)")
	}
}
