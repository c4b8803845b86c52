package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// A report session says where the report phase logs its steps and where
// it caches the claim checks and audits it runs. Claims and audits are
// deterministic functions of the code and their inputs, and they dominate
// the time of writing a report, so each is computed once per build of the
// program: the cache key is the SHA-256 of the running executable plus the
// check's inputs (paper, id, seed, options). A rebuilt binary has another
// hash, so a code change can never reuse a stale entry.
var session struct {
	mu    sync.Mutex
	log   io.Writer
	cache string // "" = no disk cache
	start time.Time
	prov  *Provenance
}

// Provenance is what a report records of the results it was written from:
// the builds, specs and data that produced them, and the seeds.
type Provenance struct {
	Results int                  `json:"results"`
	Seeds   []uint64             `json:"seeds"`
	Sources []*runner.Provenance `json:"sources"` // distinct provenances of the results
}

// Lines renders the provenance as the report's header lines.
func (p *Provenance) Lines() []string {
	if p == nil {
		return nil
	}
	var out []string
	seeds := make([]string, len(p.Seeds))
	for i, s := range p.Seeds {
		seeds[i] = fmt.Sprint(s)
	}
	out = append(out, fmt.Sprintf("Generated from %d results (seeds %s).", p.Results, strings.Join(seeds, ", ")))
	for _, s := range p.Sources {
		c := s.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if c == "" {
			c = "unknown commit"
		}
		if s.Dirty {
			c += "+dirty"
		}
		line := fmt.Sprintf("Results computed by %s %s (%s, %s, %s)", s.Module, s.Version, c, s.GoVersion, s.Platform)
		if s.SpecSHA256 != "" {
			line += fmt.Sprintf("; spec SHA-256 %s…", s.SpecSHA256[:16])
		}
		var ds []string
		for _, k := range sortedKeys(s.Data) {
			ds = append(ds, fmt.Sprintf("%s pins %s…", k, s.Data[k][:16]))
		}
		if len(ds) > 0 {
			line += "; data: " + strings.Join(ds, ", ")
		}
		out = append(out, line+".")
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ProvenanceOf collects the provenance of a report's results.
func ProvenanceOf(results []*runner.Result) *Provenance {
	p := &Provenance{Results: len(results)}
	seeds := map[uint64]bool{}
	seen := map[string]bool{}
	for _, r := range results {
		seeds[r.Seed] = true
		if r.Provenance == nil {
			continue
		}
		b, _ := json.Marshal(r.Provenance)
		if !seen[string(b)] {
			seen[string(b)] = true
			p.Sources = append(p.Sources, r.Provenance)
		}
	}
	for s := range seeds {
		p.Seeds = append(p.Seeds, s)
	}
	sort.Slice(p.Seeds, func(i, j int) bool { return p.Seeds[i] < p.Seeds[j] })
	sort.Slice(p.Sources, func(i, j int) bool {
		a, _ := json.Marshal(p.Sources[i])
		b, _ := json.Marshal(p.Sources[j])
		return string(a) < string(b)
	})
	return p
}

// Begin starts a report session logging steps to log (nil: silent),
// caching under cacheDir ("" disables the cache) and recording prov in
// every document's header and summary.json; the returned function ends it.
func Begin(log io.Writer, cacheDir string, prov *Provenance) (end func()) {
	session.mu.Lock()
	session.log, session.cache, session.start, session.prov = log, cacheDir, time.Now(), prov
	session.mu.Unlock()
	return func() {
		session.mu.Lock()
		session.log, session.cache, session.prov = nil, "", nil
		session.mu.Unlock()
	}
}

func sessionProvenance() *Provenance {
	session.mu.Lock()
	defer session.mu.Unlock()
	return session.prov
}

// Step logs one step of the report phase ("report: claims (22 checks) …").
func Step(format string, a ...any) {
	session.mu.Lock()
	w, t0 := session.log, session.start
	session.mu.Unlock()
	if w != nil {
		fmt.Fprintf(w, "report: %s (%.1fs)\n", fmt.Sprintf(format, a...), time.Since(t0).Seconds())
	}
}

var (
	exeOnce sync.Once
	exeHash string
)

// codeID is the SHA-256 of the running executable ("" when unreadable:
// then nothing is cached).
func codeID() string {
	exeOnce.Do(func() {
		p, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(p)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			exeHash = hex.EncodeToString(h.Sum(nil))
		}
	})
	return exeHash
}

func init() {
	// Concrete types that audit rows and claim values hold inside
	// interfaces; gob needs them named.
	for _, v := range []any{[]float64{}, []string{}, []any{}, map[string]any{}, []int{}, map[string]float64{}, audit.Row{}} {
		gob.Register(v)
	}
}

func cachePath(kind string, key ...any) string {
	session.mu.Lock()
	dir := session.cache
	session.mu.Unlock()
	id := codeID()
	if dir == "" || id == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s", id, kind)
	for _, k := range key {
		fmt.Fprintf(h, "|%#v", k)
	}
	return filepath.Join(dir, kind, hex.EncodeToString(h.Sum(nil))[:32]+".gob")
}

// cached returns the value stored under (kind, key…) or computes it with
// fn and stores it. A value gob cannot encode is simply not cached.
func cached[T any](kind string, fn func() (T, error), key ...any) (T, error) {
	path := cachePath(kind, key...)
	if path != "" {
		if b, err := os.ReadFile(path); err == nil {
			var v T
			if gob.NewDecoder(bytes.NewReader(b)).Decode(&v) == nil {
				return v, nil
			}
		}
	}
	v, err := fn()
	if err != nil || path == "" {
		return v, err
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(v) == nil {
		_ = runner.WriteFileAtomic(path, buf.Bytes())
	}
	return v, nil
}

// claimOutcome is what the report needs of a claim check.
type claimOutcome struct {
	Verdict  proofs.Verdict
	Evidence string
}

// runClaim runs a claim check, from the cache when the binary and seed are
// the same. A check that reads a dataset (Claim.Needs) is never cached: it
// looks for its data in several places and falls back to a stand-in, so
// the same key could stand for another computation once data arrives.
func runClaim(c proofs.Claim, seed uint64) claimOutcome {
	compute := func() (claimOutcome, error) {
		r := proofs.RunShared(c, proofs.Config{Seed: seed})
		return claimOutcome{r.Verdict, r.Evidence}, nil
	}
	if len(c.Needs) > 0 {
		o, _ := compute()
		return o
	}
	o, _ := cached("claims", compute, c.ID, seed)
	return o
}

// runAudit runs an audit, from the cache when the binary, the options and
// the state of the audit's data directory (dirState) are the same.
func runAudit(e audit.Entry, opts audit.Options) (audit.Table, error) {
	return cached("audits", func() (audit.Table, error) { return audit.Run(e, opts) }, e.Paper, e.ID, opts, dirState(opts.DataDir), os.Getenv("FEDREPRO_SHARED"))
}

// dirState fingerprints a data directory for cache keys: whether it exists
// and the names, sizes and modification times of its entries two levels
// down (a dataset appearing, disappearing or being replaced changes it).
func dirState(dir string) string {
	if dir == "" {
		return ""
	}
	var b strings.Builder
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		es, err := os.ReadDir(d)
		if err != nil {
			fmt.Fprintf(&b, "%s:absent;", d)
			return
		}
		for _, e := range es {
			if fi, err := e.Info(); err == nil {
				fmt.Fprintf(&b, "%s/%s:%d:%d;", d, e.Name(), fi.Size(), fi.ModTime().UnixNano())
			}
			if e.IsDir() && depth < 2 {
				walk(filepath.Join(d, e.Name()), depth+1)
			}
		}
	}
	walk(dir, 1)
	return b.String()
}
