package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
}

// Begin starts a report session logging steps to log (nil: silent) and
// caching under cacheDir ("" disables the cache); the returned function
// ends it.
func Begin(log io.Writer, cacheDir string) (end func()) {
	session.mu.Lock()
	session.log, session.cache, session.start = log, cacheDir, time.Now()
	session.mu.Unlock()
	return func() {
		session.mu.Lock()
		session.log, session.cache = nil, ""
		session.mu.Unlock()
	}
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

func runClaim(c proofs.Claim, seed uint64) claimOutcome {
	o, _ := cached("claims", func() (claimOutcome, error) {
		r := proofs.Run(c, proofs.Config{Seed: seed})
		return claimOutcome{r.Verdict, r.Evidence}, nil
	}, c.ID, seed)
	return o
}

func runAudit(e audit.Entry, opts audit.Options) (audit.Table, error) {
	return cached("audits", func() (audit.Table, error) { return audit.Run(e, opts) }, e.Paper, e.ID, opts)
}
