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
)

// upstreamReplay is testdata/upstream_pfedme_replay.json.gz: a pFedMe run
// of the authors' released code (osu-srml/Upcycled-FL@4dd7400, torch 1.13,
// float32 as released) on the released Syn(0.5,0.5) — 6 rounds, 30% of
// clients, 90% stragglers, lr 0.005, seed 1 — with everything random in it
// recorded: the initial model, each round's selected clients, and for each
// client the permutation of every local epoch it ran (so also its epoch
// count), plus the global model after every round and each client's final
// personalised test accuracy.
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

// TestPFedMeReplaysTheReleasedCode runs our fl.PFedMe through the released
// code's own random choices: the global model must follow the released
// code's to float32 rounding every round, and the personalised accuracy
// it reports must be the same. Together with
// TestLocalUpdatesMatchTheReleasedCode this shows the remaining pFedMe
// differences between the two come from the random streams, not from the
// algorithm or its evaluation.
func TestPFedMeReplaysTheReleasedCode(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "upstream_pfedme_replay.json.gz"))
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
	if !src.available("released", "syn_0.5_0.5") {
		t.Skipf("released data not found at %s", src.where("released", "syn_0.5_0.5"))
	}
	fed, err := src.load("released", "syn_0.5_0.5")
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewLogReg(fed.D, fed.Classes, model.DoubleSoftmax)
	alg := &fl.PFedMe{K: 5, Lambda: 15, Mu: 1e-3, Beta: 1}
	s := &fl.Server{Global: append([]float64(nil), r.Init...), Prev: make([]float64, len(r.Init)), NClients: len(fed.Clients)}
	alg.Setup(s)
	states := make([]any, len(fed.Clients))
	local := fl.LocalConfig{Epochs: 10, BatchSize: 32, LR: 0.005, Momentum: 0.5, Upstream: true}
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
			if math.Abs(s.Global[i]-v) > 1e-6 {
				t.Fatalf("round %d parameter %d: ours %.9g, released code %.9g", k+1, i, s.Global[i], v)
			}
		}
	}
	var ours, theirs float64
	for i, c := range fed.Clients {
		_, a := model.Evaluate(m, alg.Personal(states[i]), c.Test.X, c.Test.Y, c.Test.N, c.Test.D)
		ours += r.Weights[i] * a
		theirs += r.Weights[i] * r.Personal[i]
	}
	if math.Abs(ours-theirs) > 1e-9 {
		t.Errorf("personalised accuracy: ours %.6f, released code %.6f", ours, theirs)
	}
}
