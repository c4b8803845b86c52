package data

// This file holds every function of the package that touches the file
// system. Each reads whole files and hands the bytes to a decoder.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readFile reads path; a missing file becomes a *NotFoundError for dataset.
func readFile(dataset, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NotFoundError{Dataset: dataset, Path: path}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return b, nil
}

// requireDir returns a *NotFoundError when dir is not a directory.
func requireDir(dataset, dir string) error {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return &NotFoundError{Dataset: dataset, Path: dir}
	}
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// LoadUpcycled loads the released Upcycled-FL dataset name (one of
// UpcycledSyntheticNames) from root, verifying every file against its
// SHA-256 pin. It accepts both the shared layout root/name/{train,test}/…
// and the upstream repository layout root/name/data/{train,test}/… (point
// root at the upstream data/ folder).
func LoadUpcycled(root, name string) (*Federated, error) {
	pins, ok := UpcycledPins(name)
	if !ok {
		return nil, fmt.Errorf("unknown Upcycled-FL dataset %q (want one of %s)", name, strings.Join(UpcycledSyntheticNames, ", "))
	}
	dir := filepath.Join(root, name)
	if !isDir(filepath.Join(dir, "train")) && isDir(filepath.Join(dir, "data", "train")) {
		dir = filepath.Join(dir, "data")
	}
	return LoadUpcycledDir(dir, name, pins)
}

// LoadUpcycledDir loads an upstream-format dataset folder dir holding
// train/mytrain.pt, train/user_groups.json, test/mytest.pt and
// test/user_groups.json (see BuildUpcycled for how they combine). When
// pins is non-nil, every one of the four files must have a pin (SHA-256
// hex, keyed by the relative paths above) and match it.
func LoadUpcycledDir(dir, name string, pins map[string]string) (*Federated, error) {
	if err := requireDir(name, dir); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, rel := range []string{UpcycledTrainPT, UpcycledTrainGroups, UpcycledTestPT, UpcycledTestGroups} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		b, err := readFile(name, p)
		if err != nil {
			return nil, err
		}
		if pins != nil {
			want, ok := pins[rel]
			if !ok {
				return nil, fmt.Errorf("%s: no SHA-256 pin for %s", p, rel)
			}
			if err := VerifySHA256(p, b, want); err != nil {
				return nil, err
			}
		}
		files[rel] = b
	}
	path := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	train, err := DecodeTensorDataset(files[UpcycledTrainPT], path(UpcycledTrainPT))
	if err != nil {
		return nil, err
	}
	test, err := DecodeTensorDataset(files[UpcycledTestPT], path(UpcycledTestPT))
	if err != nil {
		return nil, err
	}
	trg, err := DecodeUserGroups(files[UpcycledTrainGroups], path(UpcycledTrainGroups))
	if err != nil {
		return nil, err
	}
	teg, err := DecodeUserGroups(files[UpcycledTestGroups], path(UpcycledTestGroups))
	if err != nil {
		return nil, err
	}
	return BuildUpcycled(name, dir, train, test, trg, teg)
}

// ReadTensorDatasetFile reads a torch.save'd TensorDataset file (see
// DecodeTensorDataset); a missing file is reported as dataset not found.
func ReadTensorDatasetFile(path string) (*Dataset, error) {
	b, err := readFile(filepath.Base(path), path)
	if err != nil {
		return nil, err
	}
	return DecodeTensorDataset(b, path)
}

// FashionMNISTDir is where Debian's dataset-fashion-mnist package installs
// Fashion-MNIST (gzip-compressed IDX files).
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

// IDX file names of MNIST-style datasets (optionally with ".gz").
const (
	IDXTrainImages = "train-images-idx3-ubyte"
	IDXTrainLabels = "train-labels-idx1-ubyte"
	IDXTestImages  = "t10k-images-idx3-ubyte"
	IDXTestLabels  = "t10k-labels-idx1-ubyte"
)

// fashionMNISTSHA256 pins the content of the four Fashion-MNIST IDX files
// after decompression (so raw and gzip copies verify alike), as shipped by
// Debian's dataset-fashion-mnist 0.0~git20200523.55506a9-1.
var fashionMNISTSHA256 = map[string]string{
	IDXTrainImages: "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
	IDXTrainLabels: "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
	IDXTestImages:  "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
	IDXTestLabels:  "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
}

// LoadIDXDir loads an MNIST-style directory holding the four standard IDX
// files, each raw or gzip-compressed (name or name.gz). When pins is
// non-nil, each file's decompressed content must match pins[base name].
// dataset names the data in errors ("dataset mnist not found at P").
func LoadIDXDir(dir, dataset string, classes int, pins map[string]string) (train, test *Dataset, err error) {
	if err := requireDir(dataset, dir); err != nil {
		return nil, nil, err
	}
	arrays := map[string]*IDX{}
	for _, base := range []string{IDXTrainImages, IDXTrainLabels, IDXTestImages, IDXTestLabels} {
		p := filepath.Join(dir, base)
		if _, err := os.Stat(p); err != nil {
			p += ".gz"
		}
		b, err := readFile(dataset, p)
		if err != nil {
			return nil, nil, err
		}
		content, err := gunzipIfNeeded(b, p, maxDecompressed)
		if err != nil {
			return nil, nil, err
		}
		if want, ok := pins[base]; ok {
			if err := VerifySHA256(p+" (IDX content)", content, want); err != nil {
				return nil, nil, err
			}
		}
		a, err := parseIDX(content, p)
		if err != nil {
			return nil, nil, err
		}
		arrays[base] = a
	}
	train, err = IDXDataset(arrays[IDXTrainImages], arrays[IDXTrainLabels], classes, filepath.Join(dir, "train-*"))
	if err != nil {
		return nil, nil, err
	}
	test, err = IDXDataset(arrays[IDXTestImages], arrays[IDXTestLabels], classes, filepath.Join(dir, "t10k-*"))
	if err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// FashionMNISTPins returns a copy of the SHA-256 pins (hex) of the four
// Fashion-MNIST IDX files' decompressed content, keyed by base name
// (IDXTrainImages, …).
func FashionMNISTPins() map[string]string {
	out := make(map[string]string, len(fashionMNISTSHA256))
	for k, v := range fashionMNISTSHA256 {
		out[k] = v
	}
	return out
}

// LoadFashionMNIST loads Fashion-MNIST (60000 train, 10000 test, 28×28,
// 10 classes) from dir, or from FashionMNISTDir when dir is "", verifying
// the content pins.
func LoadFashionMNIST(dir string) (train, test *Dataset, err error) {
	if dir == "" {
		dir = FashionMNISTDir
	}
	return LoadIDXDir(dir, "fashion-mnist", 10, FashionMNISTPins())
}

// LoadMNIST loads MNIST (60000 train, 10000 test, 28×28, 10 classes) from
// dir. No pins: this platform ships no MNIST package to pin against.
func LoadMNIST(dir string) (train, test *Dataset, err error) {
	return LoadIDXDir(dir, "mnist", 10, nil)
}

// LoadCIFAR10 loads CIFAR-10's binary version from dir or from
// dir/cifar-10-batches-bin: data_batch_1.bin … data_batch_5.bin (train,
// 50000 rows) and test_batch.bin (10000 rows).
func LoadCIFAR10(dir string) (train, test *Dataset, err error) {
	if isDir(filepath.Join(dir, "cifar-10-batches-bin")) {
		dir = filepath.Join(dir, "cifar-10-batches-bin")
	}
	if err := requireDir("cifar10", dir); err != nil {
		return nil, nil, err
	}
	var parts []*Dataset
	for i := 1; i <= 5; i++ {
		p := filepath.Join(dir, fmt.Sprintf("data_batch_%d.bin", i))
		b, err := readFile("cifar10", p)
		if err != nil {
			return nil, nil, err
		}
		d, err := DecodeCIFAR10(b, p)
		if err != nil {
			return nil, nil, err
		}
		parts = append(parts, d)
	}
	train = Concat(parts...)
	p := filepath.Join(dir, "test_batch.bin")
	b, err := readFile("cifar10", p)
	if err != nil {
		return nil, nil, err
	}
	test, err = DecodeCIFAR10(b, p)
	if err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// LoadCIFAR100 loads CIFAR-100's binary version (train.bin, test.bin) from
// dir or dir/cifar-100-binary, with the 100 fine labels or, when fine is
// false, the 20 coarse ones.
func LoadCIFAR100(dir string, fine bool) (train, test *Dataset, err error) {
	if isDir(filepath.Join(dir, "cifar-100-binary")) {
		dir = filepath.Join(dir, "cifar-100-binary")
	}
	if err := requireDir("cifar100", dir); err != nil {
		return nil, nil, err
	}
	var out [2]*Dataset
	for i, base := range []string{"train.bin", "test.bin"} {
		p := filepath.Join(dir, base)
		b, err := readFile("cifar100", p)
		if err != nil {
			return nil, nil, err
		}
		out[i], err = DecodeCIFAR100(b, p, fine)
		if err != nil {
			return nil, nil, err
		}
	}
	return out[0], out[1], nil
}

// LoadLEAF loads a LEAF-format dataset (e.g. FEMNIST) from dir/train/*.json
// and dir/test/*.json (files read in name order; see BuildLEAF). classes
// fixes the label count (62 for FEMNIST); 0 infers it.
func LoadLEAF(dir, name string, classes int) (*Federated, error) {
	var sets [2][]*LEAFFile
	for i, sub := range []string{"train", "test"} {
		d := filepath.Join(dir, sub)
		if err := requireDir(name, d); err != nil {
			return nil, err
		}
		paths, err := filepath.Glob(filepath.Join(d, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		sort.Strings(paths)
		if i == 0 && len(paths) == 0 {
			return nil, &NotFoundError{Dataset: name, Path: filepath.Join(d, "*.json")}
		}
		for _, p := range paths {
			b, err := readFile(name, p)
			if err != nil {
				return nil, err
			}
			f, err := DecodeLEAF(bytes.NewReader(b), p)
			if err != nil {
				return nil, err
			}
			sets[i] = append(sets[i], f)
		}
	}
	return BuildLEAF(name, dir, sets[0], sets[1], classes)
}
