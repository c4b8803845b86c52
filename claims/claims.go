// Package claims carries the claim files of this folder in the binary:
// published privacy figures described in the claim format
// (fedrepro-claim/1, README.md), audited by algorithms/audit/claim. Files
// named <paper>-….yaml hold the audited figures of a reproduced paper
// (upcycled, haar, normec); the others form the library of other papers'
// claims.
package claims

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/algorithms/audit/claim"
)

//go:embed *.yaml
var files embed.FS

// Papers are the reproduced papers whose figures have claim files, in the
// order the claims README lists them (FedDDPM states no privacy figure).
// This package sits below the paper registry (reproduce/paper), so it
// cannot ask it; cmd/fedrepro's TestPaperStructure checks that the list
// names registered papers only, and each one that has claim files.
var Papers = []string{"upcycled", "haar", "normec"}

// folder is this package's claim files.
var folder = Folder{FS: files, Papers: Papers, Unknown: "no claim %q in the library (see fedrepro audit --library)"}

// IDs lists every embedded claim, sorted.
func IDs() []string { return folder.IDs() }

// ForPaper lists the claims of a reproduced paper (files <paper>-….yaml).
func ForPaper(paper string) []string { return folder.ForPaper(paper) }

// Library lists the claims that belong to no reproduced paper.
func Library() []string { return folder.Library() }

// Source returns the YAML of a claim.
func Source(id string) ([]byte, error) { return folder.Source(id) }

// Load decodes an embedded claim (errors name claims/<id>.yaml).
func Load(id string) (*claim.Claim, error) {
	b, err := Source(id)
	if err != nil {
		return nil, err
	}
	c, err := claim.Decode("claims/"+id+".yaml", b)
	if err != nil {
		return nil, err
	}
	if c.ID != id {
		return nil, fmt.Errorf("claims/%s.yaml: id %q differs from the file name", id, c.ID)
	}
	return c, nil
}

// AuditAll audits the claims ids with the claim engine.
func AuditAll(ids []string, o claim.Options) ([]*claim.Report, error) {
	var out []*claim.Report
	for _, id := range ids {
		c, err := Load(id)
		if err != nil {
			return nil, err
		}
		r, err := claim.Audit(c, o)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// AuditEntry is the audit a reproduced paper registers so that `fedrepro
// audit --paper P` and its report show its figures through the claim
// engine: one row per case × reading of its claim files.
//
// Its table is PaperTable over AuditAll(ForPaper(paper), EngineOptions(o)):
// with the options a report uses (seed proofs.DefaultSeed, full size)
// these are the very reports claims' TestGolden computes and gates, which
// is why the paper gates (reproduce/paper/gatetest) do not compute this
// entry a second time.
func AuditEntry(paper, title string) audit.Entry {
	return audit.Entry{Paper: paper, ID: EntryID, Title: title, Run: func(o audit.Options) (audit.Table, error) {
		reps, err := AuditAll(ForPaper(paper), EngineOptions(o))
		if err != nil {
			return audit.Table{}, err
		}
		return PaperTable(title, reps), nil
	}}
}

// EntryID is the ID of the audit AuditEntry registers.
const EntryID = "claims"

// EngineOptions are the claim-engine options of the "claims" audit run with
// the audit options o: the same seed and size.
func EngineOptions(o audit.Options) claim.Options { return claim.Options{Seed: o.Seed, Quick: o.Quick} }

// PaperTable is the "claims" audit table of a paper from its claim
// reports, in ForPaper order: one row per case × reading.
func PaperTable(title string, reps []*claim.Report) audit.Table {
	return claim.AuditTable(EntryID, title, reps)
}

// Folder is an embedded folder of claim files, one <id>.yaml per claim:
// files named <paper>-….yaml belong to a reproduced paper named in Papers,
// the others form the library of other papers' claims. Both claim folders
// are one Folder each: this one (fedrepro-claim/1, privacy figures) and
// convergence/ (fedrepro-convergence/1, convergence theorems); only their
// formats and decoders differ.
type Folder struct {
	FS     fs.FS
	Papers []string
	// Unknown is the error for an id without a file (%q: the id).
	Unknown string
}

// IDs lists every claim of the folder, sorted.
func (f Folder) IDs() []string {
	ents, _ := fs.ReadDir(f.FS, ".")
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// ForPaper lists the claims of a reproduced paper (files <paper>-….yaml).
func (f Folder) ForPaper(paper string) []string {
	var out []string
	for _, id := range f.IDs() {
		if strings.HasPrefix(id, paper+"-") {
			out = append(out, id)
		}
	}
	return out
}

// Library lists the claims that belong to no paper of Papers.
func (f Folder) Library() []string {
	var out []string
	for _, id := range f.IDs() {
		own := false
		for _, p := range f.Papers {
			own = own || strings.HasPrefix(id, p+"-")
		}
		if !own {
			out = append(out, id)
		}
	}
	return out
}

// Source returns the YAML of a claim.
func (f Folder) Source(id string) ([]byte, error) {
	b, err := fs.ReadFile(f.FS, id+".yaml")
	if err != nil {
		return nil, fmt.Errorf(f.Unknown, id)
	}
	return b, nil
}
