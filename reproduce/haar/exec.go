package haar

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dpfl"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/haar"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// RunKey names a run's streams (initial model, client selection, lots,
// noise). It leaves out the method, σ and optimizer: every method on the
// same seed, dataset and level starts from the same model and sees the same
// clients and — for DP-SGD, whose lots come from the training stream — the
// same lots, so method differences are paired.
func RunKey(seed uint64, dataset, level string) rng.Key { return rng.New(seed, "haar", dataset, level) }

// built is a run's algorithm and the privacy facts fixed before training.
type built struct {
	alg       fl.Algorithm
	mech      dpfl.Mechanism // nil for the non-private run
	clip      float64        // C at round 0 (median rule)
	sigma0    float64        // σ (or z) of round 0
	denom     float64        // what the noise is divided by: the lot size (sample) or q_c·N (user)
	q         float64        // per-release sampling probability of the protected unit
	perRound  int            // releases per round of a participant
	nominalOK bool           // the method claims a σ (false for nonprivate)
}

// Execute runs one configuration: it is the whole experiment of a run,
// exported for tests and benchmarks.
func Execute(ctx context.Context, set *imageSet, cfg RunConfig, seed uint64) (*runner.Outcome, error) {
	sp, err := makeSplit(set, cfg.Data, SplitKey(seed, cfg.Dataset))
	if err != nil {
		return nil, err
	}
	m, err := newModel(cfg, set.train.D, set.train.Classes)
	if err != nil {
		return nil, err
	}
	key := RunKey(seed, cfg.Dataset, cfg.Level)
	init := make([]float64, m.NumParams())
	m.Init(init, key.Derive("init").Rand())

	b, err := buildAlgorithm(cfg, m, init, sp, key)
	if err != nil {
		return nil, err
	}
	flcfg := fl.Config{Sampling: fl.Uniform, Frac: cfg.Frac,
		Local: fl.LocalConfig{Epochs: cfg.Epochs, BatchSize: max(cfg.Batch, int(cfg.Lot)), LR: cfg.LR, Momentum: cfg.Momentum}}
	if cfg.Level == "user" {
		flcfg.Sampling, flcfg.P, flcfg.Frac = fl.Bernoulli, cfg.Q, 0
	}
	e, err := fl.New(m, sp.clients, b.alg, flcfg, key, init, fl.Hooks{})
	if err != nil {
		return nil, err
	}
	var ev model.Evaluator
	t := sp.test
	eval := func(round int) runner.Metrics {
		loss, acc := ev.Evaluate(m, e.Server().Global, t.X, t.Y, t.N, t.D)
		return runner.Metrics{"round": float64(round), "acc": acc, "loss": loss}
	}
	out := &runner.Outcome{Rounds: []runner.Metrics{eval(0)}}
	every := max(cfg.EvalEvery, 1)
	for k := 1; k <= cfg.Rounds; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.TrainRound()
		if k%every == 0 || k == cfg.Rounds {
			out.Rounds = append(out.Rounds, eval(k))
		}
	}
	last := out.Rounds[len(out.Rounds)-1]
	out.Final = runner.Metrics{"acc": last["acc"], "loss": last["loss"], "clip": b.clip, "q": b.q}
	if err := privacyFacts(out.Final, b, cfg, e, m.NumParams()); err != nil {
		return nil, err
	}
	out.Counters = e.Server().Counters.Map()
	return out, nil
}

// newModel builds the run's classifier (one of knownModels) on d inputs;
// the MLP is He-initialised (ReLU gain).
func newModel(cfg RunConfig, d, classes int) (model.Model, error) {
	return paper.NewImageClassifier(cfg.Model, d, cfg.Hidden, classes, model.InitHe)
}

// privacyFacts adds to f the ε the run claims (accountant on the nominal
// multipliers) and really has (on the effective ones), for the
// worst-case participant, plus the noise it used.
func privacyFacts(f runner.Metrics, b *built, cfg RunConfig, e *fl.Engine, np int) error {
	if b.mech == nil {
		f["eps"], f["eps_claimed"] = math.Inf(1), math.Inf(1)
		return nil
	}
	f["sigma0"] = b.sigma0
	f["multiplier"] = b.mech.Multiplier(b.sigma0, np)
	// Absolute per-coordinate std of the noise in one averaged gradient
	// (sample level) or one global update (user level), round 0.
	f["noise_std"] = b.mech.PerCoordinateStd(b.sigma0, np) * b.clip / b.denom
	inner := b.mech
	if pe, ok := inner.(*perExample); ok {
		inner = pe.inner
		f["lot_others_min"] = float64(pe.others)
	}
	if w, ok := inner.(*dpfl.Wavelet); ok {
		f["coef_scale"] = w.CoefScale(b.sigma0, np)
	}
	// The per-example reading's effective multiplier covers the mean shift
	// with probability ≥ 1 − δ/2 (lots with fewer other examples than
	// assumed take the other δ/2; noiseper.go): its accountant runs at δ/2.
	deltaActual := cfg.Delta
	if _, ok := b.mech.(*perExample); ok {
		deltaActual = cfg.Delta / 2
	}
	var ledgers []*dpfl.Ledger
	if cfg.Level == "user" {
		ledgers = []*dpfl.Ledger{&b.alg.(*dpfl.DPFedAvg).Ledger}
	} else {
		for i := 0; i < e.Server().NClients; i++ {
			if l := dpfl.ClientLedger(e.ClientState(i)); l != nil {
				ledgers = append(ledgers, l)
			}
		}
	}
	seen := map[string]bool{}
	var claimed, actual float64
	var steps int
	for _, l := range ledgers {
		k, _ := json.Marshal(l.Entries)
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		c, err := l.Epsilon(cfg.Delta, false)
		if err != nil {
			return err
		}
		a, err := l.Epsilon(deltaActual, true)
		if err != nil {
			return err
		}
		claimed, actual, steps = math.Max(claimed, c), math.Max(actual, a), max(steps, l.Steps())
	}
	f["eps_claimed"], f["eps"], f["steps"] = claimed, actual, float64(steps)
	return nil
}

// buildAlgorithm makes the run's algorithm: its mechanism, the clip bound
// from the median rule on the public set at the initial model, and the
// schedule.
func buildAlgorithm(cfg RunConfig, m model.Model, init []float64, sp *split, key rng.Key) (*built, error) {
	// dom is the clipping domain of the method's wavelet mechanism
	// (gauss_matched: of the WAV run it matches).
	var dom haar.ClipDomain
	var err error
	if name := clipDomainOf(cfg); name != "" {
		if dom, err = parseDomain(name); err != nil {
			return nil, err
		}
	}
	var mech dpfl.Mechanism
	switch cfg.Method {
	case "nonprivate":
	case "vanilla", "dyn", "gauss_matched":
		mech = dpfl.Gaussian{}
	case "wav":
		mech = dpfl.NewWavelet(dom, dpfl.Lemma2)
	case "wav_literal":
		mech = dpfl.NewWavelet(dom, dpfl.Literal)
	case "wav_corrected":
		mech = dpfl.NewWavelet(dom, dpfl.Corrected)
	default:
		return nil, fmt.Errorf("unknown method %q", cfg.Method)
	}
	n := sp.clients[0].N
	b := &built{mech: mech, sigma0: cfg.Sigma}
	// clipFor is the median-rule C in the clipping domain of mech.
	clipFor := func(mech dpfl.Mechanism) (float64, error) {
		if cfg.Level == "sample" {
			return dpfl.MedianExampleNorm(m.(dpfl.PerExample), init, sp.public, mech)
		}
		var parts []*data.Dataset
		for off := 0; off+n <= sp.public.N; off += n {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = off + i
			}
			parts = append(parts, sp.public.Subset(idx))
		}
		if len(parts) == 0 {
			parts = []*data.Dataset{sp.public}
		}
		local := fl.LocalConfig{Epochs: cfg.Epochs, BatchSize: cfg.Batch, LR: cfg.LR, Momentum: cfg.Momentum}
		return dpfl.MedianUpdateNorm(m, parts, local, key.Derive("clip"), init, mech)
	}
	if mech != nil {
		if b.clip, err = clipFor(mech); err != nil {
			return nil, err
		}
	}
	if cfg.Level == "sample" {
		b.q = math.Min(1, cfg.Lot/float64(n))
		b.denom = b.q * float64(n)
		b.perRound = cfg.Epochs * dpfl.StepsPerEpoch(n, cfg.Lot)
		if perExampleNoise(cfg) && cfg.Method != "gauss_matched" {
			mech = newPerExample(mech, n, b.q, cfg.Rounds*b.perRound, cfg.Delta)
			b.mech = mech
		}
	} else {
		b.q = cfg.Q
		b.denom = cfg.Q * float64(len(sp.clients))
		b.perRound = 1
	}
	var sched dpfl.Schedule = dpfl.Constant{Sigma: cfg.Sigma, C: b.clip}
	switch cfg.Method {
	case "nonprivate":
		sched = dpfl.Constant{Sigma: 0, C: math.Inf(1)}
	case "dyn":
		s0, _, err := dpfl.MatchDecay(cfg.Sigma, cfg.Dyn.RhoSigma, cfg.Rounds, b.q, b.perRound, cfg.Delta)
		if err != nil {
			return nil, err
		}
		b.sigma0 = s0
		sched = dpfl.Decay{Sigma0: s0, C0: b.clip, RhoSigma: cfg.Dyn.RhoSigma, RhoC: cfg.Dyn.RhoC, Rounds: cfg.Rounds}
	case "gauss_matched":
		// Vanilla noise with WAV's per-coordinate std (in absolute terms):
		// σ' = std_WAV(σ)·C_WAV / C.
		// Under the per-example reading WAV's summed noise has √L times the
		// per-lot std (L the expected lot): σ' matches that.
		var w dpfl.Mechanism = dpfl.NewWavelet(dom, dpfl.Lemma2)
		cw, err := clipFor(w)
		if err != nil {
			return nil, err
		}
		if perExampleNoise(cfg) {
			w = newPerExample(w, n, b.q, cfg.Rounds*b.perRound, cfg.Delta)
		}
		b.sigma0 = w.PerCoordinateStd(cfg.Sigma, m.NumParams()) * cw / b.clip
		sched = dpfl.Constant{Sigma: b.sigma0, C: b.clip}
	}
	if cfg.Level == "sample" {
		alg := &dpfl.DPSGD{Mechanism: mech, Schedule: sched, Lot: cfg.Lot}
		if mech == nil {
			alg.Mechanism = dpfl.Gaussian{}
		}
		switch cfg.Optimizer {
		case "adam":
			alg.Optimizer = optim.NewAdam(cfg.LR)
		case "adagrad":
			alg.Optimizer = optim.NewAdaGrad(cfg.LR)
		}
		b.alg = alg
		return b, nil
	}
	if mech == nil {
		b.alg = &fl.FedAvg{}
		return b, nil
	}
	b.alg = &dpfl.DPFedAvg{Mechanism: mech, Schedule: sched, Q: cfg.Q}
	return b, nil
}
