package data

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

// Fuzz targets for every decoder that reads untrusted bytes. Each checks
// that malformed input yields an error naming the input (never a panic),
// and that accepted input decodes into a consistent value. Run one with
//
//	go test ./algorithms/data -run='^$' -fuzz=FuzzDecodePT -fuzztime=60s

const fuzzName = "fuzz.input"

func checkFuzzErr(t *testing.T, err error) {
	t.Helper()
	if err != nil && !strings.HasPrefix(err.Error(), fuzzName+":") {
		t.Fatalf("error does not name the input: %v", err)
	}
}

func checkFuzzDataset(t *testing.T, d *Dataset) {
	t.Helper()
	if len(d.X) != d.N*d.D || len(d.Y) != d.N {
		t.Fatalf("inconsistent dataset N=%d D=%d len(X)=%d len(Y)=%d", d.N, d.D, len(d.X), len(d.Y))
	}
	for _, y := range d.Y {
		if y < 0 || y >= d.Classes {
			t.Fatalf("label %d outside [0,%d)", y, d.Classes)
		}
	}
}

func FuzzDecodePT(f *testing.F) {
	f.Add(makePT(f, "archive", []float64{1, 2, 3, 4, 5, 6}, 3, 2, []float64{0, 1, 0}))
	f.Add(makePT(f, "mytest", []float64{0.5}, 1, 1, []float64{1}))
	f.Add(makePT(f, "a", nil, 0, 4, nil))
	f.Add([]byte("PK\x03\x04"))
	f.Add(zipEntriesMethod(f, zip.Deflate, [2]any{"x/data.pkl", tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: 2, size: []int{2, 1}, stride: []int{1, 1}},
		ptTensor{key: "1", storage: "DoubleStorage", numel: 2, size: []int{2}, stride: []int{1}},
	)}, [2]any{"x/data/0", float64Bytes([]float64{1, 2})}, [2]any{"x/data/1", float64Bytes([]float64{1, 0})}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := DecodePT(b, fuzzName)
		checkFuzzErr(t, err)
		for _, x := range ts {
			n := 1
			for _, s := range x.Shape {
				n *= s
			}
			if n != len(x.Data) {
				t.Fatalf("shape %v but %d elements", x.Shape, len(x.Data))
			}
		}
		d, err := DecodeTensorDataset(b, fuzzName)
		checkFuzzErr(t, err)
		if err == nil {
			checkFuzzDataset(t, d)
		}
	})
}

// FuzzPickle fuzzes the pickle program of an otherwise valid archive, to
// reach the opcode interpreter and the tensor view checks directly.
func FuzzPickle(f *testing.F) {
	st0 := float64Bytes([]float64{1, 2, 3, 4, 5, 6})
	st1 := float64Bytes([]float64{0, 1, 1})
	f.Add(tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: 6, size: []int{3, 2}, stride: []int{2, 1}},
		ptTensor{key: "1", storage: "DoubleStorage", numel: 3, size: []int{3}, stride: []int{1}},
	))
	f.Add(tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: 6, size: []int{2, 3}, stride: []int{1, 2}},
		ptTensor{key: "1", storage: "ByteStorage", numel: 24, offset: 3, size: []int{2}, stride: []int{5}},
	))
	f.Add([]byte("\x80\x02]q\x00(K\x01K\x02e.")) // [1, 2] via APPENDS
	f.Add([]byte("(I01\nF1.5\nL12L\nS'x'\np0\ng0\nl."))
	f.Fuzz(func(t *testing.T, pkl []byte) {
		b := zipEntries(t, [2]any{"archive/data.pkl", pkl}, [2]any{"archive/data/0", st0}, [2]any{"archive/data/1", st1})
		d, err := DecodeTensorDataset(b, fuzzName)
		checkFuzzErr(t, err)
		if err == nil {
			checkFuzzDataset(t, d)
		}
	})
}

func FuzzDecodeIDX(f *testing.F) {
	f.Add(idxBytes([]int{2, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	f.Add(idxBytes([]int{3}, []byte{9, 0, 4}))
	f.Add(gz(f, idxBytes([]int{1, 3}, []byte{7, 8, 9})))
	f.Add([]byte{0, 0, 8, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeIDX(b, fuzzName)
		checkFuzzErr(t, err)
		if err != nil {
			return
		}
		n := 1
		for _, s := range a.Dims {
			n *= s
		}
		if n != len(a.Data) {
			t.Fatalf("dims %v but %d bytes", a.Dims, len(a.Data))
		}
		if len(a.Dims) >= 2 {
			lab := &IDX{Dims: []int{a.Dims[0]}, Data: make([]byte, a.Dims[0])}
			d, err := IDXDataset(a, lab, 10, fuzzName)
			checkFuzzErr(t, err)
			if err == nil {
				checkFuzzDataset(t, d)
			}
		}
	})
}

func FuzzDecodeCIFAR(f *testing.F) {
	f.Add(cifarRecords([][]byte{{3}}), false)
	f.Add(cifarRecords([][]byte{{19, 99}}), true)
	f.Add([]byte{1, 2, 3}, false)
	f.Fuzz(func(t *testing.T, b []byte, hundred bool) {
		var d *Dataset
		var err error
		if hundred {
			d, err = DecodeCIFAR100(b, fuzzName, true)
		} else {
			d, err = DecodeCIFAR10(b, fuzzName)
		}
		checkFuzzErr(t, err)
		if err == nil {
			checkFuzzDataset(t, d)
		}
	})
}

func FuzzDecodeUserGroups(f *testing.F) {
	f.Add([]byte(`{"0": [0, 1, 2], "1": [3]}`))
	f.Add([]byte(`{"0": []}`))
	f.Add([]byte(`{"1": [1e3]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := DecodeUserGroups(b, fuzzName)
		checkFuzzErr(t, err)
		for _, p := range g {
			for _, i := range p {
				if i < 0 {
					t.Fatalf("negative index %d", i)
				}
			}
		}
	})
}

func FuzzDecodeLEAF(f *testing.F) {
	f.Add([]byte(`{"users": ["a"], "num_samples": [1], "user_data": {"a": {"x": [[1, 2]], "y": [3]}}}`))
	f.Add([]byte(`{"users": [], "num_samples": [], "user_data": {}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		lf, err := DecodeLEAF(bytes.NewReader(b), fuzzName)
		checkFuzzErr(t, err)
		if err != nil {
			return
		}
		for _, u := range lf.Users {
			checkFuzzDataset(t, lf.Data[u])
		}
		fed, err := BuildLEAF(fuzzName, "fuzz", []*LEAFFile{lf}, nil, 0)
		checkFuzzErr(t, err)
		if err == nil {
			if err := fed.Validate(); err != nil {
				t.Fatalf("built dataset invalid: %v", err)
			}
		}
	})
}
