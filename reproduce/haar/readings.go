package haar

import (
	"fmt"
	"math"

	"github.com/fedrepro/fedrepro/reproduce/report"
)

// readStats is what the comparison of Algorithm 1's two readings computed
// (noise per lot against noise per example, noiseper.go).
type readStats struct {
	exp, base            string    // the per-example experiment; the per-lot one it is paired with
	lot                  float64   // expected lot size L
	cells                int       // (dataset, σ) cells with both readings and vanilla
	exBelowLot           int       // cells where per-example WAV's gain over vanilla is below per-lot WAV's
	exWins               int       // cells where per-example WAV still beats vanilla
	ratioMin, ratioMax   float64   // noise std per example / per lot, over the cells
	gainLot, gainEx      []float64 // WAV − vanilla (points) per cell, per reading
	epsLot, epsEx, epsCl []float64 // ε actual per lot, ε (mean-shift part) per example, ε claimed, per cell
}

// readingPairs finds each noise_per: example experiment and the per-lot
// sample-level figure experiment with the same model it is compared with
// (same seeds, split, lots: RunKey leaves the experiment out).
func (w *reportWriter) readingPairs() [][2]*Experiment {
	var out [][2]*Experiment
	for i := range w.Spec.Experiments {
		ex := &w.Spec.Experiments[i]
		if ex.NoisePer != noisePerExample {
			continue
		}
		for j := range w.Spec.Experiments {
			b := &w.Spec.Experiments[j]
			if b.Level == "sample" && b.Figure != "" && b.NoisePer != noisePerExample && b.Model == ex.Model && b.Lot == ex.Lot {
				out = append(out, [2]*Experiment{ex, b})
				break
			}
		}
	}
	return out
}

// readings writes the section comparing Algorithm 1's two readings.
func (w *reportWriter) readings(doc *report.Doc) {
	pairs := w.readingPairs()
	if len(pairs) == 0 {
		return
	}
	doc.H(2, "Algorithm 1's two readings: noise per lot or per example")
	doc.P("Algorithm 1 as printed draws WaveletNoise for every example inside the lot loop; the rest of this report draws once per lot (Abadi et al.'s DP-SGD). With B examples in a lot the per-example reading adds B independent draws, i.e. noise of covariance B·Σ₁ on the sum: after division by the expected lot L the noise std is √L times the per-lot one (`noise_per: example`, `reproduce/haar/noiseper.go`). One example still moves the clipped sum by at most C, so against the mean shift the effective multiplier grows by √b, b the (1 − δ/(2T)) lower quantile of the other examples in a lot (accountant at δ/2); neighbouring lots also differ in the number of draws, and that lot-size leak through the noise variance is NOT in this ε — it is the mean-shift part only. Vanilla and Dyn keep one draw per lot; gains are paired by seed against the per-lot experiment's vanilla runs (same split, initial model and lots).")
	for _, p := range pairs {
		ex, base := p[0], p[1]
		st := readStats{exp: ex.Name, base: base.Name, ratioMin: math.Inf(1), ratioMax: math.Inf(-1)}
		tb := &report.Table{Header: []string{"dataset", "σ", "WAV − vanilla, per lot (pts)", "per example (pts)", "noise std/coord, per lot", "per example", "ratio", "ε claimed", "ε actual, per lot", "ε per example (mean shift)", "corrected WAV per example − vanilla", "WAV per example − Gaussian at its std"}, Align: "lrrrrrrrrrrr"}
		for _, ds := range ex.Datasets {
			for _, s := range ex.Sigmas {
				v := w.get(base.Name, ds, "sgd", "vanilla", s)
				lw := w.get(base.Name, ds, "sgd", "wav", s)
				xw := w.get(ex.Name, ds, "sgd", "wav", s)
				if v == nil || lw == nil || xw == nil {
					continue
				}
				if st.lot == 0 {
					st.lot = xw.Config.Lot
				}
				gl, gx := paired(lw, v), paired(xw, v)
				ratio := xw.final("noise_std") / lw.final("noise_std")
				st.cells++
				if gx.Mean < gl.Mean {
					st.exBelowLot++
				}
				if gx.Mean > 0 {
					st.exWins++
				}
				st.ratioMin, st.ratioMax = math.Min(st.ratioMin, ratio), math.Max(st.ratioMax, ratio)
				st.gainLot, st.gainEx = append(st.gainLot, gl.Mean), append(st.gainEx, gx.Mean)
				st.epsLot, st.epsEx, st.epsCl = append(st.epsLot, lw.final("eps")), append(st.epsEx, xw.final("eps")), append(st.epsCl, xw.final("eps_claimed"))
				cg, mg := "—", "—"
				if c := w.get(ex.Name, ds, "sgd", "wav_corrected", s); c != nil {
					cg = paired(c, v).PM(2) + " (ε " + fmtEps(c.final("eps")) + ")"
				}
				if m := w.get(ex.Name, ds, "sgd", "gauss_matched", s); m != nil {
					mg = paired(xw, m).PM(2)
				}
				tb.Add(datasetLabel[ds], sigmaLabel(s), gl.PM(2), gx.PM(2), fmt.Sprintf("%.3g", lw.final("noise_std")), fmt.Sprintf("%.3g", xw.final("noise_std")),
					fmt.Sprintf("%.3g", ratio), fmtEps(xw.final("eps_claimed")), fmtEps(lw.final("eps")), fmtEps(xw.final("eps")), cg, mg)
				w.Summary.Cells = append(w.Summary.Cells, report.Cell{"experiment": ex.Name, "dataset": ds, "level": "sample", "method": "wav", "sigma": s, "optimizer": "sgd", "model": ex.Model,
					"metric": "gain_vs_vanilla_pts", "noise_per": noisePerExample, "mean": gx.Mean, "std": gx.Std, "n": gx.N,
					"epsilon": xw.final("eps"), "epsilon_claimed": xw.final("eps_claimed"), "noise_std_ratio_vs_lot": ratio})
			}
		}
		if st.cells == 0 {
			continue
		}
		doc.P("**%s** against **%s** (expected lot L = %g, √L = %.3g):", ex.Name, base.Name, st.lot, math.Sqrt(st.lot))
		doc.Table(tb)
		w.read = append(w.read, st)
	}
}

// readingFinding is the findings sentence of one readings comparison.
func readingFinding(st readStats) string {
	ratio := fmt.Sprintf("%.3g–%.3g", st.ratioMin, st.ratioMax)
	if fmt.Sprintf("%.3g", st.ratioMin) == fmt.Sprintf("%.3g", st.ratioMax) {
		ratio = fmt.Sprintf("%.3g", st.ratioMin)
	}
	return fmt.Sprintf("Algorithm 1 read as printed (one WAV noise draw per example, %s): the noise std is %s times the per-lot reading's (√L = %.3g); WAV's gain over vanilla is %s points per example against %s per lot (below the per-lot gain in %d of %d cells; WAV still ahead of vanilla in %d of %d), and the mean-shift part of its ε is %s against %s per lot (claimed %s); the lot-size leak through the noise variance is not in that ε.",
		st.exp, ratio, math.Sqrt(st.lot), fmtList(st.gainEx), fmtList(st.gainLot), st.exBelowLot, st.cells, st.exWins, st.cells,
		fmtEpsList(st.epsEx), fmtEpsList(st.epsLot), fmtEpsList(st.epsCl))
}

func fmtEpsList(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += fmtEps(x)
	}
	return s
}
