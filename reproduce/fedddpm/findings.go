package fedddpm

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/paper"
	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// The paper, as the reports cite it: its title and public address (arXiv
// 2503.06426).
const (
	paperTitle = "Federated Learning for Diffusion Models"
	paperLink  = "https://arxiv.org/abs/2503.06426"
)

// t4Counts are the relations of Table IV over a set of columns: the aux
// set scores below both FL models, FedDDPM and FedAvg below the model
// trained centrally on aux data.
type t4Counts struct{ n, auxBest, fedddpmBeatsCentral, fedavgBeatsCentral int }

// t4Outcome is the Table IV analogue of one dataset.
type t4Outcome struct {
	dataset string
	image   bool
	n       int // partitions compared
	auxBest, fedddpmBeatsCentral, fedavgBeatsCentral,
	auxBeatsCentral int
	minRatio float64 // smallest FD of FedAvg, FedDDPM or the central model over the aux set's
	paper    t4Counts
}

// paperTable4 counts Table IV's relations over the paper's three columns
// (nil table: no columns).
func paperTable4(pt *paper.Table) t4Counts {
	var c t4Counts
	if pt == nil {
		return c
	}
	for _, col := range pt.Columns {
		v := func(row string) (float64, bool) {
			x, ok := pt.Lookup(map[string]string{"row": row}, col)
			return x.Mean, ok
		}
		aux, ok1 := v("aux")
		cen, ok2 := v("central")
		fa, ok3 := v("fedavg")
		fd, ok4 := v("fedddpm")
		if !(ok1 && ok2 && ok3 && ok4) {
			continue
		}
		c.n++
		if aux < fa && aux < fd {
			c.auxBest++
		}
		if fd < cen {
			c.fedddpmBeatsCentral++
		}
		if fa < cen {
			c.fedavgBeatsCentral++
		}
	}
	return c
}

// quickOutcome counts QuickTest's firings in the tables' FedDDPM+ runs.
type quickOutcome struct{ runs, fired, nearBound int }

// relationParts are "h of n" (ours, over all our columns), "k clear" (of
// those h, the columns where the difference exceeds the seed spread
// √(std₁² + std₂²), the report's own test) and "(paper h/n of Tables
// I–III; verdict)" of a relation.
func (w *reportWriter) relationParts(rel string) (ours, clear, theirs string, ok bool) {
	o := w.totals[rel]
	if o == nil || o.total == 0 {
		return "", "", "", false
	}
	t := w.paperTotals[rel]
	if t == nil {
		t = &relCount{}
	}
	return fmt.Sprintf("%d of %d", o.hold, o.total), clearText(o), fmt.Sprintf("(paper %s of Tables I–III; %s)", ratio(t), verdict(rel, o, t)), true
}

// clearText is "none of them clear" or "k of them clear" ("none to be
// clear" when the relation holds nowhere).
func clearText(o *relCount) string {
	switch {
	case o.hold == 0:
		return "none to be clear"
	case o.clear == 0:
		return "none of them clear"
	}
	return fmt.Sprintf("%d of them clear", o.clear)
}

// relationText is "h of n, k clear (paper h/n of Tables I–III; verdict)".
func (w *reportWriter) relationText(rel string) (string, bool) {
	o, c, t, ok := w.relationParts(rel)
	return o + ", " + c + " " + t, ok
}

// perDataset lists a relation's count on each dataset ("mixture 5/6").
func (w *reportWriter) perDataset(rel string) string {
	var parts []string
	for _, c := range w.Summary.Cells {
		if c["table"] == "relations" && c["metric"] == rel && c["dataset"] != "all" {
			parts = append(parts, fmt.Sprintf("%v %v/%v", c["dataset"], c["mean"], c["n"]))
		}
	}
	return strings.Join(parts, ", ")
}

// findings are the report's opening sentences; every number comes from the
// sections below.
func (w *reportWriter) findings() []string {
	var out []string
	if best, clear, paperBest, ok := w.relationParts(relBest); ok {
		s := fmt.Sprintf("FedDDPM or FedDDPM+ is the best method (lowest mean FD) in **%s** of our columns, %s by the report's test (lead over the best baseline beyond the seed spread √(std₁² + std₂²)) %s", best, clear, paperBest)
		if pd := w.perDataset(relBest); pd != "" {
			s += " — per dataset " + pd
		}
		if top, ok := w.relationText(relTop2); ok {
			s += fmt.Sprintf("; both beat every baseline in %s", top)
		}
		out = append(out, s+".")
	}
	var rels []string
	for _, r := range []string{relAlpha, relP, relPlus, relShardHard} {
		if t, ok := w.relationText(r); ok {
			rels = append(rels, fmt.Sprintf("%s: %s", r, t))
		}
	}
	if len(rels) > 0 {
		out = append(out, "The paper's other relations over all our columns: "+strings.Join(rels, "; ")+".")
	}
	if len(w.t4) > 0 {
		var n, aux, dd, fa int
		for _, o := range w.t4 {
			n += o.n
			aux += o.auxBest
			dd += o.fedddpmBeatsCentral
			fa += o.fedavgBeatsCentral
		}
		pc := w.t4[0].paper
		out = append(out, fmt.Sprintf("Table IV analogue (a model trained centrally on synthetic aux data): over %d partitions the aux set scores better than both FL models in %d (paper: %d of %d columns), FedDDPM beats the centrally trained model in %d (paper %d of %d) and FedAvg in %d (paper %d of %d).",
			n, aux, pc.auxBest, pc.n, dd, pc.fedddpmBeatsCentral, pc.n, fa, pc.fedavgBeatsCentral, pc.n))
	}
	out = paper.AppendNonEmpty(out, w.fig8Finding())
	if q := w.quick; q.runs > 0 {
		s := fmt.Sprintf("QuickTest (FedDDPM+'s stopping test) fired in %d of the tables' %d FedDDPM+ runs", q.fired, q.runs)
		if q.fired > 0 {
			s += fmt.Sprintf(", %d of them within two checks of the earliest round its moving average allows", q.nearBound)
			if 2*q.nearBound > q.fired {
				s += " — so the stop round mostly reflects the size of the first score, not convergence"
			}
		}
		out = append(out, s+".")
	}
	return paper.AppendNonEmpty(out, w.sensitivityFinding(), report.ClaimsFinding("fedddpm", w.claimCounts))
}

func (w *reportWriter) fig8Finding() string {
	var yes, n int
	var metric string
	for _, c := range w.Summary.Cells {
		if c["table"] == "fig8" && c["method"] == nil {
			n++
			metric = fmt.Sprint(c["metric"])
			if c["mean"] == 1.0 {
				yes++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("Fig. 8 analogue (aux data on the clients vs on the server): %s on %d of %d datasets (paper: yes).", metric, yes, n)
}

// sensitivityFinding sums, over every variant setting, the columns where
// a proposed method beats FedAvg in the tables' runs and in the variant's:
// by median FD over seeds first (one outlying seed in three cannot move
// it), then by mean, then with the seed ranges apart.
func (w *reportWriter) sensitivityFinding() string {
	var base, variant beatCount
	cols := 0
	variants := map[string]bool{}
	for _, c := range w.Summary.Cells {
		if c["table"] != "sensitivity" || c["metric"] != "beats FedAvg (columns)" {
			continue
		}
		base.mean += c["tables"].(int)
		variant.mean += c["variant_columns"].(int)
		base.median += c["tables_median"].(int)
		variant.median += c["variant_median"].(int)
		base.apart += c["tables_apart"].(int)
		variant.apart += c["variant_apart"].(int)
		cols += c["n"].(int)
		variants[fmt.Sprint(c["experiment"])] = true
	}
	if cols == 0 {
		return ""
	}
	noun := "variants"
	if len(variants) == 1 {
		noun = "variant"
	}
	return fmt.Sprintf("Sensitivity (%d %s of the setting, one change each): the proposed methods beat FedAvg in %d of %d method × column pairs under the variants by median FD over seeds, against %d of %d in the tables' runs of the same cells (by mean: %d vs %d; with every seed below every FedAvg seed: %d vs %d).",
		len(variants), noun, variant.median, cols, base.median, cols, variant.mean, base.mean, variant.apart, base.apart)
}

// mixtureNote states the mixture's mode spread and how well the model
// trained centrally on aux data fits it.
func (w *reportWriter) mixtureNote() string {
	var hq []float64
	var std float64
	for k, g := range w.Groups {
		st, ok := w.Spec.Settings[k.ds]
		if !ok || st.Mixture == nil || k.method != centralMethod {
			continue
		}
		std = st.Mixture.Std
		hq = append(hq, g.Finals("high_quality")...)
	}
	if len(hq) == 0 {
		return ""
	}
	s := report.Summarize(hq)
	return fmt.Sprintf("Mixture: modes of std σ = %g, wider than phase 1's default 0.15, which the MLP denoiser fitted poorly within this budget when the setting was chosen (that trial is not part of these runs). Here the model trained centrally on aux data puts %.0f%% ± %.0f%% of its samples within 3σ of a mode (%d runs).",
		std, 100*s.Mean, 100*s.Std, s.N)
}

// imageRegime reads the image columns through Table IV: when the aux set
// beats every model trained on it, the denoisers are limited by training
// compute rather than by client drift.
func (w *reportWriter) imageRegime() string {
	var n, aux, cen int
	ratio := math.Inf(1)
	for _, o := range w.t4 {
		if !o.image {
			continue
		}
		n += o.n
		aux += o.auxBest
		cen += o.auxBeatsCentral
		ratio = math.Min(ratio, o.minRatio)
	}
	if n == 0 {
		return ""
	}
	if aux == n && cen == n {
		return fmt.Sprintf("Reading the image results: in the Table IV analogue the synthetic aux set scores better than both FL models and than the model trained centrally on it in all %d partitions (their FD is at least %.2g× the aux set's), so at this budget the image denoisers are limited by training compute and the image columns test the methods where training, not client drift, limits quality. The paper's claims concern the opposite regime (models that fit, drift that hurts); the mixture columns are closer to it. The sensitivity section tests whether keeping Adam's state across rounds (decision 2) changes this picture.", n, ratio)
	}
	return fmt.Sprintf("Reading the image results: in the Table IV analogue the synthetic aux set scores better than both FL models in %d of %d partitions and than the model trained centrally on it in %d of %d, so the image denoisers are not uniformly limited by training compute at this budget.", aux, n, cen, n)
}

// headline is the summary's entry in the cross-paper index.
func (w *reportWriter) headline(results []*runner.Result) *report.Headline {
	runs, cpu := report.RunCost(results)
	h := &report.Headline{Title: paperTitle + " (FedDDPM/FedDDPM+)", Link: paperLink, Reproduced: w.scope(),
		Claims: w.claimCounts, Runs: runs, CPUSeconds: cpu}
	for _, r := range []string{relBest, relTop2, relPlus} {
		o, t := w.totals[r], w.paperTotals[r]
		if o == nil || o.total == 0 || t == nil {
			continue
		}
		h.Relations = append(h.Relations, report.Relation{Name: r + " (our columns; paper: Tables I–III)", Ours: fmt.Sprintf("%d/%d", o.hold, o.total), Paper: ratio(t)})
	}
	return h
}

// scope names what this scale reproduced.
func (w *reportWriter) scope() string {
	kinds := map[string]bool{}
	srcs := map[string]bool{}
	for k := range w.Groups {
		for _, e := range w.Spec.Experiments {
			if e.Name == k.exp {
				kinds[e.Kind] = true
				if e.Curves {
					kinds["curves"] = true
				}
				if e.Grids {
					kinds["grids"] = true
				}
			}
		}
		if st, ok := w.Spec.Settings[k.ds]; ok {
			srcs[st.Source] = true
		}
	}
	var what []string
	for _, k := range []struct{ kind, text string }{{"tables", "Tables I–III"}, {centralMethod, "Table IV"}, {"grids", "Figs 4–6"}, {"curves", "Fig. 7"}, {"fig8", "Fig. 8"}, {"sensitivity", "sensitivity variants"}} {
		if kinds[k.kind] {
			what = append(what, k.text)
		}
	}
	var data []string
	for _, s := range sourceNames {
		if srcs[s] {
			data = append(data, datasetLabel[s])
		}
	}
	return fmt.Sprintf("%s analogues on %s with MLP denoisers, scored by Fréchet distance (not Inception FID)", strings.Join(what, ", "), strings.Join(data, " and "))
}
