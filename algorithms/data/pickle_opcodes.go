package data

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// The opcodes of the pickle machine (pickle.go): step gives each opcode of
// protocols 0–4 its meaning on the stack, marks and memo, and the helpers
// below read length-prefixed arguments and fill lists and dicts.

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
