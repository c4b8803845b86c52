package data

// Pins for the dataset statistics and helpers, derived by hand.

import (
	"math"
	"strings"
	"testing"
)

func ds(y []int, classes, d int) *Dataset {
	return &Dataset{X: make([]float64, len(y)*d), Y: y, N: len(y), D: d, Classes: classes}
}

// TestPinLabelSkew: pooled labels of clients (2, 0), (0, 2), (1, 1) are
// (3, 3) → (½, ½). Client TVs: ½(|1 − ½| + |0 − ½|) = ½, ½, 0 → mean 1/3.
// An empty client is skipped; a third class seen by nobody adds nothing.
func TestPinLabelSkew(t *testing.T) {
	if got := LabelSkew([][]int{{2, 0}, {0, 2}, {1, 1}}); !(math.Abs(got-1.0/3) <= 1e-15) {
		t.Errorf("LabelSkew = %v, want 1/3", got)
	}
	if got := LabelSkew([][]int{{2, 0}, {0, 2}, {1, 1}, {0, 0}}); !(math.Abs(got-1.0/3) <= 1e-15) {
		t.Errorf("with an empty client: %v, want 1/3", got)
	}
	// Ragged rows: (3) and (0, 1): pooled (3, 1) → (¾, ¼);
	// TV_1 = ½(|1 − ¾| + |0 − ¼|) = ¼; TV_2 = ½(|0 − ¾| + |1 − ¼|) = ¾; mean ½.
	if got := LabelSkew([][]int{{3}, {0, 1}}); !(math.Abs(got-0.5) <= 1e-15) {
		t.Errorf("ragged: %v, want 0.5", got)
	}
	if LabelSkew(nil) != 0 || LabelSkew([][]int{{0, 0}}) != 0 {
		t.Error("empty inputs must give 0")
	}
}

// TestPinDeviceStats: clients with (train, test) sizes (3, 1), (1, 0),
// (2, 2) and no pooled test set. Train+test: counts 4, 1, 4, total 9,
// mean 3, population std √((1 + 4 + 1)/3) = √2; test = 3 (sum of client
// tests). Train only: 3, 1, 2 → 6, mean 2, std √(2/3).
func TestPinDeviceStats(t *testing.T) {
	f := &Federated{Clients: []Client{
		{Train: ds([]int{0, 0, 1}, 2, 1), Test: ds([]int{1}, 2, 1)},
		{Train: ds([]int{1}, 2, 1)},
		{Train: ds([]int{0, 1}, 2, 1), Test: ds([]int{0, 0}, 2, 1)},
	}, Classes: 2}
	s := DeviceStats(f, CountTrainAndTest)
	if s.Samples != 9 || s.Test != 3 || s.Devices != 3 || !(math.Abs(s.Mean-3) <= 1e-15) || !(math.Abs(s.Std-math.Sqrt2) <= 1e-15) {
		t.Errorf("train+test: %+v", s)
	}
	s = DeviceStats(f, CountTrainOnly)
	if s.Samples != 6 || s.Test != 3 || !(math.Abs(s.Mean-2) <= 1e-15) || !(math.Abs(s.Std-math.Sqrt(2.0/3)) <= 1e-15) {
		t.Errorf("train only: %+v", s)
	}
	f.Test = ds([]int{0, 1, 1, 1, 0}, 2, 1)
	if s := DeviceStats(f, CountTrainOnly); s.Test != 5 {
		t.Errorf("pooled test: %+v", s)
	}
	if s := DeviceStats(&Federated{}, CountTrainOnly); s != (SizeStats{}) {
		t.Errorf("no devices: %+v", s)
	}
	counts := f.ClientLabelCounts()
	want := [][]int{{2, 1}, {0, 1}, {1, 1}}
	for c := range want {
		for y := range want[c] {
			if counts[c][y] != want[c][y] {
				t.Fatalf("ClientLabelCounts = %v, want %v", counts, want)
			}
		}
	}
	if got := f.TrainSizes(); len(got) != 3 || got[0] != 3 || got[1] != 1 || got[2] != 2 {
		t.Errorf("TrainSizes = %v", got)
	}
	// Labels outside [0, Classes) are not counted.
	g := &Federated{Clients: []Client{{Train: ds([]int{-1, 0, 2}, 2, 1)}}, Classes: 2}
	if c := g.ClientLabelCounts(); c[0][0] != 1 || c[0][1] != 0 {
		t.Errorf("out-of-range labels counted: %v", c)
	}
}

func TestPinDatasetHelpers(t *testing.T) {
	a := &Dataset{X: []float64{1, 2, 3, 4}, Y: []int{0, 1}, N: 2, D: 2, Classes: 2}
	b := &Dataset{X: []float64{5, 6}, Y: []int{2}, N: 1, D: 2, Classes: 3}
	c := Concat(nil, a, nil, b)
	if c.N != 3 || c.D != 2 || c.Classes != 3 || len(c.X) != 6 || c.X[4] != 5 || c.Y[2] != 2 {
		t.Errorf("Concat = %+v", c)
	}
	if lc := c.LabelCounts(); lc[0] != 1 || lc[1] != 1 || lc[2] != 1 {
		t.Errorf("LabelCounts = %v", lc)
	}
	s := c.Subset([]int{2, 0})
	if s.N != 2 || s.Row(0)[0] != 5 || s.Row(1)[1] != 2 || s.Y[0] != 2 || s.Classes != 3 {
		t.Errorf("Subset = %+v", s)
	}
	s.X[0] = 99
	if c.X[4] != 5 {
		t.Error("Subset shares storage")
	}
	for _, tc := range []struct {
		d    *Dataset
		want string
	}{
		{a, ""},
		{&Dataset{X: []float64{1}, Y: []int{0}, N: 1, D: 2, Classes: 1}, "dataset shape"},
		{&Dataset{X: []float64{1, 2}, Y: []int{0, 0}, N: 1, D: 2, Classes: 1}, "dataset shape"},
		{&Dataset{X: nil, Y: nil, N: -1, D: 0, Classes: 1}, "dataset shape"},
		{&Dataset{X: []float64{1, 2}, Y: []int{1}, N: 1, D: 2, Classes: 1}, "label 1 outside [0,1)"},
		{&Dataset{X: []float64{1, 2}, Y: []int{-1}, N: 1, D: 2, Classes: 1}, "label -1"},
		{&Dataset{X: []float64{1, 2, 3, math.Inf(-1)}, Y: []int{0, 0}, N: 2, D: 2, Classes: 1}, "row 1 column 1: non-finite"},
		{&Dataset{X: []float64{math.NaN(), 2}, Y: []int{0}, N: 1, D: 2, Classes: 1}, "row 0 column 0"},
		{&Dataset{Classes: 1}, ""},
	} {
		err := tc.d.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.d, err, tc.want)
		}
	}
	f := &Federated{Name: "f", Clients: []Client{{ID: 0, Train: a}}, D: 2, Classes: 2}
	for _, tc := range []struct {
		mut  func(*Federated)
		want string
	}{
		{func(f *Federated) {}, ""},
		{func(f *Federated) { f.Clients = nil }, "f: no clients"},
		{func(f *Federated) { f.Clients = []Client{{ID: 4}} }, "client 4 has no training data"},
		{func(f *Federated) { f.Clients = []Client{{ID: 0, Train: &Dataset{N: 1, D: 2}}} }, "client 0 train"},
		{func(f *Federated) { f.D = 3 }, "client 0 has 2 features, want 3"},
		{func(f *Federated) { f.Clients = []Client{{ID: 0, Train: a, Test: &Dataset{N: 1}}} }, "client 0 test"},
		{func(f *Federated) { f.Test = &Dataset{N: 2} }, "pooled test"},
		{func(f *Federated) { f.Clients = []Client{{ID: 0, Train: a, Test: a}}; f.Test = a }, ""},
	} {
		g := *f
		tc.mut(&g)
		err := g.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Federated.Validate = %v, want %q", err, tc.want)
		}
	}
}

// TestPinAvgPool: one 1×2×4 image [[1 2 3 4] [5 6 7 8]] pools to
// [(1+2+5+6)/4, (3+4+7+8)/4] = [3.5, 5.5]; a 1×4×2 image
// [[1 2] [3 4] [5 6] [7 8]] pools to [2.5, 6.5].
func TestPinAvgPool(t *testing.T) {
	d := &Dataset{X: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Y: []int{1}, N: 1, D: 8, Classes: 2}
	out, s, err := AvgPool2x2(d, ImageShape{C: 1, H: 2, W: 4})
	if err != nil || s != (ImageShape{C: 1, H: 1, W: 2}) || out.X[0] != 3.5 || out.X[1] != 5.5 || out.Y[0] != 1 || out.D != 2 {
		t.Errorf("2×4: %+v %v %v", out, s, err)
	}
	out, s, err = AvgPool2x2(d, ImageShape{C: 1, H: 4, W: 2})
	if err != nil || s != (ImageShape{C: 1, H: 2, W: 1}) || out.X[0] != 2.5 || out.X[1] != 6.5 {
		t.Errorf("4×2: %+v %v %v", out, s, err)
	}
	for _, bad := range []ImageShape{{C: 0, H: 2, W: 4}, {C: 1, H: 0, W: 8}, {C: 1, H: 8, W: 0}, {C: 1, H: 1, W: 8}, {C: 1, H: 8, W: 1}, {C: 2, H: 2, W: 4}} {
		if _, _, err := AvgPool2x2(d, bad); err == nil {
			t.Errorf("shape %v accepted", bad)
		}
	}
	if s := (ImageShape{C: 3, H: 32, W: 32}); s.Size() != 3072 || s.String() != "3×32×32" {
		t.Errorf("ImageShape %v size %d", s, s.Size())
	}
}

// TestPinAvgPoolMultiChannel: a 2×4×4 image (channel c, row y, column x
// holds 100c + 10y + x) pools to 2×2×2 with block means
// 100c + 10·(2Y + ½) + (2X + ½) = 100c + 20Y + 2X + 5.5.
func TestPinAvgPoolMultiChannel(t *testing.T) {
	x := make([]float64, 32)
	for c := 0; c < 2; c++ {
		for y := 0; y < 4; y++ {
			for xx := 0; xx < 4; xx++ {
				x[c*16+y*4+xx] = float64(100*c + 10*y + xx)
			}
		}
	}
	d := &Dataset{X: append(append([]float64(nil), x...), x...), Y: []int{0, 1}, N: 2, D: 32, Classes: 2}
	out, s, err := AvgPool2x2(d, ImageShape{C: 2, H: 4, W: 4})
	if err != nil || s != (ImageShape{C: 2, H: 2, W: 2}) || out.D != 8 {
		t.Fatalf("pool: %v %v", s, err)
	}
	for i := 0; i < 2; i++ {
		for c := 0; c < 2; c++ {
			for Y := 0; Y < 2; Y++ {
				for X := 0; X < 2; X++ {
					if got, want := out.Row(i)[c*4+Y*2+X], float64(100*c+20*Y+2*X)+5.5; got != want {
						t.Errorf("row %d channel %d block (%d,%d) = %v, want %v", i, c, Y, X, got, want)
					}
				}
			}
		}
	}
	// Zero-sized shapes are rejected even when they match an empty row.
	for _, s := range []ImageShape{{C: 0, H: 2, W: 2}, {C: 1, H: 0, W: 2}, {C: 1, H: 2, W: 0}} {
		if _, _, err := AvgPool2x2(&Dataset{N: 1, X: []float64{}, Y: []int{0}, Classes: 1}, s); err == nil {
			t.Errorf("shape %v accepted", s)
		}
	}
}

// TestIDXAndLEAFDetails: rank-2 image arrays (n, features) are accepted;
// error messages name the sizes and labels involved; LEAF rows with zero
// features fix the feature count like any other.
func TestIDXAndLEAFDetails(t *testing.T) {
	d, err := IDXDataset(&IDX{Dims: []int{2, 3}, Data: []byte{0, 0, 0, 255, 255, 255}}, &IDX{Dims: []int{2}, Data: []byte{0, 1}}, 2, "flat")
	if err != nil || d.D != 3 || d.X[3] != 1 {
		t.Errorf("rank-2 images: %+v, %v", d, err)
	}
	if _, err := DecodeIDX(idxBytes([]int{7, 0}, nil), "z"); err == nil || !strings.Contains(err.Error(), "IDX sizes [7 0]: dimension 1 is zero") {
		t.Errorf("zero dimension message: %v", err)
	}
	if _, err := DecodeLEAF(strings.NewReader(`{"users": ["a"], "num_samples": [2], "user_data": {"a": {"x": [[], [1]], "y": [0, 0]}}}`), "z.json"); err == nil || !strings.Contains(err.Error(), "sample 1 has 1 features, earlier samples 0") {
		t.Errorf("empty then non-empty rows: %v", err)
	}
	a := &LEAFFile{Name: "a.json", Users: []string{"u"}, Data: map[string]*Dataset{"u": {X: []float64{}, Y: []int{0}, N: 1, D: 0, Classes: 1}}}
	b := &LEAFFile{Name: "b.json", Users: []string{"v"}, Data: map[string]*Dataset{"v": {X: []float64{1, 2}, Y: []int{0}, N: 1, D: 2, Classes: 1}}}
	if _, err := BuildLEAF("leaf", "", []*LEAFFile{a, b}, nil, 0); err == nil || !strings.Contains(err.Error(), `user "v" has 2 features, other users 0`) {
		t.Errorf("zero-feature user first: %v", err)
	}
	c := &LEAFFile{Name: "c.json", Users: []string{"w"}, Data: map[string]*Dataset{"w": {X: []float64{1}, Y: []int{61}, N: 1, D: 1, Classes: 62}}}
	if _, err := BuildLEAF("leaf", "", []*LEAFFile{c}, nil, 10); err == nil || !strings.Contains(err.Error(), "leaf: a label reaches 61, beyond 10 classes") {
		t.Errorf("classes message: %v", err)
	}
}
