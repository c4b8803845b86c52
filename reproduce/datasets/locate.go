package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/data"
)

// Canonical names of the image datasets papers read from --data-dir.
const (
	MNISTName    = "mnist"
	CIFAR10Name  = "cifar10"
	CIFAR100Name = "cifar100"
)

// aliases maps every name a spec may use for an image dataset to its
// canonical name (the papers' specs predate the locator and keep their
// spelling, which their configuration hashes and goldens record).
var aliases = map[string]string{
	FashionMNISTName: FashionMNISTName, "fashion_mnist": FashionMNISTName, "fmnist": FashionMNISTName,
	MNISTName:   MNISTName,
	CIFAR10Name: CIFAR10Name, "cifar-10": CIFAR10Name,
	CIFAR100Name: CIFAR100Name, "cifar-100": CIFAR100Name,
}

// Canonical returns the canonical name of an image dataset, and false for
// a name the locator does not know.
func Canonical(name string) (string, bool) {
	c, ok := aliases[name]
	return c, ok
}

// Locator finds the image datasets in the one --data-dir layout every
// paper shares: D/<canonical name>/ (fashion-mnist, mnist, cifar10,
// cifar100) holding the dataset's files as its publisher ships them (the
// four IDX files, gzip-compressed or not; CIFAR's binary batches, or the
// archive's cifar-10-batches-bin / cifar-100-binary folder). It also
// accepts the other layouts in use — the alias folders (D/fashion_mnist,
// D/fmnist), torchvision's (D/FashionMNIST/raw, D/MNIST/raw), the
// archives' folders directly under D, and D itself — and, for
// Fashion-MNIST, Debian's dataset-fashion-mnist install
// (data.FashionMNISTDir). Finding reads no file but the markers; loading
// stays with the paper, which caches what its runs share.
type Locator struct {
	DataDir string // the user's --data-dir ("" = none)
}

// Candidates lists, in the order they are tried, the folders that may
// hold the dataset (nil for a name the locator does not know).
func (l Locator) Candidates(name string) []string {
	c, ok := Canonical(name)
	if !ok {
		return nil
	}
	var out []string
	if d := l.DataDir; d != "" {
		out = append(out, filepath.Join(d, c))
		switch c {
		case FashionMNISTName:
			out = append(out, filepath.Join(d, "fashion_mnist"), filepath.Join(d, "fmnist"), filepath.Join(d, "FashionMNIST", "raw"))
		case MNISTName:
			out = append(out, filepath.Join(d, "MNIST", "raw"))
		case CIFAR10Name:
			out = append(out, filepath.Join(d, "cifar-10-batches-bin"), filepath.Join(d, "cifar-10"))
		case CIFAR100Name:
			out = append(out, filepath.Join(d, "cifar-100-binary"))
		}
		out = append(out, d)
	}
	if c == FashionMNISTName {
		out = append(out, data.FashionMNISTDir)
	}
	return out
}

// markers are the files whose presence says a folder holds the dataset,
// relative to it.
func markers(c string) []string {
	switch c {
	case FashionMNISTName, MNISTName:
		return []string{data.IDXTrainImages, data.IDXTrainImages + ".gz"}
	case CIFAR10Name:
		return []string{"data_batch_1.bin", filepath.Join("cifar-10-batches-bin", "data_batch_1.bin")}
	case CIFAR100Name:
		return []string{"train.bin", filepath.Join("cifar-100-binary", "train.bin")}
	}
	return nil
}

// Find returns the first candidate folder holding the dataset (the
// loaders of algorithms/data accept it, archive folder or not).
func (l Locator) Find(name string) (string, bool) {
	c, ok := Canonical(name)
	if !ok {
		return "", false
	}
	for _, dir := range l.Candidates(c) {
		for _, m := range markers(c) {
			if st, err := os.Stat(filepath.Join(dir, m)); err == nil && !st.IsDir() {
				return dir, true
			}
		}
	}
	return "", false
}

// Where says where the dataset was looked for, for "not run" notes: the
// candidates joined by " or ", "" when there is none (no --data-dir).
func (l Locator) Where(name string) string { return strings.Join(l.Candidates(name), " or ") }

// LoadImages loads an image dataset's train and test sets from dir (as
// Find returned it) with their image shape; CIFAR-100 with its 100 fine
// labels.
func LoadImages(name, dir string) (train, test *data.Dataset, shape data.ImageShape, err error) {
	c, ok := Canonical(name)
	if !ok {
		return nil, nil, shape, fmt.Errorf("unknown dataset %q", name)
	}
	switch c {
	case FashionMNISTName:
		train, test, err = data.LoadFashionMNIST(dir)
		shape = data.MNISTShape
	case MNISTName:
		train, test, err = data.LoadMNIST(dir)
		shape = data.MNISTShape
	case CIFAR10Name:
		train, test, err = data.LoadCIFAR10(dir)
		shape = data.CIFARShape
	case CIFAR100Name:
		train, test, err = data.LoadCIFAR100(dir, true)
		shape = data.CIFARShape
	}
	return train, test, shape, err
}

// Pool applies pool 2×2 average-pooling passes (data.AvgPool2x2) to an
// image dataset of the given shape and returns the pooled set and its
// shape (pool 0: d itself). A finer resolution is not kept: only the one
// the runs use stays in memory (28×28 Fashion-MNIST alone is 376 MB of
// float64).
func Pool(d *data.Dataset, shape data.ImageShape, pool int) (*data.Dataset, data.ImageShape, error) {
	var err error
	for range pool {
		if d, shape, err = data.AvgPool2x2(d, shape); err != nil {
			return nil, shape, err
		}
	}
	return d, shape, nil
}

// LoadPooled is LoadImages followed by pool 2×2 average-pooling passes of
// both splits (Pool): the resolution a run reads.
func LoadPooled(name, dir string, pool int) (train, test *data.Dataset, shape data.ImageShape, err error) {
	train, test, shape0, err := LoadImages(name, dir)
	if err != nil {
		return nil, nil, shape0, err
	}
	if train, shape, err = Pool(train, shape0, pool); err != nil {
		return nil, nil, shape, err
	}
	if test, _, err = Pool(test, shape0, pool); err != nil {
		return nil, nil, shape, err
	}
	return train, test, shape, nil
}
