package data

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// digest hashes every byte of a Federated dataset, in order.
func digest(f *Federated) [32]byte {
	h := sha256.New()
	var b [8]byte
	put := func(ds *Dataset) {
		binary.LittleEndian.PutUint64(b[:], uint64(ds.N))
		h.Write(b[:])
		for _, x := range ds.X {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
		for _, y := range ds.Y {
			binary.LittleEndian.PutUint64(b[:], uint64(y))
			h.Write(b[:])
		}
	}
	for _, c := range f.Clients {
		put(c.Train)
		put(c.Test)
	}
	put(f.Test)
	var s [32]byte
	h.Sum(s[:0])
	return s
}

func TestSyntheticPresetsShape(t *testing.T) {
	for _, name := range append(SyntheticPresetNames(), "synthetic_1_1") {
		t.Run(name, func(t *testing.T) {
			cfg, err := SyntheticPreset(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := GenerateSynthetic(cfg, rng.New(1, "test", name))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
			if len(f.Clients) != 30 || f.D != 20 || f.Classes != 2 {
				t.Fatalf("clients %d D %d classes %d", len(f.Clients), f.D, f.Classes)
			}
			pooled := 0
			for _, c := range f.Clients {
				n := c.Train.N + c.Test.N
				if n < 50 {
					t.Errorf("client %d has %d samples, want ≥ 50", c.ID, n)
				}
				if c.Train.N != int(0.9*float64(n)) {
					t.Errorf("client %d: %d train of %d", c.ID, c.Train.N, n)
				}
				pooled += c.Test.N
			}
			if f.Test.N != pooled {
				t.Errorf("pooled test %d, clients' tests sum to %d", f.Test.N, pooled)
			}
			if !strings.Contains(f.Source, "fedprox-synthetic") {
				t.Errorf("source %q", f.Source)
			}
		})
	}
	if _, err := SyntheticPreset("syn_2_2"); err == nil {
		t.Error("unknown preset accepted")
	}
}

func TestSyntheticConfigErrors(t *testing.T) {
	cases := []struct {
		cfg  SyntheticConfig
		want string
	}{
		{SyntheticConfig{Alpha: -1}, "Alpha"},
		{SyntheticConfig{Beta: math.NaN()}, "Beta"},
		{SyntheticConfig{Classes: 1}, "Classes"},
		{SyntheticConfig{TrainFrac: 1.5}, "TrainFrac"},
		{SyntheticConfig{Users: -3}, "Users"},
	}
	for _, c := range cases {
		if _, err := GenerateSynthetic(c.cfg, rng.New(1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestSyntheticDeterminism(t *testing.T) {
	cfg, _ := SyntheticPreset("syn_0.5_0.5")
	a, _ := GenerateSynthetic(cfg, rng.New(7, "synthetic"))
	b, _ := GenerateSynthetic(cfg, rng.New(7, "synthetic"))
	c, _ := GenerateSynthetic(cfg, rng.New(8, "synthetic"))
	if digest(a) != digest(b) {
		t.Error("same key gave different bytes")
	}
	if digest(a) == digest(c) {
		t.Error("different keys gave identical bytes")
	}
}

// TestSyntheticFeatureVariance: within every user x ~ N(v_k, Σ), so the
// pooled within-user variance of feature j estimates (j+1)^−1.2 with
// relative standard error √(2/dof).
func TestSyntheticFeatureVariance(t *testing.T) {
	for _, name := range []string{"syn_iid", "syn_1_1"} {
		cfg, _ := SyntheticPreset(name)
		f, err := GenerateSynthetic(cfg, rng.New(3, name))
		if err != nil {
			t.Fatal(err)
		}
		dof := 0
		for _, c := range f.Clients {
			dof += c.Train.N + c.Test.N - 1
		}
		got := pooledWithinVariance(f)
		se := math.Sqrt(2 / float64(dof))
		for j, want := range SyntheticCovDiag(cfg.Dim) {
			if z := (got[j]/want - 1) / se; !(math.Abs(z) <= 4.5) {
				t.Errorf("%s feature %d: variance %.4f, want %.4f (z = %.1f, dof %d)", name, j, got[j], want, z, dof)
			}
		}
	}
}

// meanSkew averages LabelSkew over several keys.
func meanSkew(t *testing.T, cfg SyntheticConfig, seeds int) float64 {
	t.Helper()
	s := 0.0
	for i := 0; i < seeds; i++ {
		f, err := GenerateSynthetic(cfg, rng.New(uint64(i), "skew"))
		if err != nil {
			t.Fatal(err)
		}
		s += LabelSkew(f.ClientLabelCounts())
	}
	return s / float64(seeds)
}

// TestSyntheticHeterogeneityGrowsWithBeta: label skew across users is
// near zero for the iid variant and grows with the data heterogeneity β
// (α has no effect on labels, see TestSyntheticLabelsIgnoreAlpha). The
// effect is mild — with 30 users the per-dataset spread of the skew
// (≈ 0.03) exceeds the gap between Syn(0,0) and Syn(1,1) (≈ 0.02) — so the
// test averages over 200 users and several keys.
func TestSyntheticHeterogeneityGrowsWithBeta(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 4
	}
	cfg := SyntheticConfig{Users: 200, MaxSamples: 500}
	prev := -1.0
	for _, c := range []struct {
		name  string
		iid   bool
		alpha float64
		beta  float64
	}{
		{"iid", true, 0, 0}, {"0_0", false, 0, 0}, {"1_1", false, 1, 1}, {"3_3", false, 3, 3},
	} {
		cfg.IID, cfg.Alpha, cfg.Beta = c.iid, c.alpha, c.beta
		s := meanSkew(t, cfg, seeds)
		t.Logf("Syn(%s): mean label TV from pooled = %.3f", c.name, s)
		if c.iid && s > 0.1 {
			t.Errorf("iid label skew %.3f, want near 0", s)
		}
		if s <= prev+0.005 {
			t.Errorf("Syn(%s) skew %.3f does not exceed the previous setting's %.3f by 0.005", c.name, s, prev)
		}
		prev = s
	}
}

// TestSyntheticLabelsIgnoreAlpha: W_k and b_k share the mean u_k, which
// adds u_k·(Σ_j x_j + 1) to every logit and so never changes the argmax.
// With the same key, α changes no feature and (up to float rounding) no
// label.
func TestSyntheticLabelsIgnoreAlpha(t *testing.T) {
	key := rng.New(11, "alpha")
	base, _ := GenerateSynthetic(SyntheticConfig{Alpha: 0, Beta: 0.5, Classes: 10}, key)
	for _, alpha := range []float64{0.5, 1, 5} {
		f, _ := GenerateSynthetic(SyntheticConfig{Alpha: alpha, Beta: 0.5, Classes: 10}, key)
		diff, total := 0, 0
		for k, c := range f.Clients {
			b := base.Clients[k]
			if !equalF(c.Train.X, b.Train.X) {
				t.Fatalf("α = %v changed the features of client %d", alpha, k)
			}
			for i := range c.Train.Y {
				total++
				if c.Train.Y[i] != b.Train.Y[i] {
					diff++
				}
			}
		}
		if diff*10000 > total {
			t.Errorf("α = %v changed %d of %d labels", alpha, diff, total)
		}
	}
}

// TestSyntheticVarianceReading: with Variance set, β = 0.25 is std 0.5.
func TestSyntheticVarianceReading(t *testing.T) {
	key := rng.New(5, "var")
	a, _ := GenerateSynthetic(SyntheticConfig{Alpha: 0.25, Beta: 0.25, Variance: true}, key)
	b, _ := GenerateSynthetic(SyntheticConfig{Alpha: 0.5, Beta: 0.5}, key)
	if digest(a) != digest(b) {
		t.Error("variance 0.25 differs from std 0.5")
	}
}
