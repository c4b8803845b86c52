package paper

import "github.com/fedrepro/fedrepro/algorithms/model"

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

// ImageModelParams is the parameter count of the 10-class classifier a
// cost model assumes on images of these dimensions after pool halvings of
// the side: an MLP with one hidden layer of `hidden` units when modelName is
// "mlp", multinomial logistic regression otherwise.
func ImageModelParams(dims ImageDims, pool int, modelName string, hidden int) int {
	side := dims.Side >> pool
	d := side * side * dims.Channels
	if modelName == "mlp" {
		return model.NewMLP([]int{d, hidden, 10}, 0, model.CrossEntropy).NumParams()
	}
	return model.NewLogReg(d, 10, model.CrossEntropy).NumParams()
}
