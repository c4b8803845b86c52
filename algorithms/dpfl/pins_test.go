package dpfl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Unit pins (issue 12, item 4) of the DP-SGD step and the DP-FedAvg round
// with every mechanism and calibration. The model is a 3-parameter
// quadratic written here (per-example loss ½Σ_j a_j(p_j − x_j)², gradient
// a ⊙ (p − x)), so each expectation is a plain recursion: per-example
// gradients, clip, sum, noise recomputed from the named stream (the run key
// derived by ("round", k, "client", i), then "noise"; the server's by
// ("round", k, "server", "dp-noise")), divide, step. The wavelet noise uses
// a recursive Haar transform written here from the paper (3 parameters pad
// to m = 4, weights (4, 2, 2, 4)). Tolerance: 1e-12 relative (absolute
// below 1), pinNear.

func pinNear(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func checkVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for j := range want {
		if len(got) != len(want) || !pinNear(got[j], want[j]) {
			t.Errorf("%s = %.17g, want %.17g", what, got, want)
			return
		}
	}
}

var pinA = []float64{1, 0.5, 2}

// quad3 is the pins' model (it draws nothing from r).
type quad3 struct{}

func (quad3) NumParams() int { return 3 }
func (quad3) LossGrad(p []float64, b model.Batch, g []float64, _ *rand.Rand) float64 {
	clear(g)
	var loss float64
	for i := 0; i < b.N; i++ {
		for j := range pinA {
			d := p[j] - b.X[i*3+j]
			loss += 0.5 * pinA[j] * d * d / float64(b.N)
			if g != nil {
				g[j] += pinA[j] * d / float64(b.N)
			}
		}
	}
	return loss
}
func (quad3) PerExampleGrads(p []float64, b model.Batch, g []float64, _ []float64, _ *rand.Rand) {
	for i := 0; i < b.N; i++ {
		for j := range pinA {
			g[i*3+j] = pinA[j] * (p[j] - b.X[i*3+j])
		}
	}
}

func pinData(rows ...[]float64) *data.Dataset {
	d := &data.Dataset{N: len(rows), D: 3, Classes: 1, Y: make([]int, len(rows))}
	for _, r := range rows {
		d.X = append(d.X, r...)
	}
	return d
}

func pinClients() []*data.Dataset {
	return []*data.Dataset{
		pinData([]float64{1, 0, 2}, []float64{3, -1, 0}),
		pinData([]float64{0, 2, -1}, []float64{2, 2, 1}, []float64{-4, 1, 0.5}),
		pinData([]float64{0.5, 0.5, 0.5}),
	}
}

// Plain Haar (paper §4.3) for m = 4: pass 1 pairs (x0, x1), (x2, x3);
// coefficients [H0, d0, d1, D].
func hwt4(x []float64) []float64 {
	x3 := 0.0
	if len(x) > 3 {
		x3 = x[3]
	}
	s0, s1 := (x[0]+x[1])/2, (x[2]+x3)/2
	return []float64{(s0 + s1) / 2, (x[0] - x[1]) / 2, (x[2] - x3) / 2, (s0 - s1) / 2}
}

func ihwt4(h []float64) []float64 {
	s0, s1 := h[0]+h[3], h[0]-h[3]
	return []float64{s0 + h[1], s0 - h[1], s1 + h[2], s1 - h[2]}
}

var w4 = []float64{4, 2, 2, 4}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// mechRef describes a mechanism for the plain references: its clipping
// norm, and its coefficient scale σ_c for nominal σ (3 parameters, m = 4).
type mechRef struct {
	name    string
	mech    func() Mechanism
	wavelet bool
	coefDom bool
	sigmaC  func(s float64) float64 // σ_c(σ); the Gaussian ignores it
	mult    func(s float64) float64 // effective multiplier
}

// The calibrations by hand for n = 3, m = 4 (log2 m = 2): Lemma 2
// σ_c = σ·√(2/4) = σ/√2; Literal σ_c = σ; Corrected σ_c = σ·m = 4σ under
// coefficient clipping (multiplier σ_c/m) and σ·√m = 2σ under gradient
// clipping (multiplier σ_c/‖diag(W)A‖ = σ_c/2).
func mechRefs() []mechRef {
	r2 := math.Sqrt2
	return []mechRef{
		{"gaussian", func() Mechanism { return Gaussian{} }, false, false, nil, func(s float64) float64 { return s }},
		{"wavelet_lemma2_coefficient", func() Mechanism { return NewWavelet(haar.CoefficientDomain, Lemma2) }, true, true,
			func(s float64) float64 { return s / r2 }, func(s float64) float64 { return s / r2 / 4 }},
		{"wavelet_literal_coefficient", func() Mechanism { return NewWavelet(haar.CoefficientDomain, Literal) }, true, true,
			func(s float64) float64 { return s }, func(s float64) float64 { return s / 4 }},
		{"wavelet_corrected_coefficient", func() Mechanism { return NewWavelet(haar.CoefficientDomain, Corrected) }, true, true,
			func(s float64) float64 { return 4 * s }, func(s float64) float64 { return s }},
		{"wavelet_lemma2_gradient", func() Mechanism { return NewWavelet(haar.GradientDomain, Lemma2) }, true, false,
			func(s float64) float64 { return s / r2 }, func(s float64) float64 { return s / r2 / 2 }},
		{"wavelet_literal_gradient", func() Mechanism { return NewWavelet(haar.GradientDomain, Literal) }, true, false,
			func(s float64) float64 { return s }, func(s float64) float64 { return s / 2 }},
		{"wavelet_corrected_gradient", func() Mechanism { return NewWavelet(haar.GradientDomain, Corrected) }, true, false,
			func(s float64) float64 { return 2 * s }, func(s float64) float64 { return s }},
	}
}

// clipNorm is the mechanism's clipping norm: ‖HWT(v)‖ in the coefficient
// domain, ‖v‖ otherwise.
func (m mechRef) clipNorm(v []float64) float64 {
	if m.coefDom {
		return norm(hwt4(v))
	}
	return norm(v)
}

// noise returns the noise one release adds for scale s (σ·C for a lot,
// σ·sens for a release), drawing from r: s·Z per coordinate (Gaussian) or
// HWT⁻¹(ν)[:3], ν_j = σ_c·(s/σ)/W_j·Z_j (wavelet).
func (m mechRef) noise(r *rand.Rand, sigma, unit float64) []float64 {
	if !m.wavelet {
		return []float64{sigma * unit * r.NormFloat64(), sigma * unit * r.NormFloat64(), sigma * unit * r.NormFloat64()}
	}
	sc := m.sigmaC(sigma) * unit
	nu := make([]float64, 4)
	for j := range nu {
		nu[j] = sc / w4[j] * r.NormFloat64()
	}
	return ihwt4(nu)[:3]
}

// lot is one private lot: (Σ_i clip_C(g_i) + noise)/denom. For the wavelet
// mechanism the noisy sum is HWT⁻¹(HWT(Σ) + ν), i.e. Σ + HWT⁻¹(ν).
func (m mechRef) lot(grads [][]float64, c, sigma, denom float64, r *rand.Rand) []float64 {
	sum := make([]float64, 3)
	for _, g := range grads {
		f := 1.0
		if n := m.clipNorm(g); n > c {
			f = c / n
		}
		for j := range sum {
			sum[j] += f * g[j]
		}
	}
	nz := m.noise(r, sigma, c)
	for j := range sum {
		sum[j] = (sum[j] + nz[j]) / denom
	}
	return sum
}

func TestPinMechanismsDirect(t *testing.T) {
	grads := [][]float64{{4, 8, 1}, {0.3, 0, 0.4}, {0, -2, 0}}
	const c, sigma = 1.5, 0.8
	for _, mr := range mechRefs() {
		t.Run(mr.name, func(t *testing.T) {
			mech := mr.mech()
			if mech.Name() != mr.name {
				t.Errorf("Name %q", mech.Name())
			}
			in := make([][]float64, len(grads))
			for i, g := range grads {
				in[i] = append([]float64(nil), g...)
			}
			dst := make([]float64, 3)
			mech.Lot(dst, in, c, sigma, 2.5, rng.Stream(3, "lot", mr.name))
			checkVec(t, "Lot", dst, mr.lot(grads, c, sigma, 2.5, rng.Stream(3, "lot", mr.name)))
			// Release: v + noise at scale σ·sens.
			v := []float64{1, -2, 0.5}
			mech.Release(v, 0.3, sigma, rng.Stream(3, "rel", mr.name))
			nz := mr.noise(rng.Stream(3, "rel", mr.name), sigma, 0.3)
			checkVec(t, "Release", v, []float64{1 + nz[0], -2 + nz[1], 0.5 + nz[2]})
			// Norm and Clip in the mechanism's domain.
			g := []float64{4, 8, 1}
			if got := mech.Norm(g); !pinNear(got, mr.clipNorm(g)) {
				t.Errorf("Norm = %g, want %g", got, mr.clipNorm(g))
			}
			f := mech.Clip(g, 2)
			wantF := 2 / mr.clipNorm([]float64{4, 8, 1})
			if !pinNear(f, wantF) {
				t.Errorf("Clip factor %g, want %g", f, wantF)
			}
			checkVec(t, "clipped", g, []float64{4 * wantF, 8 * wantF, 1 * wantF})
			small := []float64{0.1, 0, 0}
			if f := mech.Clip(small, 2); f != 1 || small[0] != 0.1 {
				t.Errorf("inside the ball: factor %g, v %v", f, small)
			}
			if got := mech.Multiplier(sigma, 3); !pinNear(got, mr.mult(sigma)) {
				t.Errorf("Multiplier = %.17g, want %.17g", got, mr.mult(sigma))
			}
			// Per-coordinate std: σ for Gaussian, σ_c·√((1 + 2/m²)/3) = σ_c·√0.375.
			want := sigma
			if mr.wavelet {
				want = mr.sigmaC(sigma) * math.Sqrt(0.375)
			}
			if got := mech.PerCoordinateStd(sigma, 3); !pinNear(got, want) {
				t.Errorf("PerCoordinateStd = %.17g, want %.17g", got, want)
			}
			if w, ok := mech.(*Wavelet); ok {
				if got := w.CoefScale(sigma, 3); !pinNear(got, mr.sigmaC(sigma)) {
					t.Errorf("CoefScale = %.17g, want %.17g", got, mr.sigmaC(sigma))
				}
				// The cached operator norm serves a second length correctly.
				w.Multiplier(sigma, 3)
				if got, want := w.Multiplier(sigma, 8), haar.EffectiveMultiplier(w.variant(), 8, w.CoefScale(sigma, 8)); !pinNear(got, want) {
					t.Errorf("Multiplier at n=8 after n=3: %g, want %g", got, want)
				}
			}
		})
	}
}

// Gaussian Lot without noise and an infinite clip: the plain mean, no NaN.
func TestPinGaussianLotEdges(t *testing.T) {
	dst := make([]float64, 3)
	Gaussian{}.Lot(dst, [][]float64{{1, 2, 3}, {3, 2, 1}}, math.Inf(1), 0, 2, rng.Stream(1))
	checkVec(t, "noiseless mean", dst, []float64{2, 2, 2})
	Gaussian{}.Lot(dst, nil, 1, 0, 1, rng.Stream(1))
	checkVec(t, "empty lot", dst, []float64{0, 0, 0})
	msg := func(f func()) (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		f()
		return
	}
	if m := msg(func() { Gaussian{}.Lot(dst, [][]float64{{1}}, 1, 1, 1, rng.Stream(1)) }); !strings.Contains(m, "gradient 0 has length 1, want 3") {
		t.Errorf("ragged lot: %q", m)
	}
	if m := msg(func() { Gaussian{}.Clip([]float64{1}, -1) }); !strings.Contains(m, "clip norm") {
		t.Errorf("negative clip: %q", m)
	}
	if m := msg(func() { (&Wavelet{Calibration: Calibration(9)}).CoefScale(1, 4) }); !strings.Contains(m, "unknown calibration") {
		t.Errorf("unknown calibration: %q", m)
	}
	// Norms that would over- or underflow a dot product.
	for _, v := range [][]float64{{3e200, 4e200, 0}, {3e-200, 4e-200, 0}} {
		if got, want := (Gaussian{}).Norm(v), 5*v[0]/3; !pinNear(got/want, 1) {
			t.Errorf("Norm(%g) = %g, want %g", v, got, want)
		}
	}
}

// poissonRef is the lot of PoissonLot recomputed from the stream: gaps
// G = ⌊log(1 − U)/log(1 − q)⌋ of excluded indices before each included one.
func poissonRef(r *rand.Rand, n int, q float64) []int {
	var out []int
	i := -1
	for {
		g := math.Floor(math.Log(1-r.Float64()) / math.Log(1-q))
		if i+int(g)+1 >= n || g > float64(n) {
			return out
		}
		i += int(g) + 1
		out = append(out, i)
	}
}

// DP-SGD, every mechanism, two rounds of two local epochs over clients of
// 2, 3 and 1 examples: client i runs E·max(1, round(n/L)) steps, each on a
// Poisson lot with q = min(1, L/n) drawn from its train stream, privatised
// with ONE noise draw from its noise stream and divided by q·n, then a
// momentum SGD step; the server takes the size-weighted average; the
// client's ledger records (q, σ, effective multiplier, steps).
func TestPinDPSGDRounds(t *testing.T) {
	const lr, rho, c, sigma, lotSize = 0.2, 0.5, 1.2, 0.7, 1.5
	for _, mr := range mechRefs() {
		t.Run(mr.name, func(t *testing.T) {
			clients := pinClients()
			key := rng.New(21, "dpsgd-pins")
			alg := &DPSGD{Mechanism: mr.mech(), Schedule: Constant{Sigma: sigma, C: c}, Lot: lotSize}
			cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 2, BatchSize: 1, LR: lr, Momentum: rho}}
			init := []float64{0.5, -0.5, 1}
			e, err := fl.New(quad3{}, clients, alg, cfg, key, init, fl.Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			global := append([]float64(nil), init...)
			var steps, grads int64
			for k := 0; k < 2; k++ {
				info := e.TrainRound()
				var sum [3]float64
				var tot float64
				for _, id := range info.Selected {
					d := clients[id]
					q := math.Min(1, lotSize/float64(d.N))
					nsteps := 2 * max(1, int(math.Round(float64(d.N)/lotSize)))
					rk := key.Derive("round", k, "client", id)
					rlot, rnoise := rk.Derive("train").Rand(), rk.Derive("noise").Rand()
					p := append([]float64(nil), global...)
					buf := make([]float64, 3)
					for s := 0; s < nsteps; s++ {
						var idx []int
						if q >= 1 {
							for i := 0; i < d.N; i++ {
								idx = append(idx, i)
							}
						} else {
							idx = poissonRef(rlot, d.N, q)
						}
						var gs [][]float64
						for _, i := range idx {
							gs = append(gs, []float64{pinA[0] * (p[0] - d.X[3*i]), pinA[1] * (p[1] - d.X[3*i+1]), pinA[2] * (p[2] - d.X[3*i+2])})
						}
						grads += int64(len(idx))
						g := mr.lot(gs, c, sigma, q*float64(d.N), rnoise)
						for j := range p {
							if s == 0 {
								buf[j] = g[j]
							} else {
								buf[j] = rho*buf[j] + g[j]
							}
							p[j] -= lr * buf[j]
						}
					}
					steps += int64(nsteps)
					for j := range p {
						sum[j] += float64(d.N) * p[j]
					}
					tot += float64(d.N)
					l := ClientLedger(e.ClientState(id))
					want := Entry{Q: q, Sigma: sigma, Multiplier: mr.mult(sigma), Steps: nsteps * (k + 1)}
					if l == nil || len(l.Entries) != 1 || l.Rounds != k+1 || l.Entries[0].Q != want.Q || l.Entries[0].Sigma != want.Sigma ||
						!pinNear(l.Entries[0].Multiplier, want.Multiplier) || l.Entries[0].Steps != want.Steps {
						t.Errorf("round %d client %d ledger %+v, want one entry %+v over %d rounds", k, id, l, want, k+1)
					}
				}
				for j := range global {
					global[j] = sum[j] / tot
				}
				checkVec(t, fmt.Sprintf("round %d global", k), e.Server().Global, global)
			}
			if cnt := e.Server().Counters; cnt.SGDSteps != steps || cnt.SampleGrads != grads {
				t.Errorf("counters %+v, want %d steps and %d sample gradients", cnt, steps, grads)
			}
		})
	}
}

// DP-SGD with a Decay schedule and Adam: round t uses (σ_t, C_t), and the
// given optimizer is reset before every local update.
func TestPinDPSGDScheduleAndOptimizer(t *testing.T) {
	clients := pinClients()[:1] // n = 2, L = 2: q = 1, denom 2, one step per epoch
	key := rng.New(5, "dpsgd-adam")
	sched := Decay{Sigma0: 2, C0: 1, RhoSigma: 4, RhoC: 0.25, Rounds: 2}
	adam := optim.NewAdam(0.1)
	alg := &DPSGD{Mechanism: Gaussian{}, Schedule: sched, Lot: 2, Optimizer: adam}
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 1, BatchSize: 1, LR: 0.1}}
	e, err := fl.New(quad3{}, clients, alg, cfg, key, []float64{0, 0, 0}, fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	// σ_t = 2·4^(−t/2): 2, 1; C_t = 0.25^(−t/2): 1, 2.
	p := []float64{0, 0, 0}
	d := clients[0]
	for k, sc := range [][2]float64{{2, 1}, {1, 2}} {
		e.TrainRound()
		rnoise := key.Derive("round", k, "client", 0).Derive("noise").Rand()
		var gs [][]float64
		for i := 0; i < 2; i++ {
			gs = append(gs, []float64{pinA[0] * (p[0] - d.X[3*i]), pinA[1] * (p[1] - d.X[3*i+1]), pinA[2] * (p[2] - d.X[3*i+2])})
		}
		g := mechRefs()[0].lot(gs, sc[1], sc[0], 2, rnoise)
		// One fresh Adam step (t = 1): p −= lr·g/(|g| + ε) elementwise.
		for j := range p {
			p[j] -= 0.1 * g[j] / (math.Abs(g[j]) + 1e-8)
		}
		checkVec(t, fmt.Sprintf("round %d", k), e.Server().Global, p)
		if adam.Steps() != 1 {
			t.Errorf("Adam not reset: %d steps", adam.Steps())
		}
	}
	l := ClientLedger(e.ClientState(0))
	if l == nil || len(l.Entries) != 2 || l.Entries[0].Sigma != 2 || l.Entries[1].Sigma != 1 || l.Steps() != 2 || l.Rounds != 2 {
		t.Errorf("ledger %+v", l)
	}
}

// DP-FedAvg, every mechanism, Bernoulli client sampling q = 0.7 over three
// clients (60 rounds, so that some select nobody): selected clients train without privacy, clip
// their update to C in the mechanism's norm; the server releases
// Σ Δ_k/(q·N) with noise of sensitivity C/(q·N) from its "dp-noise"
// stream — also in a round where nobody was selected — and adds it to the
// previous model.
func TestPinDPFedAvgRounds(t *testing.T) {
	const lr, c, z, q = 0.3, 0.5, 0.9, 0.7
	for _, mr := range mechRefs() {
		t.Run(mr.name, func(t *testing.T) {
			clients := pinClients()
			key := rng.New(31, "dpfedavg-pins")
			alg := &DPFedAvg{Mechanism: mr.mech(), Schedule: Constant{Sigma: z, C: c}, Q: q}
			cfg := fl.Config{Sampling: fl.Bernoulli, P: q, Local: fl.LocalConfig{Epochs: 2, BatchSize: 4, LR: lr}}
			init := []float64{1, 0, -1}
			e, err := fl.New(quad3{}, clients, alg, cfg, key, init, fl.Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			global := append([]float64(nil), init...)
			sizes := map[int]bool{}
			clipped := false
			const rounds = 60
			for k := 0; k < rounds; k++ {
				info := e.TrainRound()
				sizes[len(info.Selected)] = true
				agg := make([]float64, 3)
				for _, id := range info.Selected {
					d := clients[id]
					p := append([]float64(nil), global...)
					for s := 0; s < 2; s++ { // full-batch gradient descent
						var g [3]float64
						for i := 0; i < d.N; i++ {
							for j := range g {
								g[j] += pinA[j] * (p[j] - d.X[3*i+j]) / float64(d.N)
							}
						}
						for j := range p {
							p[j] -= lr * g[j]
						}
					}
					delta := []float64{p[0] - global[0], p[1] - global[1], p[2] - global[2]}
					f := 1.0
					if n := mr.clipNorm(delta); n > c {
						f = c / n
						clipped = true
					}
					for j := range agg {
						agg[j] += f * delta[j] / (q * 3)
					}
				}
				nz := mr.noise(key.Derive("round", k, "server", "dp-noise").Rand(), z, c/(q*3))
				for j := range global {
					global[j] += agg[j] + nz[j]
				}
				checkVec(t, fmt.Sprintf("round %d global", k), e.Server().Global, global)
			}
			if !sizes[0] || len(sizes) < 2 || !clipped {
				t.Fatalf("the pin should see an empty round, other sizes and a binding clip: sizes %v, clipped %v", sizes, clipped)
			}
			l := alg.Ledger
			if len(l.Entries) != 1 || l.Rounds != rounds || l.Steps() != rounds || l.Entries[0].Q != q || l.Entries[0].Sigma != z || !pinNear(l.Entries[0].Multiplier, mr.mult(z)) {
				t.Errorf("server ledger %+v", l)
			}
		})
	}
}

// Setup and model requirements fail loudly with what is missing.
func TestPinSetupErrors(t *testing.T) {
	msg := func(f func()) (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		f()
		return
	}
	s := &fl.Server{Global: []float64{0}}
	for _, a := range []*DPSGD{{Schedule: Constant{}, Lot: 1}, {Mechanism: Gaussian{}, Lot: 1}, {Mechanism: Gaussian{}, Schedule: Constant{}}} {
		if m := msg(func() { a.Setup(s) }); !strings.Contains(m, "DPSGD needs a mechanism, a schedule and a lot size > 0") {
			t.Errorf("DPSGD setup %+v: %q", a, m)
		}
	}
	for _, a := range []*DPFedAvg{{Schedule: Constant{}, Q: 1}, {Mechanism: Gaussian{}, Q: 1}, {Mechanism: Gaussian{}, Schedule: Constant{}, Q: 0}, {Mechanism: Gaussian{}, Schedule: Constant{}, Q: math.Nextafter(1, 2)}} {
		if m := msg(func() { a.Setup(s) }); !strings.Contains(m, "DPFedAvg needs a mechanism, a schedule and q_c in (0,1]") {
			t.Errorf("DPFedAvg setup %+v: %q", a, m)
		}
	}
	ok := &DPFedAvg{Mechanism: Gaussian{}, Schedule: Constant{}, Q: 1}
	ok.Setup(&fl.Server{Global: []float64{0}, Round: 3})
	if ok.round != 3 {
		t.Errorf("DPFedAvg starts at round %d, want the server's 3", ok.round)
	}
	// A model without per-example gradients cannot run DP-SGD.
	alg := &DPSGD{Mechanism: Gaussian{}, Schedule: Constant{Sigma: 1, C: 1}, Lot: 1}
	e, err := fl.New(gradOnlyModel{}, pinClients(), alg, fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 1, BatchSize: 1, LR: 0.1}}, rng.New(1), []float64{0, 0, 0}, fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if m := msg(func() { e.TrainRound() }); !strings.Contains(m, "DP-SGD needs per-example gradients") {
		t.Errorf("non-per-example model: %q", m)
	}
	if got := (&DPSGD{Mechanism: Gaussian{}}).Name(); got != "dp-sgd/gaussian" {
		t.Errorf("name %q", got)
	}
	if got := (&DPFedAvg{Mechanism: NewWavelet(haar.GradientDomain, Corrected)}).Name(); got != "dp-fedavg/wavelet_corrected_gradient" {
		t.Errorf("name %q", got)
	}
}

type gradOnlyModel struct{}

func (gradOnlyModel) NumParams() int { return 3 }
func (gradOnlyModel) LossGrad(_ []float64, _ model.Batch, g []float64, _ *rand.Rand) float64 {
	clear(g)
	return 0
}

// Schedules by hand: Decay(σ0 = 2, C0 = 3, ρσ = 4, ρC = 9, R = 2):
// t = 0: (2, 3); t = 1: (2/2, 3/3) = (1, 1); t = 2: (0.5, 1/3).
// Rounds = 0 is read as 1.
func TestPinSchedules(t *testing.T) {
	d := Decay{Sigma0: 2, C0: 3, RhoSigma: 4, RhoC: 9, Rounds: 2}
	for k, want := range [][2]float64{{2, 3}, {1, 1}, {0.5, 1.0 / 3}} {
		s, c := d.At(k)
		if !pinNear(s, want[0]) || !pinNear(c, want[1]) {
			t.Errorf("Decay.At(%d) = (%g, %g), want %v", k, s, c, want)
		}
	}
	d.Rounds = 0
	if s, _ := d.At(1); !pinNear(s, 0.5) {
		t.Errorf("Rounds 0: σ_1 = %g, want 2/4", s)
	}
	checkVec(t, "DecayedSigmas", DecayedSigmas(2, 4, 2), []float64{2, 1})
	if s, c := (Constant{Sigma: 1.5, C: 0.2}).At(99); s != 1.5 || c != 0.2 {
		t.Errorf("Constant.At = %g %g", s, c)
	}
	if got := StepsPerEpoch(10, 4); got != 3 { // round(2.5) = 3
		t.Errorf("StepsPerEpoch(10, 4) = %d", got)
	}
	if got := StepsPerEpoch(3, 10); got != 1 {
		t.Errorf("StepsPerEpoch(3, 10) = %d", got)
	}
	if got := StepsPerEpoch(9, 4); got != 2 {
		t.Errorf("StepsPerEpoch(9, 4) = %d", got)
	}
}

// PoissonLot: the geometric-gap lot recomputed from the same stream; the
// edge cases q ≤ 0, q ≥ 1 and n ≤ 0.
func TestPinPoissonLot(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		for _, q := range []float64{0.05, 0.3, 0.9} {
			got := PoissonLot(rng.Stream(seed, "pl"), 20, q, nil)
			want := poissonRef(rng.Stream(seed, "pl"), 20, q)
			if fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("seed %d q %g: %v, want %v", seed, q, got, want)
			}
		}
	}
	if got := PoissonLot(rng.Stream(1), 4, 1, nil); fmt.Sprint(got) != "[0 1 2 3]" {
		t.Errorf("q = 1: %v", got)
	}
	if got := PoissonLot(rng.Stream(1), 4, 0, []int{9}); len(got) != 0 {
		t.Errorf("q = 0: %v", got)
	}
	if got := PoissonLot(rng.Stream(1), 0, 0.5, nil); len(got) != 0 {
		t.Errorf("n = 0: %v", got)
	}
}

// The ledger merges equal consecutive entries, counts rounds and builds
// the accountant event at nominal or effective multipliers.
func TestPinLedger(t *testing.T) {
	var l Ledger
	if eps, err := l.Epsilon(1e-5, false); eps != 0 || err != nil {
		t.Errorf("empty ledger: %g, %v", eps, err)
	}
	var nilL *Ledger
	if eps, err := nilL.Epsilon(1e-5, false); eps != 0 || err != nil {
		t.Errorf("nil ledger: %g, %v", eps, err)
	}
	l.Add(Entry{Q: 0.1, Sigma: 1, Multiplier: 0.5, Steps: 3, Sampling: LotSampling(0.1)})
	l.Add(Entry{Q: 0.1, Sigma: 1, Multiplier: 0.5, Steps: 2, Sampling: LotSampling(0.1)})
	l.Add(Entry{Q: 0.1, Sigma: 1, Multiplier: 0.25, Steps: 4, Sampling: LotSampling(0.1)})
	l.Add(Entry{Q: 0.2, Sigma: 1, Multiplier: 0.25, Steps: 1, Sampling: LotSampling(0.2)})
	l.Add(Entry{Q: 0.2, Sigma: 2, Multiplier: 0.25, Steps: 1, Sampling: LotSampling(0.2)})
	if len(l.Entries) != 4 || l.Entries[0].Steps != 5 || l.Rounds != 5 || l.Steps() != 11 {
		t.Fatalf("ledger %+v", l)
	}
	ev := func(q, s float64, n int) accountant.Event {
		return accountant.SelfComposed{Event: accountant.PoissonSampled{Q: q, Event: accountant.Gaussian{Sigma: s}}, Count: n}
	}
	nominal := accountant.Composed{Events: []accountant.Event{ev(0.1, 1, 5), ev(0.1, 1, 4), ev(0.2, 1, 1), ev(0.2, 2, 1)}}
	effective := accountant.Composed{Events: []accountant.Event{ev(0.1, 0.5, 5), ev(0.1, 0.25, 4), ev(0.2, 0.25, 1), ev(0.2, 0.25, 1)}}
	for _, c := range []struct {
		eff bool
		ev  accountant.Event
	}{{false, nominal}, {true, effective}} {
		got, err := l.Epsilon(1e-5, c.eff)
		want, _, err2 := accountant.RDPEpsilon(c.ev, 1e-5)
		if err != nil || err2 != nil || !pinNear(got, want) {
			t.Errorf("effective %v: ε %g (%v), want %g (%v)", c.eff, got, err, want, err2)
		}
	}
	var one Ledger
	one.Add(Entry{Q: 0.3, Sigma: 2, Multiplier: 1, Steps: 7, Sampling: LotSampling(0.3)})
	if _, ok := one.Event(false).(accountant.SelfComposed); !ok {
		t.Errorf("one entry: event %T, want a SelfComposed block", one.Event(false))
	}
	// MatchDecay's argument checks and its ρ = 1 shortcut.
	for _, a := range [][4]float64{{0, 2, 5, 1}, {1, 0.5, 5, 1}, {1, 2, 0, 1}, {1, 2, 5, 0}} {
		if _, _, err := MatchDecay(a[0], a[1], int(a[2]), 0.1, int(a[3]), 1e-5); err == nil || !strings.Contains(err.Error(), "need σ > 0, ρ ≥ 1") {
			t.Errorf("MatchDecay%v: %v", a, err)
		}
	}
	s0, eps, err := MatchDecay(1.3, 1, 4, 0.1, 3, 1e-5)
	want, _, _ := accountant.RDPEpsilon(ev(0.1, 1.3, 12), 1e-5)
	if err != nil || s0 != 1.3 || !pinNear(eps, want) {
		t.Errorf("ρ = 1: σ0 %g ε %g (%v), want 1.3 and %g", s0, eps, err, want)
	}
	if _, _, err := MatchDecay(1, 2, 4, 0.1, 3, 2); err == nil {
		t.Error("δ = 2 accepted")
	}
}

// The median rule: odd and even counts; per-example norms at p in the
// mechanism's domain, over more than one 256-example chunk; update norms
// of one FedAvg round per public part.
func TestPinMedians(t *testing.T) {
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median odd = %g", got)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median even = %g", got)
	}
	r := rng.Stream(8, "public")
	rows := make([][]float64, 301)
	for i := range rows {
		rows[i] = []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	}
	pub := pinData(rows...)
	p := []float64{0.2, -0.1, 0.4}
	for _, mr := range mechRefs()[:2] {
		var norms []float64
		for _, x := range rows {
			norms = append(norms, mr.clipNorm([]float64{pinA[0] * (p[0] - x[0]), pinA[1] * (p[1] - x[1]), pinA[2] * (p[2] - x[2])}))
		}
		want := median(norms)
		got, err := MedianExampleNorm(quad3{}, p, pub, mr.mech())
		if err != nil || !pinNear(got, want) {
			t.Errorf("%s: median example norm %g (%v), want %g", mr.name, got, err, want)
		}
	}
	if _, err := MedianExampleNorm(quad3{}, p, nil, Gaussian{}); err == nil || !strings.Contains(err.Error(), "non-empty public set") {
		t.Errorf("nil public set: %v", err)
	}
	if _, err := MedianExampleNorm(quad3{}, p, &data.Dataset{D: 3}, Gaussian{}); err == nil {
		t.Error("empty public set accepted")
	}
	parts := pinClients()
	local := fl.LocalConfig{Epochs: 2, BatchSize: 8, LR: 0.25}
	var norms []float64
	for _, d := range parts {
		q := append([]float64(nil), p...)
		for s := 0; s < 2; s++ {
			var g [3]float64
			for i := 0; i < d.N; i++ {
				for j := range g {
					g[j] += pinA[j] * (q[j] - d.X[3*i+j]) / float64(d.N)
				}
			}
			for j := range q {
				q[j] -= 0.25 * g[j]
			}
		}
		norms = append(norms, norm([]float64{q[0] - p[0], q[1] - p[1], q[2] - p[2]}))
	}
	got, err := MedianUpdateNorm(quad3{}, parts, local, rng.New(2), p, Gaussian{})
	if err != nil || !pinNear(got, median(norms)) {
		t.Errorf("median update norm %g (%v), want %g", got, err, median(norms))
	}
	if _, err := MedianUpdateNorm(quad3{}, nil, local, rng.New(2), p, Gaussian{}); err == nil || !strings.Contains(err.Error(), "needs public parts") {
		t.Errorf("no parts: %v", err)
	}
	if _, err := MedianUpdateNorm(quad3{}, parts, fl.LocalConfig{}, rng.New(2), p, Gaussian{}); err == nil {
		t.Error("invalid local config accepted")
	}
}

func TestPinCalibrationNames(t *testing.T) {
	for _, c := range []Calibration{Lemma2, Literal, Corrected} {
		got, err := ParseCalibration(c.String())
		if err != nil || got != c {
			t.Errorf("%v: %v %v", c, got, err)
		}
	}
	if Calibration(7).String() != "Calibration(7)" {
		t.Errorf("%q", Calibration(7).String())
	}
	if _, err := ParseCalibration("vanilla"); err == nil || !strings.Contains(err.Error(), `unknown wavelet calibration "vanilla"`) {
		t.Errorf("ParseCalibration(vanilla): %v", err)
	}
}

// DP-FedAvg with a Decay schedule: round k clips at C_k and noises with
// z_k·C_k/(q·N), q = 1, all three clients every round.
func TestPinDPFedAvgDecay(t *testing.T) {
	clients := pinClients()
	key := rng.New(41, "dpfedavg-decay")
	sched := Decay{Sigma0: 1, C0: 0.2, RhoSigma: 4, RhoC: 1.0 / 16, Rounds: 2} // (1, 0.2), (0.5, 0.8)
	alg := &DPFedAvg{Mechanism: Gaussian{}, Schedule: sched, Q: 1}
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 1, BatchSize: 4, LR: 0.5}}
	e, err := fl.New(quad3{}, clients, alg, cfg, key, []float64{0, 0, 0}, fl.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	global := []float64{0, 0, 0}
	for k, zc := range [][2]float64{{1, 0.2}, {0.5, 0.8}} {
		e.TrainRound()
		agg := make([]float64, 3)
		for _, d := range clients {
			var g [3]float64
			for i := 0; i < d.N; i++ {
				for j := range g {
					g[j] += pinA[j] * (global[j] - d.X[3*i+j]) / float64(d.N)
				}
			}
			delta := []float64{-0.5 * g[0], -0.5 * g[1], -0.5 * g[2]}
			f := math.Min(1, zc[1]/norm(delta))
			for j := range agg {
				agg[j] += f * delta[j] / 3
			}
		}
		r := key.Derive("round", k, "server", "dp-noise").Rand()
		for j := range global {
			global[j] += agg[j] + zc[0]*zc[1]/3*r.NormFloat64()
		}
		checkVec(t, fmt.Sprintf("round %d", k), e.Server().Global, global)
	}
	if l := alg.Ledger; len(l.Entries) != 2 || l.Entries[0].Sigma != 1 || l.Entries[1].Sigma != 0.5 {
		t.Errorf("ledger %+v", l)
	}
}

// Boundaries: a clip bound of 0 zeroes the vector (factor 0) rather than
// panicking; one round of one step is a valid MatchDecay.
func TestPinBoundaries(t *testing.T) {
	for _, mr := range mechRefs()[:2] {
		v := []float64{1, 2, 3}
		if f := mr.mech().Clip(v, 0); f != 0 || v[0] != 0 || v[2] != 0 {
			t.Errorf("%s: Clip(c=0) factor %g, v %v", mr.name, f, v)
		}
	}
	if _, _, err := MatchDecay(1.3, 2, 1, 0.1, 1, 1e-5); err != nil {
		t.Errorf("one round, one step: %v", err)
	}
}
