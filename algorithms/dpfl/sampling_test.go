package dpfl

import (
	"errors"
	"math"
	"testing"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
)

// TestDPFedAvgLedgerRecordsCohort runs DP-FedAvg under each client
// sampling the engine offers and checks that the ledger accounts only the
// runs whose cohort really is Poisson with the fixed denominator's q:
// Bernoulli(Q) gives the same ε as the Poisson event (the number every
// report used), Bernoulli(P ≠ Q) and a fixed K of N cohort are errors
// wrapping accountant.ErrSamplingMismatch, and K = N (every client) is
// valid because Q = 1 then amplifies nothing.
func TestDPFedAvgLedgerRecordsCohort(t *testing.T) {
	clients := toyClients(31, 10, 20, 4)
	m := model.NewLogReg(4, 3, model.CrossEntropy)
	init := make([]float64, m.NumParams())
	const delta, rounds = 1e-5, 3
	for _, tc := range []struct {
		name string
		q    float64
		cfg  fl.Config
		ok   bool
	}{
		{"bernoulli(q)", 0.3, fl.Config{Sampling: fl.Bernoulli, P: 0.3}, true},
		{"bernoulli(2q)", 0.3, fl.Config{Sampling: fl.Bernoulli, P: 0.6}, false},
		{"uniform 3 of 10", 0.3, fl.Config{Sampling: fl.Uniform, Frac: 0.3}, false},
		{"uniform 10 of 10, q = 1", 1, fl.Config{Sampling: fl.Uniform, Frac: 1}, true},
		{"uniform 10 of 10, q = 0.5", 0.5, fl.Config{Sampling: fl.Uniform, Frac: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Local = fl.LocalConfig{Epochs: 1, BatchSize: 10, LR: 0.1}
			alg := &DPFedAvg{Mechanism: Gaussian{}, Schedule: Constant{Sigma: 1.1, C: 0.1}, Q: tc.q}
			e, err := fl.New(m, clients, alg, cfg, rng.New(3), init, fl.Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < rounds; k++ {
				e.TrainRound()
			}
			if got, want := alg.Ledger.Entries[0].Sampling, cfg.Cohort(len(clients)); got != want {
				t.Fatalf("ledger records sampling %v, the engine sampled %v", got, want)
			}
			eps, err := alg.Ledger.Epsilon(delta, false)
			if !tc.ok {
				if !errors.Is(err, accountant.ErrSamplingMismatch) || !math.IsNaN(eps) {
					t.Fatalf("ε = %v, err = %v; want NaN and ErrSamplingMismatch", eps, err)
				}
				return
			}
			want, _, werr := accountant.RDPEpsilon(alg.Ledger.Event(false), delta)
			if err != nil || werr != nil || eps != want {
				t.Fatalf("ε = %v (%v), the ledger's Poisson event gives %v (%v)", eps, err, want, werr)
			}
		})
	}
}

// TestDPSGDLedgerRecordsLotSampling: every block of a DP-SGD client's
// ledger says it sampled lots by PoissonLot with its own q, and the valid
// event equals the ledger's Poisson event, so sample-level ε is unchanged.
func TestDPSGDLedgerRecordsLotSampling(t *testing.T) {
	e, _ := runDPSGD(t, rng.New(7), Gaussian{}, nil, 3)
	n := 0
	for i := 0; i < e.Server().NClients; i++ {
		l := ClientLedger(e.ClientState(i))
		if l == nil {
			continue
		}
		n++
		for _, en := range l.Entries {
			if en.Sampling != LotSampling(en.Q) {
				t.Fatalf("client %d: block %+v does not record PoissonLot's sampling", i, en)
			}
		}
		for _, eff := range []bool{false, true} {
			v, err := l.ValidEvent(eff)
			if err != nil || v.String() != l.Event(eff).String() {
				t.Fatalf("client %d: valid event %v (%v), ledger event %v", i, v, err, l.Event(eff))
			}
		}
	}
	if n == 0 {
		t.Fatal("no client was selected")
	}
}

// TestLedgerRelation: a ledger recorded under replace-one is accounted
// under replace-one (RDP has no replace-one Poisson bound: an error, never
// the add/remove number), and a visible cohort is never amplified.
func TestLedgerRelation(t *testing.T) {
	l := &Ledger{Neighbouring: accountant.ReplaceOne}
	l.Add(Entry{Q: 0.1, Sigma: 1, Multiplier: 1, Steps: 10, Sampling: LotSampling(0.1)})
	if eps, err := l.Epsilon(1e-5, false); err == nil {
		t.Fatalf("replace-one Poisson ledger: ε = %v without error; RDP has no such bound", eps)
	}
	v := &Ledger{Unit: accountant.UnitUser, Visible: true}
	v.Add(Entry{Q: 0.1, Sigma: 1, Multiplier: 1, Steps: 10, Sampling: fl.BernoulliCohort(0.1)})
	if _, err := v.Epsilon(1e-5, false); !errors.Is(err, accountant.ErrSamplingMismatch) {
		t.Fatalf("visible cohort accounted as Poisson: err = %v", err)
	}
}
