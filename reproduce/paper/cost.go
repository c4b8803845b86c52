package paper

import (
	"fmt"

	"github.com/fedrepro/fedrepro/algorithms/model"
)

// ImageDims are a dataset's standard training and test sizes and its input
// shape before pooling, as the loaders read them; the cost models of the
// image papers share them.
type ImageDims struct{ Train, Test, Side, Channels int }

// Image datasets by their canonical name (papers key their specs by their
// own spelling and map to these).
var (
	FashionMNISTDims = ImageDims{60000, 10000, 28, 1}
	MNISTDims        = ImageDims{60000, 10000, 28, 1}
	CIFAR10Dims      = ImageDims{50000, 10000, 32, 3}
)

// imageDimsByName keys the image datasets by the spellings the papers'
// specs use: haar writes fashion_mnist, normec fashion-mnist (the pinned
// name, datasets.FashionMNISTName); both are the same split.
var imageDimsByName = map[string]ImageDims{
	"fashion_mnist": FashionMNISTDims,
	"fashion-mnist": FashionMNISTDims,
	"mnist":         MNISTDims,
	"cifar10":       CIFAR10Dims,
}

// ImageModelSize is what an image paper's cost model starts from: the
// dataset's dimensions and the parameter count P (as a float, the cost
// models' unit) of the classifier modelName with hidden units after pool
// halvings of the side (ImageModelParams). ok is false for a dataset it
// does not know, whose runs the cost models weigh 1.
func ImageModelSize(dataset string, pool int, modelName string, hidden int) (dims ImageDims, params float64, ok bool) {
	dims, ok = imageDimsByName[dataset]
	if !ok {
		return ImageDims{}, 0, false
	}
	return dims, float64(ImageModelParams(dims, pool, modelName, hidden)), true
}

// ImageModelParams is the parameter count of the 10-class classifier a
// cost model assumes on images of these dimensions after pool halvings of
// the side: the NewImageClassifier of modelName, multinomial logistic
// regression for a name it does not know.
func ImageModelParams(dims ImageDims, pool int, modelName string, hidden int) int {
	side := dims.Side >> pool
	d := side * side * dims.Channels
	m, err := NewImageClassifier(modelName, d, hidden, 10, model.InitNormal)
	if err != nil {
		return model.NewLogReg(d, 10, model.CrossEntropy).NumParams()
	}
	return m.NumParams()
}

// NewImageClassifier builds the classifiers the image papers (haar,
// normec) train on d inputs: "logreg", multinomial logistic regression, or
// "mlp", one hidden layer of `hidden` units initialised by mlpInit (the
// papers differ there: haar takes He, normec torch's default), both with
// the cross-entropy loss. One builder keeps the run and its cost model on
// the same architecture.
func NewImageClassifier(name string, d, hidden, classes int, mlpInit model.InitScheme) (model.Model, error) {
	switch name {
	case "logreg":
		return model.NewLogReg(d, classes, model.CrossEntropy), nil
	case "mlp":
		mlp := model.NewMLP([]int{d, hidden, classes}, 0, model.CrossEntropy)
		mlp.Scheme = mlpInit
		return mlp, nil
	}
	return nil, fmt.Errorf("unknown model %q (known: logreg, mlp)", name)
}
