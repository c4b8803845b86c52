package upcycled

import "github.com/fedrepro/fedrepro/reproduce/report"

// savePanels writes one figure of a dataset and mode: its per-method
// panels. Interim form until report.Panels lands: every panel's series in
// one plot (colours are already unique per method).
func savePanels(title string, panels []report.Figure, base string) error {
	fig := &report.Figure{Title: title}
	for _, p := range panels {
		fig.XLabel, fig.YLabel = p.XLabel, p.YLabel
		fig.Series = append(fig.Series, p.Series...)
	}
	return fig.Save(base)
}
