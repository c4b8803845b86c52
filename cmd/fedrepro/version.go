package main

import (
	"fmt"
	"io"

	"github.com/fedrepro/fedrepro/internal/buildinfo"
)

func init() {
	register(command{
		Name:    "version",
		Summary: "print the module version, commit and Go version of this build",
		Description: "Prints which code this binary was built from: the module version, the VCS commit (from the Go build " +
			"information, from the values `make build` stamps, or from git at run time under `go run`), whether the tree " +
			"had uncommitted changes, the Go version and the platform. Every result file and report records the same.",
		Examples: []string{"fedrepro version", "fedrepro version --json"},
		Run:      cmdVersion,
	})
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	jsonOut := fs.Bool("json", false, "print {module, version, commit, dirty, commit_source, go_version, platform}")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	in := buildinfo.Get()
	if *jsonOut {
		return writeJSON(stdout, in)
	}
	_, err := fmt.Fprintln(stdout, in.String())
	return err
}
