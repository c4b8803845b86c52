package haar

import (
	"math/bits"

	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// Cost estimates a run's work in multiply–adds, for balancing shards.
// With P the model's parameters, m = P padded to a power of two:
//
//   - training: every participant's examples × epochs per round, 3P per
//     per-example gradient (forward, backward, clip); in the coefficient
//     clip domain each example's norm also needs a Haar transform (≈ 4m);
//   - privacy noise: P per DP-SGD lot (sample level) or per round (user
//     level), 4m for a wavelet mechanism's transforms;
//   - evaluation: P per test example, at round 0 and every eval_every
//     rounds; the median clip rule's pass over the public set (3P each);
//   - a fixed 5·10⁶ for building the split and the privacy accounting.
func (cfg RunConfig) Cost() float64 {
	dims, p, ok := paper.ImageModelSize(cfg.Dataset, cfg.Data.Pool, cfg.Model, cfg.Hidden)
	if !ok {
		return 1
	}
	m := float64(uint(1) << bits.Len(uint(p-1)))
	size := cfg.Data.ClientSize
	if size == 0 {
		size = (dims.Train - cfg.Data.Public) / max(cfg.Data.Clients, 1)
	}
	clients := float64(cfg.Data.Clients)
	wavelet := cfg.Method == "wav" || cfg.Method == "wav_literal" || cfg.Method == "wav_corrected"
	domain := cfg.WavDomain
	if cfg.Method == "wav_corrected" {
		domain = cfg.CorrectedDomain
	}
	perExample := 3 * p
	if wavelet && domain == "coefficient" && cfg.Level == "sample" {
		perExample += 4 * m
	}
	noise := p
	if wavelet {
		noise = 4 * m
	}
	var participants, releases float64
	if cfg.Level == "sample" {
		participants = cfg.Frac * clients
		lots := float64(cfg.Epochs) * float64(size) / max(cfg.Lot, 1)
		releases = participants * lots
	} else {
		participants = cfg.Q * clients
		releases = 1
		perExample = 2 * p // plain mini-batch SGD on the clients
	}
	rounds := float64(cfg.Rounds)
	train := rounds * participants * float64(cfg.Epochs) * float64(size) * perExample
	if cfg.Method == "nonprivate" {
		releases = 0
	}
	priv := rounds * releases * noise
	test := dims.Test
	if cfg.Data.Test > 0 && cfg.Data.Test < test {
		test = cfg.Data.Test
	}
	evals := rounds/float64(max(cfg.EvalEvery, 1)) + 1
	eval := evals*float64(test)*p + float64(cfg.Data.Public)*3*p
	return train + priv + eval + 5e6
}

// costRate is RunConfig.Cost's units per CPU-second, measured on the 2-core
// development machine over the default scale (Σ cost / Σ CPU seconds), for
// the time estimate printed before long runs.
const costRate = 2.7e9
