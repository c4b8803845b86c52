package attack

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/model"
	alg "github.com/fedrepro/fedrepro/algorithms/normec"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Fed-α-NormEC as reproduce/normec's default spec runs it: Fashion-MNIST
// 14×14, LogReg, α = 0.01, one local step on a batch of 32, memory of
// every client, plain server step η = γ, K = 300 rounds, the paper's noise
// formula σ = p·β·√(K ln(1/δ))/ε at ε = 8, δ = 1e-5.
const (
	normecRounds       = 300
	normecEps, normecD = 8.0, 1e-5
	normecAlpha        = 0.01
	normecGamma        = 0.01
	normecBatch        = 32
)

type normecCase struct {
	p, beta float64
	// rounds per trial: enough for the summed score to separate when one
	// round does not (σ grows with β).
	rounds          int
	trials, calib   map[string]int
	smokeRegistered bool
}

var normecCases = []normecCase{
	{p: 1, beta: 0.01, rounds: 1, trials: map[string]int{Smoke: 300, Default: 15000}, calib: map[string]int{Smoke: 30, Default: 300}, smokeRegistered: true},
	{p: 0.25, beta: 0.01, rounds: 8, trials: map[string]int{Smoke: 100, Default: 15000}, calib: map[string]int{Smoke: 20, Default: 300}},
	{p: 1, beta: 0.1, rounds: 36, trials: map[string]int{Smoke: 30, Default: 12000}, calib: map[string]int{Smoke: 10, Default: 200}},
}

func init() {
	for _, c := range normecCases {
		c := c
		sigma := alg.ExperimentSigma(c.p, c.beta, normecRounds, normecEps, normecD)
		s := spec{id: fmt.Sprintf("formula/p=%g/beta=%g", c.p, c.beta), delta: normecD,
			algorithm: fmt.Sprintf("Fed-α-NormEC, paper's noise formula (σ = %.4g)", sigma),
			threat:    fmt.Sprintf("curious server: the canary client's transmitted messages in the first %d round(s) (Algorithm 1's server receives each message and sees who transmits)", c.rounds),
			design:    "multi-run game, white-box gradient canary (Nasr et al. 2023) on the all-ones direction at a client holding 31 real images, LLR score summed over rounds, calibrated threshold, Clopper–Pearson",
			claimed:   normecEps, claimSource: "§6: ε = 8, δ = 1e-5 for the noise p·β·√(K ln(1/δ))/ε",
			trials: c.trials, calibration: c.calib,
			gaussian: c.p == 1, releases: normecRounds / c.rounds,
			smoke: c.smokeRegistered,
			note:  "the projection of a client's normalized message on the canary direction moves by 1 (the sensitivity the reports' accountants use); the real images' messages are orthogonal to it",
		}
		s.setup = func(o Options) (trialFunc, accounting, error) { return normecSetup(o, c, sigma) }
		register("normec", s)
	}
}

// normecAccounting: the exact Gaussian composition over every round (an
// upper bound when participation is visible, exact at p = 1), for the
// whole run and for one trial's rounds; sensitivity 1.
func normecAccounting(sigma float64, trialRounds int) (accounting, error) {
	a := accounting{name: "exact Gaussian composition, all rounds transmitted (sensitivity 1; the server sees participation)"}
	var err error
	if a.whole, err = accountant.GaussianEpsilon(sigma/math.Sqrt(normecRounds), normecD); err != nil {
		return a, err
	}
	a.trial, err = accountant.GaussianEpsilon(sigma/math.Sqrt(float64(trialRounds)), normecD)
	return a, err
}

func normecSetup(o Options, c normecCase, sigma float64) (trialFunc, accounting, error) {
	acc, err := normecAccounting(sigma, c.rounds)
	if err != nil {
		return nil, acc, err
	}
	train, _, err := fashionMNIST(o.DataDir)
	if err != nil {
		return nil, acc, err
	}
	perm := make([]int, train.N)
	rng.Perm(rng.New(o.Seed, "attack", "normec", "client").Rand(), perm)
	rows := train.Subset(perm[:normecBatch])
	base := model.NewLogReg(train.D, train.Classes, model.CrossEntropy)
	np := base.NumParams()
	x0 := make([]float64, np)
	base.Init(x0, rng.New(o.Seed, "attack", "normec", "init").Rand())
	cm := newCanaryModel(base, canaryScale)
	client := func(label int) *data.Dataset { return withSentinel(rows, 0, label) }
	d0, d1 := client(0), client(canaryLabel)
	cfg := alg.Config{Alpha: normecAlpha, Beta: c.beta, Gamma: normecGamma, Eta: normecGamma, P: c.p, Sigma: sigma,
		Local: alg.Local{Kind: alg.OneStep}, Server: alg.PlainStep, Memory: alg.AllClients, Init: alg.Init{Kind: alg.InitZero}}
	a := 1 / sigma // the canary's shift of the projection (≈ 1) in noise units
	prev := make([]float64, np)
	trial := func(r *rand.Rand, canary bool) (float64, error) {
		in := d0
		if canary {
			in = d1
		}
		obj := &alg.ModelObjective{Model: cm, Data: model.Batch{X: in.X, Y: in.Y, N: in.N, D: in.D}}
		// The canary client alone: its messages depend only on x⁰, its
		// data and its noise, as in a federation of M clients; with M = 1
		// the server's v̂ moves by exactly β·q·message.
		a1, err := alg.New(cfg, []alg.Objective{obj}, x0, rng.New(r.Uint64(), "run"))
		if err != nil {
			return 0, err
		}
		var score float64
		for k := 0; k < c.rounds; k++ {
			copy(prev, a1.VHat())
			a1.Step()
			if len(a1.Participants()) == 0 {
				continue // no message this round: nothing to read
			}
			var proj float64
			for i, v := range a1.VHat() {
				proj += (v - prev[i]) * cm.dir[i]
			}
			proj /= c.beta / c.p
			score += mixtureLLR(proj/sigma, a, 1)
		}
		return score, nil
	}
	return trial, acc, nil
}
