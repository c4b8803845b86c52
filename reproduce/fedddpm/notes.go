package fedddpm

import (
	"fmt"
	"math"
	"strings"

	fa "github.com/fedrepro/fedrepro/algorithms/fedddpm"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
)

func (w *reportWriter) claims(doc *report.Doc) {
	w.claimCounts = report.ClaimsSection(doc, "fedddpm", w.Dir, proofs.DefaultSeed, "")
}

func (w *reportWriter) decisions(doc *report.Doc) {
	doc.H(2, "Decisions where the paper is silent (spec §6)")
	tb := &report.Table{Header: []string{"#", "topic", "choice", "where"}, Align: "rlll"}
	for _, d := range fa.Decisions {
		tb.Add(d.Item, d.Topic, d.Choice, d.Where)
	}
	doc.Table(tb)
}

func (w *reportWriter) notReproduced(doc *report.Doc) {
	doc.H(2, "Scaled down, not reproduced, or not run")
	items := []string{
		"Architecture and metric: U-Nets with attention and Inception FID are out of reach of a pure-Go CPU harness; MLP denoisers and Fréchet distances in raw space (mixture) or in our classifier's feature space (images) stand in. Absolute values are not comparable with the paper's; only relations are.",
		"Scale: fewer clients (see the settings table), fewer rounds, fewer diffusion steps, a class-stratified subset of Fashion-MNIST at 7×7, and learning rates ~10× the paper's because our runs take ~100× fewer steps. The `paper` scale follows the paper's N, T, K, E, B, rates, warmup and QuickTest settings with the whole training split at full resolution; it is a job-array workload (`--shard i/n`) and was not run here.",
		"Repetitions: the paper reports single runs; we report mean ± std over seeds, and the relations are counted on means with a separate \"clear\" count.",
		"Fig. 8 uses our datasets (the paper's uses CIFAR100); its loss is measured on held-out real data with fixed draws.",
		"Compute-matched baselines (e.g. FedAvg given FedDDPM's extra server epochs) are not run; the compute of every cell is printed instead.",
	}
	items = paper.AppendNonEmpty(items, w.mixtureNote(), w.imageRegime())
	items = append(items, notRun(w.Spec, w.src)...)
	doc.List(items...)
}

// pct formats a participation as a percentage ("15%").
func pct(p float64) string { return fmt.Sprintf("%g%%", 100*p) }

// thresholdNote sets QuickTest's threshold beside the FedAvg score it is
// relative to: the paper's (Table I, Shard 15%) and, per setting, ours in
// the same column where this scale ran it.
func (w *reportWriter) thresholdNote(names []string) string {
	const col = "shard/p0.15"
	txt := "QuickTest's threshold is in the score's units."
	thr, ok1 := w.Nums.Value("quicktest_threshold")
	var fa paper.Cell
	ok2 := false
	if t, ok := w.Nums.Table("I"); ok {
		fa, ok2 = t.Lookup(map[string]string{"method": "fedavg"}, col)
	}
	if ok1 && ok2 {
		txt = fmt.Sprintf("QuickTest's threshold %g is in Inception-FID units: %.1f%% of the paper's FedAvg FID in Table I, Shard 15%% (%g).", thr.Value, 100*thr.Value/fa.Mean, fa.Mean)
	}
	var ours []string
	for _, n := range names {
		st := w.Spec.Settings[n]
		part := fmt.Sprintf("%s %g", n, st.QuickTest.Threshold)
		var fd report.Stats
		for _, e := range w.experiments("tables") {
			if g := w.get(e.Name, n, "shard", 0.15, "fedavg"); g != nil {
				fd = g.stats("fd")
			}
		}
		if fd.N > 0 {
			part += fmt.Sprintf(" (%.1f%% of our FedAvg's mean final FD in Shard 15%%, %.3g)", 100*st.QuickTest.Threshold/fd.Mean, fd.Mean)
		} else {
			part += " (no FedAvg run in Shard 15% at this scale)"
		}
		ours = append(ours, part)
	}
	return txt + " Ours, in FD units: " + strings.Join(ours, "; ") + "."
}

// stopReading says what the stop rounds of these runs measure, from how
// many firings came right at the EMA's bound.
func stopReading(fired, near int) string {
	switch {
	case fired == 0:
		return " QuickTest did not fire in these runs."
	case 2*near > fired:
		return " So here the stop round largely measures how large the first score is relative to the threshold, and how noisy the scores are, rather than convergence."
	}
	return " Most firings came later than two checks after that bound, so here the stop round reflects more than the first score."
}

// paperStopNote works out which first QuickTest scores the paper's MNIST
// stop rounds imply under the same bound (the paper prints no scores).
func (w *reportWriter) paperStopNote() string {
	t, ok := w.Nums.Table("stop")
	every, ok1 := w.Nums.Value("quicktest_every")
	gamma, ok2 := w.Nums.Value("quicktest_gamma")
	thr, ok3 := w.Nums.Value("quicktest_threshold")
	if !ok || !ok1 || !ok2 || !ok3 || !(gamma.Value > 0 && gamma.Value < 1) {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, col := range t.Columns {
		if col == "T" {
			continue
		}
		if c, ok := t.Lookup(map[string]string{"dataset": "mnist"}, col); ok {
			lo, hi = math.Min(lo, c.Mean), math.Max(hi, c.Mean)
		}
	}
	if math.IsInf(lo, 1) {
		return ""
	}
	k1, k2 := lo/every.Value, hi/every.Value
	s0 := func(k float64) float64 { return thr.Value / math.Pow(1-gamma.Value, k-1) }
	return fmt.Sprintf(" The paper's MNIST stop rounds %g–%g (checks %g–%g at γ = %g) would follow from first-check FIDs between about %g/%g^%g ≈ %.0f and %g/%g^%g ≈ %.0f, plausible for a barely trained DDPM; the paper gives no first scores, so this is a consistency check, not a measurement.",
		lo, hi, k1, k2, gamma.Value, thr.Value, 1-gamma.Value, k1-1, s0(k1), thr.Value, 1-gamma.Value, k2-1, s0(k2))
}
