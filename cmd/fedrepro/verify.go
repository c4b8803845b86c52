package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/fedrepro/fedrepro/internal/texttable"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/gate"
	"github.com/fedrepro/fedrepro/reproduce/report"
)

func init() {
	register(command{
		Name:    "verify",
		Summary: "run a paper's claim checks and print verdicts with evidence",
		Description: "Runs every executable check of a paper's claims (lemmas, theorems, formulas, errata) and prints each verdict — holds, " +
			"holds-with-erratum, refuted or inconclusive — with its kind (computation: decided by running this project's implementations; " +
			"algebra: a check of the paper's own algebra), the evidence and the verdict recorded in golden/<paper>/claims.yaml. " +
			"--strict exits 1 when a verdict differs from the recorded one.",
		Examples: []string{"fedrepro verify --paper normec", "fedrepro verify --paper fedddpm --json --quick"},
		Run:      cmdVerify,
	})
}

func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", stderr)
	name := fs.String("paper", "", required+"paper: "+fmt.Sprint(knownPapers))
	jsonOut := fs.Bool("json", false, "print JSON: {paper, claims: [{id, source, statement, kind, verdict, expected, evidence, values}]}")
	quick := fs.Bool("quick", false, "reduced sample sizes (same verdicts, less evidence)")
	seed := fs.Uint64("seed", proofs.DefaultSeed, "seed of the checks' random streams")
	golden := fs.String("golden", "golden", "golden directory with <paper>/claims.yaml (expected verdicts)")
	strict := fs.Bool("strict", false, "exit 1 when a verdict differs from the recorded one")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkPaper(*name); err != nil {
		return err
	}
	claims := proofs.Claims(*name)
	recorded, _ := gate.ReadClaims(gate.ClaimsPath(*golden, *name))
	expected := recorded.Verdicts()
	type row struct {
		ID        string         `json:"id"`
		Source    string         `json:"source"`
		Statement string         `json:"statement"`
		Kind      proofs.Kind    `json:"kind"`
		Verdict   proofs.Verdict `json:"verdict"`
		Expected  proofs.Verdict `json:"expected,omitempty"`
		Evidence  string         `json:"evidence"`
		Values    any            `json:"values,omitempty"`
	}
	rows := make([]row, 0, len(claims))
	var changed []string
	cfg := proofs.Config{Seed: *seed, Quick: *quick}
	for _, c := range claims {
		res := proofs.Run(c, cfg)
		r := row{ID: c.ID, Source: c.Source, Statement: c.Statement, Kind: c.KindOf(), Verdict: res.Verdict, Expected: expected[c.ID], Evidence: res.Evidence}
		if res.Values != nil {
			r.Values = report.Sanitize(map[string]any(res.Values))
		}
		if r.Expected != "" && r.Expected != r.Verdict {
			changed = append(changed, c.ID)
		}
		rows = append(rows, r)
	}
	if *jsonOut {
		if err := writeJSON(stdout, map[string]any{"paper": *name, "claims": rows}); err != nil {
			return err
		}
	} else if len(rows) == 0 {
		fmt.Fprintf(stdout, "%s: no claims yet\n", *name)
	} else {
		t := &texttable.Table{Header: []string{"claim", "kind", "source", "verdict", "recorded"}}
		counts := map[proofs.Verdict]int{}
		for _, r := range rows {
			rec := string(r.Expected)
			if rec == "" {
				rec = "—"
			} else if r.Expected != r.Verdict {
				rec += " (CHANGED)"
			}
			t.Add(r.ID, string(r.Kind), r.Source, string(r.Verdict), rec)
			counts[r.Verdict]++
		}
		fmt.Fprint(stdout, t.String())
		fmt.Fprintf(stdout, "\n%d claims: %d holds, %d holds with erratum, %d refuted, %d inconclusive\n\n",
			len(rows), counts[proofs.Holds], counts[proofs.HoldsWithErratum], counts[proofs.Refuted], counts[proofs.Inconclusive])
		for _, r := range rows {
			fmt.Fprintf(stdout, "%s [%s] %s\n  %s\n", r.ID, r.Verdict, r.Statement, strings.ReplaceAll(r.Evidence, "\n", "\n  "))
		}
	}
	if *strict && len(changed) > 0 {
		return fmt.Errorf("%d verdicts differ from %s/%s/claims.yaml: %s", len(changed), *golden, *name, strings.Join(changed, ", "))
	}
	return nil
}
