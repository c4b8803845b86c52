package attack

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
)

// ErrNoData marks an audit that could not run because its data set is
// absent; the row says where it was looked for.
type ErrNoData struct{ What, Where, Fix string }

func (e *ErrNoData) Error() string {
	return fmt.Sprintf("%s not found at %s (%s)", e.What, e.Where, e.Fix)
}

var fmnist struct {
	sync.Mutex
	dir         string
	train, test *data.Dataset
}

// fashionMNIST returns Fashion-MNIST's training and test sets average-
// pooled 2×2 to 14×14 (the Haar and Fed-α-NormEC default scale), loaded
// once per process from dir (data.FashionMNISTDir when ""), its pins
// checked by data.LoadFashionMNIST.
func fashionMNIST(dir string) (train, test *data.Dataset, err error) {
	fmnist.Lock()
	defer fmnist.Unlock()
	if fmnist.train != nil && fmnist.dir == dir {
		return fmnist.train, fmnist.test, nil
	}
	where := dir
	if where == "" {
		where = data.FashionMNISTDir
	}
	// LoadFashionMNIST checks the pins itself; reproduce/datasets only
	// names the fix when the files are absent.
	if _, err := os.Stat(filepath.Join(where, data.IDXTrainImages+".gz")); err != nil {
		if _, err := os.Stat(filepath.Join(where, data.IDXTrainImages)); err != nil {
			e := datasets.FashionMNIST(dir)
			return nil, nil, &ErrNoData{What: "Fashion-MNIST", Where: where, Fix: e.Fix}
		}
	}
	tr, te, err := data.LoadFashionMNIST(where)
	if err != nil {
		return nil, nil, err
	}
	if tr, _, err = data.AvgPool2x2(tr, data.MNISTShape); err != nil {
		return nil, nil, err
	}
	if te, _, err = data.AvgPool2x2(te, data.MNISTShape); err != nil {
		return nil, nil, err
	}
	fmnist.dir, fmnist.train, fmnist.test = dir, tr, te
	return tr, te, nil
}

// upcycledRoots are the folders the released Upcycled-FL data is looked
// for in: the shared folder beside the checkout ($FEDREPRO_SHARED or
// ../shared), then the cache of `fedrepro data --fetch`.
func upcycledRoots(o Options) []string {
	shared := o.SharedDir
	if shared == "" {
		shared = os.Getenv("FEDREPRO_SHARED")
	}
	if shared == "" {
		shared = filepath.Join("..", "shared")
	}
	cache := o.CacheDir
	if cache == "" {
		cache = datasets.DefaultCache()
	}
	return datasets.UpcycledRoots(shared, cache)
}

// upcycledSynIID loads the released Syn(iid) federation.
func upcycledSynIID(o Options) (*data.Federated, error) {
	roots := upcycledRoots(o)
	for _, r := range roots {
		if f, err := data.LoadUpcycled(r, "synthetic_iid"); err == nil {
			return f, nil
		}
	}
	return nil, &ErrNoData{What: "the released Upcycled-FL Syn(iid) data", Where: fmt.Sprint(roots), Fix: "make data"}
}
