package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// pickleWriter emits pickle opcodes the way torch.save (protocol 2) does.
type pickleWriter struct{ bytes.Buffer }

func (p *pickleWriter) op(b ...byte) *pickleWriter { p.Write(b); return p }

func (p *pickleWriter) global(mod, name string) *pickleWriter {
	p.WriteString("c" + mod + "\n" + name + "\n")
	return p
}

func (p *pickleWriter) str(s string) *pickleWriter {
	p.WriteByte('X')
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(s)))
	p.Write(n[:])
	p.WriteString(s)
	return p
}

func (p *pickleWriter) int(v int) *pickleWriter {
	switch {
	case v >= 0 && v < 256:
		p.op('K', byte(v))
	case v >= 0 && v < 65536:
		p.op('M', byte(v), byte(v>>8))
	default:
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(int32(v)))
		p.op('J')
		p.Write(n[:])
	}
	return p
}

func (p *pickleWriter) tuple(xs []int) *pickleWriter {
	p.op('(')
	for _, x := range xs {
		p.int(x)
	}
	return p.op('t')
}

// ptTensor describes one _rebuild_tensor_v2 call of a fixture.
type ptTensor struct {
	key          string
	storage      string // "DoubleStorage", …
	numel        int
	offset       int
	size, stride []int
}

// tensorDatasetPickle is the data.pkl of a TensorDataset of the tensors.
func tensorDatasetPickle(ts ...ptTensor) []byte {
	var p pickleWriter
	p.op(0x80, 2).global("torch.utils.data.dataset", "TensorDataset").op(')', 0x81, '}').str("tensors")
	p.op('(')
	for _, t := range ts {
		p.global("torch._utils", "_rebuild_tensor_v2").op('(')
		p.op('(').str("storage").global("torch", t.storage).str(t.key).str("cpu").int(t.numel).op('t', 'Q')
		p.int(t.offset).tuple(t.size).tuple(t.stride).op(0x89)
		p.global("collections", "OrderedDict").op(')', 'R')
		p.op('t', 'R')
	}
	p.op('t', 's', 'b', '.')
	return p.Bytes()
}

// zipEntries writes a stored (uncompressed) zip of the entries, in order.
func zipEntries(t testing.TB, entries ...[2]any) []byte {
	t.Helper()
	return zipEntriesMethod(t, zip.Store, entries...)
}

// zipEntriesMethod writes a zip of the entries with the given method.
func zipEntriesMethod(t testing.TB, method uint16, entries ...[2]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e[0].(string), Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e[1].([]byte)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func float64Bytes(xs []float64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// makePT builds a torch.save-style archive of a TensorDataset (X, y) with
// X of shape (n, d) and float64 labels y, under directory dir.
func makePT(t testing.TB, dir string, x []float64, n, d int, y []float64) []byte {
	pkl := tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: n * d, size: []int{n, d}, stride: []int{d, 1}},
		ptTensor{key: "1", storage: "DoubleStorage", numel: n, size: []int{n}, stride: []int{1}},
	)
	return zipEntries(t,
		[2]any{dir + "/data.pkl", pkl},
		[2]any{dir + "/data/0", float64Bytes(x)},
		[2]any{dir + "/data/1", float64Bytes(y)},
		[2]any{dir + "/version", []byte("3\n")},
	)
}

// sharedDatasets returns shared/datasets, from $FEDREPRO_SHARED (the shared/
// folder) or relative to this package, and whether sub exists in it.
func sharedDatasets(sub string) (string, bool) {
	root := filepath.Join("..", "..", "..", "shared")
	if env := os.Getenv("FEDREPRO_SHARED"); env != "" {
		root = env
	}
	p := filepath.Join(root, "datasets", sub)
	st, err := os.Stat(p)
	return p, err == nil && st.IsDir()
}
