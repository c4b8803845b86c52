package upcycled

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/upcycled"
)

// upstreamReplay is a run of the authors' released code
// (osu-srml/Upcycled-FL@4dd7400, torch 1.13, float32 as released) on
// released data with everything random in it recorded: the initial model,
// each training round's selected clients, and for each client the
// permutation of every local epoch it ran (so also its epoch count), plus
// the global model after every training round and the final accuracy
// (pFedMe: each client's personalised test accuracy).
//
//	testdata/upstream_pfedme_replay.json.gz: pFedMe, Syn(0.5,0.5), Vanilla,
//	  6 rounds, 30% of clients, 90% stragglers, lr 0.005, seed 1;
//	testdata/upstream_fedavg_replay.json.gz: FedAvg, Syn(0,0), Upcycled
//	  with c = 0.3, 6 iterations (3 training rounds), 90% stragglers,
//	  lr 0.1, momentum 0.5, seed 1.
type upstreamReplay struct {
	Init   []float64 `json:"init"`
	Rounds []struct {
		Selected []int     `json:"selected"`
		Global   []float64 `json:"global"`
		Clients  []struct {
			N     int     `json:"n"`
			Perms [][]int `json:"perms"`
		} `json:"clients"`
	} `json:"rounds"`
	FinalAcc float64   `json:"final_acc"`
	Personal []float64 `json:"personal_acc_per_client"`
	Weights  []float64 `json:"group_ws"`
}

// permSource feeds math/rand/v2 the values that make rng.Perm's
// Fisher–Yates (IntN(i+1) for i = n−1 … 1, from the identity) produce
// given permutations: our client loop then visits exactly the released
// code's mini-batches.
type permSource struct {
	vals []uint64
	k    int
}

func (s *permSource) Uint64() uint64 { v := s.vals[s.k]; s.k++; return v }

func (s *permSource) add(p []int) {
	n := len(p)
	a, pos := make([]int, n), make([]int, n)
	for i := range a {
		a[i], pos[i] = i, i
	}
	for i := n - 1; i > 0; i-- {
		j, m := pos[p[i]], i+1
		// IntN(m) is the high word of x·m (Lemire); x = (j + ½)·2⁶⁴/m
		// gives j and a low word far from the rejection zone.
		x := uint64(j)
		if m&(m-1) != 0 {
			x, _ = bits.Div64(uint64(j), 1<<63, uint64(m))
		}
		s.vals = append(s.vals, x)
		a[i], a[j] = a[j], a[i]
		pos[a[i]], pos[a[j]] = i, j
	}
}

// TestReplaysOfTheReleasedCode runs our baselines through the released
// code's own random choices: the global model must follow the released
// code's to float32 rounding after every training round (Upcycled's even
// step included), and the reported accuracy must be the same. Together with
// TestLocalUpdatesMatchTheReleasedCode this shows that what differs between
// our runs and the authors' is the random streams, not the algorithms (the
// momentum buffer, shuffled mini-batches, stragglers, pFedMe's personalised
// models) or their evaluation.
func TestReplaysOfTheReleasedCode(t *testing.T) {
	cases := []struct {
		file, dataset string
		alg           fl.Algorithm
		lr, c         float64 // c > 0: Upcycled with that coefficient
	}{
		{"upstream_pfedme_replay.json.gz", "syn_0.5_0.5", &fl.PFedMe{K: 5, Lambda: 15, Mu: 1e-3, Beta: 1}, 0.005, 0},
		{"upstream_fedavg_replay.json.gz", "syn_0_0", &fl.FedAvg{}, 0.1, 0.3},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) { replay(t, tc.file, tc.dataset, tc.alg, tc.lr, tc.c) })
	}
}

func replay(t *testing.T, file, dataset string, alg fl.Algorithm, lr, coef float64) {
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var r upstreamReplay
	if err := json.NewDecoder(zr).Decode(&r); err != nil {
		t.Fatal(err)
	}
	src := newSources(filepath.Join("..", "..", "..", "shared"), "", 0)
	if !src.available("released", dataset) {
		t.Skipf("released data not found at %s", src.where("released", dataset))
	}
	fed, err := src.load("released", dataset)
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewLogReg(fed.D, fed.Classes, model.DoubleSoftmax)
	s := &fl.Server{Global: append([]float64(nil), r.Init...), Prev: make([]float64, len(r.Init)), NClients: len(fed.Clients)}
	alg.Setup(s)
	states := make([]any, len(fed.Clients))
	local := fl.LocalConfig{Epochs: 10, BatchSize: 32, LR: lr, Momentum: 0.5, Upstream: true}
	for k, rd := range r.Rounds {
		var ups []*fl.Upload
		for j, id := range rd.Selected {
			rc := rd.Clients[j]
			if rc.N != fed.Clients[id].Train.N {
				t.Fatalf("round %d: client %d has %d examples here, %d upstream", k, id, fed.Clients[id].Train.N, rc.N)
			}
			ps := &permSource{}
			for _, p := range rc.Perms {
				ps.add(p)
			}
			c := &fl.Client{ID: id, Data: fed.Clients[id].Train, Global: s.Global, Epochs: len(rc.Perms), Local: &local,
				Model: m, Rand: rand.New(ps), State: states[id]}
			up := &fl.Upload{Client: id, Weight: float64(fed.Clients[id].Train.N), Params: append([]float64(nil), s.Global...)}
			alg.Local(c, up)
			if ps.k != len(ps.vals) {
				t.Fatalf("round %d client %d: %d of %d recorded draws used", k, id, ps.k, len(ps.vals))
			}
			states[id] = c.State
			ups = append(ups, up)
		}
		copy(s.Prev, s.Global)
		alg.Aggregate(s, ups)
		for i, v := range rd.Global {
			if !(math.Abs(s.Global[i]-v) <= 1e-5) { // float32 rounding over the round (≈1e−6 observed)
				t.Fatalf("training round %d parameter %d: ours %.9g, released code %.9g", k+1, i, s.Global[i], v)
			}
		}
		if coef > 0 {
			upcycled.EvenStep(s, nil, coef)
		}
	}
	if p, ok := alg.(*fl.PFedMe); ok {
		var ours, theirs float64
		for i, c := range fed.Clients {
			_, a := model.Evaluate(m, p.Personal(states[i]), c.Test.X, c.Test.Y, c.Test.N, c.Test.D)
			ours += r.Weights[i] * a
			theirs += r.Weights[i] * r.Personal[i]
		}
		if !(math.Abs(ours-theirs) <= 1e-9) {
			t.Errorf("personalised accuracy: ours %.6f, released code %.6f", ours, theirs)
		}
		return
	}
	_, acc := model.Evaluate(m, s.Global, fed.Test.X, fed.Test.Y, fed.Test.N, fed.Test.D)
	if !(math.Abs(acc-r.FinalAcc) <= 1e-9) {
		t.Errorf("final accuracy: ours %.6f, released code %.6f", acc, r.FinalAcc)
	}
}
