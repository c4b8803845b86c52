package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idxBytes encodes an unsigned-byte IDX array.
func idxBytes(dims []int, data []byte) []byte {
	b := []byte{0, 0, 0x08, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	return append(b, data...)
}

func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeIDX(t *testing.T) {
	img := idxBytes([]int{2, 2, 3}, []byte{0, 51, 102, 153, 204, 255, 1, 2, 3, 4, 5, 6})
	for _, c := range []struct {
		name string
		in   []byte
	}{{"raw", img}, {"gzip", gz(t, img)}} {
		t.Run(c.name, func(t *testing.T) {
			a, err := DecodeIDX(c.in, "img")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(a.Dims) != "[2 2 3]" || len(a.Data) != 12 {
				t.Fatalf("dims %v len %d", a.Dims, len(a.Data))
			}
		})
	}
	bad := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "too short for an IDX header"},
		{"bad magic", []byte{1, 0, 8, 1, 0, 0, 0, 0}, "bad IDX magic"},
		{"float type", []byte{0, 0, 0x0d, 1, 0, 0, 0, 0}, "element type 0x0d"},
		{"rank 0", []byte{0, 0, 8, 0}, "IDX rank 0"},
		{"short header", []byte{0, 0, 8, 3, 0, 0, 0, 1}, "too short for an IDX header of rank 3"},
		{"short body", idxBytes([]int{2, 3}, []byte{1, 2, 3}), "need 6 data bytes, file has 3"},
		{"zero inner size", idxBytes([]int{1 << 29, 0}, nil), "dimension 1 is zero"},
		{"long body", idxBytes([]int{1}, []byte{1, 2}), "need 1 data bytes, file has 2"},
		{"absurd sizes", idxBytes([]int{1 << 30, 1 << 30, 1 << 30}, []byte{1}), "need more than the 1 data bytes"},
		{"absurd sizes gz", gz(t, idxBytes([]int{60000, 28, 28}, []byte{1})), "need 47040000 data bytes, file has 1"},
		{"corrupt gzip", gz(t, img)[:20], "corrupt gzip"},
		{"bad gzip header", []byte{0x1f, 0x8b, 0, 0}, "gzip"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeIDX(c.in, "f.idx")
			if err == nil || !strings.HasPrefix(err.Error(), "f.idx:") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// writeIDXDir writes a 3-image train set and a 2-image test set of 2×2
// images, gzip-compressed when zipped.
func writeIDXDir(t *testing.T, dir string, zipped bool) {
	t.Helper()
	files := map[string][]byte{
		IDXTrainImages: idxBytes([]int{3, 2, 2}, []byte{0, 255, 0, 255, 10, 20, 30, 40, 255, 255, 255, 255}),
		IDXTrainLabels: idxBytes([]int{3}, []byte{9, 0, 4}),
		IDXTestImages:  idxBytes([]int{2, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}),
		IDXTestLabels:  idxBytes([]int{2}, []byte{1, 2}),
	}
	for name, b := range files {
		if zipped {
			name, b = name+".gz", gz(t, b)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadIDXDir(t *testing.T) {
	for _, zipped := range []bool{false, true} {
		t.Run(fmt.Sprintf("gz=%v", zipped), func(t *testing.T) {
			dir := t.TempDir()
			writeIDXDir(t, dir, zipped)
			train, test, err := LoadMNIST(dir)
			if err != nil {
				t.Fatal(err)
			}
			if train.N != 3 || train.D != 4 || test.N != 2 || train.Classes != 10 {
				t.Fatalf("train %d×%d test %d classes %d", train.N, train.D, test.N, train.Classes)
			}
			if train.X[1] != 1 || train.X[4] != 10.0/255 || train.Y[0] != 9 || test.Y[1] != 2 {
				t.Fatalf("values %v %v %v", train.X[:5], train.Y, test.Y)
			}
			if err := train.Validate(); err != nil {
				t.Fatal(err)
			}
			// Content pins hold for raw and gzip copies alike.
			_, _, err = LoadIDXDir(dir, "mnist", 10, map[string]string{IDXTrainLabels: SHA256Hex(idxBytes([]int{3}, []byte{9, 0, 4}))})
			if err != nil {
				t.Fatalf("content pin: %v", err)
			}
			_, _, err = LoadIDXDir(dir, "mnist", 10, map[string]string{IDXTestImages: strings.Repeat("a", 64)})
			var ce *ChecksumError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), IDXTestImages) {
				t.Fatalf("pin mismatch: %v", err)
			}
			// Labels beyond the class count.
			if _, _, err := LoadIDXDir(dir, "mnist", 5, nil); err == nil || !strings.Contains(err.Error(), "label 9 of example 0 is not below 5") {
				t.Fatalf("label range: %v", err)
			}
		})
	}
	_, _, err := LoadMNIST(filepath.Join(t.TempDir(), "absent"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "dataset mnist not found at ") {
		t.Fatalf("missing: %v", err)
	}
	dir := t.TempDir()
	writeIDXDir(t, dir, false)
	os.Remove(filepath.Join(dir, IDXTestLabels))
	if _, _, err := LoadMNIST(dir); err == nil || !strings.Contains(err.Error(), "not found at "+filepath.Join(dir, IDXTestLabels)) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestFashionMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 30 MB of gzip; skipped in -short")
	}
	if _, err := os.Stat(FashionMNISTDir); err != nil {
		t.Skipf("Fashion-MNIST not installed at %s (Debian package dataset-fashion-mnist)", FashionMNISTDir)
	}
	train, test, err := LoadFashionMNIST("") // verifies the content pins
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 60000 || test.N != 10000 || train.D != 784 || test.D != 784 || train.Classes != 10 {
		t.Fatalf("train %d×%d test %d×%d classes %d", train.N, train.D, test.N, test.D, train.Classes)
	}
	for i, c := range train.LabelCounts() {
		if c != 6000 {
			t.Errorf("train label %d: %d, want 6000", i, c)
		}
	}
	for i, c := range test.LabelCounts() {
		if c != 1000 {
			t.Errorf("test label %d: %d, want 1000", i, c)
		}
	}
	lo, hi := 1.0, 0.0
	for _, v := range train.X {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo != 0 || hi != 1 {
		t.Errorf("pixel range [%v,%v], want [0,1]", lo, hi)
	}
	// 28×28 → 14×14 → 7×7.
	small, _ := SelectClasses(test, []int{0, 1}, true)
	p1, s1, err := AvgPool2x2(small, MNISTShape)
	if err != nil {
		t.Fatal(err)
	}
	p2, s2, err := AvgPool2x2(p1, s1)
	if err != nil || s2 != (ImageShape{1, 7, 7}) || p2.D != 49 || p2.N != 2000 {
		t.Fatalf("pool: %v %v %d %d", err, s2, p2.D, p2.N)
	}
}

func TestAvgPool2x2(t *testing.T) {
	// Two channels of 2×4.
	d := &Dataset{X: []float64{
		1, 2, 3, 4,
		5, 6, 7, 8,
		0, 0, 4, 4,
		0, 0, 4, 4,
	}, Y: []int{3}, N: 1, D: 16, Classes: 4}
	out, s, err := AvgPool2x2(d, ImageShape{C: 2, H: 2, W: 4})
	if err != nil {
		t.Fatal(err)
	}
	if s != (ImageShape{2, 1, 2}) || fmt.Sprint(out.X) != "[3.5 5.5 0 4]" || out.Y[0] != 3 {
		t.Fatalf("got %v %v", s, out.X)
	}
	if _, _, err := AvgPool2x2(out, s); err == nil || !strings.Contains(err.Error(), "odd side") {
		t.Fatalf("odd: %v", err)
	}
	if _, _, err := AvgPool2x2(d, MNISTShape); err == nil {
		t.Fatal("wrong shape accepted")
	}
}

func TestSelectClasses(t *testing.T) {
	d := &Dataset{X: []float64{0, 1, 2, 3, 4}, Y: []int{4, 1, 4, 0, 2}, N: 5, D: 1, Classes: 5}
	cases := []struct {
		classes []int
		relabel bool
		wantX   string
		wantY   string
		wantC   int
		err     string
	}{
		{[]int{4, 0}, true, "[0 2 3]", "[0 0 1]", 2, ""},
		{[]int{4, 0}, false, "[0 2 3]", "[4 4 0]", 5, ""},
		{[]int{3}, true, "[]", "[]", 1, ""},
		{[]int{5}, true, "", "", 0, "outside"},
		{[]int{1, 1}, true, "", "", 0, "twice"},
		{nil, true, "", "", 0, "empty"},
	}
	for _, c := range cases {
		out, err := SelectClasses(d, c.classes, c.relabel)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.classes, err, c.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(out.X) != c.wantX || fmt.Sprint(out.Y) != c.wantY || out.Classes != c.wantC {
			t.Errorf("%v relabel=%v: got %v %v %d (%v)", c.classes, c.relabel, out.X, out.Y, out.Classes, err)
		}
	}
}

// cifarRecords builds n records with the given label bytes per record.
func cifarRecords(labels [][]byte) []byte {
	var b []byte
	for i, l := range labels {
		b = append(b, l...)
		px := make([]byte, 3072)
		for j := range px {
			px[j] = byte(i + j)
		}
		b = append(b, px...)
	}
	return b
}

func TestDecodeCIFAR(t *testing.T) {
	ten := cifarRecords([][]byte{{3}, {9}})
	d, err := DecodeCIFAR10(ten, "b.bin")
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 2 || d.D != 3072 || d.Classes != 10 || d.Y[0] != 3 || d.Y[1] != 9 || d.X[3072+1] != 2.0/255 {
		t.Fatalf("got N=%d D=%d Y=%v", d.N, d.D, d.Y)
	}
	hundred := cifarRecords([][]byte{{19, 99}, {0, 42}})
	fine, err := DecodeCIFAR100(hundred, "train.bin", true)
	if err != nil || fine.Classes != 100 || fine.Y[0] != 99 || fine.Y[1] != 42 {
		t.Fatalf("fine: %v %v", err, fine)
	}
	coarse, err := DecodeCIFAR100(hundred, "train.bin", false)
	if err != nil || coarse.Classes != 20 || coarse.Y[0] != 19 || coarse.Y[1] != 0 {
		t.Fatalf("coarse: %v %v", err, coarse)
	}
	bad := []struct {
		name string
		run  error
		want string
	}{
		{"partial record", func() error { _, e := DecodeCIFAR10(ten[:5000], "b.bin"); return e }(), "not a whole number of 3073-byte"},
		{"label 10", func() error { _, e := DecodeCIFAR10(cifarRecords([][]byte{{10}}), "b.bin"); return e }(), "label byte 0 is 10, want < 10"},
		{"coarse 20", func() error { _, e := DecodeCIFAR100(cifarRecords([][]byte{{20, 1}}), "b.bin", true); return e }(), "label byte 0 is 20, want < 20"},
		{"fine 100", func() error { _, e := DecodeCIFAR100(cifarRecords([][]byte{{1, 100}}), "b.bin", false); return e }(), "label byte 1 is 100"},
	}
	for _, c := range bad {
		if c.run == nil || !strings.HasPrefix(c.run.Error(), "b.bin:") || !strings.Contains(c.run.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, c.run, c.want)
		}
	}
}

func TestLoadCIFAR(t *testing.T) {
	root := t.TempDir()
	_, _, err := LoadCIFAR10(root + "/none")
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "dataset cifar10 not found at "+root+"/none" {
		t.Fatalf("missing: %v", err)
	}
	dir := filepath.Join(root, "cifar-10-batches-bin")
	os.Mkdir(dir, 0o755)
	for i := 1; i <= 5; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data_batch_%d.bin", i)), cifarRecords([][]byte{{byte(i)}, {0}}), 0o644)
	}
	_, _, err = LoadCIFAR10(root)
	if err == nil || err.Error() != "dataset cifar10 not found at "+filepath.Join(dir, "test_batch.bin") {
		t.Fatalf("missing test batch: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "test_batch.bin"), cifarRecords([][]byte{{7}}), 0o644)
	train, test, err := LoadCIFAR10(root)
	if err != nil || train.N != 10 || test.N != 1 || train.Y[2] != 2 || test.Y[0] != 7 {
		t.Fatalf("load: %v", err)
	}

	_, _, err = LoadCIFAR100(root, true)
	if err == nil || !strings.HasPrefix(err.Error(), "dataset cifar100 not found at ") {
		t.Fatalf("cifar100 missing: %v", err)
	}
	os.WriteFile(filepath.Join(root, "train.bin"), cifarRecords([][]byte{{1, 2}, {3, 4}}), 0o644)
	os.WriteFile(filepath.Join(root, "test.bin"), cifarRecords([][]byte{{5, 6}}), 0o644)
	tr, te, err := LoadCIFAR100(root, true)
	if err != nil || tr.N != 2 || te.Y[0] != 6 || tr.Classes != 100 {
		t.Fatalf("cifar100: %v", err)
	}
}

func TestLEAF(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("train/a.json", `{"users": ["u2", "u1"], "num_samples": [2, 1],
		"user_data": {"u1": {"x": [[0.5, 0.25, 0]], "y": [3]}, "u2": {"x": [[1, 1, 1], [0, 0, 0]], "y": [0, 61]}}}`)
	write("train/b.json", `{"users": ["u3"], "num_samples": [1], "user_data": {"u3": {"x": [[2, 2, 2]], "y": [7]}}}`)
	write("test/a.json", `{"users": ["u1", "u3"], "num_samples": [1, 2],
		"user_data": {"u1": {"x": [[9, 9, 9]], "y": [1]}, "u3": {"x": [[8, 8, 8], [7, 7, 7]], "y": [2, 2]}}}`)
	f, err := LoadLEAF(root, "femnist", 62)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(f.Clients) != 3 || f.D != 3 || f.Classes != 62 || f.Test.N != 3 {
		t.Fatalf("clients %d D %d classes %d test %d", len(f.Clients), f.D, f.Classes, f.Test.N)
	}
	if fmt.Sprint(f.TrainSizes()) != "[2 1 1]" || f.Clients[0].Test.N != 0 || f.Clients[2].Test.N != 2 || f.Clients[0].Train.Y[1] != 61 {
		t.Fatalf("sizes %v", f.TrainSizes())
	}
	if s := DeviceStats(f, CountTrainOnly); s.Samples != 4 || s.Test != 3 {
		t.Fatalf("stats %+v", s)
	}
	if _, err := LoadLEAF(root, "femnist", 10); err == nil || !strings.Contains(err.Error(), "beyond 10 classes") {
		t.Fatalf("classes: %v", err)
	}
	_, err = LoadLEAF(filepath.Join(root, "none"), "femnist", 62)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "dataset femnist not found at ") {
		t.Fatalf("missing: %v", err)
	}

	bad := []struct{ name, in, want string }{
		{"syntax", `{"users": [`, "not a LEAF JSON file"},
		{"counts", `{"users": ["a"], "num_samples": [], "user_data": {}}`, "1 users but 0 num_samples"},
		{"no data", `{"users": ["a"], "num_samples": [1], "user_data": {}}`, `user "a" has no user_data`},
		{"len", `{"users": ["a"], "num_samples": [2], "user_data": {"a": {"x": [[1]], "y": [0]}}}`, "num_samples says 2"},
		{"ragged", `{"users": ["a"], "num_samples": [2], "user_data": {"a": {"x": [[1], [1, 2]], "y": [0, 0]}}}`, "sample 1 has 2 features"},
		{"label", `{"users": ["a"], "num_samples": [1], "user_data": {"a": {"x": [[1]], "y": [0.5]}}}`, "label 0.5"},
		{"dup", `{"users": ["a", "a"], "num_samples": [1, 1], "user_data": {"a": {"x": [[1]], "y": [0]}}}`, `user "a" listed twice`},
		{"extra", `{"users": [], "num_samples": [], "user_data": {"a": {"x": [[1]], "y": [0]}}}`, "user_data has 1 users"},
	}
	for _, c := range bad {
		_, err := DecodeLEAF(strings.NewReader(c.in), "x.json")
		if err == nil || !strings.HasPrefix(err.Error(), "x.json:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A test-only user is an error.
	write("test/c.json", `{"users": ["zz"], "num_samples": [1], "user_data": {"zz": {"x": [[1, 1, 1]], "y": [0]}}}`)
	if _, err := LoadLEAF(root, "femnist", 62); err == nil || !strings.Contains(err.Error(), `test user "zz" has no training data`) {
		t.Fatalf("test-only user: %v", err)
	}
}
