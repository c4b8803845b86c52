// Package convergence carries the convergence-claim files of this folder
// (format fedrepro-convergence/1, README.md) in the binary; they are
// audited by algorithms/audit/convergence.
package convergence

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
)

//go:embed *.yaml
var files embed.FS

// Papers are the reproduced papers whose theorems have claim files here
// (files named <paper>-….yaml).
var Papers = []string{"upcycled", "normec", "fedddpm", "haar"}

// IDs lists every embedded claim, sorted.
func IDs() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Library lists the claims of papers fedrepro does not reproduce.
func Library() []string {
	var out []string
	for _, id := range IDs() {
		own := false
		for _, p := range Papers {
			own = own || strings.HasPrefix(id, p+"-")
		}
		if !own {
			out = append(out, id)
		}
	}
	return out
}

// Source returns the YAML of a claim.
func Source(id string) ([]byte, error) {
	b, err := files.ReadFile(id + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no convergence claim %q in the library", id)
	}
	return b, nil
}

// Load decodes an embedded claim (errors name claims/convergence/<id>.yaml).
func Load(id string) (*conv.Claim, error) {
	b, err := Source(id)
	if err != nil {
		return nil, err
	}
	return conv.Decode("claims/convergence/"+id+".yaml", b)
}
