package upcycled

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedrepro/fedrepro/algorithms/dp"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
)

// Mode says whose definition of a mechanism to follow.
type Mode int

const (
	// Paper follows the text: σ is the noise std; the objective-noise
	// direction is uniform on the sphere and its Gamma shape is the number
	// of parameters (so the density is exactly ∝ exp(−α‖n‖)); the loss is
	// plain cross-entropy.
	Paper Mode = iota
	// Upstream follows the released code (spec upcycled.md §3.7–3.8, §6):
	// the noise std is σ²; the objective-noise direction is elementwise
	// U(−½,½) per tensor scaled by the Gamma radius divided by the SUM of
	// per-tensor norms, with Gamma shape = input dimension; softmax is
	// applied twice in the loss.
	Upstream
)

func (m Mode) String() string {
	if m == Upstream {
		return "upstream"
	}
	return "paper"
}

// ParseMode reads "paper" or "upstream".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "paper", "":
		return Paper, nil
	case "upstream":
		return Upstream, nil
	}
	return 0, fmt.Errorf("unknown mode %q (want paper or upstream)", s)
}

// Loss returns the loss the mode trains with.
func (m Mode) Loss() model.Loss {
	if m == Upstream {
		return model.DoubleSoftmax
	}
	return model.CrossEntropy
}

// OutputPerturbation clips a client's trained model to L2 norm Tau (the
// whole parameter vector, as both the paper and the code do — the model,
// not the update) and adds Gaussian noise before upload (§6, Thm 6.2).
type OutputPerturbation struct {
	Tau, Sigma float64
	Mode       Mode
}

// Validate rejects settings without a meaning.
func (o OutputPerturbation) Validate() error {
	if !(o.Tau > 0) || math.IsInf(o.Tau, 0) {
		return fmt.Errorf("output perturbation: clip τ = %g, want a finite τ > 0", o.Tau)
	}
	if !(o.Sigma >= 0) || math.IsInf(o.Sigma, 0) {
		return fmt.Errorf("output perturbation: σ = %g, want a finite σ ≥ 0", o.Sigma)
	}
	return nil
}

// Std is the per-coordinate noise standard deviation actually added: σ in
// Paper mode, σ² in Upstream mode (torch.normal(0, sigma**2) takes a std).
func (o OutputPerturbation) Std() float64 {
	if o.Mode == Upstream {
		return o.Sigma * o.Sigma
	}
	return o.Sigma
}

// Apply clips params to τ and adds the noise, drawing from r; it returns
// the clip factor.
func (o OutputPerturbation) Apply(r *rand.Rand, params []float64) float64 {
	f := dp.ClipL2(params, o.Tau)
	dp.AddGaussian(r, params, o.Std())
	return f
}

// Hooks installs the mechanism on every upload (client noise stream).
func (o OutputPerturbation) Hooks() fl.Hooks {
	return fl.Hooks{AfterLocal: func(c *fl.Client, p []float64) { o.Apply(c.Noise, p) }}
}

// ObjectivePerturbation adds a random linear term ⟨n, ω⟩ to each selected
// client's local objective, drawn once per local update (§6, Thm 6.3).
type ObjectivePerturbation struct {
	Alpha float64
	Mode  Mode
	// InputDim is the Gamma shape upstream uses (feature_len: 20 for the
	// synthetic data, 784 for FEMNIST).
	InputDim int
	// Tensors splits the parameter vector as the model's state dict does
	// (upstream draws and normalises per tensor); nil means one tensor.
	Tensors []model.Tensor
}

// Validate rejects settings without a meaning.
func (o ObjectivePerturbation) Validate() error {
	if !(o.Alpha > 0) || math.IsInf(o.Alpha, 0) {
		return fmt.Errorf("objective perturbation: α = %g, want a finite α > 0", o.Alpha)
	}
	if o.Mode == Upstream && o.InputDim < 1 {
		return fmt.Errorf("objective perturbation (upstream): input dimension %d, want ≥ 1", o.InputDim)
	}
	return nil
}

// Sample overwrites dst with one noise vector and returns its norm.
func (o ObjectivePerturbation) Sample(r *rand.Rand, dst []float64) float64 {
	if o.Mode == Paper {
		return dp.ObjectivePerturbation{Alpha: o.Alpha}.Sample(r, dst)
	}
	tensors := o.Tensors
	if tensors == nil {
		tensors = []model.Tensor{{Name: "all", Rows: len(dst), Cols: 1}}
	}
	var sumNorms float64
	for _, t := range tensors {
		v := t.Of(dst)
		for i := range v {
			v[i] = r.Float64() - 0.5
		}
		sumNorms += dp.Norm2(v)
	}
	radius := dp.Gamma(r, float64(o.InputDim), o.Alpha)
	scale := radius / sumNorms
	for i := range dst {
		dst[i] *= scale
	}
	return dp.Norm2(dst)
}

// Hooks draws the linear term before every local update (client noise
// stream) and hands it to the local optimizer through Client.Linear.
func (o ObjectivePerturbation) Hooks() fl.Hooks {
	var buf []float64
	return fl.Hooks{BeforeLocal: func(c *fl.Client) {
		if len(buf) != len(c.Global) {
			buf = make([]float64, len(c.Global))
		}
		o.Sample(c.Noise, buf)
		c.Linear = buf
	}}
}
