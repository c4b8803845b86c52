package paper

import (
	"fmt"

	"github.com/fedrepro/fedrepro/algorithms/audit"
)

// RegisterAudits registers a paper's privacy audits with algorithms/audit,
// in the order given (the order `fedrepro audit`, the report and
// golden/<paper>/audits.json list them), each under the paper's name: an
// entry states its ID, Title and Run, and leaves Paper empty. An entry that
// names another paper panics at registration, like any malformed entry.
func RegisterAudits(paperName string, entries []audit.Entry) {
	for _, e := range entries {
		if e.Paper != "" && e.Paper != paperName {
			panic(fmt.Sprintf("paper %s: audit %s registered under paper %s", paperName, e.ID, e.Paper))
		}
		e.Paper = paperName
		audit.Register(e)
	}
}
