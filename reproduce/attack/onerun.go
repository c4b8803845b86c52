package attack

import (
	"fmt"
	"math"
	"sort"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dpfl"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// One-run auditing (Steinke, Nasr and Jagielski 2023, "Privacy Auditing
// with One (1) Training Run"): m canaries, each included by an
// independent fair coin; ONE training run; the auditor guesses the coins
// of the k₊ highest-scoring canaries (+1) and the k₋ lowest (−1) and
// abstains on the rest; from r = k₊ + k₋ guesses with v correct,
// audit.OneRunEpsilon gives the largest ε that (ε, δ)-DP with respect to
// each canary cannot explain at level β. The bound grows with the number
// of canaries rather than the number of runs, so a whole paper run — all
// of its rounds — is one trial. (k₊, k₋) are chosen on a separate
// calibration run (own streams), so the evaluation run's guesses are
// fixed before its scores are seen.
//
// Canaries: white-box gradient canaries along orthonormal directions that
// every real gradient of a softmax logistic regression is orthogonal to —
// c_j = (1/√K)·(e_j in every class block) for each input feature j and
// the bias (K classes), since ∂/∂W_{cj} = x_j(p_c − y_c) and Σ_c (p_c −
// y_c) = 0 — so the d + 1 canaries read each other and the privacy noise
// only. An excluded canary is a null row (zero gradient), so the client
// keeps its size and the lot sampling rate the paper's q = L/n.

type oneRunResult struct {
	m, r, v    int
	eps, max   float64
	kPos, kNeg int
}

// oneRunDirs are the canary directions c_j of a K-class LogReg on d
// inputs (parameters: K weight blocks of d, then K biases).
func oneRunDirs(d, classes int) [][]float64 {
	np := classes * (d + 1)
	w := 1 / math.Sqrt(float64(classes))
	var dirs [][]float64
	for j := 0; j <= d; j++ {
		v := make([]float64, np)
		for c := 0; c < classes; c++ {
			if j < d {
				v[c*d+j] = w
			} else {
				v[classes*d+c] = w
			}
		}
		dirs = append(dirs, v)
	}
	return dirs
}

// oneRunGuess scores the guesses of the k₊ top and k₋ bottom canaries by
// score against the true coins (in: canary included).
func oneRunGuess(scores []float64, in []bool, kPos, kNeg int) (r, v int) {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	for k, i := range idx {
		switch {
		case k < kPos:
			r++
			if in[i] {
				v++
			}
		case k >= len(idx)-kNeg:
			r++
			if !in[i] {
				v++
			}
		}
	}
	return r, v
}

// oneRunBest is the (k₊, k₋) of a grid with the largest bound.
func oneRunBest(scores []float64, in []bool, delta, beta float64) (kPos, kNeg int, err error) {
	m := len(scores)
	var grid []int
	for _, f := range []float64{0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5} {
		grid = append(grid, int(f*float64(m)))
	}
	best := -1.0
	for _, kp := range grid {
		for _, kn := range grid {
			if kp+kn == 0 || kp+kn > m {
				continue
			}
			r, v := oneRunGuess(scores, in, kp, kn)
			e, err := audit.OneRunEpsilon(m, r, v, delta, beta)
			if err != nil {
				return 0, 0, err
			}
			if e > best {
				best, kPos, kNeg = e, kp, kn
			}
		}
	}
	return kPos, kNeg, nil
}

// haarOneRun audits one whole DP-SGD run of one client (the paper's 20
// rounds × 20 lots) with d + 1 = 197 canaries.
func haarOneRun(o Options, m haarMethod, sigma float64) (oneRunResult, accounting, error) {
	var res oneRunResult
	pub, clients, err := haarSplit(o, haarSamplePublic, 1, haarSampleClient)
	if err != nil {
		return res, accounting{}, err
	}
	ds := clients[0]
	base := model.NewLogReg(ds.D, ds.Classes, model.CrossEntropy)
	np := base.NumParams()
	init := make([]float64, np)
	base.Init(init, rng.New(o.Seed, "attack", "haar", "init").Rand())
	mech := m.mech("sample")
	clip, err := dpfl.MedianExampleNorm(base, init, pub, mech)
	if err != nil {
		return res, accounting{}, err
	}
	_, rounds := haarReleases("sample")
	acc, err := haarAccounting("sample", mech, sigma, np)
	if err != nil {
		return res, acc, err
	}
	acc.trial = acc.whole // the run is the trial
	dirs := oneRunDirs(ds.D, ds.Classes)
	nc := len(dirs)
	cm := newCanaryModel(base, canaryScale)
	cm.dirs = dirs
	q := haarLot / float64(ds.N)
	denom := q * float64(ds.N)
	// Per canary: its clipped shift and the noise's sd on its direction.
	shift, sd := make([]float64, nc), make([]float64, nc)
	g := make([]float64, np)
	for j := range dirs {
		cm.rowGrad(canaryRow(ds.D, j), canaryLabel, g)
		mech.Clip(g, clip)
		shift[j] = project(g, dirs[j]) / denom
	}
	nr := rng.New(o.Seed, "attack", "haar", "onerun", m.name, sigma, "noise").Rand()
	const draws = 1000
	for k := 0; k < draws; k++ {
		clear(g)
		mech.Lot(g, nil, clip, sigma, denom, nr)
		for j, dir := range dirs {
			v := project(g, dir)
			sd[j] += v * v / draws
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j])
	}
	scores := make([]float64, nc)
	rec := &recorder{sgd: optim.NewSGD(haarSampleLR, 0), observe: func(g []float64) {
		for j, dir := range dirs {
			scores[j] += mixtureLLR(project(g, dir)/sd[j], shift[j]/sd[j], q)
		}
	}}
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: 1, BatchSize: int(haarLot), LR: haarSampleLR}}
	run := func(tag string) ([]bool, error) {
		r := rng.New(o.Seed, "attack", "haar", "onerun", m.name, sigma, tag)
		in := make([]bool, nc)
		coins := r.Derive("coins").Rand()
		x := &data.Dataset{X: append([]float64(nil), ds.X...), Y: append([]int(nil), ds.Y...), N: ds.N, D: ds.D, Classes: ds.Classes}
		for j := 0; j < nc; j++ {
			in[j] = coins.IntN(2) == 1
			copy(x.X[j*ds.D:(j+1)*ds.D], canaryRow(ds.D, j))
			x.Y[j] = 0
			if in[j] {
				x.Y[j] = canaryLabel
			}
		}
		alg := &dpfl.DPSGD{Mechanism: mech, Schedule: dpfl.Constant{Sigma: sigma, C: clip}, Lot: haarLot, Optimizer: rec}
		e, err := fl.New(cm, []*data.Dataset{x}, alg, cfg, r.Derive("run"), init, fl.Hooks{})
		if err != nil {
			return nil, err
		}
		clear(scores)
		for k := 0; k < rounds; k++ {
			e.TrainRound()
		}
		return in, nil
	}
	const beta = 1 - confidence
	in, err := run("calibration")
	if err != nil {
		return res, acc, err
	}
	kp, kn, err := oneRunBest(scores, in, haarDelta, beta)
	if err != nil {
		return res, acc, err
	}
	if in, err = run("evaluation"); err != nil {
		return res, acc, err
	}
	r, v := oneRunGuess(scores, in, kp, kn)
	res = oneRunResult{m: nc, r: r, v: v, kPos: kp, kNeg: kn}
	if res.eps, err = audit.OneRunEpsilon(nc, r, v, haarDelta, beta); err != nil {
		return res, acc, err
	}
	res.max, err = audit.OneRunEpsilon(nc, r, r, haarDelta, beta)
	return res, acc, err
}

func init() {
	for _, m := range haarMethods {
		for _, sigma := range []float64{1, 1.5, 3} {
			m, sigma := m, sigma
			claimed, err := haarNominal("sample", sigma)
			if err != nil {
				panic(err)
			}
			register("haar", spec{id: fmt.Sprintf("sample/%s/sigma=%g/one-run", m.name, sigma), delta: haarDelta,
				algorithm:   "DP-SGD (" + m.name + ")",
				threat:      "white-box: every privatised lot gradient of one client over the whole run (20 rounds × 20 lots)",
				design:      "one-run audit (Steinke, Nasr and Jagielski 2023): 197 gradient canaries on orthonormal directions orthogonal to every real gradient, fair-coin inclusion, guesses from mixture-LR scores, (k₊, k₋) chosen on a calibration run",
				claimed:     claimed,
				claimSource: "Lemma 2 / Figs 7–9: vanilla DP-SGD's ε at the nominal σ (RDP, q = 0.05, 400 steps)",
				smoke:       sigma == 1 && m.name == "vanilla" || sigma == 1.5 && m.name == "wav",
				trials:      map[string]int{Smoke: 1, Default: 1}, calibration: map[string]int{Smoke: 1, Default: 1},
				oneRun: func(o Options) (oneRunResult, accounting, error) { return haarOneRun(o, m, sigma) },
			})
		}
	}
}

// playOneRun fills a row from a one-run audit.
func playOneRun(row Row, s spec, o Options) (Row, error) {
	res, acc, err := s.oneRun(o)
	if err != nil {
		return row, err
	}
	row.Accountant, row.AccountantTrial, row.AccountantName = acc.whole, acc.trial, acc.name
	row.EpsLB, row.EpsLBMax = res.eps, res.max
	row.BudgetLimited = res.eps > 0 && res.v == res.r
	row.Refutes = row.EpsLB > row.Claimed
	row.Canaries, row.Guesses, row.Correct = res.m, res.r, res.v
	row.TP, row.FN, row.FP, row.TN = 0, 0, 0, 0
	row.Note = fmt.Sprintf("%d canaries, %d guesses (top %d, bottom %d), %d correct", res.m, res.r, res.kPos, res.kNeg, res.v)
	return row, nil
}
