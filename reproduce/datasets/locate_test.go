package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
)

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every spelling of a dataset finds it in the one layout, D/<canonical>,
// and in each other layout the papers accepted; a folder named like a
// marker does not count; unknown names and no --data-dir find nothing.
func TestLocator(t *testing.T) {
	cases := []struct {
		name, file, want string // file and want relative to D
	}{
		{"fashion_mnist", "fashion-mnist/" + data.IDXTrainImages + ".gz", "fashion-mnist"},
		{"fmnist", "fashion-mnist/" + data.IDXTrainImages, "fashion-mnist"},
		{"fashion-mnist", "FashionMNIST/raw/" + data.IDXTrainImages, "FashionMNIST/raw"},
		{"mnist", "mnist/" + data.IDXTrainImages, "mnist"},
		{"mnist", "MNIST/raw/" + data.IDXTrainImages + ".gz", "MNIST/raw"},
		{"cifar10", "cifar10/cifar-10-batches-bin/data_batch_1.bin", "cifar10"},
		{"cifar10", "cifar-10-batches-bin/data_batch_1.bin", "cifar-10-batches-bin"},
		{"cifar10", "data_batch_1.bin", "."},
		{"cifar-10", "cifar10/data_batch_1.bin", "cifar10"},
		{"cifar100", "cifar100/cifar-100-binary/train.bin", "cifar100"},
		{"cifar100", "cifar-100-binary/train.bin", "cifar-100-binary"},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.file, func(t *testing.T) {
			d := t.TempDir()
			touch(t, filepath.Join(d, c.file))
			got, ok := Locator{DataDir: d}.Find(c.name)
			if want := filepath.Join(d, c.want); !ok || got != want {
				t.Errorf("Find(%q) = %q, %v; want %q", c.name, got, ok, want)
			}
		})
	}
	d := t.TempDir()
	if err := os.MkdirAll(filepath.Join(d, "mnist", data.IDXTrainImages), 0o755); err != nil {
		t.Fatal(err)
	}
	if dir, ok := (Locator{DataDir: d}).Find("mnist"); ok {
		t.Errorf("a folder named like the marker was taken for the data: %s", dir)
	}
	if _, ok := (Locator{DataDir: d}).Find("imagenet"); ok {
		t.Error("an unknown dataset was found")
	}
	if w := (Locator{}).Where("cifar10"); w != "" {
		t.Errorf("without --data-dir CIFAR-10 has candidates %q", w)
	}
	if w := (Locator{}).Where("fmnist"); w != data.FashionMNISTDir {
		t.Errorf("without --data-dir Fashion-MNIST is looked for at %q, want %s", w, data.FashionMNISTDir)
	}
}

// TestPool: pool passes of Pool are pool successive AvgPool2x2 passes
// (the same values and shape), and 0 passes return the set itself.
func TestPool(t *testing.T) {
	shape := data.ImageShape{H: 4, W: 4, C: 1}
	d := &data.Dataset{N: 2, D: 16, Classes: 2, Y: []int{0, 1}, X: make([]float64, 32)}
	for i := range d.X {
		d.X[i] = float64(i * i % 7)
	}
	if got, s, err := Pool(d, shape, 0); err != nil || got != d || s != shape {
		t.Fatalf("0 passes: %p %v %v, want the set itself", got, s, err)
	}
	want, wshape := d, shape
	for pool := 1; pool <= 2; pool++ {
		var err error
		if want, wshape, err = data.AvgPool2x2(want, wshape); err != nil {
			t.Fatal(err)
		}
		got, s, err := Pool(d, shape, pool)
		if err != nil || s != wshape || len(got.X) != len(want.X) {
			t.Fatalf("%d passes: shape %v (want %v), %v", pool, s, wshape, err)
		}
		for i := range got.X {
			if got.X[i] != want.X[i] {
				t.Fatalf("%d passes: x[%d] = %v, want %v", pool, i, got.X[i], want.X[i])
			}
		}
	}
	if _, _, err := Pool(d, data.ImageShape{H: 3, W: 3, C: 1}, 1); err == nil {
		t.Error("a shape that does not match the rows pooled without error")
	}
}
