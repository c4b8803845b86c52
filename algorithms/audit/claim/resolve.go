package claim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// Mechanisms are the accepted mechanism names.
var Mechanisms = []string{"gaussian", "laplace", "discrete-gaussian", "tree-aggregation", "zcdp", "pure-dp"}

// SamplingKinds are the accepted sampling kinds.
var SamplingKinds = []string{"poisson", "fixed-batch", "full", "clients"}

// Units are the accepted units of privacy.
var Units = []string{"example", "user"}

// merge returns base with the fields set in over replacing base's:
// scalars when set, variables key by key, noise and tree field by field,
// sampling field by field unless over names a kind (then it replaces
// base's sampling), phases as a whole list.
func merge(base, over Procedure) Procedure {
	out := base
	if over.Unit.S != "" {
		out.Unit = over.Unit
	}
	if over.Neighbouring.S != "" {
		out.Neighbouring = over.Neighbouring
	}
	if over.Delta.Set {
		out.Delta = over.Delta
	}
	if over.Clip.Set {
		out.Clip = over.Clip
	}
	if len(over.Variables) > 0 {
		vars := make(map[string]Value, len(base.Variables)+len(over.Variables))
		for k, v := range base.Variables {
			vars[k] = v
		}
		for k, v := range over.Variables {
			vars[k] = v
		}
		out.Variables = vars
	}
	out.Step = mergeStep(base.Step, over.Step)
	if over.Phases != nil {
		out.Phases = over.Phases
	}
	out.Unset = nil
	for _, u := range over.Unset {
		unsetField(&out, u)
	}
	return out
}

func mergeStep(base, over Step) Step {
	out := base
	if over.Mechanism.S != "" {
		out.Mechanism = over.Mechanism
	}
	if over.Steps.Set {
		out.Steps = over.Steps
	}
	if over.Noise != nil {
		n := Noise{}
		if base.Noise != nil {
			n = *base.Noise
		}
		o := over.Noise
		for _, f := range []struct{ dst, src *Value }{
			{&n.Multiplier, &o.Multiplier}, {&n.Scale, &o.Scale}, {&n.Sensitivity, &o.Sensitivity},
			{&n.Clients, &o.Clients}, {&n.Dim, &o.Dim}, {&n.L1, &o.L1},
			{&n.Rho, &o.Rho}, {&n.Xi, &o.Xi}, {&n.Epsilon, &o.Epsilon},
		} {
			if f.src.Set {
				*f.dst = *f.src
			}
		}
		// multiplier and scale are alternatives: setting one drops the other.
		if o.Multiplier.Set && !o.Scale.Set {
			n.Scale = Value{}
		}
		if o.Scale.Set && !o.Multiplier.Set {
			n.Multiplier = Value{}
		}
		out.Noise = &n
	}
	if over.Sampling != nil {
		if over.Sampling.Kind.S != "" || base.Sampling == nil {
			s := *over.Sampling
			out.Sampling = &s
		} else {
			s := *base.Sampling
			o := over.Sampling
			for _, f := range []struct{ dst, src *Value }{{&s.Q, &o.Q}, {&s.Batch, &o.Batch}, {&s.Population, &o.Population}} {
				if f.src.Set {
					*f.dst = *f.src
				}
			}
			if o.Rule.S != "" {
				s.Rule = o.Rule
			}
			if o.Visible != nil {
				s.Visible = o.Visible
			}
			out.Sampling = &s
		}
	}
	if over.Tree != nil {
		t := Tree{}
		if base.Tree != nil {
			t = *base.Tree
		}
		o := over.Tree
		for _, f := range []struct{ dst, src *Value }{{&t.Leaves, &o.Leaves}, {&t.Trees, &o.Trees}, {&t.Participations, &o.Participations}, {&t.MinSeparation, &o.MinSeparation}} {
			if f.src.Set {
				*f.dst = *f.src
			}
		}
		out.Tree = &t
	}
	return out
}

// MaxSteps is the largest step count a claim may state: the documented
// domain of the accountants (T ≤ 1e12), within which every one answers in
// bounded time. A larger count is refused in one line rather than risking
// a computation without end.
const MaxSteps = 1_000_000_000_000

// resolved is a case × reading with every formula evaluated.
type resolved struct {
	unit  string
	nb    accountant.Neighbouring
	delta float64
	clip  float64 // 0 when not stated, +Inf for no clipping
	// unclipped: clip is .inf, so every noise multiplier is 0.
	unclipped bool
	env       map[string]float64
	phases    []phase
}

// phase is one resolved stage of training.
type phase struct {
	name string
	mech string
	// z is the noise multiplier (gaussian, laplace, tree-aggregation) or
	// the discrete Gaussian's σ. zFav and zUnfav are z at the ends of the
	// printed precision of its literal that favour and disfavour the
	// claim (more and less noise; = z when it was computed). Likewise for
	// a stated ρ and ε₀ (smaller is favourable).
	z, zFav, zUnfav       float64
	sens                  int // discrete Gaussian sensitivity
	clients, dim          int
	l1, l2                float64
	rho, rhoFav, rhoUnfav float64
	xi                    float64
	eps0, eps0Fav         float64
	eps0Unfav             float64
	sampling              string
	rule                  string
	q                     float64
	batch, pop            int
	visible               bool
	steps                 int
	trees                 []int
	parts, sep            int
}

// noiseScaled reports whether the phase has a noise parameter that
// calibration can scale.
func (p phase) noiseScaled() bool {
	switch p.mech {
	case "gaussian", "laplace", "tree-aggregation", "discrete-gaussian":
		return true
	}
	return false
}

// resolve evaluates the procedure of a case and reading. bind overrides
// variables (average_over); claimed is the case's claimed ε.
func resolve(p Procedure, claimed float64, bind map[string]float64) (resolved, error) {
	var r resolved
	if !slices.Contains(Units, p.Unit.S) {
		return r, lineErr(p.Unit.Line, "unit %q: want %s", p.Unit.S, strings.Join(Units, " or "))
	}
	r.unit = p.Unit.S
	nb, err := accountant.ParseNeighbouring(p.Neighbouring.S)
	if err != nil {
		return r, lineErr(p.Neighbouring.Line, "neighbouring %q: want add-remove or replace-one", p.Neighbouring.S)
	}
	r.nb = nb
	vars := p.Variables
	for k, v := range bind {
		if vars == nil {
			vars = map[string]Value{}
		} else {
			vars = maps(vars)
		}
		vars[k] = Value{Set: true, Num: v, Literal: fmt.Sprint(v)}
	}
	for k, v := range vars {
		if slices.Contains(Reserved, k) || slices.Contains(Functions, k) {
			return r, lineErr(v.Line, "variable %q: the name is reserved (%s are bound by the auditor, %s are functions)", k, strings.Join(Reserved, ", "), strings.Join(Functions, ", "))
		}
	}
	// δ may be a formula in the variables that do not need δ.
	if !p.Delta.Set {
		return r, lineErr(0, "delta is missing")
	}
	if p.Delta.IsFormula() {
		pre, err := resolveVariables(withoutDeltaUsers(vars), map[string]float64{"epsilon": claimed})
		if err != nil {
			return r, err
		}
		if r.delta, err = number(p.Delta, "delta", pre); err != nil {
			return r, err
		}
	} else {
		r.delta = p.Delta.Num
	}
	if !(r.delta >= 0 && r.delta < 1) {
		return r, lineErr(p.Delta.Line, "delta = %v: want 0 ≤ δ < 1", r.delta)
	}
	env, err := resolveVariables(vars, map[string]float64{"delta": r.delta, "epsilon": claimed})
	if err != nil {
		return r, err
	}
	r.env = env
	if p.Clip.Set {
		if r.clip, err = number(p.Clip, "clip", env); err != nil {
			return r, err
		}
	}
	steps := []Phase{{Step: p.Step}}
	if len(p.Phases) > 0 {
		if p.Steps.Set {
			return r, lineErr(p.Steps.Line, "steps is given both at the top and in phases: give it per phase")
		}
		steps = nil
		for _, ph := range p.Phases {
			steps = append(steps, Phase{Name: ph.Name, Note: ph.Note, Step: mergeStep(Step{Mechanism: p.Mechanism, Noise: p.Noise, Sampling: p.Sampling, Tree: p.Tree}, ph.Step)})
		}
	}
	for i, s := range steps {
		ph, err := resolvePhase(s, env)
		if err != nil {
			if len(steps) > 1 {
				return r, prefixErr(fmt.Sprintf("phase %d (%s)", i+1, s.Name), err)
			}
			return r, err
		}
		if ph.sampling == "clients" && r.unit != "user" {
			return r, lineErr(s.Sampling.Kind.Line, "sampling kind clients (per-round client sampling) needs unit: user")
		}
		if ph.sampling == "fixed-batch" || (ph.sampling == "clients" && ph.rule == "fixed") {
			if r.nb != accountant.ReplaceOne {
				return r, lineErr(s.Sampling.Kind.Line, "sampling without replacement (a fixed batch of %d of %d) has a bound only under replace-one neighbouring (Wang, Balle and Kasiviswanathan 2019); set neighbouring: replace-one in this reading", ph.batch, ph.pop)
			}
		}
		ph.name = s.Name
		r.phases = append(r.phases, ph)
	}
	if math.IsInf(r.clip, 1) {
		// No clipping: one record moves the sum without bound, so the
		// noise, whatever its scale, is zero relative to the sensitivity.
		r.unclipped = true
		for i := range r.phases {
			if r.phases[i].noiseScaled() {
				r.phases[i].z, r.phases[i].zFav, r.phases[i].zUnfav = 0, 0, 0
			}
		}
	}
	if r.delta == 0 {
		for _, ph := range r.phases {
			if ph.mech != "laplace" && ph.mech != "pure-dp" {
				return r, lineErr(p.Delta.Line, "delta = 0 (pure DP) holds only for laplace and pure-dp mechanisms, not %s", ph.mech)
			}
		}
	}
	return r, nil
}

func maps(m map[string]Value) map[string]Value {
	out := make(map[string]Value, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// withoutDeltaUsers drops variables that read delta (directly or not), so
// that δ's own formula can be evaluated first.
func withoutDeltaUsers(vars map[string]Value) map[string]Value {
	uses := map[string]bool{}
	changed := true
	for changed {
		changed = false
		for k, v := range vars {
			if uses[k] || !v.IsFormula() {
				continue
			}
			ids, err := identifiers(v.Formula)
			if err != nil {
				continue
			}
			for _, id := range ids {
				if id == "delta" || uses[id] {
					uses[k], changed = true, true
					break
				}
			}
		}
	}
	out := map[string]Value{}
	for k, v := range vars {
		if !uses[k] {
			out[k] = v
		}
	}
	return out
}

func prefixErr(prefix string, err error) error {
	if prefix == "" {
		return err
	}
	if le, ok := err.(*lineError); ok {
		return &lineError{line: le.line, msg: prefix + ": " + le.msg}
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

// favourable returns x moved by half a unit of the last printed digit of
// its literal in the direction dir (+1 or −1) and scaled like the value
// (x = literal·factor), or x when the value is a formula or an integer
// literal (taken as exact).
func favourable(v Value, x float64, dir float64) float64 {
	if !v.Set {
		return x
	}
	if v.IsFormula() {
		return x
	}
	d := v.Decimals()
	if d == 0 || v.Num == 0 || math.IsInf(v.Num, 0) {
		return x
	}
	half := 0.5 * math.Pow(10, -float64(d))
	return x * (v.Num + dir*half) / v.Num
}

func resolvePhase(s Phase, env map[string]float64) (phase, error) {
	var p phase
	p.mech = s.Mechanism.S
	if p.mech == "" {
		return p, lineErr(0, "mechanism is missing (want one of %s)", strings.Join(Mechanisms, ", "))
	}
	if !slices.Contains(Mechanisms, p.mech) {
		return p, lineErr(s.Mechanism.Line, "mechanism %q: want one of %s", p.mech, strings.Join(Mechanisms, ", "))
	}
	if s.Noise == nil {
		return p, lineErr(s.Mechanism.Line, "noise is missing for mechanism %s", p.mech)
	}
	n := *s.Noise
	unused := func(names ...string) error {
		vals := map[string]Value{"multiplier": n.Multiplier, "scale": n.Scale, "sensitivity": n.Sensitivity, "clients": n.Clients,
			"dim": n.Dim, "l1": n.L1, "rho": n.Rho, "xi": n.Xi, "epsilon": n.Epsilon}
		for k, v := range vals {
			if v.Set && !slices.Contains(names, k) {
				return lineErr(v.Line, "noise.%s does not apply to mechanism %s (it uses %s)", k, p.mech, strings.Join(names, ", "))
			}
		}
		return nil
	}
	var err error
	switch p.mech {
	case "gaussian", "laplace", "tree-aggregation":
		if err := unused("multiplier", "scale", "sensitivity"); err != nil {
			return p, err
		}
		sens := 1.0
		if n.Sensitivity.Set {
			if sens, err = number(n.Sensitivity, "noise.sensitivity", env); err != nil {
				return p, err
			}
			if !(sens > 0) {
				return p, lineErr(n.Sensitivity.Line, "noise.sensitivity = %v: want > 0", sens)
			}
		}
		var base Value
		switch {
		case n.Multiplier.Set && n.Scale.Set:
			return p, lineErr(n.Scale.Line, "give noise.multiplier or noise.scale, not both")
		case n.Multiplier.Set:
			base = n.Multiplier
		case n.Scale.Set:
			if !n.Sensitivity.Set {
				return p, lineErr(n.Scale.Line, "noise.scale (absolute) needs noise.sensitivity (absolute)")
			}
			base = n.Scale
		default:
			return p, lineErr(s.Mechanism.Line, "noise needs multiplier (or scale with sensitivity)")
		}
		x, err := number(base, "noise", env)
		if err != nil {
			return p, err
		}
		if !(x >= 0) || math.IsInf(x, 1) {
			return p, lineErr(base.Line, "noise = %v: want a finite number ≥ 0", x)
		}
		p.z = x / sens
		p.zFav = favourable(base, x, +1) / favourable(n.Sensitivity, sens, -1)
		p.zUnfav = favourable(base, x, -1) / favourable(n.Sensitivity, sens, +1)
	case "discrete-gaussian":
		if err := unused("scale", "sensitivity", "clients", "dim", "l1"); err != nil {
			return p, err
		}
		if p.z, err = number(n.Scale, "noise.scale (σ in integer units)", env); err != nil {
			return p, lineErr(s.Mechanism.Line, "%v", err)
		}
		p.zFav, p.zUnfav = favourable(n.Scale, p.z, +1), favourable(n.Scale, p.z, -1)
		if n.Sensitivity.Set {
			sv, err := number(n.Sensitivity, "noise.sensitivity", env)
			if err != nil {
				return p, err
			}
			p.l2 = sv
		} else {
			p.l2 = 1
		}
		p.clients = 1
		if n.Clients.Set {
			if p.clients, err = integer(n.Clients, "noise.clients", env, 1); err != nil {
				return p, err
			}
		}
		if p.clients == 1 {
			if p.l2 != math.Trunc(p.l2) || p.l2 < 1 {
				return p, lineErr(n.Sensitivity.Line, "noise.sensitivity = %v: the discrete Gaussian needs a whole number ≥ 1", p.l2)
			}
			p.sens = int(p.l2)
			if n.Dim.Set || n.L1.Set {
				return p, lineErr(max(n.Dim.Line, n.L1.Line), "noise.dim and noise.l1 apply only to the distributed discrete Gaussian (clients > 1)")
			}
		} else {
			if p.dim, err = integer(n.Dim, "noise.dim", env, 1); err != nil {
				return p, lineErr(s.Mechanism.Line, "%v", err)
			}
			if n.L1.Set {
				if p.l1, err = number(n.L1, "noise.l1", env); err != nil {
					return p, err
				}
			}
		}
	case "zcdp":
		if err := unused("rho", "xi"); err != nil {
			return p, err
		}
		if p.rho, err = number(n.Rho, "noise.rho", env); err != nil {
			return p, lineErr(s.Mechanism.Line, "%v", err)
		}
		p.rhoFav, p.rhoUnfav = favourable(n.Rho, p.rho, -1), favourable(n.Rho, p.rho, +1)
		if n.Xi.Set {
			if p.xi, err = number(n.Xi, "noise.xi", env); err != nil {
				return p, err
			}
		}
		if !(p.rho >= 0 && p.xi >= 0) {
			return p, lineErr(n.Rho.Line, "zCDP ρ = %v, ξ = %v: want ≥ 0", p.rho, p.xi)
		}
	case "pure-dp":
		if err := unused("epsilon"); err != nil {
			return p, err
		}
		if p.eps0, err = number(n.Epsilon, "noise.epsilon (ε₀ of one step)", env); err != nil {
			return p, lineErr(s.Mechanism.Line, "%v", err)
		}
		p.eps0Fav, p.eps0Unfav = favourable(n.Epsilon, p.eps0, -1), favourable(n.Epsilon, p.eps0, +1)
		if !(p.eps0 >= 0) {
			return p, lineErr(n.Epsilon.Line, "noise.epsilon = %v: want ≥ 0", p.eps0)
		}
	}
	// Sampling.
	p.sampling = "full"
	var sm Sampling
	if s.Sampling != nil {
		sm = *s.Sampling
		p.sampling = sm.Kind.S
		if !slices.Contains(SamplingKinds, p.sampling) {
			return p, lineErr(sm.Kind.Line, "sampling kind %q: want one of %s", p.sampling, strings.Join(SamplingKinds, ", "))
		}
	}
	line := sm.Kind.Line
	qFrom := func() (float64, error) {
		switch {
		case sm.Q.Set && (sm.Batch.Set || sm.Population.Set):
			return 0, lineErr(sm.Q.Line, "give sampling.q or sampling.batch with sampling.population, not both")
		case sm.Q.Set:
			q, err := number(sm.Q, "sampling.q", env)
			if err != nil {
				return 0, err
			}
			if !(q > 0 && q <= 1) {
				return 0, lineErr(sm.Q.Line, "sampling.q = %v: want 0 < q ≤ 1", q)
			}
			return q, nil
		case sm.Batch.Set && sm.Population.Set:
			if err := p.batchPop(sm, env); err != nil {
				return 0, err
			}
			return float64(p.batch) / float64(p.pop), nil
		}
		return 0, lineErr(line, "sampling %s needs q, or batch and population", p.sampling)
	}
	switch p.sampling {
	case "full":
		if sm.Q.Set || sm.Batch.Set || sm.Population.Set || sm.Rule.S != "" || sm.Visible != nil {
			return p, lineErr(line, "sampling kind full takes no q, batch, population, rule or visible")
		}
		p.q = 1
	case "poisson":
		if sm.Rule.S != "" {
			return p, lineErr(sm.Rule.Line, "sampling.rule applies only to kind clients")
		}
		if p.q, err = qFrom(); err != nil {
			return p, err
		}
	case "fixed-batch":
		if sm.Q.Set || sm.Rule.S != "" || sm.Visible != nil {
			return p, lineErr(line, "sampling kind fixed-batch takes batch and population only")
		}
		if err := p.batchPop(sm, env); err != nil {
			return p, err
		}
		p.q = float64(p.batch) / float64(p.pop)
	case "clients":
		p.rule = "poisson"
		if sm.Rule.S != "" {
			p.rule = sm.Rule.S
		}
		switch p.rule {
		case "poisson":
			if p.q, err = qFrom(); err != nil {
				return p, err
			}
		case "fixed":
			if sm.Q.Set {
				return p, lineErr(sm.Q.Line, "clients with rule fixed take batch (the cohort) and population, not q")
			}
			if err := p.batchPop(sm, env); err != nil {
				return p, err
			}
			p.q = float64(p.batch) / float64(p.pop)
		default:
			return p, lineErr(sm.Rule.Line, "sampling.rule %q: want poisson or fixed", p.rule)
		}
	}
	if sm.Visible != nil && *sm.Visible {
		if p.sampling == "fixed-batch" || p.rule == "fixed" {
			return p, lineErr(line, "visible applies to independent (Poisson) participation only")
		}
		p.visible = true
	}
	// Steps, or the tree's shape.
	if p.mech == "tree-aggregation" {
		if s.Tree == nil {
			return p, lineErr(s.Mechanism.Line, "mechanism tree-aggregation needs tree: {leaves, trees, participations, min_separation}")
		}
		if s.Steps.Set {
			return p, lineErr(s.Steps.Line, "tree-aggregation takes its steps from tree.leaves × tree.trees; remove steps")
		}
		if p.sampling != "full" {
			return p, lineErr(line, "tree-aggregation (DP-FTRL) has no sampling amplification here: use sampling kind full")
		}
		t := *s.Tree
		leaves, err := integer(t.Leaves, "tree.leaves", env, 1)
		if err != nil {
			return p, lineErr(s.Mechanism.Line, "%v", err)
		}
		trees := 1
		if t.Trees.Set {
			if trees, err = integer(t.Trees, "tree.trees", env, 1); err != nil {
				return p, err
			}
		}
		if trees > 1<<20 {
			return p, lineErr(t.Trees.Line, "tree.trees = %d: too many", trees)
		}
		for range trees {
			p.trees = append(p.trees, leaves)
		}
		p.parts = 1
		if t.Participations.Set {
			if p.parts, err = integer(t.Participations, "tree.participations", env, 1); err != nil {
				return p, err
			}
		}
		if t.MinSeparation.Set {
			if p.sep, err = integer(t.MinSeparation, "tree.min_separation", env, 0); err != nil {
				return p, err
			}
		}
		p.steps = 1
		return p, nil
	}
	if s.Tree != nil {
		return p, lineErr(s.Mechanism.Line, "tree applies only to mechanism tree-aggregation")
	}
	if !s.Steps.Set {
		return p, lineErr(s.Mechanism.Line, "steps is missing (a number or a formula; 1 for a single release)")
	}
	if p.steps, err = integer(s.Steps, "steps", env, 1); err != nil {
		return p, err
	}
	if p.steps > MaxSteps {
		return p, lineErr(s.Steps.Line, "steps = %d: more than %.0e steps is outside the accountants' domain", p.steps, float64(MaxSteps))
	}
	return p, nil
}

func (p *phase) batchPop(sm Sampling, env map[string]float64) error {
	if !sm.Batch.Set || !sm.Population.Set {
		return lineErr(sm.Kind.Line, "sampling %s needs batch and population", p.sampling)
	}
	var err error
	if p.batch, err = integer(sm.Batch, "sampling.batch", env, 1); err != nil {
		return err
	}
	if p.pop, err = integer(sm.Population, "sampling.population", env, 1); err != nil {
		return err
	}
	if p.batch > p.pop {
		return lineErr(sm.Batch.Line, "sampling.batch = %d exceeds sampling.population = %d", p.batch, p.pop)
	}
	return nil
}

// Rounding ends: the printed values, or the ends of their printed
// precision that favour or disfavour the claim.
const (
	atPrinted = 0
	atFav     = 1
	atUnfav   = -1
)

// event builds the accountant event with every noise parameter multiplied
// by scale, at the printed values or an end of their precision (fav). It
// returns nil for pure-dp phases (not an accountant event).
func (r resolved) event(scale float64, fav int) accountant.Event {
	var parts []accountant.Event
	for _, p := range r.phases {
		e := p.event(scale, fav)
		if e == nil {
			return nil
		}
		parts = append(parts, e)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return accountant.Composed{Events: parts}
}

// at returns the phase's noise parameters at a rounding end.
func (p phase) at(fav int) (z, rho, eps0 float64) {
	switch fav {
	case atFav:
		return p.zFav, p.rhoFav, p.eps0Fav
	case atUnfav:
		return p.zUnfav, p.rhoUnfav, p.eps0Unfav
	}
	return p.z, p.rho, p.eps0
}

// event is the phase's accountant event. Under visible participation the
// accountants see every step as taken (a sound, loose bound); the exact
// mixture is computed separately.
func (p phase) event(scale float64, fav int) accountant.Event {
	z, rho, _ := p.at(fav)
	z *= scale
	var e accountant.Event
	switch p.mech {
	case "gaussian":
		e = accountant.Gaussian{Sigma: z}
	case "laplace":
		e = accountant.Laplace{Scale: z}
	case "tree-aggregation":
		return accountant.TreeAggregation{Sigma: z, Trees: p.trees, Participations: p.parts, MinSeparation: p.sep}
	case "discrete-gaussian":
		if p.clients > 1 {
			e = accountant.DistributedDiscreteGaussian{Sigma: z, Clients: p.clients, L2: p.l2, L1: p.l1, Dim: p.dim}
		} else {
			e = accountant.DiscreteGaussian{Sigma: z, Sensitivity: p.sens}
		}
	case "zcdp":
		e = accountant.ZCDP{Rho: rho, Xi: p.xi}
	case "pure-dp":
		return nil
	}
	switch {
	case p.visible, p.q == 1:
	case p.sampling == "poisson" || (p.sampling == "clients" && p.rule == "poisson"):
		e = accountant.PoissonSampled{Q: p.q, Event: e}
	case p.sampling == "fixed-batch" || (p.sampling == "clients" && p.rule == "fixed"):
		e = accountant.SampledWithoutReplacement{SampleSize: p.batch, PopulationSize: p.pop, Event: e}
	}
	if p.steps == 1 {
		return e
	}
	return accountant.SelfComposed{Event: e, Count: p.steps}
}

// describe is a one-line description of the procedure.
func (r resolved) describe() string {
	var parts []string
	for _, p := range r.phases {
		var s string
		switch p.mech {
		case "gaussian", "laplace":
			s = fmt.Sprintf("%s z=%.6g", p.mech, p.z)
		case "tree-aggregation":
			s = fmt.Sprintf("tree z=%.6g, %d×%d leaves, %d participation(s) ≥ %d apart", p.z, len(p.trees), p.trees[0], p.parts, p.sep)
		case "discrete-gaussian":
			if p.clients > 1 {
				s = fmt.Sprintf("distributed discrete Gaussian σ=%.6g × %d clients, Δ₂=%g, d=%d", p.z, p.clients, p.l2, p.dim)
			} else {
				s = fmt.Sprintf("discrete Gaussian σ=%.6g, Δ=%d", p.z, p.sens)
			}
		case "zcdp":
			s = fmt.Sprintf("stated ρ=%.6g-zCDP", p.rho)
		case "pure-dp":
			s = fmt.Sprintf("stated ε₀=%.6g-DP", p.eps0)
		}
		switch p.sampling {
		case "poisson":
			s += fmt.Sprintf(", Poisson q=%.6g", p.q)
		case "fixed-batch":
			s += fmt.Sprintf(", fixed batch %d of %d", p.batch, p.pop)
		case "clients":
			if p.rule == "fixed" {
				s += fmt.Sprintf(", cohort %d of %d clients", p.batch, p.pop)
			} else {
				s += fmt.Sprintf(", clients Poisson q=%.6g", p.q)
			}
		}
		if p.visible {
			s += " (participation visible)"
		}
		if p.mech != "tree-aggregation" {
			s += fmt.Sprintf(", %d step(s)", p.steps)
		}
		if p.name != "" {
			s = p.name + ": " + s
		}
		parts = append(parts, s)
	}
	out := strings.Join(parts, "; ")
	if r.unclipped {
		out += " (no clipping: unbounded sensitivity)"
	}
	return out
}
