package haar

import (
	"fmt"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
)

// Dataset labels for reports.
var datasetLabel = map[string]string{"fashion_mnist": "Fashion-MNIST", "mnist": "MNIST", "cifar10": "CIFAR-10"}

// imageSets loads each (dataset, pooling) once per process and shares it
// read-only between runs.
type imageSets struct {
	dataDir string
	memo    datasets.Memo[*imageSet]
}

type imageSet struct {
	train, test *data.Dataset
	shape       data.ImageShape
}

func newImageSets(dataDir string) *imageSets { return &imageSets{dataDir: dataDir} }

// locator finds the datasets in the shared --data-dir layout
// (reproduce/datasets).
func (s *imageSets) locator() datasets.Locator { return datasets.Locator{DataDir: s.dataDir} }

// dir returns the folder holding the dataset's files.
func (s *imageSets) dir(ds string) (string, bool) { return s.locator().Find(ds) }

// Available reports, without loading, whether a dataset's files exist.
func (s *imageSets) Available(ds string) bool {
	_, ok := s.dir(ds)
	return ok
}

// where says where a dataset was looked for (for "not run" notes).
func (s *imageSets) where(ds string) string {
	if w := s.locator().Where(ds); w != "" {
		return w
	}
	return "--data-dir/" + map[string]string{"mnist": "mnist", "cifar10": "cifar-10-batches-bin"}[ds] + " (no --data-dir given)"
}

// load returns the dataset's train and test sets after pool 2×2
// average-pooling passes (datasets.LoadPooled; cached).
func (s *imageSets) load(ds string, pool int) (*imageSet, error) {
	return s.memo.Get(fmt.Sprintf("%s/%d", ds, pool), func() (*imageSet, error) {
		l := &imageSet{}
		dir, ok := s.dir(ds)
		if !ok {
			return l, fmt.Errorf("dataset %s not found at %s", ds, s.where(ds))
		}
		var err error
		l.train, l.test, l.shape, err = datasets.LoadPooled(ds, dir, pool)
		return l, err
	})
}

// split is one seed's federated cut of a dataset: the public proxy set of
// the median clip, the clients' training sets (iid, equal sizes: "divided
// equally") and the evaluation set.
type split struct {
	public  *data.Dataset
	clients []*data.Dataset
	test    *data.Dataset
}

// SplitKey names the stream of a seed's split of a dataset: the same for
// every method, level and optimizer.
func SplitKey(seed uint64, dataset string) rng.Key { return rng.New(seed, "haar", dataset, "split") }

// makeSplit shuffles the training set (stream SplitKey/"perm"), takes the
// first Public examples as the public set and gives the next ClientSize
// examples to each client (ClientSize 0: the rest, divided equally); the
// test set is the first Test examples of a shuffle of the test set (all of
// it when Test is 0).
func makeSplit(set *imageSet, d DataSpec, key rng.Key) (*split, error) {
	n := set.train.N
	perm := make([]int, n)
	rng.Perm(key.Derive("perm").Rand(), perm)
	size := d.ClientSize
	if size == 0 {
		size = (n - d.Public) / d.Clients
	}
	if need := d.Public + d.Clients*size; need > n || size < 1 {
		return nil, fmt.Errorf("split: %d public + %d clients × %d examples needs %d of %d training examples", d.Public, d.Clients, size, need, n)
	}
	sp := &split{public: set.train.Subset(perm[:d.Public])}
	for c := 0; c < d.Clients; c++ {
		off := d.Public + c*size
		sp.clients = append(sp.clients, set.train.Subset(perm[off:off+size]))
	}
	sp.test = set.test
	if d.Test > 0 && d.Test < set.test.N {
		tp := make([]int, set.test.N)
		rng.Perm(key.Derive("test").Rand(), tp)
		sp.test = set.test.Subset(tp[:d.Test])
	}
	return sp, nil
}
