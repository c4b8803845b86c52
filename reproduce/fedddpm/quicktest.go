package fedddpm

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

func (w *reportWriter) stopRounds(doc *report.Doc) {
	t, ok := w.Nums.Table("stop")
	if !ok {
		return
	}
	doc.H(2, "FedDDPM+ stopping rounds (§VI-B–D)")
	doc.P("QuickTest (Alg. 3) runs after round t when t mod every = 0 and fires when |AvgScore − Score| ≤ threshold; the stop round is that t (0-based, as the listing). \"never\" counts seeds where it did not fire within T rounds (the correction then ran after the last round, decision 12). The paper's rounds are listed in the text per configuration.")
	tb := &report.Table{Header: []string{"dataset", "column", "ours: t* (fired/seeds)", "ours: t*/T", "QuickTest checks", "first score S₀", "t* bound from S₀", "paper t*", "paper t*/T"}, Align: "llrrrrrrr"}
	var firedRuns, nearBound, plusRuns int
	for _, e := range w.experiments("tables") {
		if !contains(e.Methods, "fedddpm+") {
			continue
		}
		for _, ds := range e.Datasets {
			st := e.apply(w.Spec.Settings[ds])
			for _, p := range e.Participation {
				for _, part := range e.Partitions {
					g := w.get(e.Name, ds, part, p, "fedddpm+")
					if g == nil {
						continue
					}
					plusRuns += len(g.Results)
					col := columnKey(part, p)
					fired := g.stats("fired").Mean * float64(len(g.Results))
					var stops []float64
					for _, r := range g.Results {
						if r.Final["fired"] == 1 {
							stops = append(stops, r.Final["stop_round"])
						}
					}
					s := report.Summarize(stops)
					ours, frac := "never", "—"
					if s.N > 0 {
						ours, frac = fmt.Sprintf("%.0f±%.0f", s.Mean, s.Std), fmt.Sprintf("%.2f", s.Mean/float64(st.Rounds))
					}
					var cs, s0, bound []float64
					for _, r := range g.Results {
						if ex, ok := extraOf(r); ok && ex.QuickTest != nil && len(ex.QuickTest.Scores) > 0 {
							q := ex.QuickTest
							cs = append(cs, float64(len(q.Scores)))
							s0 = append(s0, q.Scores[0])
							b := forgetChecks(q.Scores, st.QuickTest.Gamma, st.QuickTest.Threshold) * st.QuickTest.Every
							bound = append(bound, float64(b))
							if q.Fired {
								firedRuns++
								if q.StopRound <= b+2*st.QuickTest.Every {
									nearBound++
								}
							}
						}
					}
					checks := report.Summarize(cs)
					s0s, bs := report.Summarize(s0), report.Summarize(bound)
					a := analogue[st.Source]
					ptxt, pfrac := "—", "—"
					if c, ok := t.Lookup(map[string]string{"dataset": a.dataset}, col); ok {
						T, _ := t.Lookup(map[string]string{"dataset": a.dataset}, "T")
						ptxt, pfrac = fmt.Sprintf("%.0f (%s)", c.Mean, strings.ToUpper(a.dataset)), fmt.Sprintf("%.2f", c.Mean/T.Mean)
					}
					tb.Add(ds, colLabel(col), fmt.Sprintf("%s (%.0f/%d)", ours, fired, len(g.Results)), frac, fmt.Sprintf("%.1f", checks.Mean),
						fmt.Sprintf("%.3g", s0s.Mean), fmt.Sprintf("%.0f", bs.Mean), ptxt, pfrac)
					w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "stop", "dataset": ds, "source": st.Source, "partition": part, "participation": p,
						"method": "fedddpm+", "metric": "stop_round", "mean": s.Mean, "std": s.Std, "n": s.N, "fired": fired, "seeds": len(g.Results),
						"first_score": s0s.Mean, "forgetting_bound": bs.Mean, "rounds": st.Rounds})
				}
			}
		}
	}
	doc.Table(tb)
	w.quick = quickOutcome{runs: plusRuns, fired: firedRuns, nearBound: nearBound}
	earliest := fmt.Sprintf("Of the %d runs where QuickTest fired, %d fired within two checks of that earliest possible round.", firedRuns, nearBound)
	w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "stop", "metric": "fired within two checks of the EMA bound", "mean": float64(nearBound), "n": firedRuns})
	doc.P("**Why QuickTest stops when it does.** Its first check, after round 0, scores a barely trained model, and the EMA forgets that score only geometrically: AvgScore still holds (1−γ)ᵏ⁻¹·S₀ of it at check k, so QuickTest cannot fire before (1−γ)ᵏ⁻¹·|S₀ − S| ≤ Threshold, i.e. before check k ≈ 1 + ln(S₀/Threshold)/ln(1/(1−γ)) whatever the model does. The column \"t* bound from S₀\" is the round of the first check at which the EMA allowed a firing, computed from each run's scores (it is small when the first scores happen to be close to each other). %s%s%s", earliest, stopReading(firedRuns, nearBound), w.paperStopNote())
}

// forgetChecks is the index of the first check at which the EMA of
// Algorithm 3 has forgotten the first score enough to fire: AvgScore
// before check k holds (1−γ)^(k−1) of S₀, so the least k ≥ 1 with
// (1−γ)^(k−1)·|S₀ − S_k| ≤ threshold, S_k being the score at that check
// (the last recorded score stands in beyond the record). Check k runs
// after round k·every.
func forgetChecks(scores []float64, gamma, threshold float64) int {
	if len(scores) == 0 || !(gamma > 0 && gamma < 1) {
		return 0
	}
	s0 := scores[0]
	for k := 1; k < 10000; k++ {
		sk := scores[min(k, len(scores)-1)]
		if math.Pow(1-gamma, float64(k-1))*math.Abs(s0-sk) <= threshold {
			return k
		}
	}
	return 10000
}

// extraOf decodes a result's Extra.
func extraOf(r *runner.Result) (*Extra, bool) {
	if e, ok := r.Extra.(*Extra); ok {
		return e, true
	}
	if r.Extra == nil {
		return nil, false
	}
	var e Extra
	if err := remarshal(r.Extra, &e); err != nil {
		return nil, false
	}
	return &e, true
}

func (w *reportWriter) table4(doc *report.Doc) {
	cen := w.experiments(centralMethod)
	if len(cen) == 0 {
		return
	}
	pt, _ := w.Nums.Table("IV")
	doc.H(2, "Table IV analogue — centralized training on synthetic aux data vs FL (15%s participation)", "%")
	doc.P("\"Training w/ Aux. Data\" trains one model centrally on an aux set of the original size (CentralFraction·m_i samples from each client's warmed-up model) for as many epochs as make its gradient count ≈ FedAvg's at p = 0.15. The aux-set rows give the FD of the synthetic data itself (scored on the same number of samples as the models). FedAvg and FedDDPM come from the Tables I–III runs at 15%%. Paper values are Inception FIDs in the analogous column (MNIST Shard, CIFAR10 Dir 0.1, CIFAR100 Dir 0.3).")
	tabExp := w.experiments("tables")
	for _, e := range cen {
		for _, ds := range e.Datasets {
			st := e.apply(w.Spec.Settings[ds])
			if !w.src.Available(st.Source) {
				continue
			}
			tb := &report.Table{Header: []string{"row"}, Align: "l"}
			for _, part := range e.Partitions {
				tb.Header = append(tb.Header, part, "compute")
				tb.Align += "rr"
			}
			tb.Header = append(tb.Header, "paper")
			tb.Align += "r"
			paperCol := map[string]string{"I": "mnist/shard", "II": "cifar10/dir0.1", "III": "cifar100/dir0.3"}[analogue[st.Source].table]
			ppart := strings.Split(paperCol, "/")[1]
			pval := func(row string) string {
				if pt == nil {
					return "—"
				}
				if c, ok := pt.Lookup(map[string]string{"row": row}, paperCol); ok {
					return fmt.Sprintf("%.3f (%s)", c.Mean, paperCol)
				}
				return "—"
			}
			type rowSpec struct {
				label, prow string
				stats       func(part string) (report.Stats, string)
			}
			central := func(metric string) func(string) (report.Stats, string) {
				return func(part string) (report.Stats, string) {
					g := w.get(e.Name, ds, part, 0, centralMethod)
					if g == nil {
						return report.Stats{}, ""
					}
					comp := ""
					if metric == "fd" {
						comp = "c " + kfmt(g.counter("central_sample_grads"))
					}
					return g.stats(metric), comp
				}
			}
			fl := func(m string) func(string) (report.Stats, string) {
				return func(part string) (report.Stats, string) {
					for _, te := range tabExp {
						if g := w.get(te.Name, ds, part, 0.15, m); g != nil {
							comp := "c " + kfmt(g.counter("client_sample_grads"))
							if sv := g.counter("server_sample_grads"); sv > 0 {
								comp += " + s " + kfmt(sv)
							}
							return g.stats("fd"), comp
						}
					}
					return report.Stats{}, ""
				}
			}
			rows := []rowSpec{
				{"Synthetic aux set used by FedDDPM (|A| = 0.1·m)", "", central("aux_fd")},
				{"Synthetic aux set, |A| = m (trained on below)", "aux", central("central_aux_fd")},
				{"Training w/ Aux. Data (centralized)", centralMethod, central("fd")},
				{"FedAvg", "fedavg", fl("fedavg")},
				{"FedDDPM", "fedddpm", fl("fedddpm")},
			}
			vals := map[string]map[string]report.Stats{}
			for _, r := range rows {
				row := []string{r.label}
				vals[r.label] = map[string]report.Stats{}
				for _, part := range e.Partitions {
					s, comp := r.stats(part)
					vals[r.label][part] = s
					row = append(row, pm(s), comp)
					if s.N > 0 {
						cell := report.Cell{"table": "IV", "dataset": ds, "source": st.Source, "partition": part, "participation": 0.15,
							"method": r.label, "metric": "fd", "mean": s.Mean, "std": s.Std, "n": s.N}
						if r.prow != "" && part == ppart {
							if c, ok := pt.Lookup(map[string]string{"row": r.prow}, paperCol); ok {
								cell["paper_value"] = c.Mean
							}
						}
						w.Summary.Cells = append(w.Summary.Cells, cell)
					}
				}
				if r.prow != "" {
					row = append(row, pval(r.prow))
				} else {
					row = append(row, "—")
				}
				tb.Rows = append(tb.Rows, row)
			}
			doc.H(3, "%s", datasetLabel[st.Source])
			doc.Table(tb)
			// Relations of Table IV.
			var auxBest, ddpmBeatsCentral, avgBeatsCentral, auxCentral, n int
			minRatio := math.Inf(1)
			for _, part := range e.Partitions {
				aux := vals[rows[0].label][part]
				c := vals[rows[2].label][part]
				fa, fd := vals["FedAvg"][part], vals["FedDDPM"][part]
				if aux.N == 0 || c.N == 0 || fa.N == 0 || fd.N == 0 {
					continue
				}
				n++
				if aux.Mean < fa.Mean && aux.Mean < fd.Mean {
					auxBest++
				}
				if aux.Mean < c.Mean {
					auxCentral++
				}
				minRatio = math.Min(minRatio, math.Min(math.Min(fa.Mean, fd.Mean), c.Mean)/aux.Mean)
				if fd.Mean < c.Mean {
					ddpmBeatsCentral++
				}
				if fa.Mean < c.Mean {
					avgBeatsCentral++
				}
			}
			if n > 0 {
				pc := paperTable4(pt)
				o := t4Outcome{dataset: ds, image: st.Source != "mixture", n: n, auxBest: auxBest, fedddpmBeatsCentral: ddpmBeatsCentral, fedavgBeatsCentral: avgBeatsCentral,
					auxBeatsCentral: auxCentral, minRatio: minRatio, paper: pc}
				w.t4 = append(w.t4, o)
				doc.List(
					fmt.Sprintf("The aux set scores better than both FL models: ours %d/%d partitions (paper %d/%d columns).", auxBest, n, pc.auxBest, pc.n),
					fmt.Sprintf("FedDDPM beats centralized training on aux data: ours %d/%d (paper %d/%d).", ddpmBeatsCentral, n, pc.fedddpmBeatsCentral, pc.n),
					fmt.Sprintf("FedAvg beats centralized training on aux data: ours %d/%d (paper %d/%d).", avgBeatsCentral, n, pc.fedavgBeatsCentral, pc.n),
				)
				w.Summary.Cells = append(w.Summary.Cells,
					report.Cell{"table": "IV", "dataset": ds, "metric": "aux better than FL models", "mean": float64(auxBest), "n": n, "paper_value": float64(pc.auxBest), "paper_n": pc.n},
					report.Cell{"table": "IV", "dataset": ds, "metric": "FedDDPM beats centralized", "mean": float64(ddpmBeatsCentral), "n": n, "paper_value": float64(pc.fedddpmBeatsCentral), "paper_n": pc.n},
					report.Cell{"table": "IV", "dataset": ds, "metric": "FedAvg beats centralized", "mean": float64(avgBeatsCentral), "n": n, "paper_value": float64(pc.fedavgBeatsCentral), "paper_n": pc.n})
			}
		}
	}
}

// sensitivity compares the runs of each variant setting (an experiment of
// kind sensitivity: cells of the tables rerun with an override) with the
// tables' runs of the same cells.
func (w *reportWriter) sensitivity(doc *report.Doc) {
	exps := w.experiments("sensitivity")
	if len(exps) == 0 {
		return
	}
	doc.H(2, "Sensitivity: variants of the setting")
	doc.P("Each variant reruns cells of the tables with one change to the setting; everything the change does not reach — data, partition, seed, initial model, client selections and, where the change does not touch them, the warmup and the aux set — is shared. Each cell shows the mean ± std over seeds and, robust to one outlying seed, the median [min–max] over seeds (%s). Below each table: in how many columns each proposed method has a lower FD than FedAvg — by mean, by median, and with the seed ranges apart (every seed of the method below every seed of FedAvg) — in the tables and in the variant.", robustWhy(w.Spec, exps))
	tabs := w.experiments("tables")
	for _, e := range exps {
		for _, ds := range e.Datasets {
			st := e.apply(w.Spec.Settings[ds])
			label, why := overrideProse(e.Override, w.Spec.Settings[ds])
			doc.H(3, "%s on %s (%s)", e.Name, ds, label)
			doc.P("%s. %s", e.Description, strings.Join(why, " "))
			if !w.src.Available(st.Source) {
				continue
			}
			tb := &report.Table{Header: []string{"dataset", "column", "method", "tables: mean±std", "tables: median [range]", "variant: mean±std", "variant: median [range]"}, Align: "lllrrrr"}
			beats := map[string]*sensCount{}
			for _, p := range e.Participation {
				for _, part := range e.Partitions {
					base, variant := map[string]fdSummary{}, map[string]fdSummary{}
					for _, m := range e.Methods {
						v := w.get(e.Name, ds, part, p, m)
						if v == nil {
							continue
						}
						var bg *group
						for _, te := range tabs {
							if g := w.get(te.Name, ds, part, p, m); g != nil {
								bg = g
							}
						}
						bs := fdSummary{mean: report.Stats{}, robust: robustOf(nil)}
						if bg != nil {
							bs = summarizeFD(bg)
						}
						vs := summarizeFD(v)
						base[m], variant[m] = bs, vs
						tb.Add(ds, colLabel(columnKey(part, p)), methodLabel[m], pm(bs.mean)+firedNote(bg), bs.robust.String(), pm(vs.mean)+firedNote(v), vs.robust.String())
						w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "sensitivity", "experiment": e.Name, "dataset": ds, "source": st.Source, "partition": part,
							"participation": p, "method": m, "metric": "fd", "variant": label, "mean": vs.mean.Mean, "std": vs.mean.Std, "n": vs.mean.N,
							"median": vs.robust.Median, "min": vs.robust.Min, "max": vs.robust.Max,
							"baseline_mean": bs.mean.Mean, "baseline_median": bs.robust.Median, "baseline_min": bs.robust.Min, "baseline_max": bs.robust.Max})
					}
					fb, okB := base["fedavg"]
					fv, okV := variant["fedavg"]
					if !okB || !okV || fb.mean.N == 0 || fv.mean.N == 0 {
						continue
					}
					for _, m := range e.Methods {
						if m == "fedavg" || base[m].mean.N == 0 || variant[m].mean.N == 0 {
							continue
						}
						c := beats[m]
						if c == nil {
							c = &sensCount{}
							beats[m] = c
						}
						c.add(base[m], fb, variant[m], fv)
					}
				}
			}
			doc.Table(tb)
			var items []string
			for _, m := range e.Methods {
				c := beats[m]
				if c == nil {
					continue
				}
				items = append(items, fmt.Sprintf("%s beats FedAvg: by mean tables %d/%d columns, variant %d/%d; by median tables %d/%d, variant %d/%d; seed ranges apart tables %d/%d, variant %d/%d",
					methodLabel[m], c.base.mean, c.cols, c.variant.mean, c.cols, c.base.median, c.cols, c.variant.median, c.cols, c.base.apart, c.cols, c.variant.apart, c.cols))
				w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "sensitivity", "experiment": e.Name, "dataset": ds, "method": m, "variant": label,
					"metric": "beats FedAvg (columns)", "tables": c.base.mean, "variant_columns": c.variant.mean,
					"tables_median": c.base.median, "variant_median": c.variant.median, "tables_apart": c.base.apart, "variant_apart": c.variant.apart, "n": c.cols})
			}
			doc.List(items...)
		}
	}
}

// fdSummary is a cell's FD over seeds, by mean and robustly.
type fdSummary struct {
	mean   report.Stats
	robust Robust
}

func summarizeFD(g *group) fdSummary {
	return fdSummary{mean: g.stats("fd"), robust: robustOf(g.Finals("fd"))}
}

// beatCount counts the columns where a method's FD is below FedAvg's by
// three tests: lower mean, lower median, and seed ranges apart.
type beatCount struct{ mean, median, apart int }

func (b *beatCount) add(m, fedavg fdSummary) {
	if m.mean.Mean < fedavg.mean.Mean {
		b.mean++
	}
	if m.robust.Median < fedavg.robust.Median {
		b.median++
	}
	if apart(m.robust, fedavg.robust) {
		b.apart++
	}
}

// sensCount is one method's count over a variant's columns, in the tables'
// runs and in the variant's.
type sensCount struct {
	base, variant beatCount
	cols          int
}

func (c *sensCount) add(base, baseFedAvg, variant, variantFedAvg fdSummary) {
	c.cols++
	c.base.add(base, baseFedAvg)
	c.variant.add(variant, variantFedAvg)
}

// robustWhy says why the median and the range summarise the seeds of
// exps: with up to 4 seeds the median is a mean trimmed of the best and
// the worst seed, and quartiles would only interpolate between seeds.
func robustWhy(s *Spec, exps []*Experiment) string {
	n := 0
	for _, e := range exps {
		n = max(n, len(s.seedsOf(e)))
	}
	if n <= 4 {
		return fmt.Sprintf("with %d seeds the median equals a mean trimmed of the best and the worst seed, and quartiles would only interpolate between seeds, so the spread shown is the full range", n)
	}
	return fmt.Sprintf("the median of %d seeds is robust to up to %d outlying seeds; the spread shown is the full range", n, (n-1)/2)
}

// firedNote is ", QuickTest fired k/n" for FedDDPM+'s groups.
func firedNote(g *group) string {
	if g == nil || g.Config.Method != "fedddpm+" {
		return ""
	}
	return fmt.Sprintf(" (QuickTest fired %.0f/%d)", g.stats("fired").Mean*float64(len(g.Results)), len(g.Results))
}

// overrideProse names a variant by the fields its override sets
// ("persist_optimizer=true", "optimizer=sgd, client_lr=0.2, …") and says
// what each changes from the base setting.
func overrideProse(o Override, base Setting) (string, []string) {
	var label, why []string
	set := func(key string, v any, text string) {
		label = append(label, fmt.Sprintf("%s=%v", key, v))
		if text != "" {
			why = append(why, text)
		}
	}
	if o.PersistOptimizer != nil {
		txt := "Every ClientUpdate and every server correction starts a fresh optimizer (decision 2)."
		if *o.PersistOptimizer {
			txt = "Decision 2: the listings pass only the model between rounds, so every ClientUpdate and every server correction starts a fresh optimizer (our default); here each client's optimizer state is kept across the rounds it is selected in and the server's across rounds."
		}
		set("persist_optimizer", *o.PersistOptimizer, txt)
	}
	if o.Optimizer != nil {
		set("optimizer", *o.Optimizer, fmt.Sprintf("Clients, server corrections, FedDDPM+'s correction and the warmup train with %s instead of %s, so the warmed-up models and the aux set change too.", *o.Optimizer, optimizerOf(base)))
	}
	for _, f := range []struct {
		key     string
		v       *float64
		was     float64
		meaning string
	}{{"client_lr", o.ClientLR, base.ClientLR, "The client learning rate ζ"}, {"server_lr", o.ServerLR, base.ServerLR, "FedDDPM's server learning rate η"},
		{"plus_lr", o.PlusLR, base.PlusLR, "FedDDPM+'s correction step"}, {"quicktest_threshold", o.QuickTestThreshold, base.QuickTest.Threshold, "The QuickTest threshold"}} {
		if f.v != nil {
			set(f.key, *f.v, fmt.Sprintf("%s is %g instead of %g.", f.meaning, *f.v, f.was))
		}
	}
	if o.QuickTestThreshold != nil {
		why = append(why, "QuickTest fires when |AvgScore − Score| ≤ threshold; until it fires FedDDPM+ runs FedAvg's rounds with the same draws, so a seed where it never fires repeats the tables' run.")
	}
	if o.Weights != nil {
		set("weights", *o.Weights, fmt.Sprintf("Every method aggregates with %s weights instead of %s (uniform: Eq. 9's 1/n over the selected clients; size: m_i/Σm_j, FedAvg's original weighting — the same under equal-size shards).", *o.Weights, base.Weights))
	}
	if o.Variance != nil {
		was, _ := variance(base.Denoiser.Variance)
		set("variance", *o.Variance, fmt.Sprintf("The ancestral sampler uses the %s variance instead of the %s one (beta: σ_t² = β_t; posterior: σ_t² = β̃_t), for the aux set, QuickTest's samples and every score.", *o.Variance, was))
	}
	if o.NeverFired != nil {
		set("never_fired", *o.NeverFired, fmt.Sprintf("When QuickTest never fires within T rounds, FedDDPM+ follows %s (decision 12; no-correction returns w_T, which is FedAvg's model after the same rounds and draws, so its scores equal FedAvg's).", *o.NeverFired))
	}
	for _, f := range []struct {
		key string
		v   *int
	}{{"clients", o.Clients}, {"train_size", o.TrainSize}, {"aux_size", o.AuxSize}, {"rounds", o.Rounds}, {"local_epochs", o.LocalEpochs}} {
		if f.v != nil {
			set(f.key, *f.v, "")
		}
	}
	return strings.Join(label, ", "), why
}
