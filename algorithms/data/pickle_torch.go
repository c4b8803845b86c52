package data

// The torch objects of the pickle machine (pickle.go): what torch.save's
// persistent ids and _rebuild_tensor_v2 calls stand for, and the walk that
// collects the tensors of a decoded value graph.

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
