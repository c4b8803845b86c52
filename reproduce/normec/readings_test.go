package normec

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedrepro/fedrepro/golden"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// fakeResults builds two seeds of results for a configuration whose
// accuracy rises linearly to acc over 3 evaluations (rounds 0, 10, 20),
// with p·20 transmissions per round.
func fakeResults(combo Combo, method string, p, beta, gamma, acc float64) []*runner.Result {
	var out []*runner.Result
	for seed := uint64(1); seed <= 2; seed++ {
		c := RunConfig{Dataset: combo.Dataset, Model: combo.Model, Split: combo.Split, Noise: combo.Noise, Method: method, P: p, Beta: beta, Gamma: gamma,
			Training: Training{Rounds: 20, Clients: 20}, Privacy: Privacy{Epsilon: 8, Delta: 1e-5}}
		if combo.Noise == "formula" {
			c.Sigma, _ = NoiseSigma("formula", p, beta, 20, c.Privacy)
		}
		jitter := 0.001 * float64(seed)
		r := &runner.Result{Run: runner.Run{Paper: paperID, Scale: "test", Experiment: method, Cell: CellLabel(c), Seed: seed, Config: c}}
		for i, round := range []float64{0, 10, 20} {
			a := acc * float64(i) / 2
			r.Rounds = append(r.Rounds, runner.Metrics{"round": round, "acc": a + jitter, "train_loss": 2 - a, "loss": 2 - a, "transmissions": round * p * 20})
		}
		r.Final = runner.Metrics{"acc": acc + jitter, "best_acc": acc + jitter, "train_loss": 2 - acc, "loss": 2 - acc, "transmissions": 20 * p * 20, "diverged": 0}
		r.Extra = map[string]any{"params": 100.0}
		out = append(out, r)
	}
	return out
}

// paperLikeGrid is a grid in which every reading of the paper holds.
func paperLikeGrid(t *testing.T, combo Combo) []*runner.Result {
	t.Helper()
	var rs []*runner.Result
	betaAcc := map[float64]float64{0.001: 0.6, 0.01: 0.7, 0.1: 0.55}
	for _, p := range []float64{0.25, 0.5, 1} {
		for b, a := range betaAcc {
			for _, g := range []float64{0.01, 0.1} {
				acc := a - 0.05*(1-p) // full participation is better per round
				if g == 0.01 {
					acc -= 0.1
				}
				rs = append(rs, fakeResults(combo, "normec", p, b, g, acc)...)
			}
		}
	}
	for _, b := range []float64{0.001, 0.01, 0.1} {
		for _, g := range []float64{0.01, 0.1} {
			acc := 0.3
			if math.Abs(b*g-0.001) < 1e-12 {
				acc = 0.45
			}
			if b == 0.1 && g == 0.01 {
				acc = 0.5
			}
			rs = append(rs, fakeResults(combo, "fedavg", 1, b, g, acc)...)
		}
	}
	return rs
}

func TestReadingsOnPaperLikeGrid(t *testing.T) {
	nums, err := golden.Load(paperID)
	if err != nil {
		t.Fatal(err)
	}
	combo := Combo{"fashion-mnist", "logreg", "iid", "formula", ""}
	grids, err := Grids(paperLikeGrid(t, combo))
	if err != nil {
		t.Fatal(err)
	}
	g := grids[combo]
	if gamma, grp := g.Tuned("normec", 1, 0.01); gamma != 0.1 || grp == nil {
		t.Fatalf("tuned γ = %v", gamma)
	}
	want := map[string]Verdict{
		"fig1_best_beta": Holds, "fig1_worst_beta": Holds, "fig1_acc_beta0.01_p1": NotComparable, "fig1_acc_beta0.1_p1": Holds,
		"fig1_full_beats_partial": Holds, "fig2_transmissions": Holds, "fig2_partial_fewer_transmissions": Holds,
		"fig3_ec_beats_fedavg": Holds, "fig3_normec_best_beta": Holds, "fig4_fedavg_best_beta": Holds, "fig4_fedavg_diagonal_product": Holds,
	}
	rs := Readings(g, nums)
	if len(rs) != len(want) {
		t.Fatalf("%d readings, want %d", len(rs), len(want))
	}
	for _, r := range rs {
		if r.Verdict != want[r.ID] {
			t.Errorf("%s: %s (%s), want %s", r.ID, r.Verdict, r.Ours, want[r.ID])
		}
	}
	// An empty grid runs nothing.
	for _, r := range Readings(&Grid{Combo: combo, Groups: map[Config]*Group{}}, nums) {
		if r.Verdict != NotRun {
			t.Errorf("empty grid: %s is %s", r.ID, r.Verdict)
		}
	}
}

func TestReadingsRefuted(t *testing.T) {
	nums, err := golden.Load(paperID)
	if err != nil {
		t.Fatal(err)
	}
	combo := Combo{"fashion-mnist", "logreg", "iid", "none", ""}
	var rs []*runner.Result
	for _, p := range []float64{0.25, 1} {
		for _, b := range []float64{0.001, 0.01, 0.1} {
			// β = 0.1 best, partial participation better, FedAvg better.
			rs = append(rs, fakeResults(combo, "normec", p, b, 0.1, 0.3+b+0.1*(1-p))...)
			rs = append(rs, fakeResults(combo, "fedavg", 1, b, 0.1, 0.9)...)
		}
	}
	grids, err := Grids(rs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, r := range Readings(grids[combo], nums) {
		got[r.ID] = r.Verdict
	}
	for id, v := range map[string]Verdict{"fig1_best_beta": Refuted, "fig1_worst_beta": Refuted, "fig1_acc_beta0.1_p1": Refuted,
		"fig1_full_beats_partial": Refuted, "fig3_ec_beats_fedavg": Refuted, "fig3_normec_best_beta": Refuted} {
		if got[id] != v {
			t.Errorf("%s: %s, want %s", id, got[id], v)
		}
	}
}

func TestTransmissionsTo(t *testing.T) {
	combo := Combo{"fashion-mnist", "logreg", "iid", "none", ""}
	grids, err := Grids(fakeResults(combo, "normec", 0.5, 0.01, 0.1, 0.8))
	if err != nil {
		t.Fatal(err)
	}
	g := grids[combo].Get("normec", 0.5, 0.01, 0.1)
	// Accuracy (seed mean) is 0.0015, 0.4015, 0.8015 at 0, 100, 200 transmissions.
	for target, want := range map[float64]float64{0.001: 0, 0.3: 100, 0.8: 200, 0.9: math.Inf(1)} {
		if got := TransmissionsTo(g, target); got != want {
			t.Errorf("target %v: %v transmissions, want %v", target, got, want)
		}
	}
}

func TestRobustnessReading(t *testing.T) {
	iid, skew := Combo{"fashion-mnist", "logreg", "iid", "none", ""}, Combo{"fashion-mnist", "logreg", "label-skew", "none", ""}
	rs := append(fakeResults(iid, "normec", 1, 0.01, 0.1, 0.8), fakeResults(iid, "fedavg", 1, 0.01, 0.1, 0.75)...)
	rs = append(rs, fakeResults(skew, "normec", 1, 0.01, 0.1, 0.78)...)
	rs = append(rs, fakeResults(skew, "fedavg", 1, 0.01, 0.1, 0.6)...)
	grids, err := Grids(rs)
	if err != nil {
		t.Fatal(err)
	}
	if r := RobustnessReading(grids[iid], grids[skew]); r.Verdict != Holds {
		t.Errorf("robustness: %s (%s)", r.Verdict, r.Ours)
	}
	if r := RobustnessReading(grids[skew], grids[iid]); r.Verdict != Refuted {
		t.Errorf("reversed robustness: %s (%s)", r.Verdict, r.Ours)
	}
}

// TestReportWrites renders the report (without the claim checks and the
// audit, which have their own tests) from a synthetic grid and checks its
// sections, figures and summary cells.
func TestReportWrites(t *testing.T) {
	s, err := specs.Load("smoke")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := paper.Options{Scale: "smoke", ReportsDir: dir, DataDir: filepath.Join(dir, "nothing")}
	combo := Combo{"fashion-mnist", "logreg", "iid", "formula", ""}
	if err := writeReportSpec(o, s, newSources(o.DataDir), paperLikeGrid(t, combo), false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(paper.ReportDir(o, paperID), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, want := range []string{"The paper's readings beside ours", "Privacy: the ε each run really had", "Figures 1–4", "Fig 4 values", "not run: CIFAR-10 not found", "ResNet20"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	for _, f := range []string{"fig1_acc", "fig1_loss", "fig2", "fig3_acc", "fig3_loss", "fig4"} {
		for _, ext := range []string{".png", ".svg"} {
			if _, err := os.Stat(filepath.Join(paper.ReportDir(o, paperID), "figures", f+"_"+combo.Slug()+ext)); err != nil {
				t.Error(err)
			}
		}
	}
	sum, err := os.ReadFile(filepath.Join(paper.ReportDir(o, paperID), "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"figure": "1"`, `"figure": "4"`, `"figure": "grid"`, `"figure": "reading"`, `"epsilon":`, `"epsilon_visible":`, `"gamma":`, `"noise": "formula"`} {
		if !strings.Contains(string(sum), key) {
			t.Errorf("summary.json lacks %s", key)
		}
	}
}

// seedResults builds one result per accuracy in accs (one seed each) for
// a configuration, with a flat curve at that accuracy.
func seedResults(combo Combo, method string, p, beta, gamma float64, accs ...float64) []*runner.Result {
	var out []*runner.Result
	for i, acc := range accs {
		c := RunConfig{Dataset: combo.Dataset, Model: combo.Model, Split: combo.Split, Noise: combo.Noise, Method: method, P: p, Beta: beta, Gamma: gamma,
			Training: Training{Rounds: 20, Clients: 20}, Privacy: Privacy{Epsilon: 8, Delta: 1e-5}}
		r := &runner.Result{Run: runner.Run{Paper: paperID, Scale: "test", Experiment: method, Cell: CellLabel(c), Seed: uint64(i + 1), Config: c}}
		for _, round := range []float64{0, 10, 20} {
			r.Rounds = append(r.Rounds, runner.Metrics{"round": round, "acc": acc, "train_loss": 2 - acc, "loss": 2 - acc, "transmissions": round * p * 20})
		}
		r.Final = runner.Metrics{"acc": acc, "best_acc": acc, "train_loss": 2 - acc, "loss": 2 - acc, "transmissions": 20 * p * 20, "diverged": 0}
		r.Extra = map[string]any{"params": 100.0}
		out = append(out, r)
	}
	return out
}

// TestOrderVerdict checks the rule of the ordering reading on synthetic
// cases: a tie never counts as a win, a reversal with no win refutes.
// Counting a positive mean difference as a win (the rule this replaced)
// fails the tie rows; dropping the reversal check fails "refuted".
func TestOrderVerdict(t *testing.T) {
	for _, c := range []struct {
		name string
		d    []float64 // A − B per case
		std  float64   // seed std of both A and B in every case
		want Verdict
	}{
		{"ahead everywhere", []float64{0.05, 0.04, 0.03}, 0.01, Holds},
		{"ahead in some, tie elsewhere", []float64{0.05, 0.001, 0.002}, 0.01, Partly},
		{"ahead in some, behind in one", []float64{0.05, 0.04, -0.07}, 0.01, Partly},
		// The default-scale report: +0.1 and +0.6 pp inside the spread,
		// −6.8 pp beyond it.
		{"two ties and a reversal", []float64{0.001, 0.006, -0.068}, 0.01, Refuted},
		{"behind everywhere", []float64{-0.05, -0.04, -0.03}, 0.01, Refuted},
		{"all ties, positive means", []float64{0.001, 0.006, 0.009}, 0.01, Inconclusive},
		{"all ties, mixed signs", []float64{0.001, -0.006}, 0.01, Inconclusive},
		{"exactly at the spread is a tie", []float64{math.Sqrt2 * 0.01}, 0.01, Inconclusive},
		{"no spread: any positive difference is ahead", []float64{1e-6, 2e-6}, 0, Holds},
		{"no case", nil, 0.01, NotRun},
	} {
		t.Run(c.name, func(t *testing.T) {
			var os []Order
			for _, d := range c.d {
				os = append(os, orderOf(d, c.std, c.std))
			}
			if got := orderVerdict(os); got != c.want {
				t.Errorf("d = %v, std %v: orders %v → %s, want %s", c.d, c.std, os, got, c.want)
			}
		})
	}
}

// TestFullBeatsPartialFollowsRule recomputes "p = 1 beats p = 0.25" on a
// grid with the default-scale report's pattern (two ties, a reversal at
// β = 0.1): the verdict is refuted, not partly, and the sentence states
// each β's order and the count.
func TestFullBeatsPartialFollowsRule(t *testing.T) {
	combo := Combo{"fashion-mnist", "logreg", "iid", "formula", ""}
	var rs []*runner.Result
	// Two seeds ±0.01 around the means: sample std 0.01·√2 per group, spread 2 pp.
	for b, gap := range map[float64]float64{0.001: 0.001, 0.01: 0.006, 0.1: -0.068} {
		rs = append(rs, seedResults(combo, "normec", 1, b, 0.1, 0.7+gap-0.01, 0.7+gap+0.01)...)
		rs = append(rs, seedResults(combo, "normec", paperPartialP, b, 0.1, 0.69, 0.71)...)
	}
	grids, err := Grids(rs)
	if err != nil {
		t.Fatal(err)
	}
	r := readFullBeatsPartial(grids[combo], nil)
	if r.Verdict != Refuted {
		t.Errorf("verdict %s, want refuted: %s", r.Verdict, r.Ours)
	}
	for _, want := range []string{"β = 0.001: +0.1 pp final (seed spread 2.0 pp: tie)", "β = 0.01: +0.6 pp final (seed spread 2.0 pp: tie)",
		"β = 0.1: -6.8 pp final (seed spread 2.0 pp: behind)", "ahead at 0 of 3 β, tie at 2, behind at 1"} {
		if !strings.Contains(r.Ours, want) {
			t.Errorf("sentence lacks %q: %s", want, r.Ours)
		}
	}
	if !strings.Contains(orderRule, "*tie*") || !strings.Contains(orderRule, "*refuted* when ahead in none") {
		t.Errorf("the report's statement of the rule no longer names ties and refutation: %s", orderRule)
	}
}

func TestCombineOrders(t *testing.T) {
	for _, c := range []struct {
		in   []Order
		want Order
	}{
		{[]Order{Ahead, Ahead}, Ahead},
		{[]Order{Ahead, Tie}, Tie},
		{[]Order{Ahead, Behind}, Tie},
		{[]Order{Tie, Tie}, Tie},
		{[]Order{Behind, Tie}, Behind},
		{[]Order{Behind, Behind}, Behind},
	} {
		if got := combineOrders(c.in...); got != c.want {
			t.Errorf("%v → %s, want %s", c.in, got, c.want)
		}
	}
}

// TestECBeatsFedAvgFollowsRule: EC ahead on both metrics at β = 0.001,
// ahead in accuracy only by less than the seed spread at β = 0.01 (a
// tie), behind at β = 0.1 — partly; the same with the β = 0.001 lead
// inside the spread — refuted (the d > 0 count it replaced said partly).
func TestECBeatsFedAvgFollowsRule(t *testing.T) {
	combo := Combo{"fashion-mnist", "logreg", "iid", "formula", ""}
	for _, c := range []struct {
		name string
		lead float64 // EC's accuracy lead at β = 0.001
		want Verdict
	}{{"clear lead at one β", 0.2, Partly}, {"no clear lead", 0.005, Refuted}} {
		t.Run(c.name, func(t *testing.T) {
			var rs []*runner.Result
			for b, gap := range map[float64]float64{0.001: c.lead, 0.01: 0.005, 0.1: -0.2} {
				rs = append(rs, seedResults(combo, "normec", 1, b, 0.1, 0.5+gap-0.01, 0.5+gap+0.01)...)
				rs = append(rs, seedResults(combo, "fedavg", 1, b, 0.1, 0.49, 0.51)...)
			}
			grids, err := Grids(rs)
			if err != nil {
				t.Fatal(err)
			}
			r := readECBeatsFedAvg(grids[combo], nil)
			if r.Verdict != c.want {
				t.Errorf("verdict %s, want %s: %s", r.Verdict, c.want, r.Ours)
			}
			if !strings.Contains(r.Ours, "β = 0.1: -20.0 pp accuracy (spread 2.0 pp), +0.200 training loss (spread 0.020): behind") {
				t.Errorf("sentence: %s", r.Ours)
			}
		})
	}
}
