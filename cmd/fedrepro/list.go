package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/fedrepro/fedrepro/internal/texttable"

	"github.com/fedrepro/fedrepro/algorithms/audit"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

func init() {
	register(command{
		Name:    "list",
		Summary: "list papers, their scales and experiments, claims and audits",
		Description: "Lists every paper fedrepro reproduces: its scales (smoke is what CI gates, default is `make reproduce`, paper is the " +
			"paper's own setting), each scale's experiments with their run counts, and the number of claim checks and audits.",
		Examples: []string{"fedrepro list", "fedrepro list --json"},
		Run:      cmdList,
	})
}

func cmdList(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("list", stderr)
	jsonOut := fs.Bool("json", false, "print JSON: [{paper, title, scales, default_scale, experiments: [{scale, name, runs, description}], claims: [ids], audits: [ids]}]")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	type exp struct {
		Scale       string `json:"scale"`
		Name        string `json:"name"`
		Runs        int    `json:"runs"`
		Description string `json:"description"`
	}
	type entry struct {
		Paper        string   `json:"paper"`
		Title        string   `json:"title"`
		Scales       []string `json:"scales"`
		DefaultScale string   `json:"default_scale"`
		Experiments  []exp    `json:"experiments"`
		Claims       []string `json:"claims"`
		Audits       []string `json:"audits"`
	}
	var out []entry
	for _, name := range knownPapers {
		e := entry{Paper: name, Experiments: []exp{}, Claims: []string{}, Audits: []string{}}
		if p, ok := paper.Lookup(name); ok {
			e.Title, e.Scales, e.DefaultScale = p.Title, p.Scales, p.DefaultScale
			for _, s := range p.Scales {
				exps, err := p.Describe(s)
				if err != nil {
					return fmt.Errorf("%s/%s: %w", name, s, err)
				}
				for _, x := range exps {
					e.Experiments = append(e.Experiments, exp{s, x.Name, x.Runs, x.Description})
				}
			}
		}
		for _, c := range proofs.Claims(name) {
			e.Claims = append(e.Claims, c.ID)
		}
		for _, a := range audit.Entries(name) {
			e.Audits = append(e.Audits, a.ID)
		}
		out = append(out, e)
	}
	if *jsonOut {
		return writeJSON(stdout, map[string]any{"papers": out})
	}
	for i, e := range out {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		title := e.Title
		if title == "" {
			title = "(no reproduction registered yet)"
		}
		fmt.Fprintf(stdout, "%s — %s\n", e.Paper, title)
		if len(e.Scales) > 0 {
			fmt.Fprintf(stdout, "scales: %s (default %s); claims: %d; audits: %d\n", strings.Join(e.Scales, ", "), e.DefaultScale, len(e.Claims), len(e.Audits))
		}
		t := texttable.Table{Header: []string{"scale", "experiment", "runs", "description"}, Align: "llrl"}
		for _, x := range e.Experiments {
			t.Add(x.Scale, x.Name, fmt.Sprint(x.Runs), x.Description)
		}
		if len(t.Rows) > 0 {
			fmt.Fprint(stdout, t.String())
		}
	}
	return nil
}
