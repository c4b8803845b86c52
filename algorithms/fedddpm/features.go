package fedddpm

import (
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/optim"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// FeatureNet is the stand-in for FID's Inception network on image data
// (decision 11): a small MLP classifier trained on the real training
// images, whose last hidden layer (after ReLU) is the feature space in
// which Fréchet distances are computed. Reports call the result "FD in our
// feature space", never FID: the network, its width and its training are
// ours, so the numbers are not comparable with Inception FIDs.
type FeatureNet struct {
	Net    *model.MLP
	Params []float64
	// TestAccuracy is the classifier's accuracy on the held-out test set
	// (NaN when none was given), reported beside every FD.
	TestAccuracy float64
}

// FeatureNetConfig is the classifier's shape and training.
type FeatureNetConfig struct {
	Hidden []int   `json:"hidden" yaml:"hidden"` // hidden widths; the last is the feature dimension
	Epochs int     `json:"epochs" yaml:"epochs"`
	Batch  int     `json:"batch" yaml:"batch"`
	LR     float64 `json:"lr" yaml:"lr"` // Adam
}

// TrainFeatureNet trains the classifier on train (labels used: this is
// the only labelled training in the reproduction, and it is not part of
// any FL method) with Adam, He initialisation and cross-entropy, all
// randomness from key, and measures its accuracy on test when given.
func TrainFeatureNet(train, test *data.Dataset, cfg FeatureNetConfig, key rng.Key) (*FeatureNet, error) {
	if len(cfg.Hidden) == 0 || cfg.Epochs < 1 || cfg.Batch < 1 || !(cfg.LR > 0) {
		return nil, fmt.Errorf("fedddpm: feature net needs hidden layers, epochs, batch and lr > 0, got %+v", cfg)
	}
	if train == nil || train.N == 0 || train.Classes < 2 {
		return nil, fmt.Errorf("fedddpm: feature net needs labelled training data")
	}
	sizes := append(append([]int{train.D}, cfg.Hidden...), train.Classes)
	m := model.NewMLP(sizes, 0, model.CrossEntropy)
	m.Scheme = model.InitHe
	p := make([]float64, m.NumParams())
	m.Init(p, key.Derive("init").Rand())
	var tr Trainer
	opt := optim.NewAdam(cfg.LR)
	tr.Epochs(m, p, train, opt, cfg.Epochs, cfg.Batch, key.Derive("train").Rand(), nil)
	f := &FeatureNet{Net: m, Params: p, TestAccuracy: math.NaN()}
	if test != nil && test.N > 0 {
		_, f.TestAccuracy = model.Evaluate(m, p, test.X, test.Y, test.N, test.D)
	}
	return f, nil
}

// Dim is the feature dimension (the last hidden width).
func (f *FeatureNet) Dim() int {
	s := f.Net.Sizes()
	return s[len(s)-2]
}

// Features returns the n × Dim() matrix of last-hidden-layer activations
// of the n × d rows x. Plain loops in a fixed order: the result does not
// depend on the machine.
func (f *FeatureNet) Features(x []float64, n int) []float64 {
	sizes := f.Net.Sizes()
	in := x
	for l := 0; l < len(sizes)-2; l++ {
		w, b := f.Net.Layer(f.Params, l)
		fanIn, fanOut := sizes[l], sizes[l+1]
		out := make([]float64, n*fanOut)
		for i := 0; i < n; i++ {
			row := in[i*fanIn : (i+1)*fanIn]
			for j := 0; j < fanOut; j++ {
				wj := w[j*fanIn : (j+1)*fanIn]
				s := b[j]
				for k, v := range row {
					s += wj[k] * v
				}
				out[i*fanOut+j] = max(s, 0)
			}
		}
		in = out
	}
	return in
}

// Classes returns the predicted class (arg-max logit) of every row of x
// (n × d). Like Features it only reads the FeatureNet, so concurrent runs
// may share one.
func (f *FeatureNet) Classes(x []float64, n int) []int {
	h := f.Features(x, n)
	sizes := f.Net.Sizes()
	L := len(sizes) - 1
	fanIn, k := sizes[L-1], sizes[L]
	w, b := f.Net.Layer(f.Params, L-1)
	out := make([]int, n)
	for i := 0; i < n; i++ {
		row := h[i*fanIn : (i+1)*fanIn]
		best, bestV := 0, math.Inf(-1)
		for c := 0; c < k; c++ {
			s := b[c]
			for j, v := range row {
				s += w[c*fanIn+j] * v
			}
			if s > bestV {
				best, bestV = c, s
			}
		}
		out[i] = best
	}
	return out
}
