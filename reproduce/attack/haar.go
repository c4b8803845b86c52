package attack

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/dpfl"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// The Haar paper's runs as reproduce/haar's default spec configures them
// (sample_level and user_level, Fashion-MNIST 14×14, LogReg, δ = 1e-5).
const (
	haarDelta = 1e-5
	// sample level: 20 clients × 500, 20 rounds × 1 epoch of Poisson lots
	// of expected size 25 (q = 0.05, 20 steps a round), SGD lr 0.25.
	haarSamplePublic, haarSampleClient = 1000, 500
	haarLot, haarSampleRounds          = 25.0, 20
	haarSampleLR                       = 0.25
	// user level: 100 clients × 570 (the training set less 3 000 public),
	// Bernoulli q_c = 0.2, 30 rounds × 1 epoch of batch-32 SGD, lr 0.1.
	haarUserPublic, haarUserClients = 3000, 100
	haarUserQ, haarUserRounds       = 0.2, 30
	haarUserBatch, haarUserLR       = 32, 0.1
)

// haarMethod is a mechanism of the paper as reproduce/haar builds it.
type haarMethod struct {
	name string
	mech func(level string) dpfl.Mechanism
}

var haarMethods = []haarMethod{
	{"vanilla", func(string) dpfl.Mechanism { return dpfl.Gaussian{} }},
	{"wav", func(level string) dpfl.Mechanism { return dpfl.NewWavelet(haarDomain(level), dpfl.Lemma2) }},
	{"wav_literal", func(level string) dpfl.Mechanism { return dpfl.NewWavelet(haarDomain(level), dpfl.Literal) }},
}

// haarDomain: Algorithm 1 clips in the coefficient domain (sample level),
// Algorithm 2 clips client updates in the parameter domain (user level).
func haarDomain(level string) haar.ClipDomain {
	if level == "sample" {
		return haar.CoefficientDomain
	}
	return haar.GradientDomain
}

func init() {
	for _, level := range []string{"sample", "user"} {
		for _, m := range haarMethods {
			for _, sigma := range []float64{1, 1.5, 3} {
				registerHaar(level, m, sigma)
			}
		}
	}
}

func registerHaar(level string, m haarMethod, sigma float64) {
	s := spec{id: fmt.Sprintf("%s/%s/sigma=%g", level, m.name, sigma), delta: haarDelta,
		smoke:  sigma == 3 && m.name != "vanilla" && (level == "sample" || m.name == "wav") || sigma == 1 && m.name == "vanilla" && level == "sample" || sigma == 3 && m.name == "vanilla" && level == "user",
		design: "multi-run game, white-box gradient canary (Nasr et al. 2023) on the all-ones direction, mixture-LR score, calibrated threshold, Clopper–Pearson"}
	if level == "sample" {
		s.algorithm = "DP-SGD (" + m.name + ")"
		s.threat = "white-box: every privatised lot gradient of the canary's client in round 1 (the releases the DP-SGD accountant composes)"
		s.claimSource = "Lemma 2 / Figs 7–9: vanilla DP-SGD's ε at the nominal σ (RDP, q = 0.05, 400 steps)"
		s.trials = map[string]int{Smoke: 60, Default: 1000}
		s.calibration = map[string]int{Smoke: 20, Default: 100}
		if m.name != "vanilla" && sigma == 1 {
			// An error-free test reaches ln(0.64·n/3.69): n = 14,000 puts
			// the budget (7.8) above the claimed 7.42.
			s.trials[Default] = 14000
		}
		s.setup = func(o Options) (trialFunc, accounting, error) { return haarSampleSetup(o, m, sigma) }
		s.note = "a trial is round 1 of the canary client's DP-SGD (20 lots, q = 0.05, the median-rule clip on the public split): its releases depend only on the initial model, its 500 images and its streams, as in the 20-client run; at most 1 − 0.95^20 = 64 % of D′ trials contain the canary, so an error-free test reaches ln(0.64·n/3.69), not ln(n/3.69)"
	} else {
		s.algorithm = "DP-FedAvg (" + m.name + ")"
		s.threat = "released global model after round 1 (the per-round release the DP-FedAvg accountant composes; participation hidden)"
		s.claimSource = "Lemma 2 / Figs 10–12: vanilla DP-FedAvg's ε at the nominal z (RDP, q_c = 0.2, 30 rounds)"
		s.trials = map[string]int{Smoke: 30, Default: 600}
		s.calibration = map[string]int{Smoke: 10, Default: 60}
		if m.name != "vanilla" && sigma == 1.5 {
			// ln(0.2·n/3.69) > 4.58 needs n > 1,800 (σ = 1's 8.93 would
			// need 140,000 rounds of 100 clients: not at this scale).
			s.trials[Default] = 2500
		}
		s.setup = func(o Options) (trialFunc, accounting, error) { return haarUserSetup(o, m, sigma) }
		s.note = "a trial is round 1 of DP-FedAvg over 100 clients (10 × 64 images at smoke) with Bernoulli(0.2) participation; client 0 is the canary client (every row the canary: its clipped update is C along the canary direction) or its null twin (update 0); the canary takes part in at most 20 % of D′ trials, so an error-free test reaches ln(0.2·n/3.69)"
	}
	var err error
	if s.claimed, err = haarNominal(level, sigma); err != nil {
		panic(err)
	}
	register("haar", s)
}

// haarEvent is the accountant's event for `steps` releases of the level's
// sampled Gaussian with noise multiplier z.
func haarEvent(level string, z float64, releases int) accountant.Event {
	q := haarLot / haarSampleClient
	if level == "user" {
		q = haarUserQ
	}
	return accountant.SelfComposed{Event: accountant.PoissonSampled{Q: q, Event: accountant.Gaussian{Sigma: z}}, Count: releases}
}

func haarReleases(level string) (perRound, rounds int) {
	if level == "sample" {
		return dpfl.StepsPerEpoch(haarSampleClient, haarLot), haarSampleRounds
	}
	return 1, haarUserRounds
}

// haarNominal is the ε the paper claims: vanilla's at σ (RDP).
func haarNominal(level string, sigma float64) (float64, error) {
	per, rounds := haarReleases(level)
	e, _, err := accountant.RDPEpsilon(haarEvent(level, sigma, per*rounds), haarDelta)
	return e, err
}

// haarAccounting is the RDP accountant on the mechanism's effective noise
// multiplier (dpfl.Mechanism.Multiplier): the whole run and round 1.
func haarAccounting(level string, mech dpfl.Mechanism, sigma float64, np int) (accounting, error) {
	z := mech.Multiplier(sigma, np)
	per, rounds := haarReleases(level)
	a := accounting{name: "RDP (effective multiplier)"}
	for _, k := range []struct {
		n   int
		dst *float64
	}{{per * rounds, &a.whole}, {per, &a.trial}} {
		e, _, err := accountant.RDPEpsilon(haarEvent(level, z, k.n), haarDelta)
		if err != nil {
			return a, err
		}
		*k.dst = e
	}
	return a, nil
}

// haarSplit is the seed's cut of Fashion-MNIST: a public set (the median
// clip's proxy) and client datasets, as reproduce/haar cuts it (iid equal
// shares of a shuffle).
func haarSplit(o Options, public, clients, size int) (*data.Dataset, []*data.Dataset, error) {
	train, _, err := fashionMNIST(o.DataDir)
	if err != nil {
		return nil, nil, err
	}
	perm := make([]int, train.N)
	rng.Perm(rng.New(o.Seed, "attack", "haar", "split").Rand(), perm)
	if size == 0 {
		size = (train.N - public) / clients
	}
	if public+clients*size > train.N {
		return nil, nil, fmt.Errorf("split needs %d examples, have %d", public+clients*size, train.N)
	}
	pub := train.Subset(perm[:public])
	var cs []*data.Dataset
	for c := 0; c < clients; c++ {
		off := public + c*size
		cs = append(cs, train.Subset(perm[off:off+size]))
	}
	return pub, cs, nil
}

// recorder is the local optimizer of the audited DP-SGD client: plain SGD
// (the run's, momentum 0) that also hands every privatised gradient —
// what a white-box adversary of DP-SGD sees at each step — to observe.
type recorder struct {
	sgd     *optim.SGD
	observe func(g []float64)
}

func (r *recorder) Step(p, g []float64) {
	r.observe(g)
	r.sgd.Step(p, g)
}

func (r *recorder) Reset() { r.sgd.Reset() }

// projectionNoise is the standard deviation of ⟨noise, dir⟩ for the
// noise that draw adds to a zero vector, from n draws of a named stream
// (exact for Gaussian noise up to sampling error, which only changes the
// attack's power, never the validity of its bound).
func projectionNoise(key rng.Key, n int, dim int, dir []float64, draw func(r *rand.Rand, dst []float64)) float64 {
	r := key.Rand()
	dst := make([]float64, dim)
	var ss float64
	for i := 0; i < n; i++ {
		clear(dst)
		draw(r, dst)
		v := project(dst, dir)
		ss += v * v
	}
	return math.Sqrt(ss / float64(n))
}

// canaryScale is the norm of the canary gradient: far above any clip, so
// the clipped canary is exactly the clip bound along its direction.
const canaryScale = 1e6

func haarSampleSetup(o Options, m haarMethod, sigma float64) (trialFunc, accounting, error) {
	pub, clients, err := haarSplit(o, haarSamplePublic, 1, haarSampleClient)
	if err != nil {
		return nil, accounting{}, err
	}
	ds := clients[0]
	base := model.NewLogReg(ds.D, ds.Classes, model.CrossEntropy)
	init := make([]float64, base.NumParams())
	base.Init(init, rng.New(o.Seed, "attack", "haar", "init").Rand())
	mech := m.mech("sample")
	clip, err := dpfl.MedianExampleNorm(base, init, pub, mech)
	if err != nil {
		return nil, accounting{}, err
	}
	np := base.NumParams()
	acc, err := haarAccounting("sample", mech, sigma, np)
	if err != nil {
		return nil, acc, err
	}
	cm := newCanaryModel(base, canaryScale)
	d0, d1 := withSentinel(ds, 0, 0), withSentinel(ds, 0, canaryLabel)
	q := haarLot / float64(ds.N)
	denom := q * float64(ds.N)
	// The canary's shift of the projection and the noise's sd on it.
	g := make([]float64, np)
	cm.rowGrad(canaryRow(ds.D, 0), canaryLabel, g)
	mech.Clip(g, clip)
	shift := project(g, cm.dir) / denom
	sd := projectionNoise(rng.New(o.Seed, "attack", "haar", "sample", m.name, sigma, "noise"), 2000, np, cm.dir,
		func(r *rand.Rand, dst []float64) { mech.Lot(dst, nil, clip, sigma, denom, r) })
	a := shift / sd
	var score float64
	rec := &recorder{sgd: optim.NewSGD(haarSampleLR, 0), observe: func(g []float64) {
		score += mixtureLLR(project(g, cm.dir)/sd, a, q)
	}}
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1,
		Local: fl.LocalConfig{Epochs: 1, BatchSize: int(haarLot), LR: haarSampleLR}}
	trial := func(r *rand.Rand, canary bool) (float64, error) {
		in := d0
		if canary {
			in = d1
		}
		alg := &dpfl.DPSGD{Mechanism: mech, Schedule: dpfl.Constant{Sigma: sigma, C: clip}, Lot: haarLot, Optimizer: rec}
		e, err := fl.New(cm, []*data.Dataset{in}, alg, cfg, rng.New(r.Uint64(), "run"), init, fl.Hooks{})
		if err != nil {
			return 0, err
		}
		score = 0
		e.TrainRound()
		return score, nil
	}
	return trial, acc, nil
}

// nullClient is a client dataset of sentinel rows: the canary client of
// DP-FedAvg (every row the canary: its update is the clip bound along the
// canary direction) or its null twin (update 0, i.e. absent from the
// fixed-denominator sum).
func nullClient(d, classes, n, label int) *data.Dataset {
	ds := &data.Dataset{X: make([]float64, n*d), Y: make([]int, n), N: n, D: d, Classes: classes}
	for i := 0; i < n; i++ {
		ds.X[i*d] = sentinel
		ds.Y[i] = label
	}
	return ds
}

func haarUserSetup(o Options, m haarMethod, sigma float64) (trialFunc, accounting, error) {
	nClients := haarUserClients
	if o.Scale == Smoke {
		nClients = 10 // the denominators q_c·N follow; the canary's share of the noise is the same
	}
	pub, clients, err := haarSplit(o, haarUserPublic, nClients, 0)
	if err != nil {
		return nil, accounting{}, err
	}
	if o.Scale == Smoke {
		for i := range clients {
			clients[i] = clients[i].Subset(seq(64))
		}
	}
	d, classes := pub.D, pub.Classes
	base := model.NewLogReg(d, classes, model.CrossEntropy)
	np := base.NumParams()
	init := make([]float64, np)
	base.Init(init, rng.New(o.Seed, "attack", "haar", "init").Rand())
	mech := m.mech("user")
	local := fl.LocalConfig{Epochs: 1, BatchSize: haarUserBatch, LR: haarUserLR}
	n := clients[1].N
	var parts []*data.Dataset
	for off := 0; off+n <= pub.N; off += n {
		parts = append(parts, pub.Subset(seqFrom(off, n)))
	}
	clip, err := dpfl.MedianUpdateNorm(base, parts, local, rng.New(o.Seed, "attack", "haar", "clip"), init, mech)
	if err != nil {
		return nil, accounting{}, err
	}
	acc, err := haarAccounting("user", mech, sigma, np)
	if err != nil {
		return nil, acc, err
	}
	cm := newCanaryModel(base, canaryScale)
	den := haarUserQ * float64(nClients)
	g := make([]float64, np)
	cm.rowGrad(canaryRow(d, 0), canaryLabel, g)
	for i := range g {
		g[i] = -g[i] // SGD moves against the gradient
	}
	mech.Clip(g, clip)
	shift := project(g, cm.dir) / den
	sd := projectionNoise(rng.New(o.Seed, "attack", "haar", "user", m.name, sigma, "noise"), 2000, np, cm.dir,
		func(r *rand.Rand, dst []float64) { mech.Release(dst, clip/den, sigma, r) })
	a := shift / sd
	fed := func(label int) []*data.Dataset {
		out := append([]*data.Dataset{nullClient(d, classes, n, label)}, clients[1:]...)
		return out
	}
	d0, d1 := fed(0), fed(canaryLabel)
	cfg := fl.Config{Sampling: fl.Bernoulli, P: haarUserQ, Local: local}
	trial := func(r *rand.Rand, canary bool) (float64, error) {
		in := d0
		if canary {
			in = d1
		}
		alg := &dpfl.DPFedAvg{Mechanism: mech, Schedule: dpfl.Constant{Sigma: sigma, C: clip}, Q: haarUserQ}
		e, err := fl.New(cm, in, alg, cfg, rng.New(r.Uint64(), "run"), init, fl.Hooks{})
		if err != nil {
			return 0, err
		}
		e.TrainRound()
		s := e.Server()
		var o float64
		for i, v := range cm.dir {
			o += (s.Global[i] - init[i]) * v
		}
		return mixtureLLR(o/sd, a, haarUserQ), nil
	}
	return trial, acc, nil
}

func seq(n int) []int { return seqFrom(0, n) }

func seqFrom(off, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = off + i
	}
	return out
}
