package normec

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
)

// sources finds and loads the image datasets, once per (dataset, pooling)
// per process, and shares them read-only between runs.
type sources struct {
	dataDir string
	memo    datasets.Memo[*prepared]
}

// prepared is a dataset ready for the runs: pooled and standardized
// training and test sets.
type prepared struct {
	train, test *data.Dataset
	shape       data.ImageShape
	mean, std   float64 // standardization applied (scalar, from the training pixels)
	where       string
}

func newSources(dataDir string) *sources {
	return &sources{dataDir: dataDir}
}

var datasetLabel = map[string]string{"fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10"}

// locator finds the datasets in the shared --data-dir layout
// (reproduce/datasets).
func (s *sources) locator() datasets.Locator { return datasets.Locator{DataDir: s.dataDir} }

// find returns the directory holding ds, or "".
func (s *sources) find(ds string) string {
	dir, _ := s.locator().Find(ds)
	return dir
}

// Available reports, without loading, whether ds can be loaded.
func (s *sources) Available(ds string) bool { return s.find(ds) != "" }

// where says where ds was looked for (for "not run" notes).
func (s *sources) where(ds string) string {
	if w := s.locator().Where(ds); w != "" {
		return w
	}
	return "--data-dir (none given)"
}

// load returns the prepared dataset (cached).
func (s *sources) load(ds string, pool int) (*prepared, error) {
	return s.memo.Get(fmt.Sprintf("%s/%d", ds, pool), func() (*prepared, error) {
		p := &prepared{}
		return p, s.prepare(p, ds, pool)
	})
}

func (s *sources) prepare(p *prepared, ds string, pool int) error {
	dir := s.find(ds)
	if dir == "" {
		return &data.NotFoundError{Dataset: ds, Path: s.where(ds)}
	}
	train, test, shape, err := datasets.LoadPooled(ds, dir, pool)
	if err != nil {
		return err
	}
	p.shape = shape
	p.mean, p.std = pixelStats(train)
	standardize(train, p.mean, p.std)
	standardize(test, p.mean, p.std)
	p.train, p.test, p.where = train, test, dir
	return nil
}

// pixelStats returns the mean and standard deviation of all training
// pixels (one scalar pair, like torchvision's Normalize for grey images).
func pixelStats(d *data.Dataset) (mean, std float64) {
	var s, ss float64
	for _, v := range d.X {
		s += v
	}
	mean = s / float64(len(d.X))
	for _, v := range d.X {
		ss += (v - mean) * (v - mean)
	}
	std = math.Sqrt(ss / float64(len(d.X)))
	if std == 0 {
		std = 1
	}
	return mean, std
}

func standardize(d *data.Dataset, mean, std float64) {
	for i, v := range d.X {
		d.X[i] = (v - mean) / std
	}
}

// isNotFound reports whether err says a dataset is absent.
func isNotFound(err error) bool {
	var nf *data.NotFoundError
	return errors.As(err, &nf) || errors.Is(err, fs.ErrNotExist)
}

// PartitionKey names the stream of a seed's client split: every method,
// model, noise and (p, β, γ) of a seed sees the same clients.
func PartitionKey(seed uint64, dataset, split string) rng.Key {
	return rng.New(seed, paperID, "partition", dataset, split)
}

// Partition returns the clients' row indices into the training set for
// split iid (shuffled, equal shares: the paper's "randomly shuffled and
// evenly distributed") or label-skew (label shards, shardsPerClient per
// client), each client's rows shuffled and capped at perClient (0: no cap).
func Partition(labels []int, split string, clients, shardsPerClient, perClient int, key rng.Key) ([][]int, error) {
	var (
		parts [][]int
		err   error
	)
	switch split {
	case "iid":
		parts, err = data.PartitionIID(len(labels), clients, key.Derive("iid"))
	case "label-skew":
		parts, err = data.PartitionShards(labels, clients, shardsPerClient, key.Derive("shards"))
	default:
		return nil, fmt.Errorf("unknown split %q", split)
	}
	if err != nil {
		return nil, err
	}
	for c := range parts {
		idx := append([]int(nil), parts[c]...)
		rng.Shuffle(key.Derive("client", c, "order").Rand(), idx)
		if perClient > 0 && len(idx) > perClient {
			idx = idx[:perClient]
		}
		sort.Ints(idx)
		parts[c] = idx
	}
	return parts, nil
}

// testSubset returns the first n rows of a fixed random order of the test
// set (the same for every run; n = 0 or ≥ N: the whole set).
func testSubset(test *data.Dataset, n int, dataset string) *data.Dataset {
	if n <= 0 || n >= test.N {
		return test
	}
	idx := make([]int, test.N)
	rng.Perm(rng.New(0, paperID, "test-subset", dataset).Rand(), idx)
	idx = idx[:n]
	sort.Ints(idx)
	return test.Subset(idx)
}

// trainEvalSubset returns n rows drawn from the union of the clients'
// rows (per seed; n = 0: all of them).
func trainEvalSubset(train *data.Dataset, parts [][]int, n int, key rng.Key) *data.Dataset {
	var all []int
	for _, p := range parts {
		all = append(all, p...)
	}
	sort.Ints(all)
	if n > 0 && n < len(all) {
		rng.Shuffle(key.Derive("train-eval").Rand(), all)
		all = all[:n]
		sort.Ints(all)
	}
	return train.Subset(all)
}
