// Package buildinfo says which code produced a result or a report: module
// version, VCS commit (and whether the tree had uncommitted changes), Go
// version and platform.
//
// The commit comes, in order, from the Go build information (`go build`
// inside a git checkout stamps vcs.revision), from values the Makefile
// stamps with -ldflags "-X …/buildinfo.commit=…" (for builds where the
// toolchain does not, e.g. -buildvcs=false), and, under `go run` (which does
// not stamp VCS data), from `git` run once in the working directory.
package buildinfo

import (
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Stamped by the Makefile: go build -ldflags "-X github.com/fedrepro/fedrepro/internal/buildinfo.commit=$(git rev-parse HEAD) -X …dirty=true|false -X …version=…".
var (
	commit  string
	dirty   string
	version string
)

// Info describes the running binary.
type Info struct {
	Module    string `json:"module"`
	Version   string `json:"version"` // module version, "(devel)" for a local build
	Commit    string `json:"commit"`  // full VCS revision, "" when unknown
	Dirty     bool   `json:"dirty"`   // the tree had uncommitted changes
	Source    string `json:"commit_source"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"` // GOOS/GOARCH
}

var (
	once sync.Once
	info Info
)

// Get returns the binary's build information (computed once).
func Get() Info {
	once.Do(func() { info = compute() })
	return info
}

func compute() Info {
	in := Info{Module: "github.com/fedrepro/fedrepro", Version: "(devel)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != "" {
			in.Module = bi.Main.Path
		}
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit, in.Source = s.Value, "build info"
			case "vcs.modified":
				in.Dirty = s.Value == "true"
			}
		}
	}
	if version != "" && in.Version == "(devel)" {
		in.Version = version
	}
	if in.Commit == "" && commit != "" {
		in.Commit, in.Dirty, in.Source = commit, dirty == "true", "stamped by make"
	}
	if in.Commit == "" {
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			in.Commit, in.Source = strings.TrimSpace(string(out)), "git at run time"
			if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
				in.Dirty = len(strings.TrimSpace(string(st))) > 0
			}
		}
	}
	return in
}

// Short is "<commit[:12]>[+dirty]", or the module version when the commit
// is unknown.
func (i Info) Short() string {
	if i.Commit == "" {
		return i.Version
	}
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Dirty {
		c += "+dirty"
	}
	return c
}

// String is one line: "fedrepro <version> (commit …, go1.26.8, linux/amd64)".
func (i Info) String() string {
	c := "commit unknown"
	if i.Commit != "" {
		c = "commit " + i.Short()
	}
	return "fedrepro " + i.Version + " (" + c + ", " + i.GoVersion + ", " + i.Platform + ")"
}
