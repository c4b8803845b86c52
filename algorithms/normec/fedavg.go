package normec

import (
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"gonum.org/v1/gonum/floats"
)

// Bounding selects the operator Ψ of DP-FedAvg's eq. (2).
type Bounding int

const (
	// SmoothNormalization is Ψ = Norm_α (the Appendix A.1 baseline).
	SmoothNormalization Bounding = iota
	// Clipping is Ψ(u) = u·min(1, C/‖u‖) (L2 clipping to norm C).
	Clipping
)

// String is "norm" or "clip".
func (b Bounding) String() string {
	switch b {
	case SmoothNormalization:
		return "norm"
	case Clipping:
		return "clip"
	}
	return fmt.Sprintf("bounding(%d)", int(b))
}

// Psi is a bounding operator with its parameter.
type Psi struct {
	Kind Bounding
	// Alpha is α of Norm_α (SmoothNormalization).
	Alpha float64
	// C is the clipping norm (Clipping).
	C float64
}

// Apply replaces u by Ψ(u) in place and returns ‖u‖ before the update.
// The result has norm ≤ 1 (normalization) or ≤ C (clipping): the DP
// sensitivity of a message.
func (p Psi) Apply(u []float64) float64 {
	switch p.Kind {
	case SmoothNormalization:
		return Norm(p.Alpha, u)
	case Clipping:
		n := floats.Norm(u, 2)
		if n > p.C {
			floats.Scale(p.C/n, u)
		}
		return n
	}
	panic(fmt.Sprintf("normec: unknown bounding %d", int(p.Kind)))
}

// Sensitivity is the largest norm Ψ can output (1 or C).
func (p Psi) Sensitivity() float64 {
	if p.Kind == Clipping {
		return p.C
	}
	return 1
}

// String is "norm(α=…)" or "clip(C=…)".
func (p Psi) String() string {
	if p.Kind == Clipping {
		return fmt.Sprintf("clip(C=%g)", p.C)
	}
	return fmt.Sprintf("norm(α=%g)", p.Alpha)
}

// FedAvgInput selects what Ψ is applied to.
type FedAvgInput int

const (
	// ModelDelta is eq. (2) literally: Ψ(x^k − T_i(x^k)) = Ψ(γ·P_i(x^k)).
	ModelDelta FedAvgInput = iota
	// PseudoGradient applies Ψ to (x^k − T_i(x^k))/γ = P_i(x^k), the
	// quantity Fed-α-NormEC normalizes.
	PseudoGradient
)

// String is "model-delta" or "pseudo-gradient".
func (f FedAvgInput) String() string {
	if f == PseudoGradient {
		return "pseudo-gradient"
	}
	return "model-delta"
}

// FedAvgConfig holds DP-FedAvg's parameters (eq. (2)):
//
//	x^{k+1} = x^k − (η/|S^k|)·Σ_{i∈S^k} β·(Ψ(u_i^k) + z_i^k),  z ~ N(0, σ²·I_d),
//
// with u_i^k = x^k − T_i(x^k) (ModelDelta) or P_i(x^k) (PseudoGradient).
// The paper prints the noise outside the sum with a dangling index i; we
// read it as per-client noise, like Algorithm 1. β = 1 is eq. (2) itself.
// The paper never says where β enters its FedAvg baseline yet sweeps it in
// Figs. 3–4; we place it as Algorithm 1 does (β multiplies the noisy
// normalized message), so both methods release the same per-client
// mechanism "bounded message + N(0,σ²) noise" and FedAvg's effective step
// is η·β — with η = γ this is the βγ of Fig. 4's diagonal.
type FedAvgConfig struct {
	Psi   Psi
	Input FedAvgInput
	// Beta scales each noisy message (> 0; 1 = eq. (2) literally).
	Beta float64
	// Eta is the server step η > 0, Gamma the local step γ > 0.
	Eta, Gamma float64
	// P is the Bernoulli participation probability in (0, 1]. The sum is
	// divided by the realised |S^k| (eq. (2)'s B); a round with nobody
	// selected leaves x unchanged.
	P float64
	// Sigma is the per-coordinate noise standard deviation (≥ 0).
	Sigma float64
	// Local is the client operator T_i.
	Local Local
	// OnRound, when set, is called after every Step.
	OnRound func(f *FedAvg, s RoundStats)
}

// AppendixA1 returns the FedAvg baseline of Appendix A.1: Ψ = Norm_α
// applied to x − T_i(x) with T_i(x) = x − γ∇f_i(x), η = γ, p = 1, per-client
// noise of per-coordinate std σ, and β placed as documented on
// FedAvgConfig (x^{k+1} = x^k − (γβ/M)Σ_i[Norm_α(γ∇f_i(x^k)) + z_i]).
func AppendixA1(alpha, beta, gamma, sigma float64) FedAvgConfig {
	return FedAvgConfig{
		Psi:  Psi{Kind: SmoothNormalization, Alpha: alpha},
		Beta: beta, Eta: gamma, Gamma: gamma, P: 1, Sigma: sigma,
		Local: Local{Kind: OneStep},
	}
}

// Label names the configuration in results.
func (c FedAvgConfig) Label() string {
	return fmt.Sprintf("dp-fedavg(psi=%s,input=%s,local=%s)", c.Psi, c.Input, c.Local)
}

// Validate returns a clear error for parameters outside the domain.
func (c FedAvgConfig) Validate() error {
	bad := func(name string, v float64, want string) error {
		return fmt.Errorf("normec: fedavg %s = %v, want %s", name, v, want)
	}
	// If-chains, not a tagless switch: see Config.Validate.
	if !(c.P > 0 && c.P <= 1) {
		return bad("participation probability p", c.P, "0 < p ≤ 1")
	}
	if err := checkSteps(c.Beta, c.Gamma, c.Eta, c.Sigma, bad); err != nil {
		return err
	}
	switch c.Psi.Kind {
	case SmoothNormalization:
		if !(c.Psi.Alpha >= 0) || math.IsInf(c.Psi.Alpha, 0) {
			return bad("alpha", c.Psi.Alpha, "a finite α ≥ 0")
		}
	case Clipping:
		if !(c.Psi.C > 0) || math.IsInf(c.Psi.C, 0) {
			return bad("clipping norm C", c.Psi.C, "a finite C > 0")
		}
	default:
		return fmt.Errorf("normec: unknown bounding %d", int(c.Psi.Kind))
	}
	if c.Input != ModelDelta && c.Input != PseudoGradient {
		return fmt.Errorf("normec: unknown fedavg input %d", int(c.Input))
	}
	return nil
}

// FedAvg is a stepper for DP-FedAvg (eq. (2)); same stream names and
// conventions as Algorithm, so with the same key it selects the same
// clients in every round.
type FedAvg struct {
	federation
	cfg FedAvgConfig
}

// NewFedAvg builds DP-FedAvg for the clients' objectives from x0 (copied).
func NewFedAvg(cfg FedAvgConfig, clients []Objective, x0 []float64, key rng.Key) (*FedAvg, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fed, err := newFederation(clients, x0, cfg.Local, key)
	if err != nil {
		return nil, err
	}
	return &FedAvg{federation: fed, cfg: cfg}, nil
}

// Step runs one round of eq. (2) and returns its statistics (VHatNorm is
// the norm of the averaged noisy message, StepNorm ‖x^{k+1} − x^k‖). It does
// not allocate.
func (f *FedAvg) Step() RoundStats {
	c := &f.cfg
	f.part = fl.SampleBernoulli(f.partRand, f.m, c.P, f.part[:0])
	st := RoundStats{Round: f.k, Participants: len(f.part)}
	clear(f.agg)
	for _, i := range f.part {
		f.counters.add(c.Local.Pseudo(f.objs[i], f.x, c.Gamma, f.msg, f.ws[i]))
		f.counters.LocalRuns++
		if c.Input == ModelDelta {
			floats.Scale(c.Gamma, f.msg)
		}
		st.MaxResidual = math.Max(st.MaxResidual, c.Psi.Apply(f.msg))
		if c.Sigma > 0 {
			rng.AddNormal(f.noiseRand[i], f.msg, c.Sigma)
		}
		floats.AddScaled(f.agg, c.Beta, f.msg)
	}
	f.counters.Transmissions += len(f.part)
	copy(f.xPrev, f.x)
	if n := len(f.part); n > 0 {
		floats.Scale(1/float64(n), f.agg)
		st.VHatNorm = floats.Norm(f.agg, 2)
		floats.AddScaled(f.x, -c.Eta, f.agg)
	} else {
		st.Skipped = true
		f.counters.Skipped++
	}
	f.endRound(&st)
	if c.OnRound != nil {
		c.OnRound(f, st)
	}
	return st
}

// Run performs rounds Steps and returns the last round's statistics.
func (f *FedAvg) Run(rounds int) RoundStats { return runRounds(rounds, f.Step) }

// Config returns the configuration.
func (f *FedAvg) Config() FedAvgConfig { return f.cfg }

// Label names the configuration in results.
func (f *FedAvg) Label() string { return f.cfg.Label() }

// Stepper is what an experiment runner needs from a method: one round per
// Step, the current model, costs and a label. Algorithm and FedAvg
// implement it.
type Stepper interface {
	Step() RoundStats
	X() []float64
	Round() int
	Counters() Counters
	Label() string
}

var (
	_ Stepper = (*Algorithm)(nil)
	_ Stepper = (*FedAvg)(nil)
)

// AlphaNormEC returns the configuration of α-NormEC (shulgin2025smoothed)
// as the paper describes it: Fed-α-NormEC with one local GD step (so
// P_i = ∇f_i and γ plays no role in the iterates) and full participation.
func AlphaNormEC(alpha, beta, eta, sigma float64, server ServerStep, init Init) Config {
	return Config{Alpha: alpha, Beta: beta, Gamma: 1, Eta: eta, P: 1, Sigma: sigma,
		Local: Local{Kind: OneStep}, Server: server, Init: init}
}
