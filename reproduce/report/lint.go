package report

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/proofs"
)

// localData matches a path into the project's private shared folder
// (../shared/datasets/NAME, /abs/shared/datasets/NAME): a user's clone has
// no such folder, so reports name the data set instead.
var localData = regexp.MustCompile(`(?:[\w.~-]*/)*shared/datasets/([\w-]+(?:\.[\w-]+)*)`)

// PublicText rewrites local data locations in text that reaches a report
// (claim evidence, audit notes) into the data set's name as `fedrepro data`
// lists it.
func PublicText(s string) string { return localData.ReplaceAllString(s, "`$1`") }

// ClaimsFinding is the findings sentence of a paper's claim verdicts
// (counts as returned by Claims).
func ClaimsFinding(paper string, counts map[string]int) string {
	n := 0
	for _, c := range counts {
		n += c
	}
	if n == 0 {
		return fmt.Sprintf("No claim checks are registered for %s.", paper)
	}
	return fmt.Sprintf("Claim checks (`fedrepro verify --paper %s`): of %d, %d hold, %d hold with an erratum, %d are refuted and %d are inconclusive.",
		paper, n, counts[string(proofs.Holds)], counts[string(proofs.HoldsWithErratum)], counts[string(proofs.Refuted)], counts[string(proofs.Inconclusive)])
}

// FirstScreen is how many lines of a report a reader sees first: the
// findings and the contents must start within them.
const FirstScreen = 40

// Lint checks a rendered report for what a reader and a user's clone need:
// it opens with its title, the findings (at least three) and the contents
// within the first screen; it cites no path of the project's private
// shared folder; and every claim or audit id it cites (`paper/id`, for the
// given paper prefixes) is known. It returns one line per problem.
func Lint(md string, prefixes []string, known func(id string) bool) []string {
	var out []string
	lines := strings.Split(md, "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "# ") {
		out = append(out, "the report does not start with a level-1 title (\"# \")")
	}
	find := func(h string) int {
		for i, l := range lines {
			if strings.TrimSpace(l) == h {
				return i
			}
		}
		return -1
	}
	f, c := find("## Findings at a glance"), find("## Contents")
	switch {
	case f < 0:
		out = append(out, "no \"## Findings at a glance\" section")
	case f >= FirstScreen:
		out = append(out, fmt.Sprintf("\"## Findings at a glance\" starts at line %d, after the first screen (%d lines)", f+1, FirstScreen))
	default:
		items := 0
		for _, l := range lines[f+1:] {
			if strings.HasPrefix(l, "## ") {
				break
			}
			if strings.HasPrefix(l, "- ") {
				items++
			}
		}
		if items < 3 {
			out = append(out, fmt.Sprintf("\"## Findings at a glance\" has %d items, want at least 3", items))
		}
	}
	switch {
	case c < 0:
		out = append(out, "no \"## Contents\" section")
	case c >= FirstScreen:
		out = append(out, fmt.Sprintf("\"## Contents\" starts at line %d, after the first screen (%d lines)", c+1, FirstScreen))
	}
	for i, l := range lines {
		if strings.Contains(l, "shared/") {
			out = append(out, fmt.Sprintf("line %d cites a path of the private shared folder: %s", i+1, OneLine(l, 120)))
		}
	}
	for _, id := range CitedIDs(md, prefixes) {
		if !known(id) {
			out = append(out, fmt.Sprintf("cites %s, which is neither a registered claim nor an audit", id))
		}
	}
	return out
}

// CitedIDs returns the distinct ids "<prefix>/<name>" cited in md, sorted:
// a prefix not preceded by a path character and a name not followed by
// "/" (so golden/upcycled/paper.yaml and audit game ids are not citations).
func CitedIDs(md string, prefixes []string) []string {
	if len(prefixes) == 0 {
		return nil
	}
	quoted := make([]string, len(prefixes))
	for i, p := range prefixes {
		quoted[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile(`(?:` + strings.Join(quoted, "|") + `)/[A-Za-z0-9](?:[\w.-]*\w)?`)
	seen := map[string]bool{}
	var out []string
	for _, m := range re.FindAllStringIndex(md, -1) {
		if m[0] > 0 && isPathByte(md[m[0]-1]) {
			continue
		}
		if m[1] < len(md) && md[m[1]] == '/' {
			continue
		}
		id := md[m[0]:m[1]]
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

func isPathByte(b byte) bool {
	return b == '/' || b == '.' || b == '-' || b == '_' ||
		(b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// LintReport lints a paper's rendered report against the claim and audit
// registries (every paper with registered claims or audits is a prefix).
func LintReport(paper, md string) []string {
	known := map[string]bool{}
	prefixes := map[string]bool{paper: true}
	for _, p := range append(proofs.Papers(), audit.RegisteredPapers()...) {
		prefixes[p] = true
	}
	for p := range prefixes {
		for _, c := range proofs.Claims(p) {
			known[c.ID] = true
		}
		for _, e := range audit.Entries(p) {
			known[e.Paper+"/"+e.ID] = true
		}
	}
	var ps []string
	for p := range prefixes {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return Lint(md, ps, func(id string) bool { return known[id] })
}

// LintHeadline checks that a summary's headline is filled: title, a public
// link, what was reproduced, at least one relation, the claim counts of
// the paper's registered checks, and the run count.
func LintHeadline(s *Summary, wantClaims, wantRuns int) []string {
	h := s.Headline
	if h == nil {
		return []string{"summary.json has no headline"}
	}
	var out []string
	if h.Title == "" || h.Reproduced == "" {
		out = append(out, "headline: empty title or reproduced")
	}
	if !strings.HasPrefix(h.Link, "https://") {
		out = append(out, fmt.Sprintf("headline: link %q is not a public https address", h.Link))
	}
	if len(h.Relations) == 0 {
		out = append(out, "headline: no relations")
	}
	for _, r := range h.Relations {
		if r.Name == "" || r.Ours == "" || r.Paper == "" {
			out = append(out, fmt.Sprintf("headline: incomplete relation %+v", r))
		}
	}
	n := 0
	for _, c := range h.Claims {
		n += c
	}
	if n != wantClaims {
		out = append(out, fmt.Sprintf("headline: %d claim verdicts counted, %d checks registered", n, wantClaims))
	}
	if h.Runs != wantRuns {
		out = append(out, fmt.Sprintf("headline: %d runs, the report read %d results", h.Runs, wantRuns))
	}
	return out
}
