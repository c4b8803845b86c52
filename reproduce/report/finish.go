package report

import "path/filepath"

// Finish closes a paper's report the one way every report closes: the
// findings at a glance (built after the sections, from what they
// computed), the summary's headline for the cross-paper index, the cells
// sorted by the paper's keys, then summary.json and README.md written in
// dir. The findings and headline are computed by the caller, in that
// order, before Finish runs.
func (d *Doc) Finish(dir string, s *Summary, findings []string, h *Headline, cellOrder ...string) error {
	d.Findings(findings...)
	s.Headline = h
	SortCells(s.Cells, cellOrder...)
	if err := WriteSummary(filepath.Join(dir, "summary.json"), s); err != nil {
		return err
	}
	return d.Write(filepath.Join(dir, "README.md"))
}
