package upcycled

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	"github.com/fedrepro/fedrepro/reproduce/datasets"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// sources loads each (source, dataset) once per process and shares it
// read-only between runs.
type sources struct {
	sharedDir, dataDir, cacheDir string
	genSeed                      uint64

	memo datasets.Memo[*data.Federated]
}

func newSources(sharedDir, dataDir string, genSeed uint64) *sources {
	return &sources{sharedDir: sharedDir, dataDir: dataDir, genSeed: genSeed}
}

// upstreamName maps syn_0.5_0.5 → synthetic_0.5_0.5.
func upstreamName(ds string) string { return "synthetic_" + strings.TrimPrefix(ds, "syn_") }

// newSourcesFor is newSources for o, with the download cache.
func newSourcesFor(o paper.Options, genSeed uint64) *sources {
	s := newSources(o.SharedDir, o.DataDir, genSeed)
	s.cacheDir = o.CacheDir
	return s
}

// userRoots are where the user's --data-dir may hold the released data (a
// copy of the upstream data/ folder, or of the shared layout).
func (s *sources) userRoots() []string {
	if s.dataDir == "" {
		return nil
	}
	return []string{s.dataDir, filepath.Join(s.dataDir, "upcycled-synthetic")}
}

// defaultRoots are the project's copies: the shared folder's, then the
// download cache's (reproduce/datasets).
func (s *sources) defaultRoots() []string {
	return datasets.UpcycledRoots(s.sharedDir, s.cacheDir)
}

// releasedRoots are where released data may be, in order.
func (s *sources) releasedRoots() []string { return append(s.userRoots(), s.defaultRoots()...) }

// releasedDir returns the root that holds dataset ds. An explicit --data-dir
// is authoritative: when it holds ds, that copy is used (and a damaged copy
// is an error, never replaced); fromUser says so. Otherwise the project's
// copies are used.
func (s *sources) releasedDir(ds string) (root string, fromUser bool) {
	for _, r := range s.userRoots() {
		if isDir(filepath.Join(r, upstreamName(ds))) {
			return r, true
		}
	}
	for _, r := range s.defaultRoots() {
		if isDir(filepath.Join(r, upstreamName(ds))) {
			return r, false
		}
	}
	return "", false
}

// fallbacks lists, for the planned released datasets, a line for each that
// --data-dir lacks and a project copy provides: the fallback is said, not
// silent.
func (s *sources) fallbacks(dss []string) []string {
	if s.dataDir == "" {
		return nil
	}
	var out []string
	for _, ds := range dss {
		if root, user := s.releasedDir(ds); root != "" && !user {
			out = append(out, fmt.Sprintf("%s is not under --data-dir %s; using the project's copy at %s", upstreamName(ds), s.dataDir, filepath.Join(root, upstreamName(ds))))
		}
	}
	return out
}

// femnistDirs are where a LEAF-format FEMNIST may be.
func (s *sources) femnistDirs() []string {
	if s.dataDir == "" {
		return nil
	}
	return []string{filepath.Join(s.dataDir, "femnist", "data"), filepath.Join(s.dataDir, "femnist")}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// where says where a source/dataset was looked for (for "not run" notes).
func (s *sources) where(src, ds string) string {
	switch src {
	case "released":
		var ps []string
		for _, r := range s.releasedRoots() {
			ps = append(ps, filepath.Join(r, upstreamName(ds)))
		}
		if len(ps) == 0 {
			return "(no --data-dir or shared dir given)"
		}
		return strings.Join(ps, " or ")
	case "leaf":
		if d := s.femnistDirs(); len(d) > 0 {
			return strings.Join(d, " or ")
		}
		return "--data-dir/femnist (no --data-dir given)"
	}
	return "(generated)"
}

// available reports, without loading, whether the files of a source exist.
func (s *sources) available(src, ds string) bool {
	switch src {
	case "generated":
		return ds != "femnist"
	case "released":
		root, _ := s.releasedDir(ds)
		return root != ""
	case "leaf":
		for _, d := range s.femnistDirs() {
			if isDir(filepath.Join(d, "train")) {
				return true
			}
		}
	}
	return false
}

// load returns the federated dataset of a source (cached).
func (s *sources) load(src, ds string) (*data.Federated, error) {
	return s.memo.Get(src+"/"+ds, func() (*data.Federated, error) { return s.loadUncached(src, ds) })
}

func (s *sources) loadUncached(src, ds string) (*data.Federated, error) {
	switch src {
	case "generated":
		cfg, err := data.SyntheticPreset(ds)
		if err != nil {
			return nil, err
		}
		return data.GenerateSynthetic(cfg, GeneratorKey(s.genSeed, ds))
	case "released":
		root, _ := s.releasedDir(ds)
		if root == "" {
			return nil, fmt.Errorf("dataset %s not found at %s", upstreamName(ds), s.where(src, ds))
		}
		f, err := data.LoadUpcycled(root, upstreamName(ds))
		if err != nil {
			return nil, err
		}
		f.Name = ds
		return f, nil
	case "leaf":
		for _, d := range s.femnistDirs() {
			if isDir(filepath.Join(d, "train")) {
				return data.LoadLEAF(d, "femnist", 0)
			}
		}
		return nil, fmt.Errorf("dataset femnist not found at %s", s.where(src, ds))
	}
	return nil, fmt.Errorf("unknown data source %q", src)
}

// GeneratorKey names the stream our FedProx generator draws dataset ds
// from (the upstream generator was unseeded, so ours cannot match its
// draw; it matches its distribution).
func GeneratorKey(seed uint64, ds string) rng.Key { return rng.New(seed, "upcycled", "generated", ds) }
