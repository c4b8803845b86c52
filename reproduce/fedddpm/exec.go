package fedddpm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/diffusion"
	fa "github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// QuickTestLog is FedDDPM+'s QuickTest record, stored in the result.
type QuickTestLog struct {
	Rounds    []int     `json:"rounds"`
	Scores    []float64 `json:"scores"`
	StopRound int       `json:"stop_round"`
	Fired     bool      `json:"fired"`
}

// Extra is the paper-specific part of a result.
type Extra struct {
	QuickTest *QuickTestLog `json:"quicktest,omitempty"`
	// Grid holds GridN generated samples (row-major, 4 decimals) for the
	// sample figures (Figs. 4–6 analogue).
	Grid  []float64 `json:"grid,omitempty"`
	GridN int       `json:"grid_n,omitempty"`
	GridD int       `json:"grid_d,omitempty"`
	// Shape is C, H, W of image rows.
	Shape []int `json:"shape,omitempty"`
	// FeatureAccuracy is the feature classifier's test accuracy (images).
	FeatureAccuracy float64 `json:"feature_accuracy,omitempty"`
	// ClientSizes are m_i (min, median, max) of the federation.
	ClientSizes []int `json:"client_sizes,omitempty"`
}

// Execute runs one configuration with one seed: the whole experiment of a
// run, exported for tests and benchmarks.
func Execute(ctx context.Context, src *sources, cfg RunConfig, seed uint64) (*runner.Outcome, error) {
	st := cfg.Setting
	prep, err := src.prepare(st, cfg.GeneratorSeed)
	if err != nil {
		return nil, err
	}
	fed, err := src.federation(prep, st, cfg.Partition, seed)
	if err != nil {
		return nil, err
	}
	if cfg.Kind == centralMethod {
		return executeCentral(ctx, src, fed, cfg)
	}
	return executeFL(ctx, src, fed, cfg)
}

// runEnv is what the evaluation of one run needs.
type runEnv struct {
	prep *prepared
	fed  *federation
	cfg  RunConfig
	den  *diffusion.Denoiser
	smp  *diffusion.Sampler
	buf  []float64
}

func newEnv(fed *federation, cfg RunConfig) (*runEnv, error) {
	den, err := newDenoiser(cfg.Setting, fed.prep.train.D)
	if err != nil {
		return nil, err
	}
	return &runEnv{prep: fed.prep, fed: fed, cfg: cfg, den: den, smp: newSampler(cfg.Setting, den)}, nil
}

// sample draws n rows from the model p with r.
func (e *runEnv) sample(p []float64, n int, r *rand.Rand) []float64 {
	e.buf = e.smp.Sample(e.den.Bind(p), n, r, e.buf)
	return e.buf
}

// final scores the model and fills the outcome's Final and Extra grid.
func (e *runEnv) final(p []float64, out *runner.Outcome, ex *Extra) {
	n := e.cfg.Setting.Eval.Samples
	x := e.sample(p, n, e.fed.key.Derive("eval", "final").Rand())
	for k, v := range e.prep.scores(x, n) {
		out.Final[k] = v
	}
	if e.cfg.Grid && e.cfg.Setting.Eval.GridSamples > 0 {
		g := min(e.cfg.Setting.Eval.GridSamples, n)
		d := e.prep.train.D
		ex.Grid = make([]float64, g*d)
		for i := range ex.Grid {
			ex.Grid[i] = math.Round(x[i]*1e4) / 1e4
		}
		ex.GridN, ex.GridD = g, d
		if e.prep.image() {
			ex.Shape = []int{e.prep.shape.C, e.prep.shape.H, e.prep.shape.W}
		}
	}
	if e.prep.feat != nil {
		ex.FeatureAccuracy = e.prep.feat.TestAccuracy
	}
}

// curveFD is the FD of CurveSamples samples at training round t.
func (e *runEnv) curveFD(p []float64, t int) float64 {
	n := e.cfg.Setting.Eval.CurveSamples
	return e.prep.fd(e.sample(p, n, e.fed.key.Derive("eval", "curve", t).Rand()), n)
}

// heldOutLoss is the DDPM loss of p on the held-out rows with fixed
// evaluation draws (Fig. 8's loss).
func (e *runEnv) heldOutLoss(p []float64) float64 {
	t := e.prep.test
	return e.den.LossGrad(p, model.Batch{X: t.X, Y: t.Y, N: t.N, D: t.D}, nil, nil)
}

func sizeStats(cs []*data.Dataset) []int {
	s := make([]int, len(cs))
	for i, c := range cs {
		s[i] = c.N
	}
	lo, hi := s[0], s[0]
	for _, v := range s {
		lo, hi = min(lo, v), max(hi, v)
	}
	sorted := append([]int(nil), s...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	return []int{lo, sorted[len(sorted)/2], hi}
}

// usesAux reports whether a method builds the clients' warmup and the aux
// set (Alg. 1 line 1).
func usesAux(method string) bool {
	return method == "fedddpm" || method == "fedddpm+" || method == "localaug" || method == centralMethod
}

func executeFL(ctx context.Context, src *sources, fed *federation, cfg RunConfig) (*runner.Outcome, error) {
	st := cfg.Setting
	env, err := newEnv(fed, cfg)
	if err != nil {
		return nil, err
	}
	weights, err := named("aggregation weighting", st.Weights, weightings)
	if err != nil {
		return nil, err
	}
	base := fa.Base{Opt: st.clientOpt(), Weights: weights}
	clients := fed.clients
	counters := runner.Counters{}
	ex := &Extra{ClientSizes: sizeStats(clients)}
	var w *warm
	if usesAux(cfg.Method) {
		if w, err = src.warmup(fed); err != nil {
			return nil, err
		}
		counters["warmup_sample_grads"] = w.work.SampleGrads
		counters["sampling_forwards"] = w.forwards
		counters["aux_size"] = int64(w.aux.N)
	}
	var alg fl.Algorithm
	var plus *fa.FedDDPMPlus
	switch cfg.Method {
	case "fedavg":
		alg = &fa.FedAvg{Base: base}
	case "fedprox":
		alg = &fa.FedProx{Base: base, Mu: st.FedProxMu}
	case "scaffold":
		alg = &fa.Scaffold{Base: base, GlobalLR: st.ScaffoldLR}
	case "mofedsam":
		alg = &fa.MoFedSAM{Base: base, Rho: st.MoFedSAMRho, Alpha: st.MoFedSAMAlpha}
	case "localaug":
		if clients, err = fa.LocalAugData(clients, w.aux, fed.key); err != nil {
			return nil, err
		}
		alg = &fa.FedAvg{Base: base}
	case "fedddpm":
		alg, err = fa.NewFedDDPM(base, fa.Correction{Model: env.den, Aux: w.aux, Opt: st.serverOpt(), Epochs: st.ServerEpochs, Batch: st.Batch})
	case "fedddpm+":
		q, _ := st.qtConfig()
		rule, rerr := fa.NewStopRule(st.QuickTest.Every, q)
		if rerr != nil {
			return nil, rerr
		}
		never, _ := neverFired(st.QuickTest.NeverFired)
		// QuickTest's Evaluate(Sampling(w, TestSize)): FD of TestSize
		// samples to the training set, in the metric space of the final
		// score (decision 11; the paper's FID is also "computed using the
		// training set").
		score := func(p []float64, r *rand.Rand) float64 { return env.prep.fd(env.sample(p, q.TestSize, r), q.TestSize) }
		plus, err = fa.NewFedDDPMPlus(base, fa.Correction{Model: env.den, Aux: w.aux, Opt: st.plusOpt(), Epochs: st.PlusEpochs, Batch: st.Batch}, rule, score, never)
		alg = plus
	default:
		return nil, fmt.Errorf("unknown method %q", cfg.Method)
	}
	if err != nil {
		return nil, err
	}
	flcfg := fl.Config{Sampling: fl.Uniform, Frac: cfg.Participation,
		Local: fl.LocalConfig{Epochs: st.LocalEpochs, BatchSize: st.Batch, LR: st.ClientLR}}
	eng, err := fl.New(env.den, clients, alg, flcfg, fed.key.Derive("engine"), fed.init, fl.Hooks{})
	if err != nil {
		return nil, err
	}
	out := &runner.Outcome{Final: runner.Metrics{}}
	every := st.Eval.CurveEvery
	fig8 := cfg.Kind == "fig8"
	if fig8 {
		out.Rounds = append(out.Rounds, runner.Metrics{"round": 0, "loss": env.heldOutLoss(fed.init)})
	}
	rounds := fa.RunRounds(eng, alg, st.Rounds, func(t int) {
		if ctx.Err() != nil {
			return
		}
		g := eng.Server().Global
		m := runner.Metrics{}
		if fig8 {
			m["loss"] = env.heldOutLoss(g)
		}
		stopped := plus != nil && plus.Done()
		if cfg.Curves && every > 0 && ((t+1)%every == 0 || stopped) {
			m["fd"] = env.curveFD(g, t+1)
		}
		if len(m) > 0 {
			m["round"] = float64(t + 1)
			if stopped {
				m["stopped"] = 1
			}
			out.Rounds = append(out.Rounds, m)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g := eng.Server().Global
	env.final(g, out, ex)
	c := eng.Server().Counters
	counters["client_sample_grads"] = c.SampleGrads
	counters["client_steps"] = c.SGDSteps
	counters["uploads"] = c.Uploads
	counters["training_rounds"] = c.TrainingRounds
	if sw, ok := alg.(fa.ServerWorker); ok {
		counters["server_sample_grads"] = sw.ServerWork().SampleGrads
		counters["server_steps"] = sw.ServerWork().Steps
	} else {
		counters["server_sample_grads"] = 0
	}
	out.Final["rounds_trained"] = float64(rounds)
	if plus != nil {
		q := plus.Rule
		counters["sampling_forwards"] += int64(len(q.Scores)) * int64(q.Test.TestSize) * int64(st.Denoiser.Steps)
		ex.QuickTest = &QuickTestLog{Rounds: q.Rounds, Scores: q.Scores, StopRound: q.StopRound, Fired: q.Fired()}
		out.Final["stop_round"] = float64(q.StopRound)
		out.Final["fired"] = b2f(q.Fired())
		// The last point of the curve is the corrected model.
		if cfg.Curves && every > 0 && !q.Fired() {
			if ok, _ := plus.Corrected(); ok {
				out.Rounds = append(out.Rounds, runner.Metrics{"round": float64(rounds), "fd": env.curveFD(g, rounds), "stopped": 1})
			}
		}
	}
	if w != nil {
		out.Final["aux_fd"] = auxFD(env, w.aux)
	}
	counters["total_sample_grads"] = counters["client_sample_grads"] + counters["server_sample_grads"] + counters["warmup_sample_grads"]
	out.Counters = counters
	out.Extra = ex
	return out, nil
}

// auxFD is the FD of Eval.Samples random rows of an aux set (all rows when
// it is smaller), the "Synthetic Aux. Dataset" row of Table IV, at the same
// sample size as the models' scores.
func auxFD(env *runEnv, aux *data.Dataset) float64 {
	n := min(env.cfg.Setting.Eval.Samples, aux.N)
	perm := make([]int, aux.N)
	r := env.fed.key.Derive("eval", "aux-subset").Rand()
	for i := range perm {
		perm[i] = i
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	sub := aux.Subset(perm[:n])
	return env.prep.fd(sub.X, n)
}

func executeCentral(ctx context.Context, src *sources, fed *federation, cfg RunConfig) (*runner.Outcome, error) {
	st := cfg.Setting
	env, err := newEnv(fed, cfg)
	if err != nil {
		return nil, err
	}
	w, err := src.warmup(fed)
	if err != nil {
		return nil, err
	}
	big, fwd, err := src.centralAux(fed, w)
	if err != nil {
		return nil, err
	}
	p := append([]float64(nil), fed.init...)
	out := &runner.Outcome{Final: runner.Metrics{}}
	every := st.Eval.CurveEvery
	work, err := fa.TrainCentral(env.den, p, big, st.clientOpt(), st.CentralEpochs, st.Batch, fed.key, func(ep int) {
		if cfg.Curves && every > 0 && ep%every == 0 && ctx.Err() == nil {
			out.Rounds = append(out.Rounds, runner.Metrics{"epoch": float64(ep), "fd": env.curveFD(p, ep)})
		}
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ex := &Extra{ClientSizes: sizeStats(fed.clients)}
	env.final(p, out, ex)
	out.Final["aux_fd"] = auxFD(env, w.aux)
	out.Final["central_aux_fd"] = auxFD(env, big)
	out.Counters = runner.Counters{
		"central_sample_grads": work.SampleGrads, "central_steps": work.Steps,
		"warmup_sample_grads": w.work.SampleGrads, "sampling_forwards": fwd, "aux_size": int64(big.N),
		"total_sample_grads": work.SampleGrads + w.work.SampleGrads,
	}
	out.Extra = ex
	return out, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
