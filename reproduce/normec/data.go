package normec

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// sources finds and loads the image datasets, once per (dataset, pooling)
// per process, and shares them read-only between runs.
type sources struct {
	dataDir string

	mu    sync.Mutex
	cache map[string]*prepared
}

// prepared is a dataset ready for the runs: pooled and standardized
// training and test sets.
type prepared struct {
	once        sync.Once
	train, test *data.Dataset
	shape       data.ImageShape
	mean, std   float64 // standardization applied (scalar, from the training pixels)
	where       string
	err         error
}

func newSources(dataDir string) *sources {
	return &sources{dataDir: dataDir, cache: map[string]*prepared{}}
}

var datasetLabel = map[string]string{"fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10"}

// candidates lists where a dataset may be, in order.
func (s *sources) candidates(ds string) []string {
	var out []string
	switch ds {
	case "fashion-mnist":
		if s.dataDir != "" {
			out = append(out, filepath.Join(s.dataDir, "fashion-mnist"), s.dataDir)
		}
		out = append(out, data.FashionMNISTDir)
	case "cifar10":
		if s.dataDir != "" {
			out = append(out, filepath.Join(s.dataDir, "cifar-10-batches-bin"), filepath.Join(s.dataDir, "cifar10", "cifar-10-batches-bin"),
				filepath.Join(s.dataDir, "cifar10"), s.dataDir)
		}
	}
	return out
}

// marker is a file whose presence says a directory holds the dataset.
func marker(ds string) []string {
	switch ds {
	case "fashion-mnist":
		return []string{data.IDXTrainImages, data.IDXTrainImages + ".gz"}
	case "cifar10":
		return []string{"data_batch_1.bin"}
	}
	return nil
}

// find returns the directory holding ds, or "".
func (s *sources) find(ds string) string {
	for _, dir := range s.candidates(ds) {
		for _, m := range marker(ds) {
			if st, err := os.Stat(filepath.Join(dir, m)); err == nil && !st.IsDir() {
				return dir
			}
		}
	}
	return ""
}

// available reports, without loading, whether ds can be loaded.
func (s *sources) available(ds string) bool { return s.find(ds) != "" }

// where says where ds was looked for (for "not run" notes).
func (s *sources) where(ds string) string {
	c := s.candidates(ds)
	if len(c) == 0 {
		return "--data-dir (none given)"
	}
	return strings.Join(c, " or ")
}

// load returns the prepared dataset (cached).
func (s *sources) load(ds string, pool int) (*prepared, error) {
	key := fmt.Sprintf("%s/%d", ds, pool)
	s.mu.Lock()
	p, ok := s.cache[key]
	if !ok {
		p = &prepared{}
		s.cache[key] = p
	}
	s.mu.Unlock()
	p.once.Do(func() { p.err = s.prepare(p, ds, pool) })
	return p, p.err
}

func (s *sources) prepare(p *prepared, ds string, pool int) error {
	dir := s.find(ds)
	if dir == "" {
		return &data.NotFoundError{Dataset: ds, Path: s.where(ds)}
	}
	var (
		train, test *data.Dataset
		err         error
	)
	switch ds {
	case "fashion-mnist":
		train, test, err = data.LoadFashionMNIST(dir)
		p.shape = data.MNISTShape
	case "cifar10":
		train, test, err = data.LoadCIFAR10(dir)
		p.shape = data.CIFARShape
	default:
		return fmt.Errorf("unknown dataset %q", ds)
	}
	if err != nil {
		return err
	}
	shape := p.shape
	for range pool {
		if train, shape, err = data.AvgPool2x2(train, p.shape); err != nil {
			return err
		}
		if test, _, err = data.AvgPool2x2(test, p.shape); err != nil {
			return err
		}
		p.shape = shape
	}
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
