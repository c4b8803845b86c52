package diffusion

// Unit pins (issue 12, item 4): the noise schedule and forward process on a
// 3-step schedule worked out by hand, one sampler run written out plainly
// with the stream's draws recomputed in the test, the sinusoidal embedding,
// a 6-parameter denoiser's loss and gradient by the chain rule written out,
// and the exact oracles. Tolerance 1e-12 absolute unless stated.

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

const pinTol = 1e-12

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !(math.Abs(got-want) <= pinTol) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}

func nearVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s has length %d, want %d", what, len(got), len(want))
	}
	for j := range got {
		if !(math.Abs(got[j]-want[j]) <= pinTol) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

// TestPinScheduleByHand: Linear(3, 0.1, 0.3) has β = (0.1, 0.2, 0.3),
// α = (0.9, 0.8, 0.7), ᾱ = (0.9, 0.72, 0.504);
// β̃_1 = 0.1·(1 − 1)/(1 − 0.9) = 0, β̃_2 = 0.2·0.1/0.28 = 1/14,
// β̃_3 = 0.3·0.28/0.496 = 0.084/0.496.
func TestPinScheduleByHand(t *testing.T) {
	s, err := Linear(3, 0.1, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	if s.Steps() != 3 {
		t.Fatalf("Steps = %d", s.Steps())
	}
	for k, want := range []struct{ beta, alpha, ab, post float64 }{
		{0, 1, 1, 0},
		{0.1, 0.9, 0.9, 0},
		{0.2, 0.8, 0.72, 1.0 / 14},
		{0.3, 0.7, 0.504, 0.084 / 0.496},
	} {
		near(t, "β", s.Beta(k), want.beta)
		near(t, "α", s.Alpha(k), want.alpha)
		near(t, "ᾱ", s.AlphaBar(k), want.ab)
		near(t, "β̃", s.PosteriorVariance(k), want.post)
	}
	near(t, "ᾱ_T", s.AlphaBarT(), 0.504)
	// Forward noising at t = 2: x_2 = √0.72·x_0 + √0.28·ε.
	x0, eps := []float64{1, -2}, []float64{0.5, 3}
	dst := make([]float64, 2)
	s.Noise(dst, x0, eps, 2)
	nearVec(t, "x_2", dst, []float64{math.Sqrt(0.72) + 0.5*math.Sqrt(0.28), -2*math.Sqrt(0.72) + 3*math.Sqrt(0.28)})
	// t = 0 is clean data.
	s.Noise(dst, x0, eps, 0)
	nearVec(t, "x_0", dst, x0)
	// One Markov step at t = 3: x_3 = √0.7·x_2 + √0.3·z.
	s.ForwardStep(dst, x0, eps, 3)
	nearVec(t, "x_3 | x_2", dst, []float64{math.Sqrt(0.7) + 0.5*math.Sqrt(0.3), -2*math.Sqrt(0.7) + 3*math.Sqrt(0.3)})
	// T = 1 is β_1 alone; ScaledLinear(100) runs from 10⁻³ to 0.2 in
	// steps of 0.199/99.
	one, _ := Linear(1, 0.25, 0.5)
	near(t, "T=1 β_1", one.Beta(1), 0.25)
	sc, _ := ScaledLinear(100)
	near(t, "scaled β_1", sc.Beta(1), 1e-3)
	near(t, "scaled β_2", sc.Beta(2), 1e-3+0.199/99)
	near(t, "scaled β_100", sc.Beta(100), 0.2)
}

func TestPinScheduleErrors(t *testing.T) {
	for _, tc := range []struct {
		T          int
		b1, bT     float64
		wantErrors bool
	}{
		{1, 0.5, 0.5, false},
		{0, 0.1, 0.2, true},
		{3, 0, 0.2, true},
		{3, 1, 0.2, true},
		{3, 0.1, 0, true},
		{3, 0.1, 1, true},
		{3, math.Nextafter(1, 0), math.Nextafter(1, 0), false},
		{3, 1e-300, 1e-300, false},
	} {
		if _, err := Linear(tc.T, tc.b1, tc.bT); (err != nil) != tc.wantErrors {
			t.Errorf("Linear(%d, %g, %g): err %v", tc.T, tc.b1, tc.bT, err)
		}
	}
	if _, err := ScaledLinear(0); err == nil {
		t.Error("ScaledLinear(0) accepted")
	}
	if _, err := ScaledLinear(20); err == nil {
		t.Error("ScaledLinear(20) accepted (β_T = 1)")
	}
	if _, err := ScaledLinear(21); err != nil {
		t.Errorf("ScaledLinear(21): %v", err)
	}
	if _, err := FromBetas(nil); err == nil {
		t.Error("empty schedule accepted")
	}
	if _, err := FromBetas([]float64{0.1, 1}); err == nil {
		t.Error("β = 1 accepted")
	}
}

// constPred predicts the same ε̂ row for every input row.
type constPred struct{ eps []float64 }

func (c constPred) Dim() int { return len(c.eps) }
func (c constPred) PredictEps(_ []float64, rows, _ int, out []float64) {
	for i := 0; i < rows; i++ {
		copy(out[i*len(c.eps):], c.eps)
	}
}

// TestPinSamplerByHand runs the ancestral sampler on the 3-step schedule
// above with a constant predictor ε̂ = (0.5, −1), n = 3 rows in chunks of
// 2, and writes DDPM's Algorithm 2 out plainly: per chunk, x_T from the
// stream row-major, then for t = 3, 2, 1:
// x ← (x − β_t/√(1−ᾱ_t)·ε̂)/√α_t + σ_t·z, z from the stream for t > 1
// only, σ_t² = β_t or β̃_t.
func TestPinSamplerByHand(t *testing.T) {
	s, _ := Linear(3, 0.1, 0.3)
	beta := []float64{0, 0.1, 0.2, 0.3}
	ab := []float64{1, 0.9, 0.72, 0.504}
	post := []float64{0, 0, 1.0 / 14, 0.084 / 0.496}
	epsHat := []float64{0.5, -1}
	for _, v := range []Variance{VarBeta, VarPosterior} {
		t.Run(v.String(), func(t *testing.T) {
			r := rng.Stream(3, "sampler-pin")
			want := make([]float64, 0, 6)
			for _, chunkRows := range []int{2, 1} {
				x := make([]float64, 2*chunkRows)
				for i := range x {
					x[i] = r.NormFloat64()
				}
				for tt := 3; tt >= 1; tt-- {
					sig := 0.0
					if tt > 1 {
						sig = math.Sqrt(beta[tt])
						if v == VarPosterior {
							sig = math.Sqrt(post[tt])
						}
					}
					for i := range x {
						x[i] = (x[i] - beta[tt]/math.Sqrt(1-ab[tt])*epsHat[i%2]) / math.Sqrt(1-beta[tt])
						if tt > 1 {
							x[i] += sig * r.NormFloat64()
						}
					}
				}
				want = append(want, x...)
			}
			smp := NewSampler(s, v)
			smp.Chunk = 2
			got := smp.Sample(constPred{epsHat}, 3, rng.Stream(3, "sampler-pin"), nil)
			nearVec(t, "samples", got, want)
			// The documented guarantee: the output depends only on (stream, n, Chunk).
			dst := make([]float64, 100)
			again := smp.Sample(constPred{epsHat}, 3, rng.Stream(3, "sampler-pin"), dst)
			nearVec(t, "samples into a longer dst", again, want)
		})
	}
	// Chunk ≤ 0 means DefaultChunk (all 3 rows in one chunk).
	a := (&Sampler{Sched: s}).Sample(constPred{epsHat}, 3, rng.Stream(4), nil)
	b := NewSampler(s, VarBeta).Sample(constPred{epsHat}, 3, rng.Stream(4), nil)
	nearVec(t, "chunk 0 = default chunk", a, b)
	if VarBeta.String() != "beta" || VarPosterior.String() != "posterior" || Variance(7).String() != "variance(7)" {
		t.Error("Variance strings")
	}
	bad := &Sampler{Sched: s, Variance: 9}
	defer func() {
		if recover() == nil {
			t.Error("unknown variance did not panic")
		}
	}()
	bad.Sample(constPred{epsHat}, 1, rng.Stream(4), nil)
}

// TestPinTimeEmbedding: dim 4 → h = 2, ω = (1, 10000^{−1}); row t is
// (sin t, sin(t/10⁴), cos t, cos(t/10⁴)). dim 2 → ω_0 = 1.
func TestPinTimeEmbedding(t *testing.T) {
	e := TimeEmbedding(3, 4)
	if len(e) != 16 {
		t.Fatalf("len %d", len(e))
	}
	for tt := 0; tt <= 3; tt++ {
		f := float64(tt)
		nearVec(t, "embedding row", e[tt*4:(tt+1)*4], []float64{math.Sin(f), math.Sin(f / 1e4), math.Cos(f), math.Cos(f / 1e4)})
	}
	e = TimeEmbedding(2, 2)
	nearVec(t, "dim-2 row 2", e[4:6], []float64{math.Sin(2), math.Cos(2)})
	// dim 6 → h = 3, ω = (1, 10000^{−1/2} = 0.01, 10000^{−1}).
	e = TimeEmbedding(1, 6)
	nearVec(t, "dim-6 row 1", e[6:12], []float64{math.Sin(1), math.Sin(0.01), math.Sin(1e-4), math.Cos(1), math.Cos(0.01), math.Cos(1e-4)})
}

// tinyNet is the denoiser with Dim = d, TimeDim = 2, Hidden = [1]
// (3d + 3 parameters; 6 for d = 1): input u = (x_0..x_{d−1}, sin t, cos t);
// z = Σ_k u_k·W1[k] + b1 (W_1 is (d+2)×1, row-major fan_in × fan_out);
// h = act(z); out_j = W2[j]·h + b2[j]. Parameters in layout order:
// W1 (d+2 entries), b1, W2 (d entries), b2 (d entries).
type tinyNet struct {
	d int
	p []float64
}

func silu(z float64) float64  { return z / (1 + math.Exp(-z)) }
func dsilu(z float64) float64 { s := 1 / (1 + math.Exp(-z)); return s * (1 + z*(1-s)) }

func (n tinyNet) forward(xt []float64, t int, act Activation) (out []float64, u []float64, z, h, dh float64) {
	d, p := n.d, n.p
	u = append(append([]float64(nil), xt...), math.Sin(float64(t)), math.Cos(float64(t)))
	z = p[d+2]
	for k := range u {
		z += p[k] * u[k]
	}
	h, dh = silu(z), dsilu(z)
	if act == ReLU {
		h, dh = math.Max(z, 0), 0
		if z > 0 {
			dh = 1
		}
	}
	out = make([]float64, d)
	for j := range out {
		out[j] = p[d+3+j]*h + p[2*d+3+j]
	}
	return out, u, z, h, dh
}

// lossGrad is mean over rows and coordinates of (ε − out)², with the
// gradient by the chain rule written out for this network.
func (n tinyNet) lossGrad(x []float64, ts []int, eps []float64, ab []float64, act Activation) (float64, []float64) {
	d, p := n.d, n.p
	g := make([]float64, 3*d+3)
	var loss float64
	scale := 1 / float64(len(ts)*d)
	for i, t := range ts {
		xt := make([]float64, d)
		for j := range xt {
			xt[j] = math.Sqrt(ab[t])*x[i*d+j] + math.Sqrt(1-ab[t])*eps[i*d+j]
		}
		out, u, _, h, dh := n.forward(xt, t, act)
		var dhTotal float64
		for j := range out {
			r := out[j] - eps[i*d+j]
			loss += r * r * scale
			dout := 2 * r * scale
			g[2*d+3+j] += dout
			g[d+3+j] += dout * h
			dhTotal += dout * p[d+3+j]
		}
		dz := dhTotal * dh
		for k := range u {
			g[k] += dz * u[k]
		}
		g[d+2] += dz
	}
	return loss, g
}

// TestPinDenoiserLossAndGradient compares LossAt (and the draws of
// LossGrad) with tinyNet on two rows at steps 1 and 3 of the hand
// schedule, for d = 1 and d = 2 and both activations.
func TestPinDenoiserLossAndGradient(t *testing.T) {
	s, _ := Linear(3, 0.1, 0.3)
	ab := []float64{1, 0.9, 0.72, 0.504}
	params := map[int][]float64{
		1: {0.7, -0.4, 0.3, 0.1, -1.2, 0.05},
		2: {0.7, -0.2, -0.4, 0.3, 0.1, -1.2, 0.8, 0.05, -0.3},
	}
	for _, d := range []int{1, 2} {
		for _, act := range []Activation{SiLU, ReLU} {
			t.Run(fmt.Sprintf("d=%d/%v", d, act), func(t *testing.T) {
				den, err := NewDenoiser(NetConfig{Dim: d, Hidden: []int{1}, TimeDim: 2, Act: act}, s)
				if err != nil {
					t.Fatal(err)
				}
				if den.NumParams() != 3*d+3 || den.Dim() != d || den.Schedule() != s {
					t.Fatalf("shape: %d params", den.NumParams())
				}
				p := params[d]
				net := tinyNet{d, p}
				x := []float64{0.8, -1.5, 0.4, 1.1}[:2*d]
				eps := []float64{0.3, -0.6, 1.2, -0.1}[:2*d]
				ts := []int{1, 3}
				g := make([]float64, len(p))
				loss := den.LossAt(p, x, 2, ts, eps, g)
				wl, wg := net.lossGrad(x, ts, eps, ab, act)
				near(t, "loss", loss, wl)
				nearVec(t, "gradient", g, wg)
				// Without a gradient buffer only the loss is computed.
				near(t, "loss without gradient", den.LossAt(p, x, 2, ts, eps, nil), wl)
				// LossGrad draws t = 1 + IntN(T), then ε (d values), row by row.
				r := rng.Stream(8, "tiny")
				dts := make([]int, 2)
				deps := make([]float64, 2*d)
				for i := range dts {
					dts[i] = 1 + r.IntN(3)
					for j := 0; j < d; j++ {
						deps[i*d+j] = r.NormFloat64()
					}
				}
				wl, wg = net.lossGrad(x, dts, deps, ab, act)
				loss = den.LossGrad(p, model.Batch{X: x, N: 2, D: d}, g, rng.Stream(8, "tiny"))
				near(t, "LossGrad loss", loss, wl)
				nearVec(t, "LossGrad gradient", g, wg)
				// Predictions ε_w(x, t = 2) for a batch of two rows.
				xs := []float64{0.2, -0.7, 1.5, 0.1}[:2*d]
				out := make([]float64, 2*d)
				den.PredictEps(p, xs, 2, 2, out)
				for i := 0; i < 2; i++ {
					want, _, _, _, _ := net.forward(xs[i*d:(i+1)*d], 2, act)
					nearVec(t, "ε_w", out[i*d:(i+1)*d], want)
				}
				bound := den.Bind(p)
				out2 := make([]float64, 2*d)
				bound.PredictEps(xs, 2, 2, out2)
				nearVec(t, "bound predictor", out2, out)
				if bound.Dim() != d {
					t.Errorf("bound Dim %d", bound.Dim())
				}
				// Empty batch: loss 0, gradient cleared.
				for i := range g {
					g[i] = 1
				}
				if l := den.LossAt(p, nil, 0, nil, nil, g); l != 0 || g[0] != 0 || g[len(g)-1] != 0 {
					t.Errorf("empty batch: loss %v, gradient %v", l, g)
				}
			})
		}
	}
	// ReLU at a pre-activation of exactly 0 passes no gradient (h'(0) = 0):
	// with W1 = 0 and b1 = 0, z = 0 for every input.
	den, _ := NewDenoiser(NetConfig{Dim: 1, Hidden: []int{1}, TimeDim: 2, Act: ReLU}, s)
	p := []float64{0, 0, 0, 0, 1.5, 0.2}
	g := make([]float64, 6)
	den.LossAt(p, []float64{0.5}, 1, []int{2}, []float64{0.4}, g)
	_, want := tinyNet{1, p}.lossGrad([]float64{0.5}, []int{2}, []float64{0.4}, ab, ReLU)
	nearVec(t, "ReLU gradient at z = 0", g, want)
}

// TestPinNetInitAndShape: Init draws W_l entries from N(0, 1/fan_in) in
// layout order, layer by layer, and zeroes the biases. For Dim 2,
// TimeDim 2, Hidden [3]: W_1 is 4×3 (std ½), b_1 3, W_2 3×2 (std 1/√3), b_2 2.
func TestPinNetInitAndShape(t *testing.T) {
	s, _ := Linear(3, 0.1, 0.3)
	den, err := NewDenoiser(NetConfig{Dim: 2, Hidden: []int{3}, TimeDim: 2}, s)
	if err != nil {
		t.Fatal(err)
	}
	if den.NumParams() != 4*3+3+3*2+2 {
		t.Fatalf("NumParams %d", den.NumParams())
	}
	p := make([]float64, den.NumParams())
	for i := range p {
		p[i] = 9
	}
	den.Init(p, rng.Stream(4, "init"))
	r := rng.Stream(4, "init")
	want := make([]float64, 0, len(p))
	for i := 0; i < 12; i++ {
		want = append(want, 0.5*r.NormFloat64())
	}
	want = append(want, 0, 0, 0)
	for i := 0; i < 6; i++ {
		want = append(want, r.NormFloat64()/math.Sqrt(3))
	}
	want = append(want, 0, 0)
	nearVec(t, "initial parameters", p, want)
	c := den.Net().Config()
	if c.Dim != 2 || len(c.Hidden) != 1 || c.Hidden[0] != 3 || c.TimeDim != 2 || den.Net().Steps() != 3 || den.Net().NumParams() != len(p) {
		t.Errorf("Config %+v", c)
	}
	c.Hidden[0] = 99 // Config returns a copy
	if den.Net().Config().Hidden[0] != 3 {
		t.Error("Config exposes the hidden widths")
	}
	cl := den.Clone()
	if cl.NumParams() != den.NumParams() || cl.Schedule() != s {
		t.Error("Clone changed the shape")
	}
	g1, g2 := make([]float64, len(p)), make([]float64, len(p))
	l1 := den.LossAt(p, []float64{1, 2}, 1, []int{3}, []float64{0.1, 0.2}, g1)
	l2 := cl.LossAt(p, []float64{1, 2}, 1, []int{3}, []float64{0.1, 0.2}, g2)
	if l1 != l2 {
		t.Errorf("clone loss %v, original %v", l2, l1)
	}
	nearVec(t, "clone gradient", g2, g1)
	// Steps 0..T are accepted, others panic.
	for _, tt := range []int{0, 3} {
		den.LossAt(p, []float64{1, 2}, 1, []int{tt}, []float64{0.1, 0.2}, nil)
	}
	for _, tt := range []int{-1, 4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("step %d accepted", tt)
				}
			}()
			den.LossAt(p, []float64{1, 2}, 1, []int{tt}, []float64{0.1, 0.2}, nil)
		}()
	}
	for _, tc := range []struct {
		cfg NetConfig
		T   int
		ok  bool
	}{
		{NetConfig{Dim: 1, Hidden: []int{1}, TimeDim: 2}, 1, true},
		{NetConfig{Dim: 0, Hidden: []int{1}, TimeDim: 2}, 1, false},
		{NetConfig{Dim: 1, TimeDim: 2}, 1, false},
		{NetConfig{Dim: 1, Hidden: []int{0}, TimeDim: 2}, 1, false},
		{NetConfig{Dim: 1, Hidden: []int{1}, TimeDim: 0}, 1, false},
		{NetConfig{Dim: 1, Hidden: []int{1}, TimeDim: 3}, 1, false},
		{NetConfig{Dim: 1, Hidden: []int{1}, TimeDim: 2, Act: 5}, 1, false},
		{NetConfig{Dim: 1, Hidden: []int{1}, TimeDim: 2}, 0, false},
	} {
		if _, err := NewNet(tc.cfg, tc.T); (err == nil) != tc.ok {
			t.Errorf("NewNet(%+v, %d): %v", tc.cfg, tc.T, err)
		}
	}
	if _, err := NewDenoiser(NetConfig{Dim: 1, Hidden: []int{1}, TimeDim: 2}, nil); err == nil {
		t.Error("denoiser without schedule accepted")
	}
	if SiLU.String() != "silu" || ReLU.String() != "relu" || Activation(4).String() != "activation(4)" {
		t.Error("Activation strings")
	}
}

// TestPinOracles: a single Gaussian N(μ, s²) has ε*(x, t) =
// √(1−ᾱ)(x − √ᾱμ)/(ᾱs² + 1 − ᾱ). For two components the posterior
// weights w_k ∝ π_k·N(x; √ᾱμ_k, v_k) multiply the per-component values;
// both are written out here at t = 2 of the hand schedule (ᾱ = 0.72).
func TestPinOracles(t *testing.T) {
	s, _ := Linear(3, 0.1, 0.3)
	const a = 0.72
	one := &GaussianMixture{Means: [][]float64{{1, -2}}, Stds: []float64{0.5}, Weights: []float64{1}}
	out := make([]float64, 4)
	x := []float64{0.3, 0.4, -1, 2}
	one.Optimal(s).PredictEps(x, 2, 2, out)
	v := a*0.25 + 1 - a
	for i := 0; i < 2; i++ {
		for j, mu := range []float64{1, -2} {
			near(t, "single-Gaussian ε*", out[i*2+j], math.Sqrt(1-a)*(x[i*2+j]-math.Sqrt(a)*mu)/v)
		}
	}
	two := &GaussianMixture{Means: [][]float64{{1}, {-2}}, Stds: []float64{0.5, 1.5}, Weights: []float64{0.25, 0.75}}
	o := two.Optimal(s)
	if o.Dim() != 1 {
		t.Errorf("Dim %d", o.Dim())
	}
	xs := []float64{0.3, -4}
	out = make([]float64, 2)
	o.PredictEps(xs, 2, 2, out)
	for i, xi := range xs {
		var num, den float64
		for k, mu := range []float64{1, -2} {
			vk := a*two.Stds[k]*two.Stds[k] + 1 - a
			d := xi - math.Sqrt(a)*mu
			w := two.Weights[k] / math.Sqrt(2*math.Pi*vk) * math.Exp(-d*d/(2*vk))
			num += w * math.Sqrt(1-a) * d / vk
			den += w
		}
		near(t, "mixture ε*", out[i], num/den)
	}
	// Two dimensions: the Gaussian density has the factor v_k^{−d/2}.
	two2 := &GaussianMixture{Means: [][]float64{{1, 0}, {-2, 1}}, Stds: []float64{0.5, 1.5}, Weights: []float64{0.4, 0.6}}
	x2 := []float64{0.3, -0.2, -1, 2}
	out2 := make([]float64, 4)
	two2.Optimal(s).PredictEps(x2, 2, 2, out2)
	for i := 0; i < 2; i++ {
		num := []float64{0, 0}
		var den float64
		for k := range two2.Means {
			vk := a*two2.Stds[k]*two2.Stds[k] + 1 - a
			var q float64
			for j := 0; j < 2; j++ {
				dj := x2[i*2+j] - math.Sqrt(a)*two2.Means[k][j]
				q += dj * dj
			}
			w := two2.Weights[k] / (2 * math.Pi * vk) * math.Exp(-q/(2*vk))
			for j := 0; j < 2; j++ {
				num[j] += w * math.Sqrt(1-a) * (x2[i*2+j] - math.Sqrt(a)*two2.Means[k][j]) / vk
			}
			den += w
		}
		nearVec(t, "2-D mixture ε*", out2[i*2:i*2+2], []float64{num[0] / den, num[1] / den})
	}
	// Switching steps refreshes the cached constants: t = 1 (ᾱ = 0.9) then 2.
	o.PredictEps(xs, 2, 1, out)
	o.PredictEps(xs, 2, 2, out)
	want := make([]float64, 2)
	two.Optimal(s).PredictEps(xs, 2, 2, want)
	nearVec(t, "after a step change", out, want)
	// A zero-weight component contributes nothing.
	zw := &GaussianMixture{Means: [][]float64{{1}, {-2}}, Stds: []float64{0.5, 1.5}, Weights: []float64{0, 1}}
	zw.Optimal(s).PredictEps(xs, 2, 2, out)
	single := &GaussianMixture{Means: [][]float64{{-2}}, Stds: []float64{1.5}, Weights: []float64{1}}
	single.Optimal(s).PredictEps(xs, 2, 2, want)
	nearVec(t, "zero-weight component", out, want)
}

// TestPinMixtureSampleAndValidate: Sample draws the component by inverse
// CDF (u < cumulative weight), then the coordinates.
func TestPinMixtureSampleAndValidate(t *testing.T) {
	g := &GaussianMixture{Means: [][]float64{{0, 0}, {10, -10}}, Stds: []float64{1, 2}, Weights: []float64{0.3, 0.7}}
	x, labels := g.Sample(rng.Stream(2, "mix"), 5, nil, nil)
	r := rng.Stream(2, "mix")
	for i := 0; i < 5; i++ {
		k := 1
		if r.Float64() < 0.3 {
			k = 0
		}
		if labels[i] != k {
			t.Errorf("row %d component %d, want %d", i, labels[i], k)
		}
		for j := 0; j < 2; j++ {
			near(t, "sample", x[i*2+j], g.Means[k][j]+g.Stds[k]*r.NormFloat64())
		}
	}
	for _, tc := range []struct {
		g    GaussianMixture
		okay bool
	}{
		{GaussianMixture{Means: [][]float64{{0}}, Stds: []float64{1}, Weights: []float64{1}}, true},
		{GaussianMixture{}, false},
		{GaussianMixture{Means: [][]float64{{0}}, Stds: []float64{1, 1}, Weights: []float64{1}}, false},
		{GaussianMixture{Means: [][]float64{{0}}, Stds: []float64{1}, Weights: []float64{1, 0}}, false},
		{GaussianMixture{Means: [][]float64{{}}, Stds: []float64{1}, Weights: []float64{1}}, false},
		{GaussianMixture{Means: [][]float64{{0}, {0, 1}}, Stds: []float64{1, 1}, Weights: []float64{0.5, 0.5}}, false},
		{GaussianMixture{Means: [][]float64{{0}}, Stds: []float64{0}, Weights: []float64{1}}, false},
		{GaussianMixture{Means: [][]float64{{0}, {1}}, Stds: []float64{1, 1}, Weights: []float64{-0.5, 1.5}}, false},
		{GaussianMixture{Means: [][]float64{{0}, {1}}, Stds: []float64{1, 1}, Weights: []float64{0, 1}}, true},
		{GaussianMixture{Means: [][]float64{{0}}, Stds: []float64{1}, Weights: []float64{1 + 2e-9}}, false},
		{GaussianMixture{Means: [][]float64{{0}}, Stds: []float64{1}, Weights: []float64{1 + 5e-10}}, true},
	} {
		if err := tc.g.Validate(); (err == nil) != tc.okay {
			t.Errorf("Validate(%+v) = %v", tc.g, err)
		}
	}
}
