package normec

import (
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// Cost estimates a run's work in multiply–adds, for balancing shards.
// With P the model's parameters and M clients, every round:
//
//   - the clients that update (all M with memory "all", Algorithm 1; p·M
//     with "participants") each take local_steps minibatch gradients of
//     batch rows, 2P + 4000 per row (a per-row overhead of the order of a
//     small model's whole gradient, as measured for the logistic
//     regressions here), plus 4P of vector work (normalisation, error
//     feedback) per client;
//   - p·M participants transmit, with σ > 0 a Gaussian draw per coordinate
//     (P each);
//
// and every eval_every rounds (and at round 0) the test and training-loss
// subsets are evaluated (P + 2000 per row); plus a fixed 10⁷ for the split
// and the privacy accounting of the run.
func (cfg RunConfig) Cost() float64 {
	dims, p, ok := paper.ImageModelSize(cfg.Dataset, cfg.Data.Pool, cfg.Model, cfg.Hidden)
	if !ok {
		return 1
	}
	t := cfg.Training
	m := float64(t.Clients)
	updating := m
	if t.Memory == "participants" {
		updating = cfg.P * m
	}
	perClient := float64(t.LocalSteps)*float64(t.Batch)*(2*p+4000) + 4*p
	round := updating * perClient
	if cfg.Sigma > 0 {
		round += cfg.P * m * p
	}
	test := dims.Test
	if cfg.Data.Test > 0 && cfg.Data.Test < test {
		test = cfg.Data.Test
	}
	trainEval := cfg.Data.TrainEval
	if trainEval == 0 {
		perClient := dims.Train / max(t.Clients, 1)
		if cfg.Data.PerClient > 0 {
			perClient = min(perClient, cfg.Data.PerClient)
		}
		trainEval = perClient * t.Clients
	}
	evals := float64(t.Rounds/max(t.EvalEvery, 1) + 1)
	return float64(t.Rounds)*round + evals*float64(test+trainEval)*(p+2000) + 1e7
}

// costRate is RunConfig.Cost's units per CPU-second, measured on the 2-core
// development machine over the default scale (Σ cost / Σ CPU seconds), for
// the time estimate printed before long runs.
const costRate = 5.1e9
