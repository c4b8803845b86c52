package upcycled

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// upstreamLocal is testdata/upstream_local_update.json: one local update
// computed by the authors' released client code (osu-srml/Upcycled-FL at
// 4dd7400, run under torch 1.13 in float64 on the released Syn(0.5,0.5)
// data) from a fixed model, with the batch as large as the client's data
// and no straggling, so that the update is deterministic.
type upstreamLocal struct {
	Code         string    `json:"code"`
	Dataset      string    `json:"dataset"`
	Client       int       `json:"client"`
	LocalEp      int       `json:"local_ep"`
	K            int       `json:"k"`
	LR           float64   `json:"lr"`
	Momentum     float64   `json:"momentum"`
	ProxParam    float64   `json:"prox_param"`
	DynAlpha     float64   `json:"dyn_alpha"`
	MaxGradNorm  float64   `json:"max_grad_norm"`
	PFedMeLambda float64   `json:"pfedme_lambda"`
	PFedMeMu     float64   `json:"pfedme_mu"`
	NablaFill    float64   `json:"nabla_fill"`
	Init         []float64 `json:"init"`
	FedAvg       []float64 `json:"fedavg"`
	FedProx      []float64 `json:"fedprox"`
	FedDyn       []float64 `json:"feddyn"`
	PFedMeW      []float64 `json:"pfedme_w"`
	PFedMeTheta  []float64 `json:"pfedme_theta"`
}

// TestLocalUpdatesMatchTheReleasedCode replays those updates with our
// baselines (upstream mode: double softmax, the upstream momentum buffer)
// and requires agreement to 1e−12: FedAvg, FedProx (μ in the buffer),
// FedDyn (whose regulariser the released code detaches: its update equals
// FedAvg's although ∇ = 0.3 everywhere) and pFedMe (both the uploaded local
// model w and the personalised model θ). Skipped without the released data.
func TestLocalUpdatesMatchTheReleasedCode(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "upstream_local_update.json"))
	if err != nil {
		t.Fatal(err)
	}
	var u upstreamLocal
	if err := json.Unmarshal(b, &u); err != nil {
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
	one := []*data.Dataset{fed.Clients[u.Client].Train}
	cfg := fl.Config{Sampling: fl.Uniform, Frac: 1, Local: fl.LocalConfig{Epochs: u.LocalEp, BatchSize: one[0].N, LR: u.LR, Momentum: u.Momentum, Upstream: true}}
	pfedme := &fl.PFedMe{K: u.K, Lambda: u.PFedMeLambda, Mu: u.PFedMeMu, Beta: 1}
	cases := []struct {
		name string
		alg  fl.Algorithm
		want []float64
	}{
		{"fedavg", &fl.FedAvg{}, u.FedAvg},
		{"fedprox", &fl.FedProx{Mu: u.ProxParam}, u.FedProx},
		{"feddyn-upstream", &fl.FedDyn{Alpha: u.DynAlpha, MaxGradNorm: u.MaxGradNorm, Mode: fl.DynUpstream}, u.FedDyn},
		{"pfedme", pfedme, u.PFedMeW},
	}
	if !sameVec(u.FedDyn, u.FedAvg, 0) {
		t.Error("in the released code's output FedDyn's update differs from FedAvg's: the detached-regulariser finding no longer holds for this data")
	}
	for _, c := range cases {
		m := model.NewLogReg(fed.D, fed.Classes, model.DoubleSoftmax)
		e, err := fl.New(m, one, c.alg, cfg, rng.New(1, "replay"), u.Init, fl.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		e.TrainRound() // one client, full participation: the global model is its upload
		if !sameVec(e.Server().Global, c.want, 1e-12) {
			t.Errorf("%s: ours %v…, released code %v…", c.name, e.Server().Global[:3], c.want[:3])
		}
		if c.alg == fl.Algorithm(pfedme) && !sameVec(pfedme.Personal(e.ClientState(0)), u.PFedMeTheta, 1e-12) {
			t.Errorf("pfedme personalised model: ours %v…, released code %v…", pfedme.Personal(e.ClientState(0))[:3], u.PFedMeTheta[:3])
		}
	}
}

func sameVec(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !(math.Abs(a[i]-b[i]) <= tol) {
			return false
		}
	}
	return true
}
