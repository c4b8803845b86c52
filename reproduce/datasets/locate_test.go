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
