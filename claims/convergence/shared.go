package convergence

import (
	"sync"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
)

// AuditShared audits the embedded claim file id at seed with its own
// budget (conv.Audit(Load(id), conv.Options{Seed: seed})), once per
// process for each (id, seed): an audit is a deterministic function of
// the embedded file and the seed, and two consumers ask for the same one
// in one process — a paper's engine-backed claim check (RegisterProof,
// `fedrepro verify`) and its report's convergence section
// (reproduce/report.Convergence). The report is shared: callers must not
// modify it.
func AuditShared(id string, seed uint64) (*conv.Report, error) {
	k := sharedKey{id, seed}
	shared.mu.Lock()
	e, ok := shared.m[k]
	if !ok {
		e = &sharedAudit{}
		shared.m[k] = e
	}
	shared.mu.Unlock()
	e.once.Do(func() {
		c, err := Load(id)
		if err != nil {
			e.err = err
			return
		}
		e.rep, e.err = conv.Audit(c, conv.Options{Seed: seed})
	})
	return e.rep, e.err
}

type sharedKey struct {
	id   string
	seed uint64
}

type sharedAudit struct {
	once sync.Once
	rep  *conv.Report
	err  error
}

var shared = struct {
	mu sync.Mutex
	m  map[sharedKey]*sharedAudit
}{m: map[sharedKey]*sharedAudit{}}
