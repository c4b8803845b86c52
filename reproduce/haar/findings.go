package haar

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/reproduce/report"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// findings are the report's opening sentences; every number comes from the
// sections below.
func (w *reportWriter) findings() []string {
	st := w.wav
	var out []string
	if st.cells > 0 {
		out = append(out, fmt.Sprintf("At the paper's own calibration (σ_c = σ_Haar, Lemma 2) WAV beats vanilla DP at the same nominal σ in **%d of %d** cells (paper: %d of the %d it reports), and its gain grows with σ in %d of %d dataset/level groups (paper: %d of %d).",
			st.wins, st.cells, st.paperWins, st.paperCells, st.grows, st.groups, st.pGrows, st.paperGroups))
		if n := len(st.oursOverPaper); n > 0 {
			r := append([]float64(nil), st.oursOverPaper...)
			slices.Sort(r)
			med := r[n/2]
			size := "smaller than"
			switch {
			case med > 1:
				size = "larger than"
			case med == 1:
				size = "equal to"
			}
			out = append(out, fmt.Sprintf("Our gains are %s the paper's text-reported ones: median ratio ours/paper %.2f (range %.2f–%.2f over %d cells); the paper's models, hyper-parameters and absolute accuracies are unknown, so only the pattern is comparable.", size, med, r[0], r[n-1], n))
		}
		if st.minInflation > 1 {
			out = append(out, fmt.Sprintf("The ε this calibration really has (accountant on the mechanism's effective noise multiplier) exceeds the claimed one by a factor of at least **%.2g** in every cell: Lemma 2's claim of vanilla's ε does not hold for the mechanism as implemented from the paper's algorithms.", st.minInflation))
		} else {
			out = append(out, fmt.Sprintf("The ε this calibration really has (accountant on the mechanism's effective noise multiplier) is at most the claimed one in at least one cell (smallest ratio actual/claimed %.3g).", st.minInflation))
		}
		if st.matchCells > 0 || st.corrCells > 0 {
			var parts []string
			if st.matchCells > 0 {
				parts = append(parts, fmt.Sprintf("plain Gaussian noise with WAV's per-coordinate std lands within %.1f points of WAV in all %d cells", st.maxMatchGap, st.matchCells))
			}
			if st.corrCells > 0 {
				parts = append(parts, fmt.Sprintf("calibrated so that its ε really equals vanilla's, WAV is below vanilla in %d of %d cells", st.corrLoses, st.corrCells))
			}
			out = append(out, "Where WAV's gain comes from: "+strings.Join(parts, "; ")+".")
		}
	}
	if w.t3.rows > 0 {
		out = append(out, fmt.Sprintf("Table III (DP-SGD, DP-Adam, DP-AdaGrad): the gain of WAV's noise grows monotonically with σ in %d of %d optimizer rows (paper: %d of %d).", w.t3.grows, w.t3.rows, w.t3.paperGrows, w.t3.paperRows))
	}
	if s := w.auditFinding(); s != "" {
		out = append(out, s)
	}
	out = append(out, report.ClaimsFinding("haar", w.claimCounts))
	return out
}

// auditFinding summarises the Table III fit and the Lemma 2 game.
func (w *reportWriter) auditFinding() string {
	var parts []string
	if t, ok := report.AuditTable(w.auditTables, "table3-fit"); ok {
		type key struct{ ds, conv string }
		consistent, within := map[key]bool{}, map[key]bool{}
		for _, r := range t.Rows {
			k := key{fmt.Sprint(r["dataset"]), fmt.Sprint(r["conversion"])}
			if _, seen := consistent[k]; !seen {
				consistent[k], within[k] = true, true
			}
			consistent[k] = consistent[k] && r["consistent"] == true
			within[k] = within[k] && r["within_5pct"] == true
		}
		nc, nw := 0, 0
		for k := range consistent {
			if consistent[k] {
				nc++
			}
			if within[k] {
				nw++
			}
		}
		parts = append(parts, fmt.Sprintf("one (q, T) per dataset reproduces Table III's three ε to print precision in %d of %d dataset × conversion fits (%d within 5%%)", nc, len(consistent), nw))
	}
	if t, ok := report.AuditTable(w.auditTables, "lemma2-comparison"); ok {
		exceed, rows := 0, 0
		lbMax := math.Inf(-1)
		for _, r := range t.Rows {
			if r["variant"] == "vanilla" {
				continue
			}
			rows++
			if r["exceeds_vanilla"] == true {
				exceed++
				if v, ok := report.RowFloat(r, "eps_lb"); ok {
					lbMax = math.Max(lbMax, v)
				}
			}
		}
		p := fmt.Sprintf("the distinguishing game finds %d of %d wavelet (variant, calibration, σ) rows measurably less private than vanilla", exceed, rows)
		if exceed > 0 {
			p += fmt.Sprintf(" (empirical ε up to %.3g at 95%% confidence)", lbMax)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Audits (`fedrepro audit --paper haar`): " + strings.Join(parts, "; ") + "."
}

func fmtEps(e float64) string {
	switch {
	case math.IsInf(e, 1):
		return "∞"
	case math.IsNaN(e):
		return "—"
	case e >= 1000:
		return fmt.Sprintf("%.2g", e)
	}
	return fmt.Sprintf("%.3g", e)
}

// The paper, as the reports cite it: its title and public address (arXiv
// 2503.21154).
const (
	paperTitle = "Federated Learning with Differential Privacy: An Utility-Enhanced Approach"
	paperLink  = "https://arxiv.org/abs/2503.21154"
)

// headline is the summary's entry in the cross-paper index.
func (w *reportWriter) headline(results []*runner.Result) *report.Headline {
	runs, cpu := report.RunCost(results)
	st := w.wav
	h := &report.Headline{Title: paperTitle + " (Haar-wavelet DP-FL)", Link: paperLink, Reproduced: w.scope(),
		Claims: w.claimCounts, Privacy: st.privacy, Runs: runs, CPUSeconds: cpu}
	if st.cells > 0 {
		h.Relations = append(h.Relations,
			report.Relation{Name: "WAV beats vanilla DP at Lemma 2's calibration (Figs 7–12)", Ours: fmt.Sprintf("%d/%d", st.wins, st.cells), Paper: fmt.Sprintf("%d/%d", st.paperWins, st.paperCells)},
			report.Relation{Name: "its gain grows with σ (dataset/level groups)", Ours: fmt.Sprintf("%d/%d", st.grows, st.groups), Paper: fmt.Sprintf("%d/%d", st.pGrows, st.paperGroups)})
	}
	if st.corrCells > 0 {
		h.Relations = append(h.Relations, report.Relation{Name: "WAV beats vanilla at truly equal ε (privacy-corrected)",
			Ours: fmt.Sprintf("%d/%d", st.corrCells-st.corrLoses, st.corrCells), Paper: "claimed (equal ε assumed)"})
	}
	if w.t3.rows > 0 {
		h.Relations = append(h.Relations, report.Relation{Name: "Table III: gain grows with σ (optimizer rows)",
			Ours: fmt.Sprintf("%d/%d", w.t3.grows, w.t3.rows), Paper: fmt.Sprintf("%d/%d", w.t3.paperGrows, w.t3.paperRows)})
	}
	return h
}

// scope names what this scale reproduced: the figures and tables of the
// experiments that ran, on which data sets.
func (w *reportWriter) scope() string {
	var what, data []string
	seenW, seenD := map[string]bool{}, map[string]bool{}
	for _, e := range w.s.Experiments {
		ran := false
		for k := range w.groups {
			if k.exp == e.Name {
				ran = true
				if !seenD[k.ds] {
					seenD[k.ds] = true
					data = append(data, datasetLabel[k.ds])
				}
			}
		}
		if !ran {
			continue
		}
		for _, x := range []string{figLabel(e.Figure), tableLabel(e.Table)} {
			if x != "" && !seenW[x] {
				seenW[x] = true
				what = append(what, x)
			}
		}
	}
	sort.Strings(data)
	return fmt.Sprintf("%s on %s (logistic regression and MLP stand in for the CNNs); ε of every run and Table III's ε audited", strings.Join(what, ", "), strings.Join(data, ", "))
}

func figLabel(f string) string {
	if f == "" {
		return ""
	}
	return "Figs " + strings.ReplaceAll(f, "-", "–")
}

func tableLabel(t string) string {
	if t == "" {
		return ""
	}
	return "Table " + t
}
