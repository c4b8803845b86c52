package data

// Pins for the tensor materialisation of DecodePT: every element type,
// contiguous and strided views (PyTorch semantics: element (i_0, …) is
// storage[offset + Σ_k i_k·stride_k]), and the bounds checks at their
// boundaries.

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

func TestPinElemReader(t *testing.T) {
	le := binary.LittleEndian
	f64 := make([]byte, 16)
	le.PutUint64(f64[8:], math.Float64bits(-2.5))
	f32 := make([]byte, 8)
	le.PutUint32(f32[4:], math.Float32bits(0.75))
	i64 := make([]byte, 16)
	le.PutUint64(i64[8:], uint64(0xFFFFFFFFFFFFFFF9)) // −7
	i32 := make([]byte, 8)
	le.PutUint32(i32[4:], 0xFFFFFFFE) // −2
	i16 := []byte{0, 0, 0xFD, 0xFF}   // element 1 = −3
	for _, tc := range []struct {
		dtype string
		raw   []byte
		want  float64
	}{
		{"float64", f64, -2.5}, {"float32", f32, 0.75}, {"int64", i64, -7}, {"int32", i32, -2},
		{"int16", i16, -3}, {"int8", []byte{0, 0xFC}, -4}, {"uint8", []byte{0, 200}, 200}, {"bool", []byte{0, 1}, 1},
	} {
		if got := elemReader(tc.dtype, tc.raw)(1); got != tc.want {
			t.Errorf("%s element 1 = %v, want %v", tc.dtype, got, tc.want)
		}
	}
}

func u8storage(n int64) *torchStorage {
	return &torchStorage{dtype: "uint8", elemSize: 1, key: "s", numel: n}
}

func TestPinMaterialize(t *testing.T) {
	raw := []byte{10, 11, 12, 13, 14, 15, 16, 17}
	st := u8storage(8)
	for _, tc := range []struct {
		name         string
		off          int64
		size, stride []int64
		want         []float64
		shape        []int
	}{
		// Contiguous 2×3 from offset 1: rows (11 12 13), (14 15 16).
		{"contiguous", 1, []int64{2, 3}, []int64{3, 1}, []float64{11, 12, 13, 14, 15, 16}, []int{2, 3}},
		// Transposed view of a 3×2 block: element (i, j) = raw[i + 2j].
		{"transpose", 0, []int64{2, 3}, []int64{1, 2}, []float64{10, 12, 14, 11, 13, 15}, []int{2, 3}},
		// Size-1 dimensions may have any stride and stay contiguous.
		{"size-1 dims", 2, []int64{1, 3, 1}, []int64{99, 1, 5}, []float64{12, 13, 14}, []int{1, 3, 1}},
		// Stride 0 repeats an element (expand).
		{"broadcast", 3, []int64{2, 2}, []int64{0, 1}, []float64{13, 14, 13, 14}, []int{2, 2}},
		// Every other element, reaching exactly the last one (index 7).
		{"step 2 to the end", 1, []int64{4}, []int64{2}, []float64{11, 13, 15, 17}, []int{4}},
		// 3-D with a non-trivial carry: (2, 2, 2), strides (1, 4, 2).
		{"3-D strided", 0, []int64{2, 2, 2}, []int64{1, 4, 2}, []float64{10, 12, 14, 16, 11, 13, 15, 17}, []int{2, 2, 2}},
		{"scalar", 5, nil, nil, []float64{15}, []int{}},
		{"empty", 0, []int64{0, 4}, []int64{4, 1}, []float64{}, []int{0, 4}},
	} {
		got, err := materialize(&torchTensor{storage: st, offset: tc.off, size: tc.size, stride: tc.stride}, raw, "pin", "e")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got.Data) != len(tc.want) || len(got.Shape) != len(tc.shape) || got.DType != "uint8" || got.Key != "s" {
			t.Errorf("%s: got %+v", tc.name, got)
			continue
		}
		for i := range tc.want {
			if got.Data[i] != tc.want[i] {
				t.Errorf("%s: data %v, want %v", tc.name, got.Data, tc.want)
				break
			}
		}
		for i := range tc.shape {
			if got.Shape[i] != tc.shape[i] {
				t.Errorf("%s: shape %v, want %v", tc.name, got.Shape, tc.shape)
			}
		}
	}
	for _, tc := range []struct {
		name         string
		numel, off   int64
		size, stride []int64
		want         string
	}{
		{"more elements than storage", 8, 0, []int64{3, 3}, []int64{3, 1}, "= 9 elements but its storage holds 8"},
		{"one past the end", 8, 1, []int64{4}, []int64{2}, "reaches element 7"}, // fine: 1 + 3·2 = 7
		{"offset past the end", 8, 8, []int64{1}, []int64{1}, "reaches element 8 of a storage of 8"},
		{"stride past the end", 8, 0, []int64{2}, []int64{8}, "reaches element 8"},
		{"shape overflow", 8, 0, []int64{1 << 62, 4}, []int64{4, 1}, "too many elements"},
		{"stride exactly MaxInt64", 8, 0, []int64{2}, []int64{math.MaxInt64}, "reaches element 9223372036854775807"},
		{"stride overflow", 8, 1, []int64{2}, []int64{math.MaxInt64}, "overflows"},
	} {
		_, err := materialize(&torchTensor{storage: u8storage(tc.numel), offset: tc.off, size: tc.size, stride: tc.stride}, raw, "pin", "e")
		if tc.name == "one past the end" {
			if err != nil {
				t.Errorf("%s: %v (index 7 is the last element, allowed)", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pin: tensor in e") {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestPinDecodeTensorDatasetShapes: features (n, a, b) flatten to n × ab;
// labels (n) or (n, 1); Classes = max label + 1; labels must be integers in
// [0, 65536).
func TestPinDecodeTensorDatasetShapes(t *testing.T) {
	build := func(xSize, xStride []int, xNumel int, ySize []int, y []float64) []byte {
		pkl := tensorDatasetPickle(
			ptTensor{key: "0", storage: "DoubleStorage", numel: xNumel, size: xSize, stride: xStride},
			ptTensor{key: "1", storage: "DoubleStorage", numel: len(y), size: ySize, stride: []int{1, 1}[:len(ySize)]},
		)
		x := make([]float64, xNumel)
		for i := range x {
			x[i] = float64(i) / 10
		}
		return zipEntries(t, [2]any{"a/data.pkl", pkl}, [2]any{"a/data/0", float64Bytes(x)}, [2]any{"a/data/1", float64Bytes(y)})
	}
	d, err := DecodeTensorDataset(build([]int{2, 2, 3}, []int{6, 3, 1}, 12, []int{2, 1}, []float64{4, 65535}), "ok.pt")
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 2 || d.D != 6 || d.Classes != 65536 || d.Y[0] != 4 || d.Y[1] != 65535 || d.X[7] != 0.7 {
		t.Errorf("decoded %d×%d, %d classes, Y %v", d.N, d.D, d.Classes, d.Y)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"label 65536", build([]int{2, 3}, []int{3, 1}, 6, []int{2}, []float64{0, 65536}), "label 1 is 65536, want an integer in [0, 65536)"},
		{"scalar features", build(nil, nil, 1, []int{1}, []float64{0}), "feature tensor (storage 0) is a scalar"},
		{"scalar labels", build([]int{1, 2}, []int{2, 1}, 2, nil, []float64{0}), "label tensor (storage 1) has shape []"},
		{"no features", build([]int{2, 0}, []int{1, 1}, 0, []int{2}, []float64{0, 1}), "with no features"},
		{"labels (n, 2)", build([]int{2, 3}, []int{3, 1}, 6, []int{2, 2}, []float64{0, 1, 1, 0}), "label tensor (storage 1) has shape [2 2]"},
	} {
		_, err := DecodeTensorDataset(tc.b, "bad.pt")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// Zero rows and features (0, 3) are a valid empty dataset.
	if d, err := DecodeTensorDataset(build([]int{0, 3}, []int{3, 1}, 0, []int{0}, nil), "empty.pt"); err != nil || d.N != 0 || d.D != 3 {
		t.Errorf("empty dataset: %+v, %v", d, err)
	}
	// Three tensors are not a (features, labels) pair.
	pkl := tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: 2, size: []int{2}, stride: []int{1}},
		ptTensor{key: "0", storage: "DoubleStorage", numel: 2, size: []int{2}, stride: []int{1}},
		ptTensor{key: "0", storage: "DoubleStorage", numel: 2, size: []int{2}, stride: []int{1}},
	)
	b := zipEntries(t, [2]any{"a/data.pkl", pkl}, [2]any{"a/data/0", float64Bytes([]float64{0, 1})})
	if _, err := DecodeTensorDataset(b, "three.pt"); err == nil || !strings.Contains(err.Error(), "holds 3 tensors, want 2") {
		t.Errorf("three tensors: %v", err)
	}
	// A shared storage is read once and serves every view.
	ts, err := DecodePT(b, "three.pt")
	if err != nil || len(ts) != 3 || ts[2].Data[1] != 1 {
		t.Errorf("shared storage: %+v, %v", ts, err)
	}
}
