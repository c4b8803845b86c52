package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fedrepro/fedrepro/internal/texttable"
	"github.com/fedrepro/fedrepro/proofs"
	"github.com/fedrepro/fedrepro/reproduce/attack"
)

// `fedrepro attack --paper P` runs the attack audits of reproduce/attack:
// the paper's own training code on the real data with canaries, an
// empirical ε_lb per private algorithm beside the claimed ε and the
// accountant's upper bound.

func init() {
	register(command{
		Name:    "attack",
		Summary: "attack the training that was run: canary audits giving empirical ε lower bounds",
		Description: "Runs, for each private algorithm a paper reproduces, the paper's own training code on the real data with canaries " +
			"(white-box gradient canaries or outlier examples) and bounds ε from what the threat model lets an adversary see " +
			"(each DP-SGD step, each released global model, each message or upload a curious server receives): a multi-run game " +
			"with a calibrated threshold, the Clopper–Pearson bound ε_lb at 95 % confidence, the most that trial budget could show " +
			"(budget-limited: yes when the test made no error, so more trials would raise ε_lb), and for plain Gaussian releases " +
			"the Gaussian fit of the scores (μ with its interval) and ε of μ_lo composed over the run (an estimate). " +
			"Smoke takes seconds; default is the evidence the reports quote (minutes).",
		Examples: []string{"fedrepro attack --paper normec --scale smoke", "fedrepro attack --paper haar --json", "fedrepro attack --paper upcycled --only output"},
		Run:      runAttack,
	})
}

// attackReport is the --json document.
type attackReport struct {
	Paper string       `json:"paper"`
	Scale string       `json:"scale"`
	Seed  uint64       `json:"seed"`
	Rows  []attack.Row `json:"attacks"`
}

func runAttack(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("attack", stderr)
	paper := fs.String("paper", "", "paper to attack (one of "+strings.Join(attack.Papers(), ", ")+")")
	scale := fs.String("scale", attack.Default, "smoke (seconds) or default (minutes)")
	asJSON := fs.Bool("json", false, `print JSON: {"paper", "scale", "seed", "attacks": [rows]}`)
	seed := fs.Uint64("seed", proofs.DefaultSeed, "seed of every random stream")
	dataDir := fs.String("data-dir", "", "directory holding Fashion-MNIST's IDX files (default: the Debian package's location)")
	only := fs.String("only", "", "run only the audits whose id contains this")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkPaper(*paper); err != nil {
		return err
	}
	if *scale != attack.Smoke && *scale != attack.Default {
		return usagef("--scale %q: want smoke or default", *scale)
	}
	has := false
	for _, p := range attack.Papers() {
		has = has || p == *paper
	}
	if !has {
		if *asJSON {
			return writeJSON(stdout, attackReport{Paper: *paper, Scale: *scale, Seed: *seed, Rows: []attack.Row{}})
		}
		_, err := fmt.Fprintf(stdout, "%s: no attack audits (the paper states no privacy figure)\n", *paper)
		return err
	}
	rows, err := attack.Run(*paper, attack.Options{Seed: *seed, Scale: *scale, DataDir: *dataDir, SharedDir: defaultShared(), Only: *only})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, attackReport{Paper: *paper, Scale: *scale, Seed: *seed, Rows: rows})
	}
	return printAttack(stdout, *paper, *scale, rows)
}

// printAttack writes the rows as one table plus a line per audit with its
// threat model and design.
func printAttack(w io.Writer, paper, scale string, rows []attack.Row) error {
	fmt.Fprintf(w, "Attack audits of %s (%s scale): ε_lb holds with 95%% confidence (Clopper–Pearson); ε_gdp(μ_lo) is an estimate under the Gaussian model.\n\n", paper, scale)
	t := texttable.Table{Header: []string{"audit", "claimed ε", "accountant ε (run)", "accountant ε (trial)", "ε_lb", "ε_lb max", "budget-limited", "μ [95% CI]", "ε_gdp(μ_lo)", "refutes", "trials", "wall s"},
		Align: "lrrrrrlrrlrr"}
	for _, r := range rows {
		if r.Skipped != "" {
			t.Add(r.ID, attackNum(r.Claimed), "", "", "skipped", "", "", "", "", "", "", "")
			continue
		}
		mu := ""
		if !math.IsNaN(r.Mu) {
			mu = fmt.Sprintf("%.3g [%.3g, %.3g]", r.Mu, r.MuLo, r.MuHi)
		}
		ref := "no"
		switch {
		case r.Refutes:
			ref = "yes (bound)"
		case r.RefutesGDP:
			ref = "estimate only"
		}
		cost := fmt.Sprintf("%d+%d", r.Trials, r.Calibration)
		if r.Canaries > 0 {
			cost = fmt.Sprintf("1+1 runs, %d canaries (%d/%d right)", r.Canaries, r.Correct, r.Guesses)
		}
		t.Add(r.ID, attackNum(r.Claimed), attackNum(r.Accountant), attackNum(r.AccountantTrial), fmt.Sprintf("%.3f", r.EpsLB), fmt.Sprintf("%.3f", r.EpsLBMax),
			attackYesNo(r.BudgetLimited), mu, attackNum(r.EpsGDPLo), ref, cost, fmt.Sprintf("%.1f", r.WallSeconds))
	}
	if err := t.Render(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Skipped != "" {
			fmt.Fprintf(w, "- %s: skipped: %s\n", r.ID, r.Skipped)
			continue
		}
		if k := r.Algorithm + r.ThreatModel; !seen[k] {
			seen[k] = true
			fmt.Fprintf(w, "- %s — %s. Threat model: %s. Design: %s. Claimed: %s. Accountant: %s.\n", r.ID, r.Algorithm, r.ThreatModel, r.Design, r.ClaimSource, r.AccountantName)
		}
	}
	fmt.Fprintln(w, "\ntrials = evaluation + calibration trials per side (D: null example, D′: canary), or for one-run audits the calibration and evaluation runs with their canaries and correct guesses; ε_lb max = the bound of an error-free test (all guesses right) on the same budget; budget-limited = no false positive or negative (no wrong guess), so more trials (canaries) would raise ε_lb.")
	return nil
}

func attackNum(x float64) string {
	switch {
	case math.IsNaN(x):
		return ""
	case math.IsInf(x, 1):
		return "∞"
	}
	return fmt.Sprintf("%.4g", x)
}

func attackYesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
