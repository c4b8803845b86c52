package upcycled

import "github.com/fedrepro/fedrepro/reproduce/report"

// Small multiples: one panel per method (its baseline dashed, its Upcycled
// solid, the method's own colour), every panel on the same axes
// (report.Panels), so that twelve or sixteen curves with their ±std bands
// stay readable and no two methods of a figure share a colour.

// panelCols is the number of panels per row (8 methods: two rows of 4).
const panelCols = 4

// savePanels writes one figure of a dataset and mode: its per-method
// panels, as base+".svg" and base+".png".
func savePanels(title string, panels []report.Figure, base string) error {
	ps := &report.Panels{Title: title + " — dashed: baseline, solid: Upcycled; band: ±1 std over seeds", Panels: panels, Cols: min(panelCols, len(panels))}
	return ps.Save(base)
}
