package audit

import (
	"fmt"
	"sort"
	"sync"
)

// Row is one line of an audit table: stable field name → value (numbers,
// strings, bools). The field names are the `--json` schema, so keep them
// stable and document them in the README.
type Row map[string]any

// Table is one audit's output: the rows, the column order for humans, and
// notes that say which assumptions produced the numbers.
type Table struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Columns []string `json:"columns"`
	Rows    []Row    `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
	// Verdict summarises the audit when it tests a claim ("consistent",
	// "inconsistent", "gap", …); empty when the table only reports numbers.
	Verdict string `json:"verdict,omitempty"`
}

// Options are passed to every registered audit.
type Options struct {
	Seed    uint64
	Quick   bool   // reduced trial counts (tests, CI)
	DataDir string // where user-supplied datasets live ("" = defaults)
}

// Entry is an audit a paper package registers.
type Entry struct {
	Paper string
	ID    string // unique within the paper
	Title string
	Run   func(Options) (Table, error)
}

var (
	regMu   sync.Mutex
	entries = map[string][]Entry{}
)

// Register adds an audit for a paper; a duplicate ID panics.
func Register(e Entry) {
	regMu.Lock()
	defer regMu.Unlock()
	if e.Paper == "" || e.ID == "" || e.Run == nil {
		panic(fmt.Sprintf("audit: incomplete entry %+v", e))
	}
	for _, x := range entries[e.Paper] {
		if x.ID == e.ID {
			panic("audit: duplicate entry " + e.Paper + "/" + e.ID)
		}
	}
	entries[e.Paper] = append(entries[e.Paper], e)
}

// Entries returns a paper's audits in registration order.
func Entries(paper string) []Entry {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]Entry(nil), entries[paper]...)
}

// RegisteredPapers lists papers with at least one audit, sorted.
func RegisteredPapers() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var out []string
	for p := range entries {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

type memoKey struct {
	paper, id string
	opts      Options
}

type memoVal struct {
	t   Table
	err error
}

var (
	memoMu sync.Mutex
	memo   = map[memoKey]*memoVal{}
)

// Run runs an entry, filling the table's ID and title from the entry when
// the audit left them empty. An audit is a deterministic function of its
// options, so each (paper, audit, options) is computed once per process:
// the golden gate and the report writer then share one computation. The
// returned table is shared; callers must not modify it.
func Run(e Entry, o Options) (Table, error) {
	k := memoKey{e.Paper, e.ID, o}
	memoMu.Lock()
	v, ok := memo[k]
	memoMu.Unlock()
	if ok {
		return v.t, v.err
	}
	t, err := e.Run(o)
	if err == nil {
		if t.ID == "" {
			t.ID = e.ID
		}
		if t.Title == "" {
			t.Title = e.Title
		}
	}
	memoMu.Lock()
	memo[k] = &memoVal{t, err}
	memoMu.Unlock()
	return t, err
}

// Preset records t as the table of the audit (paper, id) under o for this
// process: a later Run of that entry with those options returns t without
// computing it. It is for test harnesses that gate an expensive entry in
// another test with the same function and options (reproduce/paper/gatetest
// presets the claim-engine table that claims' TestGolden gates) and must
// still write a report that lists every registered audit.
func Preset(paper, id string, o Options, t Table) {
	memoMu.Lock()
	memo[memoKey{paper, id, o}] = &memoVal{t: t}
	memoMu.Unlock()
}
