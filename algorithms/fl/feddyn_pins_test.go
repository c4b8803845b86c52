package fl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// centreModel is f(θ; batch) = mean_i ½‖θ − x_i‖², whose gradient θ − x̄
// is easy to follow by hand: the pins below use it with clients whose
// examples are all equal, so every mini-batch has the same gradient.
type centreModel struct{ d int }

func (m centreModel) NumParams() int { return m.d }
func (m centreModel) LossGrad(p []float64, b model.Batch, g []float64, _ *rand.Rand) float64 {
	var loss float64
	if g != nil {
		clear(g)
	}
	for i := 0; i < b.N; i++ {
		for j := 0; j < m.d; j++ {
			r := p[j] - b.X[i*b.D+j]
			loss += 0.5 * r * r / float64(b.N)
			if g != nil {
				g[j] += r / float64(b.N)
			}
		}
	}
	return loss
}

// dynClients: client 0 holds three copies of (3, 4) (weight 3), client 1
// one copy of (0, 0.5) (weight 1), so size-weighted and plain means differ.
func dynClients() []*data.Dataset {
	return []*data.Dataset{
		{X: []float64{3, 4, 3, 4, 3, 4}, Y: []int{0, 0, 0}, N: 3, D: 2, Classes: 2},
		{X: []float64{0, 0.5}, Y: []int{0}, N: 1, D: 2, Classes: 2},
	}
}

// dynEngine runs every client every round for E = 2 epochs of one batch
// (two local steps) with plain SGD (lr 0.5 unless changed, no momentum).
func dynEngine(t *testing.T, alg Algorithm, lr float64) *Engine {
	t.Helper()
	cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 2, BatchSize: 8, LR: lr}}
	e, err := New(centreModel{2}, dynClients(), alg, cfg, rng.New(1, "pin"), []float64{0, 0}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func dynNear(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= 1e-12) {
			t.Errorf("%s[%d] = %.15g, want %.15g", what, i, got[i], want[i])
		}
	}
}

// TestFedDynPaperPin follows Acar et al.'s Algorithm 1 by hand: α = 0.1,
// lr 0.5, two clients, both active (N = 2), two local steps per round,
// local gradient (θ − a_i) − g_i + α(θ − θ̄).
//
// Round 1 (θ̄ = 0, g = 0):
//
//	client 0 (a = (3,4)): θ = (1.5, 2); grad (−1.35, −1.8); θ = (2.175, 2.9);
//	                      g_0 = −0.1·(2.175, 2.9) = (−0.2175, −0.29)
//	client 1 (a = (0,.5)): θ = (0, 0.25); grad (0, −0.225); θ = (0, 0.3625);
//	                      g_1 = (0, −0.03625)
//	h = −0.1·½·(2.175, 3.2625) = (−0.10875, −0.163125)
//	θ̄ = mean (1.0875, 1.63125) − h/α = (2.175, 3.2625)
//
// Round 2:
//
//	client 0: grad (−0.6075, −0.4475) → θ (2.47875, 3.48625);
//	          grad (−0.273375, −0.201375) → θ (2.6154375, 3.5869375);
//	          g_0 = (−0.26154375, −0.32244375)
//	client 1: grad (2.175, 2.79875) → θ (1.0875, 1.863125);
//	          grad (0.97875, 1.2594375) → θ (0.598125, 1.23340625);
//	          g_1 = (0.1576875, 0.166659375)
//	h = h − 0.05·(−1.1364375, −1.70465625) = (−0.051928125, −0.0778921875)
//	θ̄ = (1.60678125, 2.410171875) − h/α = (2.1260625, 3.18909375)
func TestFedDynPaperPin(t *testing.T) {
	alg := &FedDyn{Alpha: 0.1, MaxGradNorm: 10, Mode: DynPaper}
	e := dynEngine(t, alg, 0.5)
	e.TrainRound()
	dynNear(t, "θ̄¹", e.Server().Global, []float64{2.175, 3.2625})
	dynNear(t, "h¹", alg.h, []float64{-0.10875, -0.163125})
	dynNear(t, "g_0¹", e.ClientState(0).(*feddynClient).g, []float64{-0.2175, -0.29})
	dynNear(t, "g_1¹", e.ClientState(1).(*feddynClient).g, []float64{0, -0.03625})
	e.TrainRound()
	dynNear(t, "θ̄²", e.Server().Global, []float64{2.1260625, 3.18909375})
	dynNear(t, "h²", alg.h, []float64{-0.051928125, -0.0778921875})
	dynNear(t, "g_0²", e.ClientState(0).(*feddynClient).g, []float64{-0.26154375, -0.32244375})
	dynNear(t, "g_1²", e.ClientState(1).(*feddynClient).g, []float64{0.1576875, 0.166659375})
}

// clipTo is torch.nn.utils.clip_grad_norm_ written out once more for the
// expected values: g·c/(‖g‖ + 1e−6) when that factor is below 1.
func clipTo(g [2]float64, c float64) [2]float64 {
	n := math.Sqrt(g[0]*g[0] + g[1]*g[1])
	if f := c / (n + 1e-6); f < 1 {
		return [2]float64{g[0] * f, g[1] * f}
	}
	return g
}

// TestFedDynUpstreamPin: the released code's FedDyn with clip 1, lr 0.5,
// α = 0.1 (which must not matter: the regulariser is detached). Each local
// step is θ −= lr·clip(θ − a_i); the server broadcasts the PLAIN mean of the
// two uploads (not the 3:1 size-weighted one) plus the mean of the ∇ states,
// which is 0 because the ∇ increments θ_j − mean sum to zero; ∇ is indexed
// by position in the sampled list.
func TestFedDynUpstreamPin(t *testing.T) {
	local := func(start [2]float64, a [2]float64) [2]float64 {
		th := start
		for s := 0; s < 2; s++ {
			g := clipTo([2]float64{th[0] - a[0], th[1] - a[1]}, 1)
			th = [2]float64{th[0] - 0.5*g[0], th[1] - 0.5*g[1]}
		}
		return th
	}
	a := [][2]float64{{3, 4}, {0, 0.5}}
	for _, alpha := range []float64{0.1, 5} {
		alg := &FedDyn{Alpha: alpha, MaxGradNorm: 1, Mode: DynUpstream}
		e := dynEngine(t, alg, 0.5)
		global := [2]float64{0, 0}
		nabla := make([][2]float64, 2)
		for round := 0; round < 2; round++ {
			info := e.TrainRound()
			var ups [2][2]float64
			for j, id := range info.Selected {
				ups[j] = local(global, a[id])
			}
			mean := [2]float64{(ups[0][0] + ups[1][0]) / 2, (ups[0][1] + ups[1][1]) / 2}
			for j := range ups {
				nabla[j][0] += ups[j][0] - mean[0]
				nabla[j][1] += ups[j][1] - mean[1]
			}
			global = mean
			dynNear(t, "θ̄", e.Server().Global, global[:])
			for j := range nabla {
				dynNear(t, "∇ by position", alg.nabla[j], nabla[j][:])
			}
			dynNear(t, "mean ∇", alg.NablaMean(), []float64{0, 0})
		}
		// Round 1 by hand: client 0's first gradient (−3, −4) has norm 5
		// and is clipped to norm 1/(1+2e−7): θ ≈ (0.3, 0.4) after one step;
		// client 1 is never clipped: θ = (0, 0.25), then (0, 0.375).
		if got := local([2]float64{}, a[1]); got != [2]float64{0, 0.375} {
			t.Fatalf("client 1 by hand: %v", got)
		}
	}
}

// TestFedDynUpstreamStatesNeverMoveTheModel runs upstream FedDyn on the toy
// data with stragglers and partial participation: the ∇ mean it adds stays
// at rounding level, so the broadcast model is the plain mean of uploads.
func TestFedDynUpstreamStatesNeverMoveTheModel(t *testing.T) {
	e, _, _ := newEngine(t, "feddyn", baseConfig(), Hooks{})
	alg := e.Server().State.(*FedDyn)
	for k := 0; k < 20; k++ {
		e.TrainRound()
		for i, v := range alg.NablaMean() {
			if !(math.Abs(v) <= 1e-12) {
				t.Fatalf("round %d: mean ∇[%d] = %g, want 0 up to rounding", k, i, v)
			}
		}
	}
}

// TestPFedMePin follows upstream pFedMe by hand: lr 0.1, λ = 2, μ = 0.1,
// K = 2 inner steps per batch, E = 2 epochs of one batch, two clients.
// Inner step: θ −= lr·((θ − a) + λ(θ − w) + μθ); outer: w −= λ·lr·(w − θ).
//
//	client 0 (a = (3,4)):
//	  epoch 1: θ (0.3, 0.4), (0.507, 0.676); w = (0.1014, 0.1352)
//	  epoch 2: θ (0.67011, 0.89348), (0.7826559, 1.0435412);
//	           w = 0.8w + 0.2θ = (0.23765118, 0.31686824)
//	client 1 (a = (0,.5)):
//	  epoch 1: θ (0, 0.05), (0, 0.0845); w = (0, 0.0169)
//	  epoch 2: θ (0, 0.111685), (0, 0.13044265); w = (0, 0.03960853)
//	server: (3·w_0 + w_1)/4 = (0.178238385, 0.2475533125)
func TestPFedMePin(t *testing.T) {
	alg := &PFedMe{K: 2, Lambda: 2, Mu: 0.1, Beta: 1}
	e := dynEngine(t, alg, 0.1)
	e.TrainRound()
	dynNear(t, "θ_0", alg.Personal(e.ClientState(0)), []float64{0.7826559, 1.0435412})
	dynNear(t, "θ_1", alg.Personal(e.ClientState(1)), []float64{0, 0.13044265})
	dynNear(t, "ω̄", e.Server().Global, []float64{0.178238385, 0.2475533125})
	if c := e.Server().Counters; c.SGDSteps != 8 || c.SampleGrads != 2*2*(3+1) {
		t.Errorf("counters %+v: want 8 inner steps and 16 sample gradients", c)
	}
}

// TestPFedMeReleasePersonal: with ReleasePersonal the output-perturbation
// hook sees the personalised model as well as the upload.
func TestPFedMeReleasePersonal(t *testing.T) {
	for _, release := range []bool{false, true} {
		var seen int
		hooks := Hooks{AfterLocal: func(c *Client, p []float64) {
			seen++
			p[0] += 100
		}}
		alg := &PFedMe{K: 2, Lambda: 2, Mu: 0.1, Beta: 1, ReleasePersonal: release}
		cfg := Config{Sampling: Uniform, Frac: 1, Local: LocalConfig{Epochs: 2, BatchSize: 8, LR: 0.1}}
		e, err := New(centreModel{2}, dynClients(), alg, cfg, rng.New(1, "pin"), []float64{0, 0}, hooks)
		if err != nil {
			t.Fatal(err)
		}
		e.TrainRound()
		want, th := 2, 0.7826559
		if release {
			want, th = 4, 100.7826559
		}
		if seen != want {
			t.Errorf("release %v: hook ran %d times, want %d", release, seen, want)
		}
		dynNear(t, "θ_0", alg.Personal(e.ClientState(0)), []float64{th, 1.0435412})
	}
}

// TestFedDynServerSteps checks the two server updates on their own with
// N = 3 clients of which two uploaded (ids 2 and 0, in that order).
func TestFedDynServerSteps(t *testing.T) {
	ups := []*Upload{{Client: 2, Weight: 5, Params: []float64{1, 2}}, {Client: 0, Weight: 1, Params: []float64{3, -2}}}
	// Paper: h = −α(1/N)Σ(θ_i − θ̄) with N = 3 (all clients, not the two
	// active ones): θ̄ = (1, 1), Σ(θ_i − θ̄) = (2, −2), α = 0.3 →
	// h = (−0.2, 0.2); θ = mean (2, 0) − h/α = (2 + 2/3, −2/3).
	s := &Server{Global: []float64{1, 1}, Prev: []float64{1, 1}, NClients: 3}
	p := &FedDyn{Alpha: 0.3, Mode: DynPaper}
	p.Setup(s)
	p.Aggregate(s, ups)
	dynNear(t, "paper h", p.h, []float64{-0.2, 0.2})
	dynNear(t, "paper θ", s.Global, []float64{2 + 2.0/3, -2.0 / 3})
	// Upstream: plain mean (2, 0) whatever the weights; ∇ at positions 0
	// and 1 (not at ids 2 and 0): (−1, 2) and (1, −2); ∇_2 untouched.
	s = &Server{Global: []float64{1, 1}, Prev: []float64{1, 1}, NClients: 3}
	u := &FedDyn{Alpha: 0.3, Mode: DynUpstream}
	u.Setup(s)
	u.Aggregate(s, ups)
	dynNear(t, "upstream θ", s.Global, []float64{2, 0})
	dynNear(t, "∇ position 0", u.nabla[0], []float64{-1, 2})
	dynNear(t, "∇ position 1", u.nabla[1], []float64{1, -2})
	dynNear(t, "∇ position 2", u.nabla[2], []float64{0, 0})
}
