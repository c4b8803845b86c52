package fedddpm

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/report"
)

// relCount is one relation counted over columns or pairs.
type relCount struct {
	hold, clear, total int
}

func (w *reportWriter) total(name string) *relCount {
	if w.totals[name] == nil {
		w.totals[name] = &relCount{}
	}
	return w.totals[name]
}

// clearly reports whether a < b by more than the combined spread.
func clearly(a, b report.Stats) bool {
	return b.Mean-a.Mean > math.Hypot(a.Std, b.Std)
}

func (w *reportWriter) fidTable(doc *report.Doc, e *Experiment, ds string) error {
	st := e.apply(w.Spec.Settings[ds])
	if !w.src.Available(st.Source) {
		return nil
	}
	a := analogue[st.Source]
	unit := "FD (raw 2-D)"
	if st.Source != "mixture" {
		unit = "FD in our feature space"
	}
	doc.H(2, "%s — %s analogue (%s, lower is better)", datasetLabel[st.Source], a.name, unit)
	var cols []string
	for _, p := range e.Participation {
		for _, part := range e.Partitions {
			cols = append(cols, columnKey(part, p))
		}
	}
	// Ranks per column by mean FD.
	rank := map[string]map[string]int{}
	paperRank := map[string]map[string]int{}
	for _, col := range cols {
		part, p := splitCol(col)
		type mv struct {
			m string
			v float64
		}
		var ours, theirs []mv
		for _, m := range e.Methods {
			if s, g := w.cellStats(e.Name, ds, part, p, m); g != nil {
				ours = append(ours, mv{m, s.Mean})
			}
			if v, ok := w.paperFID(st.Source, m, col); ok {
				theirs = append(theirs, mv{m, v})
			}
		}
		for _, set := range []struct {
			xs  []mv
			dst map[string]map[string]int
		}{{ours, rank}, {theirs, paperRank}} {
			sort.SliceStable(set.xs, func(i, j int) bool { return set.xs[i].v < set.xs[j].v })
			set.dst[col] = map[string]int{}
			for i, x := range set.xs {
				set.dst[col][x.m] = i + 1
			}
		}
	}
	hdr := []string{"method"}
	for _, col := range cols {
		hdr = append(hdr, colLabel(col))
	}
	tb := &report.Table{Header: hdr, Align: "l" + strings.Repeat("r", len(cols))}
	pt := &report.Table{Header: hdr, Align: "l" + strings.Repeat("r", len(cols))}
	var warmup, warmParts []string
	for _, m := range e.Methods {
		row := []string{methodLabel[m]}
		prow := []string{methodLabel[m]}
		for _, col := range cols {
			part, p := splitCol(col)
			s, g := w.cellStats(e.Name, ds, part, p, m)
			if g == nil {
				row = append(row, "not run")
			} else {
				txt := fmt.Sprintf("%s [%d] · c %s", pm(s), rank[col][m], kfmt(g.counter("client_sample_grads")))
				if sv := g.counter("server_sample_grads"); sv > 0 {
					txt += " + s " + kfmt(sv)
				}
				if m == "fedddpm+" {
					txt += " · " + stopText(g, st.Rounds)
				}
				row = append(row, txt)
				if wu := g.counter("warmup_sample_grads"); wu > 0 && p == e.Participation[0] && !contains(warmParts, part) {
					warmParts = append(warmParts, part)
					warmup = append(warmup, fmt.Sprintf("%s %s", partLabel(part), kfmt(wu)))
				}
				w.addCells(e, ds, st, part, p, m, g, col)
			}
			if v, ok := w.paperFID(st.Source, m, col); ok {
				prow = append(prow, fmt.Sprintf("%.3f [%d]", v, paperRank[col][m]))
			} else {
				prow = append(prow, "—")
			}
		}
		tb.Rows = append(tb.Rows, row)
		pt.Rows = append(pt.Rows, prow)
	}
	wtxt := ""
	if len(warmup) > 0 {
		wtxt = fmt.Sprintf(" FedDDPM and FedDDPM+ also cost the warmup of all %d clients, done once per partition and seed and shared by both: %s gradient evaluations.", st.Clients, strings.Join(warmup, ", "))
	}
	doc.P("Ours: mean±std over seeds [rank by mean] · compute per run in per-example gradient evaluations: c = clients' FL training, s = server training on the auxiliary set; FedDDPM+ adds its stop round t* (QuickTest fired after round t*, 0-based, of T = %d; \"never\" = it did not fire and the correction ran after round T).%s",
		st.Rounds, wtxt)
	doc.Table(tb)
	doc.P("The paper, %s (Inception FID on %s, single runs) [rank]:", a.name, strings.ToUpper(a.dataset[:1])+a.dataset[1:])
	doc.Table(pt)
	w.relations(doc, e, ds, st, cols, rank)
	return nil
}

func splitCol(col string) (string, float64) {
	part, pl, _ := strings.Cut(col, "/")
	var p float64
	fmt.Sscanf(strings.TrimPrefix(pl, "p"), "%g", &p)
	return part, p
}

func pm(s report.Stats) string {
	if s.N == 0 {
		return "—"
	}
	return s.PM(digitsFor(s.Mean))
}

// digitsFor is the number of decimals a score of size v is printed with.
func digitsFor(v float64) int {
	switch {
	case v >= 100:
		return 1
	case v >= 10:
		return 2
	case v < 0.1:
		return 4
	}
	return 3
}

func stopText(g *group, T int) string {
	var fired []float64
	never := 0
	for _, r := range g.Results {
		if r.Final["fired"] == 1 {
			fired = append(fired, r.Final["stop_round"])
		} else {
			never++
		}
	}
	var parts []string
	if len(fired) > 0 {
		s := report.Summarize(fired)
		parts = append(parts, fmt.Sprintf("t* %.0f±%.0f", s.Mean, s.Std))
	}
	if never > 0 {
		parts = append(parts, fmt.Sprintf("never ×%d", never))
	}
	return strings.Join(parts, ", ")
}

// addCells records the summary cells of one (dataset, column, method).
func (w *reportWriter) addCells(e *Experiment, ds string, st Setting, part string, p float64, m string, g *group, col string) {
	metrics := []string{"fd", "mmd2", "mode_tv", "mode_tv_assigned", "high_quality", "class_tv"}
	for _, met := range metrics {
		s := g.stats(met)
		if s.N == 0 {
			continue
		}
		c := report.Cell{"table": "I-III", "experiment": e.Name, "dataset": ds, "source": st.Source, "partition": part, "participation": p,
			"method": m, "metric": met, "mean": s.Mean, "std": s.Std, "n": s.N,
			"compute": map[string]any{
				"client_sample_grads": g.counter("client_sample_grads"), "server_sample_grads": g.counter("server_sample_grads"),
				"warmup_sample_grads": g.counter("warmup_sample_grads"), "sampling_forwards": g.counter("sampling_forwards"),
				"rounds_trained": g.stats("rounds_trained").Mean,
			}}
		if m == "fedddpm+" {
			c["stop_round"] = g.Finals("stop_round")
			c["fired"] = g.stats("fired").Mean * float64(len(g.Results))
		}
		if met == "fd" {
			if v, ok := w.paperFID(st.Source, m, col); ok {
				c["paper_value"] = v
				c["paper_table"] = analogue[st.Source].table
			}
		}
		w.Summary.Cells = append(w.Summary.Cells, c)
	}
}

// relation names, the paper's wording.
const (
	relTop2      = "proposed methods rank 1–2 (both beat every baseline)"
	relBest      = "best method is FedDDPM or FedDDPM+"
	relAlpha     = "lower α is worse: FD(Dir 0.1) > FD(Dir 0.3)"
	relP         = "higher p is better: FD(30%) < FD(15%)"
	relPlus      = "FedDDPM+ beats FedDDPM"
	relShardHard = "Shard is the hardest split for the baselines"
)

var relOrder = []string{relTop2, relBest, relAlpha, relP, relPlus, relShardHard}

// relations counts the paper's relations over our columns and over the
// analogous paper table, per dataset.
func (w *reportWriter) relations(doc *report.Doc, e *Experiment, ds string, st Setting, cols []string, rank map[string]map[string]int) {
	ours := map[string]*relCount{}
	theirs := map[string]*relCount{}
	for _, r := range relOrder {
		ours[r], theirs[r] = &relCount{}, &relCount{}
	}
	stat := func(part string, p float64, m string) (report.Stats, bool) {
		s, g := w.cellStats(e.Name, ds, part, p, m)
		return s, g != nil && s.N > 0
	}
	pv := func(part string, p float64, m string) (float64, bool) {
		return w.paperFID(st.Source, m, columnKey(part, p))
	}
	has := func(m string) bool { return contains(e.Methods, m) }
	for _, col := range cols {
		part, p := splitCol(col)
		// Top-2 and best.
		if has("fedddpm") && has("fedddpm+") {
			bestBase, bestBaseOK := report.Stats{Mean: math.Inf(1)}, false
			pBest := math.Inf(1)
			for _, b := range baseline {
				if s, ok := stat(part, p, b); ok && s.Mean < bestBase.Mean {
					bestBase, bestBaseOK = s, true
				}
				if v, ok := pv(part, p, b); ok {
					pBest = math.Min(pBest, v)
				}
			}
			a, okA := stat(part, p, "fedddpm")
			b, okB := stat(part, p, "fedddpm+")
			if okA && okB && bestBaseOK {
				ours[relTop2].add(a.Mean < bestBase.Mean && b.Mean < bestBase.Mean, clearly(a, bestBase) && clearly(b, bestBase))
				best := math.Min(a.Mean, b.Mean) < bestBase.Mean
				cl := (a.Mean <= b.Mean && clearly(a, bestBase)) || (b.Mean < a.Mean && clearly(b, bestBase))
				ours[relBest].add(best, cl)
				ours[relPlus].add(b.Mean < a.Mean, clearly(b, a))
			}
			va, ok1 := pv(part, p, "fedddpm")
			vb, ok2 := pv(part, p, "fedddpm+")
			if ok1 && ok2 && !math.IsInf(pBest, 1) {
				theirs[relTop2].add(va < pBest && vb < pBest, false)
				theirs[relBest].add(math.Min(va, vb) < pBest, false)
				theirs[relPlus].add(vb < va, false)
			}
		}
	}
	for _, m := range e.Methods {
		for _, p := range e.Participation {
			if contains(e.Partitions, "dir0.1") && contains(e.Partitions, "dir0.3") {
				a, ok1 := stat("dir0.1", p, m)
				b, ok2 := stat("dir0.3", p, m)
				if ok1 && ok2 {
					ours[relAlpha].add(a.Mean > b.Mean, clearly(b, a))
				}
				va, ok1 := pv("dir0.1", p, m)
				vb, ok2 := pv("dir0.3", p, m)
				if ok1 && ok2 {
					theirs[relAlpha].add(va > vb, false)
				}
			}
			if contains(baseline, m) && contains(e.Partitions, "shard") && len(e.Partitions) > 1 {
				sh, ok := stat("shard", p, m)
				hard, cl, any := ok, ok, false
				psh, pok := pv("shard", p, m)
				phard := pok
				for _, part := range e.Partitions {
					if part == "shard" {
						continue
					}
					if s, ok := stat(part, p, m); ok {
						any = true
						hard = hard && sh.Mean > s.Mean
						cl = cl && clearly(s, sh)
					}
					if v, ok := pv(part, p, m); ok {
						phard = phard && psh > v
					}
				}
				if ok && any {
					ours[relShardHard].add(hard, cl)
				}
				if pok {
					theirs[relShardHard].add(phard, false)
				}
			}
		}
		if len(e.Participation) > 1 {
			lo, hi := e.Participation[0], e.Participation[len(e.Participation)-1]
			for _, part := range e.Partitions {
				a, ok1 := stat(part, hi, m)
				b, ok2 := stat(part, lo, m)
				if ok1 && ok2 {
					ours[relP].add(a.Mean < b.Mean, clearly(a, b))
				}
				va, ok1 := pv(part, hi, m)
				vb, ok2 := pv(part, lo, m)
				if ok1 && ok2 {
					theirs[relP].add(va < vb, false)
				}
			}
		}
	}
	doc.P("**The paper's relations on this dataset** (ours counted by mean over seeds; \"clear\" = the difference exceeds √(std₁² + std₂²); the paper's counts are over the same columns of %s):", analogue[st.Source].name)
	tb := &report.Table{Header: []string{"relation (spec §5.9)", "ours", "of which clear", "paper", "verdict"}, Align: "lrrrl"}
	for _, r := range relOrder {
		o, t := ours[r], theirs[r]
		if o.total == 0 {
			continue
		}
		v := verdict(r, o, t)
		tb.Add(r, fmt.Sprintf("%d/%d", o.hold, o.total), fmt.Sprint(o.clear), ratio(t), v)
		w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "relations", "dataset": ds, "source": st.Source, "metric": r,
			"mean": float64(o.hold), "n": o.total, "clear": o.clear, "paper_value": float64(t.hold), "paper_n": t.total, "verdict": v})
		tot := w.total(r)
		tot.hold += o.hold
		tot.clear += o.clear
		tot.total += o.total
	}
	doc.Table(tb)
}

func ratio(r *relCount) string {
	if r.total == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d", r.hold, r.total)
}

// verdict compares our count of a relation with the paper's. For the
// ranking relations the paper claims every column; for the others it
// shows a majority direction (or, for FedDDPM+ vs FedDDPM, a minority).
func verdict(rel string, ours, paperC *relCount) string {
	if ours.total == 0 {
		return "not run"
	}
	f := float64(ours.hold) / float64(ours.total)
	switch rel {
	case relTop2, relBest:
		switch {
		case ours.hold == ours.total:
			return "reproduced"
		case f >= 0.5:
			return "partly reproduced"
		}
		return "not reproduced"
	}
	if paperC.total == 0 {
		return "no paper count"
	}
	pf := float64(paperC.hold) / float64(paperC.total)
	switch {
	case (pf > 0.5) == (f > 0.5) && f != 0.5:
		return "same direction"
	case f == 0.5:
		return "tie"
	}
	return "opposite direction"
}

func (w *reportWriter) relationsSummary(doc *report.Doc) {
	if len(w.totals) == 0 {
		return
	}
	doc.H(2, "The paper's relations over all our columns")
	// The paper's counts over its 18 columns (Tables I–III).
	theirs := map[string]*relCount{}
	for _, r := range relOrder {
		theirs[r] = &relCount{}
	}
	for _, tid := range []string{"I", "II", "III"} {
		t, ok := w.Nums.Table(tid)
		if !ok {
			continue
		}
		val := func(m, col string) float64 {
			c, _ := t.Lookup(map[string]string{"method": m}, col)
			return c.Mean
		}
		for _, p := range participants {
			for _, part := range partitions {
				col := columnKey(part, p)
				pBest := math.Inf(1)
				for _, b := range baseline {
					pBest = math.Min(pBest, val(b, col))
				}
				a, b := val("fedddpm", col), val("fedddpm+", col)
				theirs[relTop2].add(a < pBest && b < pBest, false)
				theirs[relBest].add(math.Min(a, b) < pBest, false)
				theirs[relPlus].add(b < a, false)
			}
		}
		for _, m := range tableMethods {
			for _, p := range participants {
				theirs[relAlpha].add(val(m, columnKey("dir0.1", p)) > val(m, columnKey("dir0.3", p)), false)
				if contains(baseline, m) {
					sh := val(m, columnKey("shard", p))
					theirs[relShardHard].add(sh > val(m, columnKey("dir0.1", p)) && sh > val(m, columnKey("dir0.3", p)), false)
				}
			}
			for _, part := range partitions {
				theirs[relP].add(val(m, columnKey(part, 0.3)) < val(m, columnKey(part, 0.15)), false)
			}
		}
	}
	w.paperTotals = theirs
	tb := &report.Table{Header: []string{"relation", "ours (all datasets)", "of which clear", "paper (Tables I–III)", "verdict"}, Align: "lrrrl"}
	for _, r := range relOrder {
		o := w.totals[r]
		if o == nil || o.total == 0 {
			continue
		}
		v := verdict(r, o, theirs[r])
		tb.Add(r, fmt.Sprintf("%d/%d", o.hold, o.total), fmt.Sprint(o.clear), ratio(theirs[r]), v)
		w.Summary.Cells = append(w.Summary.Cells, report.Cell{"table": "relations", "dataset": "all", "metric": r,
			"mean": float64(o.hold), "n": o.total, "clear": o.clear, "paper_value": float64(theirs[r].hold), "paper_n": theirs[r].total, "verdict": v})
	}
	doc.Table(tb)
	doc.P("Verdicts: for the two ranking relations the paper claims every column (\"reproduced\" needs all of ours, \"partly\" at least half); for the others the paper shows a direction in most columns (FedDDPM+ beats FedDDPM in a minority), and \"same direction\" means our majority agrees. The compute beside each score above matters for reading the ranking: FedDDPM trains on the server every round and, like FedDDPM+, needs the warmup of every client; the paper's tables do not control for it (spec §6 item 16).")
}
