package data

import (
	"archive/zip"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeTensorDatasetRoundTrip(t *testing.T) {
	for _, dir := range []string{"archive", "mytest", "anything_else"} {
		t.Run(dir, func(t *testing.T) {
			n, d := 5, 3
			x := make([]float64, n*d)
			for i := range x {
				x[i] = float64(i)*0.5 - 3
			}
			y := []float64{0, 1, 1, 0, 2}
			ds, err := DecodeTensorDataset(makePT(t, dir, x, n, d, y), "fixture.pt")
			if err != nil {
				t.Fatal(err)
			}
			if ds.N != n || ds.D != d || ds.Classes != 3 {
				t.Fatalf("got N=%d D=%d Classes=%d, want 5, 3, 3", ds.N, ds.D, ds.Classes)
			}
			for i := range x {
				if ds.X[i] != x[i] {
					t.Fatalf("X[%d] = %v, want %v", i, ds.X[i], x[i])
				}
			}
			for i, v := range y {
				if ds.Y[i] != int(v) {
					t.Fatalf("Y[%d] = %d, want %v", i, ds.Y[i], v)
				}
			}
		})
	}
}

func TestDecodePTDeflated(t *testing.T) {
	pkl := tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: 4, size: []int{2, 2}, stride: []int{2, 1}},
		ptTensor{key: "1", storage: "DoubleStorage", numel: 2, size: []int{2}, stride: []int{1}},
	)
	b := zipEntriesMethod(t, zip.Deflate, [2]any{"x/data.pkl", pkl},
		[2]any{"x/data/0", float64Bytes([]float64{1, 2, 3, 4})}, [2]any{"x/data/1", float64Bytes([]float64{1, 0})})
	d, err := DecodeTensorDataset(b, "deflated.pt")
	if err != nil || d.N != 2 || d.X[3] != 4 || d.Y[0] != 1 {
		t.Fatalf("got %v, %v", d, err)
	}
}

func TestDecodePTStridedViews(t *testing.T) {
	// Storage 0..11 as float32; tensor A = 3×2 transposed view (stride 1,3)
	// of a 2×3 matrix at offset 0; tensor B = a length-4 view at offset 5
	// with stride 2 of int64 storage "1".
	st0 := make([]byte, 4*12)
	for i := 0; i < 12; i++ {
		v := math.Float32bits(float32(i))
		st0[4*i], st0[4*i+1], st0[4*i+2], st0[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	st1 := make([]byte, 8*14)
	for i := 0; i < 14; i++ {
		v := uint64(int64(-i))
		for k := 0; k < 8; k++ {
			st1[8*i+k] = byte(v >> (8 * k))
		}
	}
	pkl := tensorDatasetPickle(
		ptTensor{key: "0", storage: "FloatStorage", numel: 12, size: []int{3, 2}, stride: []int{1, 3}},
		ptTensor{key: "1", storage: "LongStorage", numel: 14, offset: 5, size: []int{4}, stride: []int{2}},
	)
	b := zipEntries(t, [2]any{"a/data.pkl", pkl}, [2]any{"a/data/0", st0}, [2]any{"a/data/1", st1}, [2]any{"a/byteorder", []byte("little")})
	ts, err := DecodePT(b, "strided.pt")
	if err != nil {
		t.Fatal(err)
	}
	wantA := []float64{0, 3, 1, 4, 2, 5}
	wantB := []float64{-5, -7, -9, -11}
	if len(ts) != 2 || !equalF(ts[0].Data, wantA) || !equalF(ts[1].Data, wantB) {
		t.Fatalf("got %v / %v, want %v / %v", ts[0].Data, ts[1].Data, wantA, wantB)
	}
	if ts[0].DType != "float32" || ts[1].DType != "int64" || ts[0].Shape[0] != 3 || ts[0].Shape[1] != 2 {
		t.Fatalf("dtypes %s %s shape %v", ts[0].DType, ts[1].DType, ts[0].Shape)
	}
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecodePTMalformed(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{0, 1, 1}
	good := tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: 6, size: []int{3, 2}, stride: []int{2, 1}},
		ptTensor{key: "1", storage: "DoubleStorage", numel: 3, size: []int{3}, stride: []int{1}},
	)
	arch := func(pkl []byte, x0, y0 []byte) []byte {
		return zipEntries(t, [2]any{"archive/data.pkl", pkl}, [2]any{"archive/data/0", x0}, [2]any{"archive/data/1", y0})
	}
	cases := []struct {
		name  string
		input []byte
		want  string
	}{
		{"not a zip", []byte("hello world"), "not a PyTorch zip archive"},
		{"no data.pkl", zipEntries(t, [2]any{"archive/data/0", float64Bytes(x)}), "no <dir>/data.pkl"},
		{"two data.pkl", zipEntries(t, [2]any{"a/data.pkl", good}, [2]any{"b/data.pkl", good}), "2 data.pkl entries"},
		{"storage too short", arch(good, float64Bytes(x[:5]), float64Bytes(y)), "entry archive/data/0 holds 40 bytes, want numel·8 = 6·8 = 48"},
		{"storage missing", zipEntries(t, [2]any{"archive/data.pkl", good}, [2]any{"archive/data/1", float64Bytes(y)}), `storage "0" has no entry archive/data/0`},
		{"truncated pickle", arch(good[:len(good)-10], float64Bytes(x), float64Bytes(y)), "pickle"},
		{"pickle without STOP", arch(good[:len(good)-1], float64Bytes(x), float64Bytes(y)), "without STOP"},
		{"unknown opcode", arch([]byte{0x80, 2, 0xff}, nil, nil), "unsupported opcode 0xff"},
		{"stack underflow", arch([]byte{0x80, 2, 't', '.'}, nil, nil), "no MARK"},
		{"memo miss", arch([]byte{0x80, 2, 'h', 7, '.'}, nil, nil), "memo key 7"},
		{"no tensors", arch([]byte{0x80, 2, 'N', '.'}, nil, nil), "holds no tensors"},
		{"huge string", arch([]byte{0x80, 2, 'X', 0xff, 0xff, 0xff, 0x7f, '.'}, nil, nil), "string of 2147483647 bytes"},
		{"shape beyond storage", arch(tensorDatasetPickle(
			ptTensor{key: "0", storage: "DoubleStorage", numel: 6, size: []int{4, 2}, stride: []int{2, 1}},
			ptTensor{key: "1", storage: "DoubleStorage", numel: 3, size: []int{3}, stride: []int{1}},
		), float64Bytes(x), float64Bytes(y)), "storage holds 6"},
		{"stride beyond storage", arch(tensorDatasetPickle(
			ptTensor{key: "0", storage: "DoubleStorage", numel: 6, size: []int{3, 2}, stride: []int{3, 1}},
			ptTensor{key: "1", storage: "DoubleStorage", numel: 3, size: []int{3}, stride: []int{1}},
		), float64Bytes(x), float64Bytes(y)), "reaches element 7"},
		{"absurd numel", arch(tensorDatasetPickle(
			ptTensor{key: "0", storage: "DoubleStorage", numel: 1 << 30, size: []int{3, 2}, stride: []int{2, 1}},
		), float64Bytes(x), float64Bytes(y)), "more than this reader accepts"},
		{"unsupported storage", arch(tensorDatasetPickle(
			ptTensor{key: "0", storage: "HalfStorage", numel: 6, size: []int{3, 2}, stride: []int{2, 1}},
		), float64Bytes(x), float64Bytes(y)), "unsupported storage type torch.HalfStorage"},
		{"big endian", zipEntries(t, [2]any{"archive/data.pkl", good}, [2]any{"archive/byteorder", []byte("big")},
			[2]any{"archive/data/0", float64Bytes(x)}, [2]any{"archive/data/1", float64Bytes(y)}), `byte order "big"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodePT(c.input, "bad.pt")
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "bad.pt:") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want prefix bad.pt: and %q", err, c.want)
			}
		})
	}
}

func TestDecodeTensorDatasetMalformed(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	cases := []struct {
		name string
		y    []float64
		n, d int
		want string
	}{
		{"fractional label", []float64{0, 0.5, 1}, 3, 2, "label 1 is 0.5"},
		{"negative label", []float64{0, -1, 1}, 3, 2, "label 1 is -1"},
		{"nan feature", []float64{0, 1, 1}, 3, 2, "non-finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xx := append([]float64(nil), x...)
			if c.name == "nan feature" {
				xx[3] = math.NaN()
			}
			_, err := DecodeTensorDataset(makePT(t, "archive", xx, c.n, c.d, c.y), "bad.pt")
			if err == nil || !strings.HasPrefix(err.Error(), "bad.pt:") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	// Label count disagreeing with the feature rows.
	pkl := tensorDatasetPickle(
		ptTensor{key: "0", storage: "DoubleStorage", numel: 6, size: []int{3, 2}, stride: []int{2, 1}},
		ptTensor{key: "1", storage: "DoubleStorage", numel: 2, size: []int{2}, stride: []int{1}},
	)
	b := zipEntries(t, [2]any{"archive/data.pkl", pkl}, [2]any{"archive/data/0", float64Bytes(x)}, [2]any{"archive/data/1", float64Bytes([]float64{0, 1})})
	if _, err := DecodeTensorDataset(b, "bad.pt"); err == nil || !strings.Contains(err.Error(), "label tensor (storage 1) has shape [2], want (3)") {
		t.Fatalf("error %v", err)
	}
}

func TestDecodeUserGroups(t *testing.T) {
	cases := []struct {
		name, in string
		want     [][]int
		err      string
	}{
		{"ok", `{"1": [3, 4], "0": [0, 1, 2]}`, [][]int{{0, 1, 2}, {3, 4}}, ""},
		{"empty user", `{"0": [], "1": [0]}`, [][]int{{}, {0}}, ""},
		{"gap in keys", `{"0": [0], "2": [1]}`, nil, `user key "2"`},
		{"non-canonical key", `{"00": [0]}`, nil, `user key "00"`},
		{"negative", `{"0": [-1]}`, nil, "entry 0 is -1"},
		{"fraction", `{"0": [1.5]}`, nil, "entry 0 is 1.5"},
		{"not an object", `[1, 2]`, nil, "not a user_groups object"},
		{"null", `null`, nil, "null"},
		{"trailing", `{"0": [1]} {}`, nil, "trailing data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := DecodeUserGroups([]byte(c.in), "ug.json")
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "ug.json:") || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(g) != len(c.want) {
				t.Fatalf("got %v want %v", g, c.want)
			}
			for i := range g {
				if len(g[i]) != len(c.want[i]) {
					t.Fatalf("got %v want %v", g, c.want)
				}
				for j := range g[i] {
					if g[i][j] != c.want[i][j] {
						t.Fatalf("got %v want %v", g, c.want)
					}
				}
			}
		})
	}
}

// writeUpcycledFixture writes a tiny dataset folder in the upstream layout.
func writeUpcycledFixture(t *testing.T, dir string) {
	t.Helper()
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	files := map[string][]byte{
		UpcycledTrainPT:     makePT(t, "archive", x[:8], 4, 2, []float64{0, 1, 1, 1}),
		UpcycledTestPT:      makePT(t, "mytest", x[8:], 1, 2, []float64{0}),
		UpcycledTrainGroups: []byte(`{"0": [0, 1, 2], "1": [3]}`),
		UpcycledTestGroups:  []byte(`{"0": [0], "1": []}`),
	}
	for rel, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadUpcycledDirFixture(t *testing.T) {
	dir := t.TempDir()
	writeUpcycledFixture(t, dir)
	f, err := LoadUpcycledDir(dir, "fixture", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(f.Clients) != 2 || f.Clients[0].Train.N != 3 || f.Clients[1].Train.N != 1 || f.Clients[0].Test.N != 1 || f.Clients[1].Test.N != 0 || f.Test.N != 1 {
		t.Fatalf("unexpected split: %v train, %d test", f.TrainSizes(), f.Test.N)
	}
	if got := f.Clients[1].Train.Row(0); got[0] != 6 || got[1] != 7 {
		t.Fatalf("client 1 row 0 = %v, want [6 7]", got)
	}

	if d, err := ReadTensorDatasetFile(filepath.Join(dir, "train", "mytrain.pt")); err != nil || d.N != 4 || d.D != 2 {
		t.Fatalf("ReadTensorDatasetFile: %v", err)
	}
	if _, err := ReadTensorDatasetFile(filepath.Join(dir, "nope.pt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadTensorDatasetFile missing: %v", err)
	}

	// A pin mismatch names the file and both hashes.
	pins := map[string]string{}
	for _, rel := range []string{UpcycledTrainPT, UpcycledTestPT, UpcycledTrainGroups, UpcycledTestGroups} {
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		pins[rel] = SHA256Hex(b)
	}
	if _, err := LoadUpcycledDir(dir, "fixture", pins); err != nil {
		t.Fatalf("correct pins rejected: %v", err)
	}
	pins[UpcycledTestGroups] = strings.Repeat("0", 64)
	_, err = LoadUpcycledDir(dir, "fixture", pins)
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), filepath.Join("test", "user_groups.json")) ||
		!strings.Contains(err.Error(), "want "+strings.Repeat("0", 64)) || !strings.Contains(err.Error(), "got ") {
		t.Fatalf("error %v, want a checksum error naming test/user_groups.json", err)
	}

	// Out-of-range and overlapping groups.
	os.WriteFile(filepath.Join(dir, "train", "user_groups.json"), []byte(`{"0": [0, 1], "1": [1]}`), 0o644)
	if _, err := LoadUpcycledDir(dir, "fixture", nil); err == nil || !strings.Contains(err.Error(), "index 1 given to client 0 and client 1") {
		t.Fatalf("overlap: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "train", "user_groups.json"), []byte(`{"0": [0, 9], "1": [1]}`), 0o644)
	if _, err := LoadUpcycledDir(dir, "fixture", nil); err == nil || !strings.Contains(err.Error(), "index 9 outside [0,4)") {
		t.Fatalf("range: %v", err)
	}

	// Missing files and folders.
	os.Remove(filepath.Join(dir, "test", "mytest.pt"))
	_, err = LoadUpcycledDir(dir, "fixture", nil)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "dataset fixture not found at "+filepath.Join(dir, "test", "mytest.pt")) {
		t.Fatalf("missing file: %v", err)
	}
	_, err = LoadUpcycled(filepath.Join(dir, "nowhere"), "synthetic_iid")
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "dataset synthetic_iid not found at ") {
		t.Fatalf("missing dataset: %v", err)
	}
	if _, err := LoadUpcycled(dir, "synthetic_2_2"); err == nil || !strings.Contains(err.Error(), "unknown Upcycled-FL dataset") {
		t.Fatalf("unknown name: %v", err)
	}
}

// upcycledFacts are the properties of the released data (upcycled.md §5.1
// table) and Table 2's synthetic rows.
var upcycledFacts = []struct {
	name                   string
	trainN, testN          int
	trainLabels, testLabel [2]int
	majority               float64 // test majority accuracy, 3 decimals
	meanNorm               float64 // mean ‖x‖ over train rows, 2 decimals
	maxUser                int     // largest per-user train size (0: not stated)
	// Table 2: Samples(Test), mean, stdev, rounded to integers.
	t2Samples, t2Test, t2Mean, t2Std int
}{
	{"synthetic_iid", 6043, 683, [2]int{3420, 2623}, [2]int{396, 287}, 0.580, 1.63, 0, 6726, 683, 224, 166},
	{"synthetic_0_0", 12396, 1395, [2]int{5203, 7193}, [2]int{572, 823}, 0.590, 4.88, 0, 13791, 1395, 460, 841},
	{"synthetic_0.5_0.5", 7218, 818, [2]int{1633, 5585}, [2]int{192, 626}, 0.765, 4.96, 1912, 8036, 818, 268, 410},
	{"synthetic_1_1", 9430, 1063, [2]int{3710, 5720}, [2]int{428, 635}, 0.597, 5.81, 0, 10493, 1063, 350, 586},
}

func loadReleased(t *testing.T) string {
	t.Helper()
	root, ok := sharedDatasets("upcycled-synthetic")
	if !ok {
		t.Skipf("released Upcycled-FL data not found at %s (set FEDREPRO_SHARED to the shared/ folder to run this test)", root)
	}
	return root
}

func TestReleasedUpcycledData(t *testing.T) {
	root := loadReleased(t)
	for _, c := range upcycledFacts {
		t.Run(c.name, func(t *testing.T) {
			f, err := LoadUpcycled(root, c.name) // verifies the SHA-256 pins
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
			if f.D != 20 || f.Classes != 2 || len(f.Clients) != 30 {
				t.Fatalf("D=%d Classes=%d clients=%d, want 20, 2, 30", f.D, f.Classes, len(f.Clients))
			}
			var train []*Dataset
			minU, maxU := math.MaxInt, 0
			for _, cl := range f.Clients {
				train = append(train, cl.Train)
				minU, maxU = min(minU, cl.Train.N), max(maxU, cl.Train.N)
				// Each user is int(0.9·N_k) train + the rest test.
				if nk := cl.Train.N + cl.Test.N; int(0.9*float64(nk)) != cl.Train.N {
					t.Errorf("client %d: %d train of %d, want int(0.9·N_k) = %d", cl.ID, cl.Train.N, nk, int(0.9*float64(nk)))
				}
			}
			all := Concat(train...)
			tl, el := all.LabelCounts(), f.Test.LabelCounts()
			if all.N != c.trainN || f.Test.N != c.testN || [2]int(tl) != c.trainLabels || [2]int(el) != c.testLabel {
				t.Errorf("train %d %v, test %d %v; want %d %v, %d %v", all.N, tl, f.Test.N, el, c.trainN, c.trainLabels, c.testN, c.testLabel)
			}
			if minU != 45 {
				t.Errorf("smallest user has %d train rows, want 45 = int(0.9·50)", minU)
			}
			if c.maxUser != 0 && maxU != c.maxUser {
				t.Errorf("largest user has %d train rows, want %d", maxU, c.maxUser)
			}
			maj := float64(max(el[0], el[1])) / float64(f.Test.N)
			if !(math.Abs(maj-c.majority) <= 0.0005) {
				t.Errorf("test majority accuracy %.4f, want %.3f", maj, c.majority)
			}
			norm := 0.0
			for i := 0; i < all.N; i++ {
				s := 0.0
				for _, v := range all.Row(i) {
					s += v * v
				}
				norm += math.Sqrt(s)
			}
			if norm /= float64(all.N); !(math.Abs(norm-c.meanNorm) <= 0.005) {
				t.Errorf("mean ‖x‖ = %.4f, want %.2f", norm, c.meanNorm)
			}

			s := DeviceStats(f, CountTrainAndTest)
			t.Logf("Table 2 %s: %d(%d) devices %d mean %.3f std %.3f", c.name, s.Samples, s.Test, s.Devices, s.Mean, s.Std)
			if s.Samples != c.t2Samples || s.Test != c.t2Test || s.Devices != 30 ||
				int(math.Round(s.Mean)) != c.t2Mean || int(math.Round(s.Std)) != c.t2Std {
				t.Errorf("Table 2 row %d(%d) %d %.2f %.2f, paper %d(%d) 30 %d %d",
					s.Samples, s.Test, s.Devices, s.Mean, s.Std, c.t2Samples, c.t2Test, c.t2Mean, c.t2Std)
			}
		})
	}
}

// TestReleasedDataMatchesGenerator checks that the released data is the
// FedProx generator with dimension 20: pooled within-user feature
// variances ≈ Σ_jj = (j+1)^−1.2.
func TestReleasedDataMatchesGenerator(t *testing.T) {
	root := loadReleased(t)
	f, err := LoadUpcycled(root, "synthetic_0.5_0.5")
	if err != nil {
		t.Fatal(err)
	}
	got := pooledWithinVariance(f)
	for j, want := range SyntheticCovDiag(20) {
		if !(math.Abs(got[j]-want) <= 0.1*want) {
			t.Errorf("feature %d: within-user variance %.3f, want (j+1)^-1.2 = %.3f ± 10%%", j, got[j], want)
		}
	}
	t.Logf("within-user variances %.3f…, want %.3f…", got[:3], SyntheticCovDiag(3))
}

// pooledWithinVariance returns, per feature, Σ_k Σ_i (x_ij − x̄_kj)² /
// Σ_k (n_k − 1) over the clients' train+test rows.
func pooledWithinVariance(f *Federated) []float64 {
	ss := make([]float64, f.D)
	dof := 0
	for _, cl := range f.Clients {
		u := Concat(cl.Train, cl.Test)
		mean := make([]float64, f.D)
		for i := 0; i < u.N; i++ {
			for j, v := range u.Row(i) {
				mean[j] += v / float64(u.N)
			}
		}
		for i := 0; i < u.N; i++ {
			for j, v := range u.Row(i) {
				ss[j] += (v - mean[j]) * (v - mean[j])
			}
		}
		dof += u.N - 1
	}
	for j := range ss {
		ss[j] /= float64(dof)
	}
	return ss
}

func TestDeviceStatsConventions(t *testing.T) {
	mk := func(n int) *Dataset { return &Dataset{N: n, D: 0, Classes: 1, Y: make([]int, n)} }
	f := &Federated{Clients: []Client{{Train: mk(9), Test: mk(1)}, {Train: mk(27), Test: mk(3)}}, Test: mk(4)}
	cases := []struct {
		c    SampleCounting
		want SizeStats
	}{
		{CountTrainAndTest, SizeStats{Samples: 40, Test: 4, Devices: 2, Mean: 20, Std: 10}},
		{CountTrainOnly, SizeStats{Samples: 36, Test: 4, Devices: 2, Mean: 18, Std: 9}},
	}
	for _, c := range cases {
		if got := DeviceStats(f, c.c); got != c.want {
			t.Errorf("convention %d: got %+v want %+v", c.c, got, c.want)
		}
	}
}
