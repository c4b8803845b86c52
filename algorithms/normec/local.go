package normec

import (
	"fmt"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/model"
	"gonum.org/v1/gonum/floats"
)

// Objective is a client's local objective f_i as the local operators see
// it. Implementations may be stochastic (a runner that samples a minibatch
// per call), but the paper's theory assumes exact gradients.
type Objective interface {
	// NumParams is the dimension d of x.
	NumParams() int
	// Grad overwrites g with ∇f_i(x) and returns f_i(x).
	Grad(x, g []float64) float64
}

// Components is an Objective that is the mean of N component functions
// f_{i,j} (f_i = (1/N)Σ_j f_{i,j}, Problem (1)). The incremental-gradient
// operator needs it: it steps on one component at a time.
type Components interface {
	Objective
	// NumComponents is N.
	NumComponents() int
	// ComponentGrad overwrites g with ∇f_{i,j}(x), j in [0, N).
	ComponentGrad(j int, x, g []float64)
}

// ModelObjective adapts a model and one client's data: f_i(x) is the mean
// loss of Model over Data and the components f_{i,j} are single examples
// (row j of Data), so logistic regression, the MLP and quadratics (whose
// batch is ignored) all plug into the local operators.
type ModelObjective struct {
	Model model.Differentiable
	Data  model.Batch
	// Rand drives stochastic parts of Model (dropout); nil means the
	// deterministic (evaluation-mode) loss, which the theory assumes.
	Rand *rand.Rand
}

var _ Components = (*ModelObjective)(nil)

// NumParams is Model.NumParams().
func (o *ModelObjective) NumParams() int { return o.Model.NumParams() }

// Grad writes the gradient of the mean loss over Data and returns the loss.
func (o *ModelObjective) Grad(x, g []float64) float64 { return o.Model.LossGrad(x, o.Data, g, o.Rand) }

// NumComponents is the number of examples in Data.
func (o *ModelObjective) NumComponents() int { return o.Data.N }

// Example returns the one-example batch of row j (a view: no copy).
func (o *ModelObjective) Example(j int) model.Batch {
	b := model.Batch{N: 1, D: o.Data.D}
	if o.Data.X != nil {
		b.X = o.Data.X[j*o.Data.D : (j+1)*o.Data.D]
	}
	if o.Data.Y != nil {
		b.Y = o.Data.Y[j : j+1]
	}
	return b
}

// ComponentGrad writes the gradient of example j's loss.
func (o *ModelObjective) ComponentGrad(j int, x, g []float64) {
	o.Model.LossGrad(x, o.Example(j), g, o.Rand)
}

// MeanObjective is f_i = (1/N)Σ_j f_{i,j} for component functions that
// need no data, such as exact quadratics (quad.Quadratic): the test bed on
// which the IG lemmas are checked with known constants.
type MeanObjective struct {
	Parts []model.Differentiable
	buf   []float64
}

var _ Components = (*MeanObjective)(nil)

// NewMeanObjective returns the mean of parts (at least one, equal
// dimensions).
func NewMeanObjective(parts ...model.Differentiable) *MeanObjective {
	if len(parts) == 0 {
		panic("normec: MeanObjective needs at least one part")
	}
	d := parts[0].NumParams()
	for _, p := range parts {
		if p.NumParams() != d {
			panic("normec: MeanObjective parts of different dimensions")
		}
	}
	return &MeanObjective{Parts: parts, buf: make([]float64, d)}
}

// NumParams is the common dimension of the parts.
func (o *MeanObjective) NumParams() int { return o.Parts[0].NumParams() }

// NumComponents is the number of parts.
func (o *MeanObjective) NumComponents() int { return len(o.Parts) }

// Grad writes the mean gradient of the parts and returns their mean value.
func (o *MeanObjective) Grad(x, g []float64) float64 {
	clear(g)
	var f float64
	for _, p := range o.Parts {
		f += p.LossGrad(x, model.Batch{}, o.buf, nil)
		floats.Add(g, o.buf)
	}
	inv := 1 / float64(len(o.Parts))
	floats.Scale(inv, g)
	return f * inv
}

// ComponentGrad writes ∇f_{i,j}(x).
func (o *MeanObjective) ComponentGrad(j int, x, g []float64) {
	o.Parts[j].LossGrad(x, model.Batch{}, g, nil)
}

// LocalKind selects a local update operator T_i (spec §3.2).
type LocalKind int

const (
	// OneStep is T_i(x) = x − γ∇f_i(x), so P_i(x) = ∇f_i(x) (Section 5.1,
	// T = 1; with p = 1 this is α-NormEC).
	OneStep LocalKind = iota
	// GDSteps runs T local GD steps of size γ/T from x:
	// T_i(x) = x − γ·(1/T)Σ_{j<T}∇f_i(x_j), the last local iterate.
	GDSteps
	// IncrementalGradient runs one cyclic pass over the N components in the
	// fixed order 0..N−1 with steps γ/N (eq. (3), 0-based indices):
	// T_i(x) = x − γ·(1/N)Σ_j ∇f_{i,j}(x_j).
	IncrementalGradient
)

// Local is a local update operator: a kind and, for GDSteps, the number of
// steps T.
type Local struct {
	Kind LocalKind
	// Steps is T for GDSteps (≥ 1); ignored otherwise.
	Steps int
}

// String names the operator in labels: "gd1", "gd(T=5)", "ig".
func (l Local) String() string {
	switch l.Kind {
	case OneStep:
		return "gd1"
	case GDSteps:
		return fmt.Sprintf("gd(T=%d)", l.Steps)
	case IncrementalGradient:
		return "ig"
	}
	return fmt.Sprintf("local(%d)", int(l.Kind))
}

// Check reports whether the operator can run on obj.
func (l Local) Check(obj Objective) error {
	switch l.Kind {
	case OneStep:
	case GDSteps:
		if l.Steps < 1 {
			return fmt.Errorf("normec: %d local GD steps (need ≥ 1)", l.Steps)
		}
	case IncrementalGradient:
		c, ok := obj.(Components)
		if !ok {
			return fmt.Errorf("normec: incremental gradient needs a Components objective, got %T", obj)
		}
		if c.NumComponents() < 1 {
			return fmt.Errorf("normec: incremental gradient on a client with no components")
		}
	default:
		return fmt.Errorf("normec: unknown local operator kind %d", int(l.Kind))
	}
	return nil
}

// Cost counts the gradient evaluations of a local operator run: full
// local gradients ∇f_i and component gradients ∇f_{i,j}.
type Cost struct {
	Grads          int
	ComponentGrads int
}

// Workspace is the scratch memory of one client's local operator (two
// d-vectors). It makes Pseudo allocation-free; one per goroutine.
type Workspace struct{ y, g []float64 }

// NewWorkspace returns scratch for dimension d.
func NewWorkspace(d int) *Workspace {
	return &Workspace{y: make([]float64, d), g: make([]float64, d)}
}

// Pseudo writes the pseudo-gradient P_i(x) = (x − T_i(x))/γ into dst and
// returns the gradient evaluations it cost. It forms P_i as the average of
// the gradients along the local path (exactly what (x − T_i(x))/γ equals in
// exact arithmetic), so T = 1 gives ∇f_i(x) bit for bit. dst must not alias
// x. It does not allocate.
func (l Local) Pseudo(obj Objective, x []float64, gamma float64, dst []float64, ws *Workspace) Cost {
	switch l.Kind {
	case OneStep:
		obj.Grad(x, dst)
		return Cost{Grads: 1}
	case GDSteps:
		t := l.Steps
		copy(ws.y, x)
		clear(dst)
		step := gamma / float64(t)
		// Step to x_j before each gradient but the first: the gradients at
		// x_0..x_{T−1} are summed and x_T = T_i(x) itself is never formed.
		for j := 0; j < t; j++ {
			if j > 0 {
				floats.AddScaled(ws.y, -step, ws.g)
			}
			obj.Grad(ws.y, ws.g)
			floats.Add(dst, ws.g)
		}
		floats.Scale(1/float64(t), dst)
		return Cost{Grads: t}
	case IncrementalGradient:
		c := obj.(Components)
		n := c.NumComponents()
		copy(ws.y, x)
		clear(dst)
		step := gamma / float64(n)
		for j := 0; j < n; j++ {
			if j > 0 { // as for GDSteps: x_N is never formed
				floats.AddScaled(ws.y, -step, ws.g)
			}
			c.ComponentGrad(j, ws.y, ws.g)
			floats.Add(dst, ws.g)
		}
		floats.Scale(1/float64(n), dst)
		return Cost{ComponentGrads: n}
	}
	panic(fmt.Sprintf("normec: unknown local operator kind %d", int(l.Kind)))
}

// Apply writes T_i(x) = x − γ·P_i(x) into dst (which must not alias x).
func (l Local) Apply(obj Objective, x []float64, gamma float64, dst []float64, ws *Workspace) Cost {
	c := l.Pseudo(obj, x, gamma, dst, ws)
	floats.AddScaledTo(dst, x, -gamma, dst)
	return c
}

// Path returns the local iterates x^{k,0} = x, x^{k,1}, …, x^{k,n} (n = 1,
// T or N) of the operator run from x, and P_i(x). It allocates; it exists
// for the claim checks (Lemmas 7–9 are statements about these iterates).
func (l Local) Path(obj Objective, x []float64, gamma float64) (iterates [][]float64, pseudo []float64) {
	d := len(x)
	g := make([]float64, d)
	pseudo = make([]float64, d)
	cur := append([]float64(nil), x...)
	iterates = [][]float64{append([]float64(nil), cur...)}
	var n int
	var grad func(j int)
	switch l.Kind {
	case OneStep:
		n = 1
		grad = func(int) { obj.Grad(cur, g) }
	case GDSteps:
		n = l.Steps
		grad = func(int) { obj.Grad(cur, g) }
	case IncrementalGradient:
		c := obj.(Components)
		n = c.NumComponents()
		grad = func(j int) { c.ComponentGrad(j, cur, g) }
	default:
		panic(fmt.Sprintf("normec: unknown local operator kind %d", int(l.Kind)))
	}
	step := gamma / float64(n)
	for j := 0; j < n; j++ {
		grad(j)
		floats.Add(pseudo, g)
		floats.AddScaled(cur, -step, g)
		iterates = append(iterates, append([]float64(nil), cur...))
	}
	floats.Scale(1/float64(n), pseudo)
	return iterates, pseudo
}
