package fl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// Config is the federated setting of a run.
type Config struct {
	// Sampling is Uniform (K = max(⌊Frac·N⌋,1) without replacement) or
	// Bernoulli (each client with probability P).
	Sampling Sampling
	Frac     float64
	P        float64
	// Stragglers is the probability that a selected client runs only a
	// uniform 1..Epochs−1 local epochs; its partial model is aggregated.
	Stragglers float64
	Local      LocalConfig
}

// LocalConfig is the local training of a selected client.
type LocalConfig struct {
	Epochs    int     // E: passes over the client's data
	BatchSize int     // mini-batch size (the last batch of an epoch may be smaller)
	LR        float64 // local learning rate
	Momentum  float64 // SGD momentum ρ (PyTorch semantics)
	// MaxGradNorm clips each mini-batch gradient's L2 norm (0: off).
	MaxGradNorm float64
	// Upstream selects the upstream code's placement of proximal and
	// perturbation terms in the momentum buffer (optim.ModeUpstreamBuffer).
	Upstream bool
}

// Validate rejects settings no run can use.
func (c Config) Validate(nClients int) error {
	if nClients < 1 {
		return errors.New("fl: no clients")
	}
	switch c.Sampling {
	case Uniform:
		if !(c.Frac > 0 && c.Frac <= 1) {
			return fmt.Errorf("fl: client fraction %g outside (0,1]", c.Frac)
		}
	case Bernoulli:
		if !(c.P > 0 && c.P <= 1) {
			return fmt.Errorf("fl: participation probability %g outside (0,1]", c.P)
		}
	default:
		return fmt.Errorf("fl: unknown sampling %v", c.Sampling)
	}
	if c.Stragglers < 0 || c.Stragglers > 1 || math.IsNaN(c.Stragglers) {
		return fmt.Errorf("fl: straggler rate %g outside [0,1]", c.Stragglers)
	}
	l := c.Local
	if l.Epochs < 1 {
		return fmt.Errorf("fl: local epochs E = %d, want ≥ 1", l.Epochs)
	}
	if l.BatchSize < 1 {
		return fmt.Errorf("fl: batch size %d, want ≥ 1", l.BatchSize)
	}
	if !(l.LR > 0) || math.IsInf(l.LR, 0) {
		return fmt.Errorf("fl: learning rate %g, want > 0", l.LR)
	}
	if l.Momentum < 0 || l.Momentum >= 1 {
		return fmt.Errorf("fl: momentum %g outside [0,1)", l.Momentum)
	}
	if l.MaxGradNorm < 0 {
		return fmt.Errorf("fl: max gradient norm %g < 0", l.MaxGradNorm)
	}
	return nil
}

// Counters record the work of a run. Training rounds touch client data;
// server rounds (Upcycled's even rounds) do not.
type Counters struct {
	TrainingRounds int64 // rounds that selected clients and read their data
	ServerRounds   int64 // rounds computed on the server alone
	DataAccesses   int64 // client local updates (each reads that client's data)
	Uploads        int64 // client → server model transmissions
	SGDSteps       int64 // local optimizer steps
	SampleGrads    int64 // per-example gradient evaluations
}

// Map returns the counters keyed by snake_case names for results.
func (c Counters) Map() map[string]int64 {
	return map[string]int64{
		"training_rounds": c.TrainingRounds, "server_rounds": c.ServerRounds,
		"data_accesses": c.DataAccesses, "uploads": c.Uploads,
		"sgd_steps": c.SGDSteps, "sample_grads": c.SampleGrads,
	}
}

// Server is the server's view of a run: the global model, the model before
// the last training round, the algorithm's server-side state and the
// counters. It holds no reference to client data, so code that receives only
// a *Server (Upcycled's even round) cannot read any.
type Server struct {
	Global []float64
	// Prev is the global model before the last training round; after a
	// training round Global − Prev is that round's global update.
	Prev []float64
	// State is the algorithm's server-side state (momentum, control variate).
	State any
	// Round counts completed training rounds.
	Round    int
	Counters Counters
	NClients int
	// Cohort is how the engine samples clients (Config.Cohort), for the
	// accounting of user-level DP algorithms.
	Cohort accountant.Sampling

	key rng.Key
}

// Rand returns the server's stream for a purpose in the current training
// round (e.g. noise added at aggregation).
func (s *Server) Rand(purpose string) *rand.Rand {
	return s.key.Derive("round", s.Round, "server", purpose).Rand()
}

// Upload is what a selected client sends after local training.
type Upload struct {
	Client int
	Weight float64   // aggregation weight: the client's number of examples
	Params []float64 // the client's model after local training (perturbed, if a hook did)
	Extra  any       // algorithm-specific payload (control-variate deltas, …)
}

// Algorithm is a federated method: what a selected client computes and how
// the server combines it. Implementations keep data-dependent state only in
// Client.State (client side); Server.State is what the server stores.
type Algorithm interface {
	Name() string
	// Setup initialises Server.State (Global is set).
	Setup(s *Server)
	// Local trains client c starting from up.Params (a copy of the global
	// model) and leaves its upload in up.
	Local(c *Client, up *Upload)
	// Aggregate sets s.Global from the uploads of the round (possibly none,
	// under Bernoulli sampling). s.Prev already holds the old global model.
	Aggregate(s *Server, ups []*Upload)
}

// Hooks let a privacy mechanism act on a client's update without the
// algorithms knowing about it.
type Hooks struct {
	// BeforeLocal runs before Algorithm.Local (e.g. draws the objective
	// perturbation's linear term into c.Linear).
	BeforeLocal func(c *Client)
	// AfterLocal runs on the trained model before upload (e.g. output
	// perturbation: clip and add noise).
	AfterLocal func(c *Client, params []float64)
}

// Engine runs training rounds of one algorithm on one federated dataset.
// It is not safe for concurrent use; independent runs use separate engines.
type Engine struct {
	cfg     Config
	alg     Algorithm
	model   model.Differentiable
	clients []*data.Dataset
	key     rng.Key
	hooks   Hooks
	server  *Server
	states  []any

	sel, scratch []int
	ups          []*Upload
	client       Client
}

// New builds an engine. init is the initial global model (copied); key
// names the run's random streams: training round k uses key.Derive("round", k, …).
func New(m model.Differentiable, clients []*data.Dataset, alg Algorithm, cfg Config, key rng.Key, init []float64, hooks Hooks) (*Engine, error) {
	if err := cfg.Validate(len(clients)); err != nil {
		return nil, err
	}
	if len(init) != m.NumParams() {
		return nil, fmt.Errorf("fl: initial model has %d parameters, the model needs %d", len(init), m.NumParams())
	}
	for i, c := range clients {
		if c == nil || c.N == 0 {
			return nil, fmt.Errorf("fl: client %d has no training data", i)
		}
	}
	s := &Server{Global: append([]float64(nil), init...), Prev: append([]float64(nil), init...), NClients: len(clients), Cohort: cfg.Cohort(len(clients)), key: key}
	alg.Setup(s)
	e := &Engine{cfg: cfg, alg: alg, model: m, clients: clients, key: key, hooks: hooks, server: s,
		states: make([]any, len(clients)), scratch: make([]int, len(clients))}
	return e, nil
}

// Server returns the server state (for evaluation and server-only steps).
func (e *Engine) Server() *Server { return e.server }

// ClientState returns client i's persistent algorithm state (nil before
// its first selection), e.g. pFedMe's personalised model.
func (e *Engine) ClientState(i int) any { return e.states[i] }

// Select returns the clients of training round k (the same for every
// algorithm given the same key, N and config).
func (e *Engine) Select(k int, dst []int) []int {
	r := e.key.Derive("round", k, "select").Rand()
	return e.cfg.sample(r, len(e.clients), dst, e.scratch)
}

// RoundInfo describes a finished training round.
type RoundInfo struct {
	Round    int   // training-round index k (0-based)
	Selected []int // clients selected (aliases engine storage until the next round)
	Epochs   []int // local epochs each ran (stragglers run fewer)
}

// TrainRound runs training round k = Server().Round: select clients, train
// each locally from the global model, apply hooks, aggregate.
func (e *Engine) TrainRound() RoundInfo {
	s := e.server
	k := s.Round
	e.sel = e.Select(k, e.sel)
	for len(e.ups) < len(e.sel) {
		e.ups = append(e.ups, &Upload{Params: make([]float64, len(s.Global))})
	}
	ups := e.ups[:len(e.sel)]
	epochs := make([]int, len(e.sel))
	for j, id := range e.sel {
		rk := e.key.Derive("round", k, "client", id)
		ep := StragglerEpochs(rk.Derive("straggler").Rand(), e.cfg.Local.Epochs, e.cfg.Stragglers)
		epochs[j] = ep
		c := &e.client
		c.reset(e, id, ep, rk)
		up := ups[j]
		up.Client, up.Weight, up.Extra = id, float64(e.clients[id].N), nil
		copy(up.Params, s.Global)
		if e.hooks.BeforeLocal != nil {
			e.hooks.BeforeLocal(c)
		}
		e.alg.Local(c, up)
		if e.hooks.AfterLocal != nil {
			e.hooks.AfterLocal(c, up.Params)
		}
		e.states[id] = c.State
		s.Counters.DataAccesses++
		s.Counters.Uploads++
		s.Counters.SGDSteps += int64(c.steps)
		s.Counters.SampleGrads += int64(c.sampleGrads)
	}
	copy(s.Prev, s.Global)
	e.alg.Aggregate(s, ups)
	s.Round++
	s.Counters.TrainingRounds++
	return RoundInfo{Round: k, Selected: e.sel, Epochs: epochs}
}

// WeightedAverage writes Σ w_i·x_i / Σ w_i of the uploads' parameters into
// dst; with no uploads dst is left unchanged and false is returned.
func WeightedAverage(dst []float64, ups []*Upload) bool {
	var total float64
	for _, u := range ups {
		total += u.Weight
	}
	if len(ups) == 0 || total <= 0 {
		return false
	}
	for i := range dst {
		dst[i] = 0
	}
	for _, u := range ups {
		w := u.Weight / total
		for i, v := range u.Params {
			dst[i] += w * v
		}
	}
	return true
}
