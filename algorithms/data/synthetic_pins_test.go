package data

// Pin for the FedProx Synthetic(α, β) generator: the documented stream
// layout written out plainly for 2 users × 3 features × 3 classes (sizes
// capped at 60 rows), compared value for value; and the configuration's
// boundaries.

import (
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

func TestPinSyntheticGenerator(t *testing.T) {
	for _, tc := range []struct {
		iid, variance bool
	}{{false, false}, {false, true}, {true, false}} {
		cfg := SyntheticConfig{Users: 2, Dim: 3, Classes: 3, Alpha: 0.5, Beta: 2, IID: tc.iid, Variance: tc.variance, TrainFrac: 0.75, MaxSamples: 60}
		key := rng.New(9, "syn-pin")
		f, err := GenerateSynthetic(cfg, key)
		if err != nil {
			t.Fatal(err)
		}
		sa, sb := 0.5, 2.0
		if tc.variance {
			sa, sb = math.Sqrt(0.5), math.Sqrt(2)
		}
		sr, ur, br := key.Derive("sizes").Rand(), key.Derive("model_prior").Rand(), key.Derive("data_prior").Rand()
		var n [2]int
		var u, B [2]float64
		for k := range n {
			n[k] = min(int(math.Exp(4+2*sr.NormFloat64()))+50, 60)
		}
		for k := range u {
			u[k] = sa * ur.NormFloat64()
		}
		for k := range B {
			B[k] = sb * br.NormFloat64()
		}
		var gW [9]float64
		var gb [3]float64
		if tc.iid {
			gr := key.Derive("global", "model").Rand()
			for i := range gW {
				gW[i] = gr.NormFloat64()
			}
			for i := range gb {
				gb[i] = gr.NormFloat64()
			}
		}
		var pooled []float64
		for k := 0; k < 2; k++ {
			var v [3]float64
			W, b := gW, gb
			if !tc.iid {
				vr := key.Derive("user", k, "mean_x").Rand()
				for j := range v {
					v[j] = B[k] + vr.NormFloat64()
				}
				mr := key.Derive("user", k, "model").Rand()
				for i := range W {
					W[i] = u[k] + mr.NormFloat64()
				}
				for i := range b {
					b[i] = u[k] + mr.NormFloat64()
				}
			}
			xr := key.Derive("user", k, "x").Rand()
			x := make([]float64, 3*n[k])
			y := make([]int, n[k])
			for i := 0; i < n[k]; i++ {
				for j := 0; j < 3; j++ {
					x[3*i+j] = v[j] + math.Pow(float64(j+1), -0.6)*xr.NormFloat64()
				}
				best, bestV := 0, math.Inf(-1)
				for c := 0; c < 3; c++ {
					z := b[c]
					for j := 0; j < 3; j++ {
						z += x[3*i+j] * W[j*3+c]
					}
					if z > bestV {
						best, bestV = c, z
					}
				}
				y[i] = best
			}
			perm := refPerm(key.Derive("user", k, "split").Rand(), n[k])
			ntr := int(0.75 * float64(n[k]))
			cl := f.Clients[k]
			if cl.Train.N != ntr || cl.Test.N != n[k]-ntr {
				t.Fatalf("user %d: %d train / %d test rows, want %d / %d", k, cl.Train.N, cl.Test.N, ntr, n[k]-ntr)
			}
			for r, src := range perm {
				got, gy := cl.Train, cl.Train.Y
				row := r
				if r >= ntr {
					got, gy, row = cl.Test, cl.Test.Y, r-ntr
				}
				for j := 0; j < 3; j++ {
					if !(math.Abs(got.Row(row)[j]-x[3*src+j]) <= 1e-12) {
						t.Fatalf("iid=%v variance=%v user %d row %d: %v, want %v", tc.iid, tc.variance, k, r, got.Row(row), x[3*src:3*src+3])
					}
				}
				if gy[row] != y[src] {
					t.Fatalf("user %d row %d: label %d, want %d", k, r, gy[row], y[src])
				}
				if r >= ntr {
					pooled = append(pooled, x[3*src:3*src+3]...)
				}
			}
		}
		if f.Test.N*3 != len(pooled) || f.Test.D != 3 || f.Test.Classes != 3 || f.D != 3 || f.Classes != 3 {
			t.Errorf("pooled test %d rows", f.Test.N)
		}
		for i := range pooled {
			if !(math.Abs(f.Test.X[i]-pooled[i]) <= 1e-12) {
				t.Fatalf("pooled test differs at %d", i)
			}
		}
	}
}

func TestSyntheticConfigBoundaries(t *testing.T) {
	ok := SyntheticConfig{Users: 1, Dim: 1, Classes: 2, TrainFrac: 1, MaxSamples: 51}
	for _, tc := range []struct {
		name string
		mut  func(*SyntheticConfig)
		want string
	}{
		{"minimal", func(c *SyntheticConfig) {}, ""},
		{"users > 2^20", func(c *SyntheticConfig) { c.Users = 1<<20 + 1 }, "Users = 1048577, want 1..1048576"},
		{"users negative", func(c *SyntheticConfig) { c.Users = -1 }, "Users = -1"},
		{"dim > 2^16", func(c *SyntheticConfig) { c.Dim = 1<<16 + 1 }, "Dim = 65537, want 1..65536"},
		{"dim negative", func(c *SyntheticConfig) { c.Dim = -1 }, "Dim = -1"},
		{"classes > 2^16", func(c *SyntheticConfig) { c.Classes = 1<<16 + 1 }, "Classes = 65537"},
		{"alpha inf", func(c *SyntheticConfig) { c.Alpha = math.Inf(1) }, "Alpha = +Inf"},
		{"beta inf", func(c *SyntheticConfig) { c.Beta = math.Inf(1) }, "Beta = +Inf"},
		{"beta negative", func(c *SyntheticConfig) { c.Beta = -1e-300 }, "Beta"},
		{"alpha 0 beta 0", func(c *SyntheticConfig) { c.Alpha, c.Beta = 0, 0 }, ""},
		{"train frac negative", func(c *SyntheticConfig) { c.TrainFrac = -0.5 }, "TrainFrac = -0.5, want (0,1]"},
		{"max samples negative", func(c *SyntheticConfig) { c.MaxSamples = -1 }, "MaxSamples = -1, want ≥ 0"},
	} {
		c := ok
		tc.mut(&c)
		_, err := GenerateSynthetic(c, rng.New(1))
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// Defaults: 30 users, 20 features, 2 classes, 90% train, names.
	c := SyntheticConfig{Alpha: 0.5, Beta: 1}.withDefaults()
	if c.Users != 30 || c.Dim != 20 || c.Classes != 2 || c.TrainFrac != 0.9 || c.Name != "syn_0.5_1" {
		t.Errorf("defaults %+v", c)
	}
	if c := (SyntheticConfig{IID: true}).withDefaults(); c.Name != "syn_iid" {
		t.Errorf("iid name %q", c.Name)
	}
	if c := (SyntheticConfig{Name: "x", Users: 3}).withDefaults(); c.Name != "x" || c.Users != 3 {
		t.Errorf("explicit values overridden: %+v", c)
	}
	// Preset names: "synthetic_" is an alias of "syn_"; unknown names fail.
	for _, name := range []string{"syn_iid", "synthetic_0.5_0.5", "syn_1_1"} {
		if _, err := SyntheticPreset(name); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	for _, name := range []string{"synthetic_", "syn_2_2", "synthetic"} {
		if _, err := SyntheticPreset(name); err == nil {
			t.Errorf("preset %q accepted", name)
		}
	}
	if p, _ := SyntheticPreset("synthetic_1_1"); p.Alpha != 1 || p.Name != "syn_1_1" {
		t.Errorf("synthetic_1_1 = %+v", p)
	}
	// SyntheticCovDiag: (j+1)^−1.2.
	s := SyntheticCovDiag(3)
	if s[0] != 1 || !(math.Abs(s[1]-math.Pow(2, -1.2)) <= 1e-15) || !(math.Abs(s[2]-math.Pow(3, -1.2)) <= 1e-15) {
		t.Errorf("SyntheticCovDiag = %v", s)
	}
}
