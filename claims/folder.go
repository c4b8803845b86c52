package claims

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

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
