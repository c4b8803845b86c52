package normec

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// toyData is a small separable-ish 10-class problem (Gaussian blobs).
func toyData(n, d int, seed uint64) *data.Dataset {
	r := rng.New(seed, "toy").Rand()
	centres := make([]float64, 10*d)
	for i := range centres {
		centres[i] = r.NormFloat64()
	}
	ds := &data.Dataset{X: make([]float64, n*d), Y: make([]int, n), N: n, D: d, Classes: 10}
	for i := range n {
		y := i % 10
		ds.Y[i] = y
		for j := range d {
			ds.X[i*d+j] = centres[y*d+j] + 0.8*r.NormFloat64()
		}
	}
	return ds
}

// toyTrainTest splits one toy problem into a training and a test set.
func toyTrainTest(n, m, d int) (train, test *data.Dataset) {
	all := toyData(n+m, d, 3)
	idx := make([]int, n+m)
	for i := range idx {
		idx[i] = i
	}
	return all.Subset(idx[:n]), all.Subset(idx[n:])
}

func TestPartition(t *testing.T) {
	labels := toyData(2000, 2, 1).Y
	key := PartitionKey(1, "toy", "x")
	skew, err := Partition(labels, "label-skew", 20, 2, 0, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.CheckPartition(skew, len(labels), true); err != nil {
		t.Fatal(err)
	}
	for c, rows := range skew {
		seen := map[int]bool{}
		for _, i := range rows {
			seen[labels[i]] = true
		}
		if len(seen) > 2 {
			t.Errorf("label-skew client %d sees %d labels", c, len(seen))
		}
	}
	iid, err := Partition(labels, "iid", 20, 2, 60, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.CheckPartition(iid, len(labels), false); err != nil {
		t.Fatal(err)
	}
	for c, rows := range iid {
		if len(rows) != 60 || !sort.IntsAreSorted(rows) {
			t.Errorf("iid client %d: %d rows (want the cap 60), sorted %v", c, len(rows), sort.IntsAreSorted(rows))
		}
	}
	if _, err := Partition(labels, "dirichlet", 20, 2, 0, key); err == nil {
		t.Error("unknown split accepted")
	}
}

func TestBatchObjectiveEpochs(t *testing.T) {
	ds := toyData(100, 3, 2)
	rows := []int{3, 5, 7, 11, 13, 17, 19, 23, 29, 31}
	m := model.NewLogReg(3, 10, model.CrossEntropy)
	o := newBatchObjective(m, ds, rows, 3, rand.New(rand.NewPCG(1, 2)))
	x, g := make([]float64, m.NumParams()), make([]float64, m.NumParams())
	// 10 rows, batch 3: an epoch is 3 batches (drop_last), 9 distinct rows.
	for epoch := range 3 {
		seen := map[int]bool{}
		for range 3 {
			o.Grad(x, g)
			for j := range o.batch {
				row := o.perm[o.pos-o.batch+j]
				if seen[row] {
					t.Fatalf("epoch %d: row %d drawn twice", epoch, row)
				}
				seen[row] = true
				if !reflect.DeepEqual(o.bx[j*3:(j+1)*3], ds.Row(row)) {
					t.Fatalf("batch row %d is not data row %d", j, row)
				}
			}
		}
		if len(seen) != 9 {
			t.Fatalf("epoch %d drew %d rows", epoch, len(seen))
		}
	}
}

func toyConfig(method, noise string, p, beta, gamma float64) RunConfig {
	pr := Privacy{Epsilon: 8, Delta: 1e-5}
	tr := Training{Rounds: 30, Clients: 5, Batch: 8, LocalSteps: 1, Alpha: 0.01, Memory: "all", ShardsPerClient: 2, EvalEvery: 10}
	sigma, err := NoiseSigma(noise, p, beta, tr.Rounds, pr)
	if err != nil {
		panic(err)
	}
	return RunConfig{Dataset: "toy", Data: DataConf{Test: 100, TrainEval: 100}, Model: "logreg", Split: "iid", Training: tr,
		Method: method, Noise: noise, Sigma: sigma, P: p, Beta: beta, Gamma: gamma, Privacy: pr, Gate: true}
}

func TestExecuteDeterministicAndLearns(t *testing.T) {
	train, test := toyTrainTest(500, 200, 6)
	for _, c := range []RunConfig{toyConfig("normec", "formula", 0.5, 0.1, 0.1), toyConfig("fedavg", "none", 1, 0.1, 0.1)} {
		a, err := Execute(context.Background(), train, test, c, 7)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Execute(context.Background(), train, test, c, 7)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("%s: two executions differ", c.Method)
		}
		if len(a.Rounds) != 4 || a.Rounds[3]["round"] != 30 {
			t.Fatalf("%s: evaluated rounds %v", c.Method, a.Rounds)
		}
		if !(a.Final["acc"] > a.Rounds[0]["acc"]+0.2) {
			t.Errorf("%s did not learn: accuracy %v → %v", c.Method, a.Rounds[0]["acc"], a.Final["acc"])
		}
		if a.Final["gate_acc"] != a.Final["acc"] || a.Final["best_acc"] < a.Final["acc"] {
			t.Errorf("%s: final metrics %v", c.Method, a.Final)
		}
		wantTx := 30 * 5
		if c.P < 1 {
			wantTx = -1
		}
		if tx := a.Counters["transmissions"]; wantTx > 0 && tx != int64(wantTx) || tx == 0 {
			t.Errorf("%s: %d transmissions", c.Method, tx)
		}
	}
}

func TestExecuteRejects(t *testing.T) {
	train, test := toyTrainTest(100, 50, 4)
	c := toyConfig("normec", "none", 1, 0.1, 0.1)
	c.Model = "resnet20"
	if _, err := Execute(context.Background(), train, test, c, 1); err == nil {
		t.Error("unknown model accepted")
	}
	c = toyConfig("scaffold", "none", 1, 0.1, 0.1)
	if _, err := Execute(context.Background(), train, test, c, 1); err == nil {
		t.Error("unknown method accepted")
	}
}

// TestCIFARFromDataDir writes a tiny CIFAR-10 in the binary-batch format
// and checks that --data-dir finds it, pools it to 16×16×3 and runs on it.
func TestCIFARFromDataDir(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cifar-10-batches-bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	write := func(name string, n int) {
		b := make([]byte, 0, n*3073)
		for i := range n {
			b = append(b, byte(i%10))
			for range 3072 {
				b = append(b, byte(r.IntN(256)))
			}
		}
		if err := os.WriteFile(filepath.Join(bin, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 5; i++ {
		write(fmt.Sprintf("data_batch_%d.bin", i), 40)
	}
	write("test_batch.bin", 30)
	if src := newSources(""); src.Available("cifar10") {
		t.Fatal("CIFAR-10 available without --data-dir")
	}
	src := newSources(dir)
	if !src.Available("cifar10") {
		t.Fatalf("CIFAR-10 not found under %s", dir)
	}
	p, err := src.load("cifar10", 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.train.N != 200 || p.test.N != 30 || p.train.D != 768 {
		t.Fatalf("loaded %d/%d rows of %d features, want 200/30 of 768", p.train.N, p.test.N, p.train.D)
	}
	c := toyConfig("normec", "formula", 1, 0.01, 0.1)
	c.Dataset = "cifar10"
	if _, err := Execute(context.Background(), p.train, p.test, c, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := newSources(filepath.Join(dir, "nothing")).load("cifar10", 0); !isNotFound(err) {
		t.Errorf("missing CIFAR-10: %v, want a not-found error", err)
	}
}
