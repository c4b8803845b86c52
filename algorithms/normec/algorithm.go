package normec

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/floats"
)

// ServerStep selects the server's model update.
type ServerStep int

const (
	// NormalizedStep is Algorithm 1 line 15, x^{k+1} = x^k − η·v̂^{k+1}/‖v̂^{k+1}‖:
	// every step has length exactly η, which the convergence proof needs.
	// When v̂^{k+1} = 0 the direction is undefined; the model is left
	// unchanged and the round is marked Skipped.
	NormalizedStep ServerStep = iota
	// PlainStep is x^{k+1} = x^k − η·v̂^{k+1}, the update of the paper's
	// experiments (Appendix A: "server normalization … is not used"; the
	// replacement formula is not printed, this is its plain reading).
	PlainStep
)

// String is "normalized" or "unnormalized" (the label used in results).
func (s ServerStep) String() string {
	switch s {
	case NormalizedStep:
		return "normalized"
	case PlainStep:
		return "unnormalized"
	}
	return fmt.Sprintf("server-step(%d)", int(s))
}

// MemoryMode selects which clients update their memory v_i each round.
type MemoryMode int

const (
	// AllClients updates v_i for every client every round (Algorithm 1
	// lines 4–8; Lemma 3 and Theorem 1 need it). Every client runs its local
	// operator every round, participating or not.
	AllClients MemoryMode = iota
	// ParticipantsOnly updates v_i only for the clients that transmit
	// (Section 4's reading: the server broadcasts only to S^k). The theory
	// does not cover this mode.
	ParticipantsOnly
)

// String is "all" or "participants".
func (m MemoryMode) String() string {
	switch m {
	case AllClients:
		return "all"
	case ParticipantsOnly:
		return "participants"
	}
	return fmt.Sprintf("memory(%d)", int(m))
}

// InitKind selects the initial client memories v_i^0.
type InitKind int

const (
	// InitZero sets v_i^0 = 0.
	InitZero InitKind = iota
	// InitOffset sets v_i^0 = P_i(x^0) + e_i with ‖e_i‖ = R, so that
	// R = max_i ‖v_i^0 − P_i(x^0)‖ exactly (Section 5.1's suggestion; the
	// theory needs R > 0).
	InitOffset
	// InitExplicit sets v_i^0 = P_i(x^0) + Offsets[i].
	InitExplicit
)

// Direction selects the unit direction of the InitOffset offsets.
type Direction int

const (
	// FirstAxis is the paper's e = (R, 0, …, 0) for every client.
	FirstAxis Direction = iota
	// RandomDirection draws an independent uniform unit vector per client
	// from the stream (key, "client", i, "init").
	RandomDirection
)

// Init describes v_i^0 (and so v̂^0 = (1/M)Σ_i v_i^0).
type Init struct {
	Kind      InitKind
	R         float64     // offset norm for InitOffset (≥ 0)
	Direction Direction   // offset direction for InitOffset
	Offsets   [][]float64 // per-client offsets for InitExplicit
}

// Config holds the tuning parameters of Algorithm 1.
type Config struct {
	// Alpha is the smoothing α ≥ 0 of Norm_α (the experiments use 0.01).
	Alpha float64
	// Beta is the error-feedback step β > 0 ("sensitivity threshold").
	Beta float64
	// Gamma is the local step γ > 0 of the local operator.
	Gamma float64
	// Eta is the server step η > 0 (Algorithm 1 asks η < 1; not enforced).
	Eta float64
	// P is the participation probability p ∈ (0, 1]; each client transmits
	// independently with probability p and is reweighted by q = 1/p.
	P float64
	// Sigma is the per-coordinate standard deviation of the DP noise:
	// z_i^k ~ N(0, σ²·I_d), so E‖z‖² = d·σ² (the paper's "σ²_DP-variance"
	// is ambiguous; Lemma 3 uses E‖z‖² = σ²_DP). 0 = non-private.
	Sigma float64
	// Local is the client operator T_i.
	Local Local
	// Server selects the normalized (theory) or plain (experiments) step.
	Server ServerStep
	// Memory selects all-client (theory) or participants-only updates.
	Memory MemoryMode
	// Init sets v_i^0.
	Init Init
	// OnRound, when set, is called after every Step with the algorithm
	// (already at round k+1) and the round's statistics — the hook for
	// per-round metrics. It must not retain the slices it reads.
	OnRound func(a *Algorithm, s RoundStats)
}

// Label names the configuration in results, e.g.
// "fed-alpha-normec(server=normalized,memory=all,local=gd1)".
func (c Config) Label() string {
	return fmt.Sprintf("fed-alpha-normec(server=%s,memory=%s,local=%s)", c.Server, c.Memory, c.Local)
}

// Validate returns a clear error for parameters outside the algorithm's
// domain: p ∉ (0,1], α < 0, β ≤ 0, γ ≤ 0, η ≤ 0, σ < 0, NaNs, a bad
// local operator spec or initialisation.
func (c Config) Validate() error {
	bad := func(name string, v float64, want string) error {
		return fmt.Errorf("normec: %s = %v, want %s", name, v, want)
	}
	// If-chains rather than a tagless switch: Go's coverage profile gives
	// case conditions no counter, so mutation testing (gremlins) could not
	// see them tested (go-gremlins/gremlins#298).
	if !(c.P > 0 && c.P <= 1) {
		return bad("participation probability p", c.P, "0 < p ≤ 1")
	}
	if !(c.Alpha >= 0) || math.IsInf(c.Alpha, 0) {
		return bad("alpha", c.Alpha, "a finite α ≥ 0")
	}
	if err := checkSteps(c.Beta, c.Gamma, c.Eta, c.Sigma, bad); err != nil {
		return err
	}
	if c.Server != NormalizedStep && c.Server != PlainStep {
		return fmt.Errorf("normec: unknown server step %d", int(c.Server))
	}
	if c.Memory != AllClients && c.Memory != ParticipantsOnly {
		return fmt.Errorf("normec: unknown memory mode %d", int(c.Memory))
	}
	switch c.Init.Kind {
	case InitZero, InitExplicit:
	case InitOffset:
		if !(c.Init.R >= 0) || math.IsInf(c.Init.R, 0) {
			return bad("initial offset R", c.Init.R, "a finite R ≥ 0")
		}
		if c.Init.Direction != FirstAxis && c.Init.Direction != RandomDirection {
			return fmt.Errorf("normec: unknown offset direction %d", int(c.Init.Direction))
		}
	default:
		return fmt.Errorf("normec: unknown init kind %d", int(c.Init.Kind))
	}
	return nil
}

// checkSteps checks the parameters Algorithm 1 and DP-FedAvg share, in
// this order: a finite β > 0, γ > 0, η > 0 and σ ≥ 0 (NaN fails every
// test); bad formats the error of the first that fails.
func checkSteps(beta, gamma, eta, sigma float64, bad func(name string, v float64, want string) error) error {
	if !(beta > 0) || math.IsInf(beta, 0) {
		return bad("beta", beta, "a finite β > 0")
	}
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return bad("gamma", gamma, "a finite γ > 0")
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return bad("eta", eta, "a finite η > 0")
	}
	if !(sigma >= 0) || math.IsInf(sigma, 0) {
		return bad("sigma", sigma, "a finite σ ≥ 0")
	}
	return nil
}

// RoundStats summarises one round.
type RoundStats struct {
	// Round is k, the index of the round just run (x^k → x^{k+1}).
	Round int
	// Participants is |S^k|, the number of clients that transmitted.
	Participants int
	// StepNorm is ‖x^{k+1} − x^k‖ (exactly η for a normalized step up to
	// rounding, 0 when skipped).
	StepNorm float64
	// VHatNorm is ‖v̂^{k+1}‖.
	VHatNorm float64
	// Skipped reports a normalized step skipped because v̂^{k+1} = 0.
	Skipped bool
	// MaxResidual is max_i ‖P_i(x^k) − v_i^k‖ over the clients that
	// updated their memory (the quantity Theorem 1 keeps ≤ R).
	MaxResidual float64
}

// Counters are the cumulative costs of a run.
type Counters struct {
	Rounds int
	// Transmissions is Σ_k |S^k|, client→server messages.
	Transmissions int
	// LocalRuns is the number of local-operator runs (client updates).
	LocalRuns int
	// Grads and ComponentGrads count full local gradients ∇f_i and
	// component (per-example) gradients ∇f_{i,j} of local operators,
	// including those spent on initialisation.
	Grads, ComponentGrads int
	// Skipped counts normalized steps skipped because v̂ = 0.
	Skipped int
}

func (c *Counters) add(x Cost) {
	c.Grads += x.Grads
	c.ComponentGrads += x.ComponentGrads
}

// Algorithm is a stepper for Algorithm 1 ((DP-)Fed-α-NormEC): it holds the
// state (x^k, v_i^k, v̂^k, the last round's P_i(x^k), Δ_i^k and S^k) and
// advances it one communication round per Step. Accessors return views of
// the internal state: read them, do not modify them or keep them across
// Steps. An Algorithm is not safe for concurrent use.
type Algorithm struct {
	federation
	cfg Config

	v       []float64 // M×d client memories
	pseudo  []float64 // M×d P_i(x^k) of the last update
	delta   []float64 // M×d Δ_i^k of the last update
	resid   []float64 // M: ‖P_i(x^k) − v_i^k‖ of the last update
	updated []bool    // M: client updated in the last round
	vhat    []float64

	r0 float64
}

// federation is the state Algorithm 1 and DP-FedAvg (FedAvg) share: the
// clients' objectives and workspaces, M and d, the model before and after
// the round, the round's aggregate and message buffers, the participants,
// the participation and per-client noise streams, the round index k and
// the work counters.
type federation struct {
	objs []Objective
	ws   []*Workspace
	m, d int

	x, xPrev, agg, msg []float64
	part               []int

	partRand  *rand.Rand
	noiseRand []*rand.Rand

	k        int
	counters Counters
}

// newFederation checks the clients against x0 (at least one client, a
// non-empty x0, every objective of x0's dimension and accepted by the
// client operator local) and builds the shared state: x0 copied, the
// participation stream and each client's noise stream derived from key.
func newFederation(clients []Objective, x0 []float64, local Local, key rng.Key) (federation, error) {
	m, d := len(clients), len(x0)
	if m == 0 {
		return federation{}, errors.New("normec: no clients")
	}
	if d == 0 {
		return federation{}, errors.New("normec: empty model x0")
	}
	for i, o := range clients {
		if o == nil {
			return federation{}, fmt.Errorf("normec: client %d has no objective", i)
		}
		if o.NumParams() != d {
			return federation{}, fmt.Errorf("normec: client %d has %d parameters, x0 has %d", i, o.NumParams(), d)
		}
		if err := local.Check(o); err != nil {
			return federation{}, fmt.Errorf("client %d: %w", i, err)
		}
	}
	f := federation{
		objs: clients, m: m, d: d,
		x: append([]float64(nil), x0...), xPrev: append([]float64(nil), x0...),
		agg: make([]float64, d), msg: make([]float64, d), part: make([]int, 0, m),
		partRand: key.Derive("participation").Rand(), noiseRand: make([]*rand.Rand, m),
		ws: make([]*Workspace, m),
	}
	for i := range m {
		f.noiseRand[i] = key.Derive("client", i, "noise").Rand()
		f.ws[i] = NewWorkspace(d)
	}
	return f, nil
}

// endRound closes round k after the server step: StepNorm is
// ‖x^{k+1} − x^k‖, and k and the round counter advance.
func (f *federation) endRound(st *RoundStats) {
	st.StepNorm = floats.Distance(f.x, f.xPrev, 2)
	f.k++
	f.counters.Rounds++
}

// runRounds performs rounds steps and returns the last round's statistics.
func runRounds(rounds int, step func() RoundStats) RoundStats {
	var st RoundStats
	for range rounds {
		st = step()
	}
	return st
}

// Round is the index k of the next round (the number of rounds run).
func (f *federation) Round() int { return f.k }

// Clients is M.
func (f *federation) Clients() int { return f.m }

// Dim is d.
func (f *federation) Dim() int { return f.d }

// X is the current model x^k.
func (f *federation) X() []float64 { return f.x }

// XPrev is the model before the last Step (x^{k−1}; x^0 before any Step).
func (f *federation) XPrev() []float64 { return f.xPrev }

// Participants is S^{k−1}, the clients that transmitted in the last round
// (increasing order; the next Step reuses the slice).
func (f *federation) Participants() []int { return f.part }

// Counters returns the cumulative costs.
func (f *federation) Counters() Counters { return f.counters }

// New builds Algorithm 1 for the clients' objectives (one per client, all
// of dimension len(x0)) from x^0, with random streams derived from key. It
// computes P_i(x^0) when the initialisation needs it (counted in
// Counters). x0 is copied.
func New(cfg Config, clients []Objective, x0 []float64, key rng.Key) (*Algorithm, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fed, err := newFederation(clients, x0, cfg.Local, key)
	if err != nil {
		return nil, err
	}
	m, d := fed.m, fed.d
	if cfg.Init.Kind == InitExplicit {
		if len(cfg.Init.Offsets) != m {
			return nil, fmt.Errorf("normec: %d explicit offsets for %d clients", len(cfg.Init.Offsets), m)
		}
		for i, e := range cfg.Init.Offsets {
			if len(e) != d {
				return nil, fmt.Errorf("normec: offset of client %d has length %d, want %d", i, len(e), d)
			}
		}
	}
	a := &Algorithm{
		federation: fed, cfg: cfg,
		v: make([]float64, m*d), pseudo: make([]float64, m*d), delta: make([]float64, m*d),
		resid: make([]float64, m), updated: make([]bool, m),
		vhat: make([]float64, d),
		r0:   math.NaN(),
	}
	if cfg.Init.Kind != InitZero {
		a.r0 = 0
		for i := range m {
			p := a.Pseudo(i)
			a.counters.add(cfg.Local.Pseudo(clients[i], a.x, cfg.Gamma, p, a.ws[i]))
			v := a.V(i)
			switch cfg.Init.Kind {
			case InitOffset:
				switch cfg.Init.Direction {
				case FirstAxis:
					v[0] = cfg.Init.R
				case RandomDirection:
					r := key.Derive("client", i, "init").Rand()
					for {
						rng.FillNormal(r, v, 1)
						if n := floats.Norm(v, 2); n > 0 {
							floats.Scale(cfg.Init.R/n, v)
							break
						}
					}
				}
			case InitExplicit:
				copy(v, cfg.Init.Offsets[i])
			}
			a.r0 = math.Max(a.r0, floats.Norm(v, 2))
			floats.Add(v, p)
		}
	}
	for i := range m {
		floats.Add(a.vhat, a.V(i))
	}
	floats.Scale(1/float64(m), a.vhat)
	return a, nil
}

func (a *Algorithm) row(s []float64, i int) []float64 { return s[i*a.d : (i+1)*a.d] }

// Step runs communication round k = Round(): samples S^k (Bernoulli(p) per
// client), lets the clients update (all of them, or only S^k), adds the
// participants' messages q(Δ_i^k + z_i^k) with q = 1/p to v̂ scaled by β/M,
// and takes the server step. It returns the round's statistics, calls
// OnRound, and does not allocate.
func (a *Algorithm) Step() RoundStats {
	c := &a.cfg
	a.part = fl.SampleBernoulli(a.partRand, a.m, c.P, a.part[:0])
	clear(a.updated)
	st := RoundStats{Round: a.k, Participants: len(a.part)}
	update := func(i int) {
		p, dl, v := a.Pseudo(i), a.Delta(i), a.V(i)
		a.counters.add(c.Local.Pseudo(a.objs[i], a.x, c.Gamma, p, a.ws[i]))
		a.counters.LocalRuns++
		floats.SubTo(dl, p, v)
		a.resid[i] = Norm(c.Alpha, dl)
		floats.AddScaled(v, c.Beta, dl)
		a.updated[i] = true
		st.MaxResidual = math.Max(st.MaxResidual, a.resid[i])
	}
	if c.Memory == AllClients {
		for i := range a.m {
			update(i)
		}
	} else {
		for _, i := range a.part {
			update(i)
		}
	}
	clear(a.agg)
	q := 1 / c.P
	for _, i := range a.part {
		copy(a.msg, a.Delta(i))
		if c.Sigma > 0 {
			rng.AddNormal(a.noiseRand[i], a.msg, c.Sigma)
		}
		floats.AddScaled(a.agg, q, a.msg)
	}
	a.counters.Transmissions += len(a.part)
	floats.AddScaled(a.vhat, c.Beta/float64(a.m), a.agg)
	copy(a.xPrev, a.x)
	st.VHatNorm = floats.Norm(a.vhat, 2)
	switch c.Server {
	case NormalizedStep:
		if st.VHatNorm == 0 {
			st.Skipped = true
			a.counters.Skipped++
		} else {
			floats.AddScaled(a.x, -c.Eta/st.VHatNorm, a.vhat)
		}
	case PlainStep:
		floats.AddScaled(a.x, -c.Eta, a.vhat)
	}
	a.endRound(&st)
	if c.OnRound != nil {
		c.OnRound(a, st)
	}
	return st
}

// Run performs rounds Steps and returns the last round's statistics.
func (a *Algorithm) Run(rounds int) RoundStats { return runRounds(rounds, a.Step) }

// Config returns the configuration.
func (a *Algorithm) Config() Config { return a.cfg }

// Label names the configuration in results.
func (a *Algorithm) Label() string { return a.cfg.Label() }

// V is client i's memory v_i^k.
func (a *Algorithm) V(i int) []float64 { return a.row(a.v, i) }

// VHat is the server memory v̂^k.
func (a *Algorithm) VHat() []float64 { return a.vhat }

// MeanV writes v^k = (1/M)Σ_i v_i^k into dst and returns it (Lemma 3's
// comparison point for v̂^k).
func (a *Algorithm) MeanV(dst []float64) []float64 {
	clear(dst)
	for i := range a.m {
		floats.Add(dst, a.V(i))
	}
	floats.Scale(1/float64(a.m), dst)
	return dst
}

// Pseudo is P_i(x) = (x − T_i(x))/γ at the x of client i's last update
// (x^{k−1} after Step k−1; x^0 after an initialisation that needed it).
func (a *Algorithm) Pseudo(i int) []float64 { return a.row(a.pseudo, i) }

// Delta is client i's last normalized update Δ_i = Norm_α(P_i − v_i).
func (a *Algorithm) Delta(i int) []float64 { return a.row(a.delta, i) }

// Residual is ‖P_i(x) − v_i‖ before client i's last update.
func (a *Algorithm) Residual(i int) float64 { return a.resid[i] }

// Updated reports whether client i updated its memory in the last round.
func (a *Algorithm) Updated(i int) bool { return a.updated[i] }

// InitialR is R = max_i ‖v_i^0 − P_i(x^0)‖ for InitOffset and
// InitExplicit, NaN for InitZero (where P_i(x^0) is never computed).
func (a *Algorithm) InitialR() float64 { return a.r0 }
