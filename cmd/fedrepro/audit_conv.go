package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	conv "github.com/fedrepro/fedrepro/algorithms/audit/convergence"
	convclaims "github.com/fedrepro/fedrepro/claims/convergence"
	"github.com/fedrepro/fedrepro/internal/texttable"
	"github.com/fedrepro/fedrepro/proofs"
)

// `fedrepro audit --claim FILE` dispatches here when FILE declares
// `format: fedrepro-convergence/1` (or names a built-in convergence claim,
// claims/convergence/): the convergence engine searches the theorem's class
// for a counterexample and prints one line per reading (verdict, worst
// measured/bound, the instance family, how the expectation was computed),
// or the Report as JSON (--json). --budget scales the search, --save FILE
// writes the worst instance (the counterexample when violated), and
// --instance FILE re-measures a saved instance.

// convClaimArg returns the --claim argument of args, if any.
func convClaimArg(args []string) string {
	for i, a := range args {
		for _, p := range []string{"--claim=", "-claim="} {
			if v, ok := strings.CutPrefix(a, p); ok {
				return v
			}
		}
		if (a == "--claim" || a == "-claim") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// loadConvClaim reads a convergence claim from a file or the library; ok
// is false when arg is neither (the privacy engine handles it).
func loadConvClaim(arg string) (*conv.Claim, bool, error) {
	if arg == "" {
		return nil, false, nil
	}
	b, err := os.ReadFile(arg)
	switch {
	case err == nil:
		if !conv.IsConvergence(b) {
			return nil, false, nil
		}
		c, err := conv.Decode(arg, b)
		return c, true, err
	case errors.Is(err, fs.ErrNotExist):
		if _, e := convclaims.Source(arg); e == nil {
			c, err := convclaims.Load(arg)
			return c, true, err
		}
	}
	return nil, false, nil
}

// auditConvergence handles `audit --claim` for convergence claims; handled
// is false when the claim is not one.
func auditConvergence(args []string, stdout, stderr io.Writer) (handled bool, err error) {
	c, ok, err := loadConvClaim(convClaimArg(args))
	if !ok {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	fs := newFlagSet("audit", stderr)
	fs.String("claim", "", "convergence claim file (format fedrepro-convergence/1) or built-in id")
	asJSON := fs.Bool("json", false, "print the report as JSON (schema_version 1)")
	seed := fs.Uint64("seed", proofs.DefaultSeed, "seed of every random stream of the search")
	budget := fs.Float64("budget", 1, "multiply the claim's search budget (draws, adversarial evaluations, Monte-Carlo replicates)")
	save := fs.String("save", "", "write the worst instance of the first reading (the counterexample when violated) to this JSON file")
	inst := fs.String("instance", "", "re-measure a saved instance file instead of searching")
	if err := parseFlags(fs, args); err != nil {
		return true, err
	}
	if fs.NArg() > 0 {
		return true, usagef("unexpected argument %q", fs.Arg(0))
	}
	if *budget <= 0 || *budget > 1000 {
		return true, usagef("--budget %g: want a factor in (0, 1000]", *budget)
	}
	if *inst != "" {
		b, err := os.ReadFile(*inst)
		if err != nil {
			return true, fmt.Errorf("reading the instance file: %w", err)
		}
		var f conv.InstanceFile
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return true, fmt.Errorf("%s: %v", *inst, err)
		}
		ev, err := conv.Replay(c, &f)
		if err != nil {
			return true, err
		}
		if *asJSON {
			return true, writeJSON(stdout, ev)
		}
		verdict := "holds on this instance"
		if ev.Violated {
			verdict = "VIOLATED on this instance"
		}
		_, err = fmt.Fprintf(stdout, "%s (%s) on a %s instance at %s: measured %.10g (%s), bound %.10g, ratio %.6g — %s\n",
			c.ID, f.Reading, ev.Family, pointText(ev.Point), ev.Measured.Value, ev.Measured.Mode, ev.Bound, float64(ev.Ratio), verdict)
		return true, err
	}
	rep, err := conv.Audit(c, conv.Options{Seed: *seed, Budget: *budget})
	if err != nil {
		return true, err
	}
	if *save != "" {
		f := rep.Counterexample(rep.Readings[0].Reading, *seed)
		for _, r := range rep.Readings {
			if r.Verdict == conv.Violated {
				f = rep.Counterexample(r.Reading, *seed)
				break
			}
		}
		if f == nil {
			return true, fmt.Errorf("--save: no instance was evaluated")
		}
		b, _ := json.MarshalIndent(f, "", "  ")
		if err := os.WriteFile(*save, append(b, '\n'), 0o644); err != nil {
			return true, err
		}
	}
	if *asJSON {
		return true, writeJSON(stdout, rep)
	}
	return true, writeConvText(stdout, rep)
}

func pointText(p map[string]float64) string {
	if len(p) == 0 {
		return "the stated parameters"
	}
	b, _ := json.Marshal(p)
	return string(b)
}

func writeConvText(w io.Writer, rep *conv.Report) error {
	fmt.Fprintf(w, "%s — %s\n", rep.ID, rep.Title)
	fmt.Fprintf(w, "paper:    %s, %s (%s, %d) %s\n", rep.Paper.Title, rep.Paper.Authors, rep.Paper.Venue, rep.Paper.Year, rep.Paper.Link)
	fmt.Fprintf(w, "source:   %s\n", rep.Source.Where)
	fmt.Fprintf(w, "quote:    %q\n", oneLine(rep.Source.Quote))
	fmt.Fprintf(w, "method:   %s; class: %s\n", rep.Algorithm, rep.Class)
	fmt.Fprintf(w, "quantity: %s\n\n", rep.Quantity)
	t := texttable.Table{Header: []string{"reading", "verdict", "worst ratio", "measured", "bound", "family", "mode", "evaluations", "families covered"}}
	for _, r := range rep.Readings {
		ratio, meas, bound, fam, mode := "–", "–", "–", "–", "–"
		if wv := r.Worst; wv != nil {
			ratio = fmt.Sprintf("%.4g", float64(wv.Ratio))
			meas = fmt.Sprintf("%.6g", wv.Measured.Value)
			bound = fmt.Sprintf("%.6g", wv.Bound)
			fam, mode = wv.Family, wv.Measured.Mode
		}
		t.Add(r.Reading, r.Verdict, ratio, meas, bound, fam, mode, fmt.Sprint(r.Evaluations), strings.Join(r.Families, ", "))
	}
	if err := t.Render(w); err != nil {
		return err
	}
	for _, r := range rep.Readings {
		fmt.Fprintf(w, "- %s (bound %s): %s\n", r.Reading, r.Bound, r.Reason)
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "  skipped %s\n", s)
		}
	}
	b := rep.Budget
	fmt.Fprintf(w, "budget: %d grid points × %d families (%s) × (%d draws + %d adversarial), %d Monte-Carlo replicates where expectations are not exact, d = %d; %d evaluations\n",
		b.GridPoints, len(b.Families), strings.Join(b.Families, ", "), b.Draws, b.Adversarial, b.MC, b.Dim, b.Evaluations)
	_, err := fmt.Fprintf(w, "verdict: %s — %s\n", strings.ToUpper(rep.Verdict), rep.Summary)
	return err
}
