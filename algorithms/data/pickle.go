package data

import (
	"bytes"
	"fmt"
)

// This file is the core of a minimal pickle virtual machine: enough of
// protocols 0–4 to read what torch.save writes for tensors and
// TensorDatasets, and nothing that executes code. Globals are recorded by
// name; the only callables given meaning are torch._utils._rebuild_tensor_v2
// (a tensor view of a storage) and collections.OrderedDict (a dict). Every
// other call or object construction becomes an inert pyObject, so arbitrary
// pickles decode into a value graph without side effects.
//
// The machine is split by concern: this file holds the Python values, the
// machine's state (stack, marks, memo) and its run loop; pickle_opcodes.go
// the meaning of each opcode (step); pickle_torch.go the torch objects
// (storages, tensors, the persistent ids and the rebuild call) and the walk
// that collects the tensors of a decoded graph.

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
