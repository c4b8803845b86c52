package dpfl

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// toyData is a linearly separable-ish 3-class problem in d dimensions.
func toyData(seed uint64, n, d int) *data.Dataset {
	r := rng.Stream(seed, "toy")
	w := make([]float64, 3*d)
	rng.FillNormal(rng.Stream(7, "toy-w"), w, 1)
	ds := &data.Dataset{X: make([]float64, n*d), Y: make([]int, n), N: n, D: d, Classes: 3}
	for i := 0; i < n; i++ {
		x := ds.X[i*d : (i+1)*d]
		rng.FillNormal(r, x, 1)
		best, arg := math.Inf(-1), 0
		for c := 0; c < 3; c++ {
			var s float64
			for j, v := range x {
				s += w[c*d+j] * v
			}
			if s > best {
				best, arg = s, c
			}
		}
		ds.Y[i] = arg
	}
	return ds
}

func toyClients(seed uint64, k, n, d int) []*data.Dataset {
	out := make([]*data.Dataset, k)
	for i := range out {
		out[i] = toyData(seed+uint64(i)*101, n, d)
	}
	return out
}

// chiSquareOK reports whether the sample variance s2 of n draws is
// consistent with variance v at two-sided level alpha.
func chiSquareOK(s2, v float64, n int, alpha float64) (bool, float64, float64) {
	c := distuv.ChiSquared{K: float64(n - 1)}
	stat := float64(n-1) * s2 / v
	lo, hi := c.Quantile(alpha/2), c.Quantile(1-alpha/2)
	return stat >= lo && stat <= hi, stat, float64(n - 1)
}

func sampleVar(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}

func TestPoissonLot(t *testing.T) {
	r := rng.Stream(1, "lot")
	const n, q, draws = 200, 0.1, 20000
	sizes := make([]float64, draws)
	hits := make([]int, n)
	var dst []int
	for k := range sizes {
		dst = PoissonLot(r, n, q, dst)
		if !slices.IsSorted(dst) {
			t.Fatalf("lot not increasing: %v", dst)
		}
		for i, v := range dst {
			if v < 0 || v >= n || (i > 0 && dst[i-1] == v) {
				t.Fatalf("bad lot %v", dst)
			}
			hits[v]++
		}
		sizes[k] = float64(len(dst))
	}
	// Lot size ~ Binomial(n, q): mean within 4 standard errors, variance in
	// a chi-square interval (the binomial is close to normal here).
	mean := 0.0
	for _, s := range sizes {
		mean += s
	}
	mean /= draws
	v := n * q * (1 - q)
	if se := math.Sqrt(v / draws); !(math.Abs(mean-n*q) <= 4*se) {
		t.Errorf("mean lot size %g, want %g ± %g", mean, n*q, 4*se)
	}
	if ok, stat, df := chiSquareOK(sampleVar(sizes), v, draws, 1e-3); !ok {
		t.Errorf("lot-size variance %g vs binomial %g (χ² = %g on %g df)", sampleVar(sizes), v, stat, df)
	}
	// Every index is included with probability q (first, middle, last).
	for _, i := range []int{0, n / 2, n - 1} {
		f := float64(hits[i]) / draws
		if se := math.Sqrt(q * (1 - q) / draws); !(math.Abs(f-q) <= 4.5*se) {
			t.Errorf("index %d included with frequency %g, want %g", i, f, q)
		}
	}
	if got := PoissonLot(r, 5, 0, nil); len(got) != 0 {
		t.Errorf("q = 0 gave %v", got)
	}
	if got := PoissonLot(r, 5, 1, nil); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("q = 1 gave %v", got)
	}
}

// mechanisms lists every mechanism the experiments use.
func mechanisms() []Mechanism {
	return []Mechanism{
		Gaussian{},
		NewWavelet(haar.CoefficientDomain, Lemma2),
		NewWavelet(haar.GradientDomain, Lemma2),
		NewWavelet(haar.CoefficientDomain, Literal),
		NewWavelet(haar.CoefficientDomain, Corrected),
		NewWavelet(haar.GradientDomain, Corrected),
	}
}

func TestPerExampleClipping(t *testing.T) {
	const n, c, denom = 100, 1.0, 4.0
	r := rng.Stream(2, "clip")
	grads := make([][]float64, 3)
	for i, scale := range []float64{0.5, 2, 10} {
		g := make([]float64, n)
		rng.FillNormal(r, g, 1)
		s := scale / math.Sqrt(floatDot(g, g))
		for k := range g {
			g[k] *= s // ‖g‖ = scale
		}
		grads[i] = g
	}
	for _, m := range mechanisms() {
		want := make([]float64, n)
		for _, g := range grads {
			f := math.Min(1, c/m.Norm(g))
			for k, v := range g {
				want[k] += f * v / denom
			}
		}
		in := make([][]float64, len(grads))
		for i, g := range grads {
			in[i] = slices.Clone(g)
		}
		got := make([]float64, n)
		m.Lot(got, in, c, 0, denom, rng.Stream(3, "noise"))
		for k := range got {
			if !(math.Abs(got[k]-want[k]) <= 1e-12) {
				t.Fatalf("%s: coordinate %d = %g, want %g", m.Name(), k, got[k], want[k])
			}
		}
		// Clip bounds the norm the mechanism measures.
		v := slices.Clone(grads[2])
		m.Clip(v, c)
		if nv := m.Norm(v); nv > c*(1+1e-12) || nv < c*(1-1e-9) {
			t.Errorf("%s: clipped norm %g, want %g", m.Name(), nv, c)
		}
	}
	// The coefficient norm is the norm of HWT(g), not of g.
	w := NewWavelet(haar.CoefficientDomain, Lemma2)
	h := haar.Forward(grads[1])
	if got, want := w.Norm(grads[1]), math.Sqrt(floatDot(h, h)); !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("coefficient norm %g, want %g", got, want)
	}
}

func floatDot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestNoiseStd checks each mechanism's per-coordinate noise std by Monte
// Carlo against PerCoordinateStd (and that against the exact variance of
// algorithms/haar), for lots and releases, with chi-square intervals.
func TestNoiseStd(t *testing.T) {
	const n, sigma, c, denom, sens, draws = 100, 1.5, 2.0, 4.0, 0.5, 4000
	coords := []int{0, 37, 63, 64, 99}
	for _, m := range mechanisms() {
		std := m.PerCoordinateStd(sigma, n)
		if w, ok := m.(*Wavelet); ok {
			exact := haar.CoordinateVariance(n, w.CoefScale(sigma, n))
			for e, v := range exact {
				if !(math.Abs(v-std*std) <= 1e-9*v) {
					t.Fatalf("%s: exact variance of coordinate %d is %g, closed form %g", m.Name(), e, v, std*std)
				}
			}
		} else if std != sigma {
			t.Fatalf("gaussian per-coordinate std %g", std)
		}
		for _, kind := range []string{"lot", "release"} {
			r := rng.Stream(4, m.Name(), kind)
			xs := make([][]float64, len(coords))
			v := make([]float64, n)
			for k := 0; k < draws; k++ {
				if kind == "lot" {
					m.Lot(v, nil, c, sigma, denom, r)
				} else {
					clear(v)
					m.Release(v, sens, sigma, r)
				}
				for j, e := range coords {
					xs[j] = append(xs[j], v[e])
				}
			}
			want := std * c / denom
			if kind == "release" {
				want = std * sens
			}
			for j, e := range coords {
				if ok, stat, df := chiSquareOK(sampleVar(xs[j]), want*want, draws, 1e-4); !ok {
					t.Errorf("%s %s: coordinate %d variance %g, want %g (χ² = %.1f on %g df)", m.Name(), kind, e, sampleVar(xs[j]), want*want, stat, df)
				}
			}
		}
	}
}

// TestCorrectedMultiplier checks that the privacy-corrected wavelet
// mechanism's effective multiplier (algorithms/haar.EffectiveMultiplier at
// its coefficient scale) is vanilla's σ, and that the paper's Lemma 2
// calibration is far below it.
func TestCorrectedMultiplier(t *testing.T) {
	for _, n := range []int{100, 128, 1970} {
		for _, sigma := range []float64{1, 1.5, 3} {
			vanilla := haar.EffectiveMultiplier(haar.Vanilla, n, sigma)
			if g := (Gaussian{}).Multiplier(sigma, n); g != vanilla {
				t.Errorf("gaussian multiplier %g, vanilla %g", g, vanilla)
			}
			for _, dom := range []haar.ClipDomain{haar.CoefficientDomain, haar.GradientDomain} {
				v := haar.CoefficientClip
				if dom == haar.GradientDomain {
					v = haar.GradientClip
				}
				w := NewWavelet(dom, Corrected)
				eff := haar.EffectiveMultiplier(v, n, w.CoefScale(sigma, n))
				if !(math.Abs(eff-vanilla) <= 1e-9*vanilla) || !(math.Abs(w.Multiplier(sigma, n)-vanilla) <= 1e-9*vanilla) {
					t.Errorf("n=%d σ=%g %s: corrected effective multiplier %g (reported %g), vanilla %g", n, sigma, dom, eff, w.Multiplier(sigma, n), vanilla)
				}
				// Algorithm 2 (aggregate) has the gradient-domain multiplier.
				if dom == haar.GradientDomain {
					if a := haar.EffectiveMultiplier(haar.Aggregate, n, w.CoefScale(sigma, n)); !(math.Abs(a-vanilla) <= 1e-9*vanilla) {
						t.Errorf("n=%d: aggregate multiplier %g, vanilla %g", n, a, vanilla)
					}
				}
				p := NewWavelet(dom, Lemma2)
				if got, want := p.Multiplier(sigma, n), haar.EffectiveMultiplier(v, n, haar.SigmaHaar(sigma, haar.PaddedLen(n))); !(math.Abs(got-want) <= 1e-12*want) || got > sigma/5 {
					t.Errorf("n=%d %s: lemma2 multiplier %g, want %g ≪ σ = %g", n, dom, got, want, sigma)
				}
				// The corrected mechanism's per-coordinate noise is larger than vanilla's.
				if w.PerCoordinateStd(sigma, n) <= sigma {
					t.Errorf("n=%d %s: corrected per-coordinate std %g ≤ σ", n, dom, w.PerCoordinateStd(sigma, n))
				}
			}
		}
	}
}

func TestDPSGDFullBatchIsGradientDescent(t *testing.T) {
	d := toyData(5, 40, 6)
	m := model.NewLogReg(6, 3, model.CrossEntropy)
	init := make([]float64, m.NumParams())
	m.Init(init, rng.Stream(1, "init"))
	const lr = 0.3
	want := slices.Clone(init)
	g := make([]float64, len(want))
	m.LossGrad(want, model.Batch{X: d.X, Y: d.Y, N: d.N, D: d.D}, g, nil)
	for i := range want {
		want[i] -= lr * g[i]
	}
	for _, mech := range []Mechanism{Gaussian{}, NewWavelet(haar.GradientDomain, Lemma2), NewWavelet(haar.CoefficientDomain, Literal)} {
		alg := &DPSGD{Mechanism: mech, Schedule: Constant{Sigma: 0, C: math.Inf(1)}, Lot: float64(d.N)}
		e, err := fl.New(m, []*data.Dataset{d}, alg, fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 1, BatchSize: 1, LR: lr}}, rng.New(1), init, fl.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		e.TrainRound()
		got := e.Server().Global
		for i := range got {
			if !(math.Abs(got[i]-want[i]) <= 1e-12) {
				t.Fatalf("%s: parameter %d = %g, want %g (full-batch GD)", mech.Name(), i, got[i], want[i])
			}
		}
		l := ClientLedger(e.ClientState(0))
		if l == nil || l.Steps() != 1 || l.Entries[0].Q != 1 {
			t.Fatalf("%s: ledger %+v", mech.Name(), l)
		}
		if c := e.Server().Counters; c.SGDSteps != 1 || c.SampleGrads != int64(d.N) {
			t.Errorf("%s: counters %+v", mech.Name(), c)
		}
	}
}

func runDPSGD(t *testing.T, key rng.Key, mech Mechanism, opt optim.Optimizer, rounds int) (*fl.Engine, []float64) {
	t.Helper()
	clients := toyClients(11, 4, 60, 8)
	m := model.NewMLP([]int{8, 5, 3}, 0, model.CrossEntropy)
	m.Scheme = model.InitHe
	init := make([]float64, m.NumParams())
	m.Init(init, rng.Stream(1, "init"))
	alg := &DPSGD{Mechanism: mech, Schedule: Decay{Sigma0: 1.2, C0: 1, RhoSigma: 2, RhoC: 1.5, Rounds: rounds}, Lot: 10, Optimizer: opt}
	e, err := fl.New(m, clients, alg, fl.Config{Sampling: fl.Uniform, Frac: 0.5, Local: fl.LocalConfig{Epochs: 2, BatchSize: 10, LR: 0.1}}, key, init, fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < rounds; k++ {
		e.TrainRound()
	}
	return e, slices.Clone(e.Server().Global)
}

func TestDeterminism(t *testing.T) {
	for _, mech := range []func() Mechanism{func() Mechanism { return Gaussian{} }, func() Mechanism { return NewWavelet(haar.CoefficientDomain, Lemma2) }} {
		for _, opt := range []func() optim.Optimizer{func() optim.Optimizer { return nil }, func() optim.Optimizer { return optim.NewAdam(0.01) }} {
			e1, a := runDPSGD(t, rng.New(3, "run"), mech(), opt(), 3)
			e2, b := runDPSGD(t, rng.New(3, "run"), mech(), opt(), 3)
			_, c := runDPSGD(t, rng.New(4, "run"), mech(), opt(), 3)
			if !slices.Equal(a, b) {
				t.Errorf("%s: same key, different models", mech().Name())
			}
			if slices.Equal(a, c) {
				t.Errorf("%s: different keys, same model", mech().Name())
			}
			for i := 0; i < 4; i++ {
				l1, l2 := ClientLedger(e1.ClientState(i)), ClientLedger(e2.ClientState(i))
				if (l1 == nil) != (l2 == nil) || (l1 != nil && !slices.Equal(l1.Entries, l2.Entries)) {
					t.Errorf("client %d ledgers differ", i)
				}
			}
			if e1.Server().Counters != e2.Server().Counters {
				t.Errorf("counters differ: %+v vs %+v", e1.Server().Counters, e2.Server().Counters)
			}
		}
	}
	// Lots come from the training stream: every mechanism sees the same
	// lots (same sample-gradient counts) on the same key.
	e1, _ := runDPSGD(t, rng.New(3, "run"), Gaussian{}, nil, 2)
	e2, _ := runDPSGD(t, rng.New(3, "run"), NewWavelet(haar.GradientDomain, Corrected), nil, 2)
	if e1.Server().Counters.SampleGrads != e2.Server().Counters.SampleGrads {
		t.Errorf("mechanisms saw different lots: %d vs %d sample gradients", e1.Server().Counters.SampleGrads, e2.Server().Counters.SampleGrads)
	}
}

func TestDPFedAvgClipsUpdates(t *testing.T) {
	clients := toyClients(21, 6, 50, 5)
	m := model.NewLogReg(5, 3, model.CrossEntropy)
	init := make([]float64, m.NumParams())
	const clip = 0.05
	for _, mech := range []Mechanism{Gaussian{}, NewWavelet(haar.GradientDomain, Lemma2), NewWavelet(haar.CoefficientDomain, Lemma2)} {
		for _, q := range []float64{1, 0.5} {
			var deltas [][]float64
			hooks := fl.Hooks{AfterLocal: func(c *fl.Client, p []float64) {
				d := make([]float64, len(p))
				for i := range p {
					d[i] = p[i] - c.Global[i]
				}
				deltas = append(deltas, d)
			}}
			alg := &DPFedAvg{Mechanism: mech, Schedule: Constant{Sigma: 0, C: clip}, Q: q}
			cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 2, BatchSize: 10, LR: 0.5}}
			e, err := fl.New(m, clients, alg, cfg, rng.New(5), init, hooks)
			if err != nil {
				t.Fatal(err)
			}
			e.TrainRound()
			want := make([]float64, len(init))
			clipped := 0
			for _, d := range deltas {
				nd := mech.Norm(d)
				if nd > clip*(1+1e-9) {
					t.Errorf("%s: update norm %g > C = %g", mech.Name(), nd, clip)
				}
				if nd > clip*(1-1e-9) {
					clipped++
				}
				for i, v := range d {
					want[i] += v / (q * float64(len(clients)))
				}
			}
			if clipped == 0 {
				t.Errorf("%s: the clip never bound (test is vacuous)", mech.Name())
			}
			s := e.Server()
			for i := range want {
				if got := s.Global[i] - s.Prev[i]; !(math.Abs(got-want[i]) <= 1e-12) {
					t.Fatalf("%s q=%g: global moved %g at %d, want %g", mech.Name(), q, got, i, want[i])
				}
			}
			if alg.Ledger.Steps() != 1 || alg.Ledger.Entries[0].Q != q {
				t.Errorf("ledger %+v", alg.Ledger)
			}
		}
	}
}

// TestReleaseOnUpdateEqualsAlg2OnModel checks that adding the wavelet noise
// to the aggregate update (what DPFedAvg does) gives Algorithm 2's
// WaveletNoise applied to the aggregate model w_{t+1}, by linearity.
func TestReleaseOnUpdateEqualsAlg2OnModel(t *testing.T) {
	const n = 77
	prev, upd := make([]float64, n), make([]float64, n)
	rng.FillNormal(rng.Stream(1, "p"), prev, 1)
	rng.FillNormal(rng.Stream(1, "u"), upd, 0.1)
	w := NewWavelet(haar.GradientDomain, Lemma2)
	const sens, z = 0.01, 1.5
	got := slices.Clone(upd)
	w.Release(got, sens, z, rng.Stream(9, "noise"))
	model := make([]float64, n)
	for i := range model {
		model[i] = prev[i] + upd[i]
	}
	want := haar.WaveletNoiseAggregate(rng.Stream(9, "noise"), model, w.CoefScale(z, n)*sens)
	for i := range got {
		if !(math.Abs(prev[i]+got[i]-want[i]) <= 1e-12) {
			t.Fatalf("coordinate %d: %g vs %g", i, prev[i]+got[i], want[i])
		}
	}
}

func TestLedgerAndMatchDecay(t *testing.T) {
	var l Ledger
	for k := 0; k < 5; k++ {
		l.Add(Entry{Q: 0.05, Sigma: 1, Multiplier: 1, Steps: 20, Sampling: LotSampling(0.05)})
	}
	if len(l.Entries) != 1 || l.Steps() != 100 || l.Rounds != 5 {
		t.Fatalf("ledger did not merge: %+v", l)
	}
	eps, err := l.Epsilon(1e-5, false)
	want, _, err2 := accountant.RDPEpsilon(accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.05, Event: accountant.Gaussian{Sigma: 1}}, Count: 100}, 1e-5)
	if err != nil || err2 != nil || !(math.Abs(eps-want) <= 1e-12) {
		t.Fatalf("ledger ε %g (%v), accountant %g (%v)", eps, err, want, err2)
	}
	l.Add(Entry{Q: 0.05, Sigma: 1, Multiplier: 0, Steps: 20, Sampling: LotSampling(0.05)})
	if e, err := l.Epsilon(1e-5, true); err != nil || !math.IsInf(e, 1) {
		t.Errorf("noise-free release: ε = %g, %v; want +Inf", e, err)
	}
	for _, sigma := range []float64{1, 3} {
		s0, e, err := MatchDecay(sigma, 2, 10, 0.05, 20, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		target, _, _ := accountant.RDPEpsilon(accountant.SelfComposed{Event: accountant.PoissonSampled{Q: 0.05, Event: accountant.Gaussian{Sigma: sigma}}, Count: 200}, 1e-5)
		if s0 < sigma || s0 > 2*sigma || e > target*(1+1e-6) || e < target*(1-1e-3) {
			t.Errorf("σ=%g: σ0 = %g, ε = %g, target %g", sigma, s0, e, target)
		}
		d := Decay{Sigma0: s0, C0: 1, RhoSigma: 2, RhoC: 1, Rounds: 10}
		var dl Ledger
		for k := 0; k < 10; k++ {
			s, _ := d.At(k)
			dl.Add(Entry{Q: 0.05, Sigma: s, Multiplier: s, Steps: 20, Sampling: LotSampling(0.05)})
		}
		if de, _ := dl.Epsilon(1e-5, false); !(math.Abs(de-e) <= 1e-9) {
			t.Errorf("decay ledger ε %g, MatchDecay ε %g", de, e)
		}
		if s, _ := d.At(9); s >= sigma {
			t.Errorf("last σ_t = %g not below σ = %g", s, sigma)
		}
	}
}

func TestMedianNorms(t *testing.T) {
	d := toyData(3, 31, 6)
	m := model.NewLogReg(6, 3, model.CrossEntropy)
	p := make([]float64, m.NumParams())
	m.Init(p, rng.Stream(1, "init"))
	g := make([]float64, d.N*len(p))
	m.PerExampleGrads(p, model.Batch{X: d.X, Y: d.Y, N: d.N, D: d.D}, g, nil, nil)
	var norms []float64
	for i := 0; i < d.N; i++ {
		norms = append(norms, math.Sqrt(floatDot(g[i*len(p):(i+1)*len(p)], g[i*len(p):(i+1)*len(p)])))
	}
	slices.Sort(norms)
	got, err := MedianExampleNorm(m, p, d, Gaussian{})
	if err != nil || !(math.Abs(got-norms[15]) <= 1e-12) {
		t.Errorf("median example norm %g (%v), want %g", got, err, norms[15])
	}
	parts := toyClients(9, 5, 20, 6)
	c, err := MedianUpdateNorm(m, parts, fl.LocalConfig{Epochs: 1, BatchSize: 5, LR: 0.1}, rng.New(1), p, Gaussian{})
	if err != nil || !(c > 0) {
		t.Errorf("median update norm %g, %v", c, err)
	}
}

var sinkK int

// BenchmarkDPSGDStep measures one DP-SGD step with per-example clipping at
// the reproduction's size: 14×14 Fashion-MNIST features (196), 10 classes,
// a client of 500 examples and expected lot 25; LogReg (1 970 parameters,
// m = 2 048) and MLP 196-32-10 (6 634 parameters, m = 8 192).
func BenchmarkDPSGDStep(b *testing.B) {
	const dim, n, lot = 196, 500, 25
	d := &data.Dataset{X: make([]float64, n*dim), Y: make([]int, n), N: n, D: dim, Classes: 10}
	r := rng.Stream(1, "bench")
	for i := range d.X {
		d.X[i] = r.Float64()
	}
	for i := range d.Y {
		d.Y[i] = r.IntN(10)
	}
	models := []struct {
		name string
		m    model.Model
	}{{"logreg", model.NewLogReg(dim, 10, model.CrossEntropy)}, {"mlp", model.NewMLP([]int{dim, 32, 10}, 0, model.CrossEntropy)}}
	for _, mm := range models {
		for _, mech := range []Mechanism{Gaussian{}, NewWavelet(haar.CoefficientDomain, Lemma2), NewWavelet(haar.GradientDomain, Corrected)} {
			b.Run(mm.name+"/"+mech.Name(), func(b *testing.B) {
				p := make([]float64, mm.m.NumParams())
				mm.m.Init(p, rng.Stream(1, "init"))
				a := &DPSGD{Mechanism: mech, Schedule: Constant{Sigma: 1, C: 1}, Lot: lot}
				opt := optim.NewSGD(1e-3, 0)
				rl, rn := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(3, 4))
				for i := 0; i < 20; i++ { // grow buffers to the largest lot
					a.step(mm.m.(PerExample), d, p, opt, lot/float64(n), lot, 1, 1, rl, rn)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					sinkK += a.step(mm.m.(PerExample), d, p, opt, lot/float64(n), lot, 1, 1, rl, rn)
				}
			})
		}
	}
}
