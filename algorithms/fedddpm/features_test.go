package fedddpm

import (
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

func blobs(n int, key rng.Key) *data.Dataset {
	r := key.Rand()
	ds := &data.Dataset{X: make([]float64, n*3), Y: make([]int, n), N: n, D: 3, Classes: 3}
	for i := 0; i < n; i++ {
		c := i % 3
		ds.Y[i] = c
		for j := 0; j < 3; j++ {
			v := 0.3 * r.NormFloat64()
			if j == c {
				v += 2
			}
			ds.X[i*3+j] = v
		}
	}
	return ds
}

func TestFeatureNet(t *testing.T) {
	key := rng.New(1, "feature-net")
	train, test := blobs(600, key.Derive("train")), blobs(300, key.Derive("test"))
	f, err := TrainFeatureNet(train, test, FeatureNetConfig{Hidden: []int{16, 8}, Epochs: 5, Batch: 32, LR: 1e-2}, key)
	if err != nil {
		t.Fatal(err)
	}
	if f.TestAccuracy < 0.95 || f.Dim() != 8 {
		t.Fatalf("accuracy %.3f, dim %d", f.TestAccuracy, f.Dim())
	}
	feat := f.Features(test.X, test.N)
	if len(feat) != test.N*8 {
		t.Fatalf("%d feature values", len(feat))
	}
	for _, v := range feat {
		if v < 0 || math.IsNaN(v) {
			t.Fatalf("feature %g is not a ReLU output", v)
		}
	}
	// Classes agrees with the model's own prediction.
	probs := make([]float64, test.N*3)
	f.Net.Predict(f.Params, model.Batch{X: test.X, N: test.N, D: 3}, probs)
	for i, c := range f.Classes(test.X, test.N) {
		for k := 0; k < 3; k++ {
			if probs[i*3+k] > probs[i*3+c]+1e-12 {
				t.Fatalf("row %d: class %d but %d is more probable", i, c, k)
			}
		}
	}
	again, _ := TrainFeatureNet(train, test, FeatureNetConfig{Hidden: []int{16, 8}, Epochs: 5, Batch: 32, LR: 1e-2}, key)
	if maxDiff(again.Params, f.Params) != 0 {
		t.Error("feature net training is not reproducible")
	}
	if _, err := TrainFeatureNet(train, test, FeatureNetConfig{Epochs: 1, Batch: 1, LR: 1}, key); err == nil {
		t.Error("no hidden layer accepted")
	}
}
