package report

import (
	"github.com/fedrepro/fedrepro/algorithms/audit"
)

// ClaimsSection writes a paper's claims section: the heading, an optional
// paragraph, the registered claim checks (Claims) and the convergence
// engine's claim files of the paper (Convergence), whose finding it adds
// to the report's findings. It returns the claim checks' verdict counts
// (for the headline and the index).
func ClaimsSection(doc *Doc, paper, dir string, seed uint64, intro string) map[string]int {
	doc.H(2, "Claims (`fedrepro verify --paper %s`)", paper)
	if intro != "" {
		doc.P("%s", intro)
	}
	counts := Claims(doc, paper, seed)
	if f := Convergence(doc, paper, dir, seed); f != "" {
		doc.Findings(f)
	}
	return counts
}

// AuditSections writes a paper's privacy-audit section under title (an
// optional paragraph, then the registered audits, Audits) and the section
// of attacks on the training that was run (Attacks), whose verdict it adds
// to the findings. It returns the audit tables (for the findings and the
// headline).
func AuditSections(doc *Doc, title, paper, scale string, opts audit.Options, columns map[string][]string, intro string) []audit.Table {
	doc.H(2, "%s (`fedrepro audit --paper %s`)", title, paper)
	if intro != "" {
		doc.P("%s", intro)
	}
	tables := Audits(doc, paper, opts, columns)
	doc.H(2, "Attacks on the training that was run (`fedrepro attack --paper %s`)", paper)
	if _, v := Attacks(doc, paper, scale); v != "" {
		doc.Findings(v)
	}
	return tables
}
