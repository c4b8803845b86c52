// Package convergence carries the convergence-claim files of this folder
// (format fedrepro-convergence/1, README.md) in the binary; they are
// audited by algorithms/audit/convergence.
package convergence

import (
	"embed"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	"github.com/fedrepro/fedrepro/claims"
)

//go:embed *.yaml
var files embed.FS

// Papers are the reproduced papers whose theorems have claim files here
// (files named <paper>-….yaml).
var Papers = []string{"upcycled", "normec", "fedddpm", "haar"}

// folder is this package's claim files.
var folder = claims.Folder{FS: files, Papers: Papers, Unknown: "no convergence claim %q in the library"}

// IDs lists every embedded claim, sorted.
func IDs() []string { return folder.IDs() }

// Library lists the claims of papers fedrepro does not reproduce.
func Library() []string { return folder.Library() }

// Source returns the YAML of a claim.
func Source(id string) ([]byte, error) { return folder.Source(id) }

// Load decodes an embedded claim (errors name claims/convergence/<id>.yaml).
func Load(id string) (*conv.Claim, error) {
	b, err := Source(id)
	if err != nil {
		return nil, err
	}
	return conv.Decode("claims/convergence/"+id+".yaml", b)
}
