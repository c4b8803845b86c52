package fedddpm

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/paper/papertest"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func TestEmbeddedSpecsDecode(t *testing.T) {
	papertest.EachScale(t, specs.Load, nil, func(t *testing.T, s *Spec, _ []runner.Run) {
		if len(s.Experiments) == 0 {
			t.Error("no experiments")
		}
		if s.Scale == "smoke" && len(s.Seeds) < 4 {
			t.Errorf("smoke needs ≥ 4 seeds for the gate's U test, has %d", len(s.Seeds))
		}
	})
}

func TestSpecErrors(t *testing.T) {
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown key", "    rounds: 16\n", "    rounds: 16\n    roundz: 3\n", `unknown key "roundz"`},
		{"bad partition", "partitions: [shard, dir0.1]", "partitions: [shard, dirichlet]", `partition "dirichlet"`},
		{"bad method", "methods: [fedavg, localaug, fedddpm]", "methods: [fedavg, fedyogi]", `unknown method "fedyogi"`},
		{"bad kind", "kind: central", "kind: centralised", `kind "centralised"`},
		{"bad optimizer", "    optimizer: adam\n", "    optimizer: lamb\n", `optimizer "lamb"`},
		{"unknown setting", "datasets: [mixture]\n    partitions: [shard]\n", "datasets: [moons]\n    partitions: [shard]\n", `unknown setting "moons"`},
		{"scale mismatch", "scale: smoke", "scale: default", `scale "default"`},
		{"bad variance", "time_dim: 16, steps: 50}", "time_dim: 16, steps: 50, variance: ddim}", `variance "ddim"`},
		{"bad override never_fired", "{never_fired: no-correction}", "{never_fired: maybe}", `never_fired "maybe"`},
		{"bad override weights", "{weights: size}", "{weights: bysize}", `weighting "bysize"`},
		{"bad override optimizer", "{optimizer: sgd,", "{optimizer: rmsprop,", `optimizer "rmsprop"`},
		{"bad override variance", "{variance: posterior}", "{variance: ddim}", `variance "ddim"`},
	}
	for _, c := range cases {
		papertest.Rejects(t, specs, "smoke", c.from, c.to, c.want)
	}
	papertest.RejectsOtherScale(t, specs, "smoke", "default")
}

func TestParsePartition(t *testing.T) {
	cases := []struct {
		in    string
		shard bool
		alpha float64
		ok    bool
	}{
		{"shard", true, 0, true}, {"dir0.1", false, 0.1, true}, {"dir0.3", false, 0.3, true},
		{"dir", false, 0, false}, {"dir-1", false, 0, false}, {"iid", false, 0, false},
	}
	for _, c := range cases {
		shard, alpha, err := parsePartition(c.in)
		if (err == nil) != c.ok || shard != c.shard || alpha != c.alpha {
			t.Errorf("%s: %v %v %v", c.in, shard, alpha, err)
		}
	}
}

func TestPlan(t *testing.T) {
	s := papertest.Spec(t, specs.Load, "default")
	count := func(avail func(string) bool) map[string]int {
		runs, err := s.Plan(avail)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		grids := 0
		for _, r := range runs {
			out[r.Experiment]++
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
			if r.Config.(RunConfig).Grid {
				grids++
			}
		}
		out["grids"] = grids
		return out
	}
	all := count(func(string) bool { return true })
	// 5 datasets × 6 methods × 2 p × 3 seeds × 3 partitions.
	if all["tables"] != 540 || all["table4"] != 5*3*3 || all["fig8"] != 2*4*3 {
		t.Errorf("all data: %v", all)
	}
	// One grid per (dataset, method): first seed, partition, participation.
	if all["grids"] != 5*6 {
		t.Errorf("%d grid runs, want 30", all["grids"])
	}
	local := count(func(src string) bool { return src == "mixture" || src == "fmnist" })
	if local["tables"] != 216 || local["table4"] != 18 || local["fig8"] != 24 {
		t.Errorf("mixture and fmnist only: %v", local)
	}
}

func TestNotRun(t *testing.T) {
	s := papertest.Spec(t, specs.Load, "default")
	src := newSources(t.TempDir())
	lines := notRun(s, src)
	for _, want := range []string{"mnist", "cifar10", "cifar100"} {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, "not run: "+want+" not found at ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no not-run line for %s in %v", want, lines)
		}
	}
	if src.Available("mnist") || !src.Available("mixture") {
		t.Error("availability wrong")
	}
}

// TestGridPNG checks the layout of a sample grid pixel by pixel: every
// source pixel is a scale × scale block of one colour (nearest
// neighbour), tiles are separated and framed by gap pixels of gapColor,
// and 7×7 samples get at least 8×8 device pixels per pixel.
func TestGridPNG(t *testing.T) {
	cases := []struct{ n, c, h, w, cols, scale, gap, wantW, wantH int }{
		{4, 1, 7, 7, 2, 10, 10, 2*(7*10+10) + 10, 2*(7*10+10) + 10},
		{5, 3, 2, 3, 3, 1, 1, 3*4 + 1, 2*3 + 1},
		{3, 1, 2, 2, 3, 2, 0, 3 * 4, 4},
	}
	for _, c := range cases {
		x := make([]float64, c.n*c.c*c.h*c.w)
		for i := range x {
			x[i] = math.Sin(float64(i)) * 1.5 // includes values beyond [−1, 1]
		}
		b, err := GridPNG(x, c.n, c.c, c.h, c.w, c.cols, c.scale, c.gap)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() != c.wantW || img.Bounds().Dy() != c.wantH {
			t.Errorf("%+v: image %v", c, img.Bounds())
			continue
		}
		if c.c != 1 {
			continue
		}
		// Every device pixel is either the gap colour (outside every tile)
		// or the grey of the source pixel it enlarges.
		tw, th := c.w*c.scale+c.gap, c.h*c.scale+c.gap
		for y := 0; y < c.wantH; y++ {
			for xx := 0; xx < c.wantW; xx++ {
				r, _, _, _ := img.At(xx, y).RGBA()
				got := uint8(r >> 8)
				tx, ty := (xx-c.gap)/tw, (y-c.gap)/th
				ix, iy := (xx-c.gap)%tw, (y-c.gap)%th
				k := ty*c.cols + tx
				inTile := xx >= c.gap && y >= c.gap && ix < c.w*c.scale && iy < c.h*c.scale && k < c.n
				want := gapColor.R
				if inTile {
					v := math.Max(-1, math.Min(1, x[k*c.h*c.w+(iy/c.scale)*c.w+ix/c.scale]))
					want = uint8(math.Round((v + 1) / 2 * 255))
				}
				if got != want {
					t.Fatalf("%+v: pixel (%d, %d) = %d, want %d (in tile: %v)", c, xx, y, got, want, inTile)
				}
			}
		}
	}
	if _, err := GridPNG(make([]float64, 3), 1, 2, 1, 1, 1, 1, 1); err == nil {
		t.Error("two channels accepted")
	}
	if _, err := GridPNG(make([]float64, 1), 1, 1, 1, 1, 1, 1, -1); err == nil {
		t.Error("negative gap accepted")
	}
	for w, want := range map[int]int{7: 10, 14: 8, 28: 8, 32: 8, 5: 13} {
		if got := sampleScale(w); got != want || got < minPixelScale || got*w < minSamplePixels {
			t.Errorf("sampleScale(%d) = %d, want %d (≥ %d, sample ≥ %d px)", w, got, want, minPixelScale, minSamplePixels)
		}
	}
}

func TestStratified(t *testing.T) {
	d := &data.Dataset{N: 100, D: 1, Classes: 3, X: make([]float64, 100), Y: make([]int, 100)}
	for i := range d.Y {
		d.Y[i] = i % 3
		if i >= 90 {
			d.Y[i] = 0 // class 0 has more rows
		}
	}
	idx := stratified(d, 30, rng.New(1, "s"))
	counts := make([]int, 3)
	seen := map[int]bool{}
	for _, i := range idx {
		if seen[i] {
			t.Fatalf("row %d picked twice", i)
		}
		seen[i] = true
		counts[d.Y[i]]++
	}
	if !reflect.DeepEqual(counts, []int{10, 10, 10}) {
		t.Errorf("class counts %v", counts)
	}
	if !reflect.DeepEqual(idx, stratified(d, 30, rng.New(1, "s"))) {
		t.Error("not reproducible")
	}
}

// A tiny run of every kind is reproducible and its compute adds up.
func TestExecuteDeterministic(t *testing.T) {
	_, runs := papertest.Plan(t, specs.Load, "smoke", (*Spec).Plan, func(src string) bool { return src == "mixture" })
	want := map[string]bool{"tables/mixture/shard/p0.3/fedddpm+": true, "table4/mixture/shard/central": true, "fig8/mixture/dir0.1/p0.3/localaug": true}
	for _, r := range runs {
		if !want[r.Experiment+"/"+r.Cell] || r.Seed != 1 {
			continue
		}
		cfg := r.Config.(RunConfig)
		a, err := Execute(context.Background(), newSources(""), cfg, r.Seed)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Execute(context.Background(), newSources(""), cfg, r.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Final, b.Final) || !reflect.DeepEqual(a.Counters, b.Counters) {
			t.Errorf("%s: not reproducible: %v vs %v", r.ID(), a.Final, b.Final)
		}
		c := a.Counters
		sum := c["client_sample_grads"] + c["server_sample_grads"] + c["warmup_sample_grads"] + c["central_sample_grads"]
		if c["total_sample_grads"] != sum || c["warmup_sample_grads"] == 0 {
			t.Errorf("%s: counters %v", r.ID(), c)
		}
		if _, ok := a.Final["fd"]; !ok {
			t.Errorf("%s: no fd in %v", r.ID(), a.Final)
		}
		delete(want, r.Experiment+"/"+r.Cell)
	}
	if len(want) > 0 {
		t.Errorf("cells not found in the smoke plan: %v", want)
	}
}
