package paper

import (
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/model"
)

// TestImageModelSize checks the parameter counts the image cost models
// start from against the closed forms: d·k + k for logistic regression,
// d·h + h + h·k + k for the one-hidden-layer MLP, with d = (side>>pool)²·c;
// both spellings of Fashion-MNIST are one dataset, an unknown one is not
// sized.
func TestImageModelSize(t *testing.T) {
	for _, tc := range []struct {
		dataset, model string
		pool, hidden   int
		want           float64
		ok             bool
	}{
		{"fashion_mnist", "logreg", 0, 0, 784*10 + 10, true},
		{"fashion-mnist", "logreg", 1, 0, 196*10 + 10, true},
		{"mnist", "mlp", 1, 64, 196*64 + 64 + 64*10 + 10, true},
		{"cifar10", "mlp", 1, 32, 768*32 + 32 + 32*10 + 10, true},
		{"cifar10", "resnet", 0, 0, 3072*10 + 10, true}, // unknown model: weighed as logreg
		{"svhn", "logreg", 0, 0, 0, false},
	} {
		_, p, ok := ImageModelSize(tc.dataset, tc.pool, tc.model, tc.hidden)
		if ok != tc.ok || p != tc.want {
			t.Errorf("%s/%s pool %d hidden %d: %v params, ok %v; want %v, %v", tc.dataset, tc.model, tc.pool, tc.hidden, p, ok, tc.want, tc.ok)
		}
	}
}

// TestNewImageClassifier checks that the builder keeps the caller's MLP
// initialisation and refuses an unknown name with an error.
func TestNewImageClassifier(t *testing.T) {
	m, err := NewImageClassifier("mlp", 12, 5, 3, model.InitHe)
	if err != nil {
		t.Fatal(err)
	}
	mlp, ok := m.(*model.MLP)
	if !ok || mlp.Scheme != model.InitHe || m.NumParams() != 12*5+5+5*3+3 {
		t.Errorf("mlp: %T, params %d", m, m.NumParams())
	}
	if _, err := NewImageClassifier("cnn", 12, 5, 3, model.InitHe); err == nil {
		t.Error("unknown model accepted")
	}
}
