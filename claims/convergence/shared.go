package convergence

import (
	"fmt"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	"github.com/fedrepro/fedrepro/internal/memo"
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
	return shared.Get(fmt.Sprintf("%s|%d", id, seed), func() (*conv.Report, error) {
		c, err := Load(id)
		if err != nil {
			return nil, err
		}
		return conv.Audit(c, conv.Options{Seed: seed})
	})
}

var shared memo.Memo[*conv.Report]
