package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
)

// Tensor is a dense tensor read from a PyTorch archive, converted to
// float64.
type Tensor struct {
	Key   string    // storage key inside the archive ("0", "1", …)
	DType string    // element type of the storage: "float64", "float32", "int64", …
	Shape []int     // sizes, outermost first
	Data  []float64 // row-major, len(Data) = product of Shape
}

// Limits that keep malformed archives from causing absurd allocations.
const (
	maxPickleBytes = 16 << 20 // data.pkl
	maxEntryBytes  = 4 << 30  // one storage
	maxDeflateGain = 1100     // deflate cannot expand more than ~1032×
	maxLabel       = 1 << 16  // largest class label accepted from a file
)

// DecodePT reads a PyTorch zip archive (torch.save with the zip format,
// pickle protocol ≤ 5, storages as raw little-endian arrays) and returns the
// tensors reachable from the pickled root object, in depth-first order
// (for a TensorDataset: its tensors in order). The archive's directory name
// is taken from the zip (the entry "<dir>/data.pkl"), shapes and strides
// from the pickle's _rebuild_tensor_v2 calls. name is used in errors.
func DecodePT(b []byte, name string) ([]Tensor, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a PyTorch zip archive: %v", name, err)
	}
	entries := map[string]*zip.File{}
	var pkl []string
	for _, f := range zr.File {
		entries[f.Name] = f
		if strings.HasSuffix(f.Name, "/data.pkl") && strings.Count(f.Name, "/") == 1 {
			pkl = append(pkl, f.Name)
		}
	}
	switch len(pkl) {
	case 0:
		return nil, fmt.Errorf("%s: no <dir>/data.pkl entry; not a torch.save zip archive", name)
	case 1:
	default:
		return nil, fmt.Errorf("%s: %d data.pkl entries (%s), want one", name, len(pkl), strings.Join(pkl, ", "))
	}
	dir := strings.TrimSuffix(pkl[0], "/data.pkl")
	if f, ok := entries[dir+"/byteorder"]; ok {
		bo, err := readZipEntry(f, 64, name)
		if err != nil {
			return nil, err
		}
		if s := strings.TrimSpace(string(bo)); s != "little" {
			return nil, fmt.Errorf("%s: entry %s says byte order %q; only little-endian storages are supported", name, f.Name, s)
		}
	}
	p, err := readZipEntry(entries[pkl[0]], maxPickleBytes, name)
	if err != nil {
		return nil, err
	}
	root, err := unpickle(p, name+": "+pkl[0])
	if err != nil {
		return nil, err
	}
	refs := collectTensors(root)
	if len(refs) == 0 {
		return nil, fmt.Errorf("%s: entry %s holds no tensors", name, pkl[0])
	}
	storages := map[string][]byte{}
	out := make([]Tensor, 0, len(refs))
	for _, r := range refs {
		st := r.storage
		entry := dir + "/data/" + st.key
		if st.numel > maxEntryBytes/int64(st.elemSize) {
			return nil, fmt.Errorf("%s: storage %s claims %d elements, more than this reader accepts", name, entry, st.numel)
		}
		want := st.numel * int64(st.elemSize)
		raw, ok := storages[st.key]
		if !ok {
			f, ok := entries[entry]
			if !ok {
				return nil, fmt.Errorf("%s: storage %q has no entry %s", name, st.key, entry)
			}
			if f.UncompressedSize64 != uint64(want) {
				return nil, fmt.Errorf("%s: entry %s holds %d bytes, want numel·%d = %d·%d = %d (%s storage)",
					name, entry, f.UncompressedSize64, st.elemSize, st.numel, st.elemSize, want, st.dtype)
			}
			raw, err = readZipEntry(f, want, name)
			if err != nil {
				return nil, err
			}
			storages[st.key] = raw
		}
		if int64(len(raw)) != want {
			return nil, fmt.Errorf("%s: entry %s holds %d bytes, want numel·%d = %d·%d = %d (%s storage)",
				name, entry, len(raw), st.elemSize, st.numel, st.elemSize, want, st.dtype)
		}
		t, err := materialize(r, raw, name, entry)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// readZipEntry reads one entry, refusing sizes above limit or beyond what
// its compressed size can expand to, and checking the declared size.
func readZipEntry(f *zip.File, limit int64, name string) ([]byte, error) {
	size := f.UncompressedSize64
	if size > uint64(limit) {
		return nil, fmt.Errorf("%s: entry %s declares %d bytes, more than the %d this reader accepts", name, f.Name, size, limit)
	}
	if f.Method == zip.Store && f.CompressedSize64 != size {
		return nil, fmt.Errorf("%s: stored entry %s has compressed size %d ≠ size %d", name, f.Name, f.CompressedSize64, size)
	}
	if size > 4096 && (size-4096)/maxDeflateGain > f.CompressedSize64 {
		return nil, fmt.Errorf("%s: entry %s declares %d bytes from %d compressed bytes", name, f.Name, size, f.CompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: entry %s: %v", name, f.Name, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rc, int64(size)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: entry %s: %v", name, f.Name, err)
	}
	if uint64(n) != size {
		return nil, fmt.Errorf("%s: entry %s holds %d bytes, its header says %d", name, f.Name, n, size)
	}
	return buf.Bytes(), nil
}

// materialize gathers the elements of a strided view into a row-major
// float64 slice, checking every index against the storage.
func materialize(r *torchTensor, raw []byte, name, entry string) (Tensor, error) {
	st := r.storage
	t := Tensor{Key: st.key, DType: st.dtype, Shape: make([]int, len(r.size))}
	n := int64(1)
	for i, s := range r.size {
		if s != 0 && n > math.MaxInt64/s {
			return t, fmt.Errorf("%s: tensor in %s has shape %v, too many elements", name, entry, r.size)
		}
		n *= s
		t.Shape[i] = int(s)
	}
	if n > st.numel {
		return t, fmt.Errorf("%s: tensor in %s has shape %v = %d elements but its storage holds %d", name, entry, r.size, n, st.numel)
	}
	t.Data = make([]float64, n)
	if n == 0 {
		return t, nil
	}
	last := r.offset
	for i, s := range r.size {
		step := (s - 1)
		if r.stride[i] != 0 && step > (math.MaxInt64-last)/r.stride[i] {
			return t, fmt.Errorf("%s: tensor in %s: offset %d with size %v and stride %v overflows", name, entry, r.offset, r.size, r.stride)
		}
		last += step * r.stride[i]
	}
	if last >= st.numel {
		return t, fmt.Errorf("%s: tensor in %s (offset %d, size %v, stride %v) reaches element %d of a storage of %d",
			name, entry, r.offset, r.size, r.stride, last, st.numel)
	}
	get := elemReader(st.dtype, raw)
	// Contiguous row-major fast path.
	contiguous, want := true, int64(1)
	for i := len(r.size) - 1; i >= 0; i-- {
		if r.size[i] != 1 && r.stride[i] != want {
			contiguous = false
			break
		}
		want *= r.size[i]
	}
	if contiguous {
		for i := range t.Data {
			t.Data[i] = get(r.offset + int64(i))
		}
		return t, nil
	}
	idx := make([]int64, len(r.size))
	for i := range t.Data {
		pos := r.offset
		for k, x := range idx {
			pos += x * r.stride[k]
		}
		t.Data[i] = get(pos)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < r.size[k] {
				break
			}
			idx[k] = 0
		}
	}
	return t, nil
}

// elemReader returns a function giving element i of a little-endian
// storage as float64. dtype is one of storageTypes' values.
func elemReader(dtype string, raw []byte) func(int64) float64 {
	le := binary.LittleEndian
	switch dtype {
	case "float64":
		return func(i int64) float64 { return math.Float64frombits(le.Uint64(raw[8*i:])) }
	case "float32":
		return func(i int64) float64 { return float64(math.Float32frombits(le.Uint32(raw[4*i:]))) }
	case "int64":
		return func(i int64) float64 { return float64(int64(le.Uint64(raw[8*i:]))) }
	case "int32":
		return func(i int64) float64 { return float64(int32(le.Uint32(raw[4*i:]))) }
	case "int16":
		return func(i int64) float64 { return float64(int16(le.Uint16(raw[2*i:]))) }
	case "int8":
		return func(i int64) float64 { return float64(int8(raw[i])) }
	default: // uint8, bool
		return func(i int64) float64 { return float64(raw[i]) }
	}
}

// DecodeTensorDataset reads a torch.save'd TensorDataset (features, labels)
// such as the upstream Upcycled-FL mytrain.pt / mytest.pt: the first tensor
// has shape (n, d…) and is flattened to (n, d); the second has shape (n)
// or (n, 1) and holds integral labels (stored as float64 upstream).
// Classes is set to the largest label + 1.
func DecodeTensorDataset(b []byte, name string) (*Dataset, error) {
	ts, err := DecodePT(b, name)
	if err != nil {
		return nil, err
	}
	if len(ts) != 2 {
		return nil, fmt.Errorf("%s: holds %d tensors, want 2 (features, labels)", name, len(ts))
	}
	x, y := ts[0], ts[1]
	if len(x.Shape) < 1 {
		return nil, fmt.Errorf("%s: feature tensor (storage %s) is a scalar", name, x.Key)
	}
	n := x.Shape[0]
	d := 1
	for _, s := range x.Shape[1:] {
		d *= s
	}
	if len(y.Shape) == 0 || y.Shape[0] != n || len(y.Data) != n {
		return nil, fmt.Errorf("%s: label tensor (storage %s) has shape %v, want (%d) to match features %v", name, y.Key, y.Shape, n, x.Shape)
	}
	if n > 0 && d == 0 {
		return nil, fmt.Errorf("%s: feature tensor has shape %v with no features", name, x.Shape)
	}
	ds := &Dataset{X: x.Data, Y: make([]int, n), N: n, D: d}
	for i, v := range y.Data {
		if v != math.Trunc(v) || v < 0 || v >= maxLabel {
			return nil, fmt.Errorf("%s: label %d is %v, want an integer in [0, %d)", name, i, v, maxLabel)
		}
		ds.Y[i] = int(v)
		ds.Classes = max(ds.Classes, int(v)+1)
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ds, nil
}
